"""Le client scripté de la leçon (client2.js), en Python : lancez-le avec `python client.py`.
Il lance le server.py posé à côté (ou le fichier nommé : `python client.py bonus_server.py`),
lui envoie sept messages d’un coup, affiche chaque message (`-> `) et chaque réponse (`<- `),
ferme l’entrée du serveur après six réponses, puis demande à un modèle ce que le serveur a
annoncé. server_replies.py (fourni) attend les lignes du serveur avec un délai, et dit en une
ligne ce qui tourne mal ; jsonrpc_lines.py (fourni) écrit un message en une ligne JSON.
The lesson's scripted client (client2.js), in Python: it starts the server beside it, sends it
seven messages in one go, prints each message (`-> `) and each reply (`<- `), closes the
server's input after six replies, then asks a model what the server announced.
"""

import subprocess
import sys
from pathlib import Path

from jsonrpc_lines import language, to_json
from model import ask
from model_setup import facts
from server_replies import announced_capabilities, next_line, read_reply, run_client, wait_for_exit, watch

TEXTS = {
    "fr": {
        "sample": "Il peut lister des outils, et il ne dit pas que sa liste va changer.",
        "question": "En une phrase, dites ce que peut faire un serveur qui annonce ces capacités : ",
        "model_says": "le modèle dit : ",
    },
    "en": {
        "sample": "It can list tools, and it does not say its list will change.",
        "question": "In one sentence, say what a server that announces these capabilities can do: ",
        "model_says": "the model says: ",
    },
}
TEXT = TEXTS[language()]


# ---------------------------------------------------------------- client, partie 1 / part 1


def initialize(request_id: int, version: str) -> dict:
    # BEGIN SOLUTION client-1
    # fr: la requête initialize, sans "jsonrpc" (ajouté à l’envoi) : son id, sa méthode, et en
    # fr: params la version, des capacités vides et clientInfo (name "demo", version "0.1").
    # en: the initialize request, without "jsonrpc" (added when sending): its id, its method,
    # en: and as params the version, empty capabilities and clientInfo (name "demo", version "0.1").
    params = {
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "demo", "version": "0.1"},
    }
    return {"id": request_id, "method": "initialize", "params": params}
    # END SOLUTION


def scenario() -> list[dict]:
    # BEGIN SOLUTION client-1
    # fr: les sept messages de la leçon, dans l’ordre : tools/list (1), initialize 1999-01-01 (2),
    # fr: initialize 2024-11-05 (3), tools/list (4), notifications/initialized (une notification :
    # fr: pas d’id), tools/list (5), resources/list (6).
    # en: the lesson's seven messages, in order: tools/list (1), initialize 1999-01-01 (2),
    # en: initialize 2024-11-05 (3), tools/list (4), notifications/initialized (a notification:
    # en: no id), tools/list (5), resources/list (6).
    return [
        {"id": 1, "method": "tools/list"},
        initialize(2, "1999-01-01"),
        initialize(3, "2024-11-05"),
        {"id": 4, "method": "tools/list"},
        {"method": "notifications/initialized"},
        {"id": 5, "method": "tools/list"},
        {"id": 6, "method": "resources/list"},
    ]
    # END SOLUTION


def main() -> None:
    # Fourni : la première ligne de client2.js, spawn("node", ["serveur2.js"]) : le serveur posé
    # à côté, relié à son entrée et à sa sortie (du texte UTF-8), dans un groupe de processus à
    # lui, pour pouvoir l’arrêter avec ce qu’il a lancé.
    # Given: client2.js's first line: the server beside this file, with pipes to its input and
    # output (UTF-8 text), in a process group of its own, to stop it with what it started.
    server_file = Path(__file__).with_name(sys.argv[1] if len(sys.argv) > 1 else "server.py")
    server = subprocess.Popen([sys.executable, str(server_file)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, encoding="utf-8", errors="replace", start_new_session=True)
    watch(server)  # fourni : ses lignes sont lues pour next_line / given: its lines are read for next_line
    # ------------------------------------------------------------ client, partie 2 / part 2
    # BEGIN SOLUTION client-2
    # fr: comme client2.js : les sept messages du scénario partent d’un coup, chacun en JSON
    # fr: (to_json) sur sa ligne de server.stdin, avec "jsonrpc": "2.0", et affiché "-> " ;
    # fr: Python les garde jusqu’à ce que vous demandiez leur envoi (flush). Chaque réponse
    # fr: reçue s’affiche "<- " telle quelle, et se garde dans une liste replies pour la
    # fr: partie 3 (next_line et read_reply, fournis, l’attendent et la lisent). Après la
    # fr: sixième, le client ferme l’entrée du serveur : c’est ce qui l’arrête.
    # en: as client2.js does: the scenario's seven messages leave in one go, each as JSON
    # en: (to_json) on its line of server.stdin, with "jsonrpc": "2.0", and printed "-> ";
    # en: Python keeps them until you ask for them to be sent (flush). Each reply received is
    # en: printed "<- " as it is, and kept in a list, replies, for part 3 (next_line and
    # en: read_reply, given, wait for it and read it). After the sixth, the client closes the
    # en: server's input: that is what stops it.
    for message in scenario():
        line = to_json({"jsonrpc": "2.0", **message})
        print("-> " + line, flush=True)
        server.stdin.write(line + "\n")
    server.stdin.flush()
    replies = []
    while len(replies) < 6:
        line = next_line(server)
        print("<- " + line, flush=True)
        replies.append(read_reply(line, len(replies) + 1))
    server.stdin.close()
    # END SOLUTION
    wait_for_exit(server)
    # ------------------------------------------------------------ client, partie 3 / part 3
    # BEGIN SOLUTION client-3
    # fr: comme client2.js : ask (de model.py) reçoit d’abord facts(capacités) (fourni : ce
    # fr: qu’elles veulent dire), puis la question d’utilisateur TEXT["question"] suivie des
    # fr: capacités annoncées en JSON (announced_capabilities), l’échantillon TEXT["sample"] et
    # fr: la limite 60 (max_tokens). Le client affiche TEXT["model_says"] puis le texte reçu.
    # en: as client2.js does: ask (from model.py) first gets facts(capabilities) (given: what
    # en: they mean), then the user question TEXT["question"] followed by the announced
    # en: capabilities as JSON (announced_capabilities), the sample TEXT["sample"] and the cap
    # en: 60 (max_tokens). The client prints TEXT["model_says"], then the text it got.
    capabilities = announced_capabilities(replies)
    question = {"role": "user", "content": TEXT["question"] + to_json(capabilities)}
    answer = ask([facts(capabilities), question], TEXT["sample"], 60)
    print(TEXT["model_says"] + answer.text, flush=True)
    # END SOLUTION


if __name__ == "__main__":
    sys.exit(run_client(main))
