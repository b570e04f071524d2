"""The lesson's scripted client (client2.js), in Python: run it as `python client.py`.

It starts the server.py beside it (or the file named: `python client.py bonus_server.py`),
sends it seven messages in one go, prints each message (`-> `) and each reply (`<- `),
closes the server's input after six replies, then asks a model what the server announced.
server_replies.py (given) waits for the server's lines with a time limit (a notification
the server sends on its own is printed and skipped: it is no reply), and turns whatever goes
wrong into one clear line; jsonrpc_lines.py (given) writes a message as one JSON line.
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


# ---------------------------------------------------------------- client, part 1


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
    # Given: client2.js's first line, spawn("node", ["serveur2.js"]). The server file beside
    # this one, with pipes to its input and output (UTF-8 text; a byte that is not UTF-8 reads
    # as "�"), in a process group of its own, so that it can be stopped with its children.
    server_file = Path(__file__).with_name(sys.argv[1] if len(sys.argv) > 1 else "server.py")
    server = subprocess.Popen([sys.executable, str(server_file)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, encoding="utf-8", errors="replace", start_new_session=True)
    watch(server)  # given: its lines are read in a thread, for next_line
    # ------------------------------------------------------------ client, part 2
    # BEGIN SOLUTION client-2
    # fr: pour chaque message du scénario : ajoutez "jsonrpc": "2.0", affichez "-> " et son JSON
    # fr: (to_json), écrivez-le sur une ligne dans server.stdin ; puis videz (flush) une fois.
    # fr: Lisez ensuite six réponses (next_line, puis read_reply avec le numéro de la réponse,
    # fr: fournis) en affichant "<- " et chaque ligne, et gardez-les dans une liste replies
    # fr: (la partie 3 s’en sert) ; après la sixième, fermez server.stdin.
    # en: for each message of the scenario: add "jsonrpc": "2.0", print "-> " and its JSON
    # en: (to_json), write it on one line to server.stdin; then flush once.
    # en: Then read six replies (next_line, then read_reply with the reply's number, given),
    # en: printing "<- " and each line, and keep them in a list, replies (part 3 uses it);
    # en: after the sixth, close server.stdin.
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
    # ------------------------------------------------------------ client, part 3
    # BEGIN SOLUTION client-3
    # fr: comme client2.js, mais ask (model.py) reçoit d’abord facts(capacités) (fourni), puis la
    # fr: question d’utilisateur TEXT["question"] + les capacités en JSON (announced_capabilities),
    # fr: l’échantillon TEXT["sample"] et 60 jetons. Affichez TEXT["model_says"] puis le texte reçu.
    # en: as client2.js does, but ask (model.py) first gets facts(capabilities) (given), then the
    # en: user question TEXT["question"] + the capabilities as JSON (announced_capabilities), the
    # en: sample TEXT["sample"] and 60 tokens. Print TEXT["model_says"], then the text it got.
    capabilities = announced_capabilities(replies)
    question = {"role": "user", "content": TEXT["question"] + to_json(capabilities)}
    answer = ask([facts(capabilities), question], TEXT["sample"], 60)
    print(TEXT["model_says"] + answer.text, flush=True)
    # END SOLUTION


if __name__ == "__main__":
    sys.exit(run_client(main))
