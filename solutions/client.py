"""The lesson's scripted client (client2.js), in Python.

It starts the server.py beside it, sends seven messages in one go, prints each
message (`-> `) and each reply (`<- `), closes the server's input after six
replies, and then asks a model to explain what the server announced.
Another server file beside it can be named: `python client.py bonus_server.py`.

A broken server never makes it hang: every wait has a limit, and whatever goes
wrong is said in one clear line, with a non-zero exit code.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Optional

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # the model.py beside this file, as the lesson requires ./model

from model import ask, load_settings  # noqa: E402

SILENCE_LIMIT = 5.0  # seconds a server may stay silent while a reply is owed
EXIT_LIMIT = 5.0  # seconds a server may take to exit once its input is closed
MAX_LINE = 1 << 20  # bytes; a longer line is a broken server, not a reply

SAMPLE = {
    "fr": "Il peut lister des outils, et il ne dit pas que sa liste va changer.",
    "en": "It can list tools, and it does not say its list will change.",
}
QUESTION = {
    "fr": "En une phrase, dites ce que peut faire un serveur qui annonce ces capacités : ",
    "en": "In one sentence, say what a server that announces these capabilities can do: ",
}
TEXTS = {
    "fr": {
        "model_says": "le modèle dit : {text}",
        "problem": "Problème : {what}",
        "exited": "le serveur s’est arrêté (code {code}) après {count} réponse(s) sur 6",
        "closed": "le serveur a fermé sa sortie après {count} réponse(s) sur 6, sans s’arrêter",
        "silent": "le serveur n’a rien répondu en {seconds:g} s (réponse {number} sur 6 attendue)",
        "not_json": "le serveur a écrit une ligne qui n’est pas un objet JSON : {line}",
        "too_long": "le serveur a écrit une ligne de plus de {limit} octets",
        "wrong_id": "réponse {number} : id {expected} attendu, id {actual} reçu",
        "no_capabilities": "la réponse {number} n’a pas de result.capabilities : {reply}",
        "no_exit": "le serveur ne s’est pas arrêté {seconds:g} s après la fin de son entrée",
        "exit_code": "le serveur s’est arrêté avec le code {code} au lieu de 0",
        "todo": "À écrire : {part}",
    },
    "en": {
        "model_says": "the model says: {text}",
        "problem": "Problem: {what}",
        "exited": "the server stopped (code {code}) after {count} of 6 replies",
        "closed": "the server closed its output after {count} of 6 replies, and did not stop",
        "silent": "the server sent nothing for {seconds:g} s (reply {number} of 6 expected)",
        "not_json": "the server wrote a line that is not a JSON object: {line}",
        "too_long": "the server wrote a line longer than {limit} bytes",
        "wrong_id": "reply {number}: expected id {expected}, got id {actual}",
        "no_capabilities": "reply {number} has no result.capabilities: {reply}",
        "no_exit": "the server did not stop {seconds:g} s after its input ended",
        "exit_code": "the server stopped with code {code} instead of 0",
        "todo": "To write: {part}",
    },
}


class ServerProblem(Exception):
    """Something the server did wrong; the key of TEXTS plus its fields."""

    def __init__(self, key: str, **fields: Any) -> None:
        super().__init__(key)
        self.key = key
        self.fields = fields


# ---------------------------------------------------------------- client, part 1
# The scenario: seven messages in a fixed order.


def initialize(request_id: int, version: str) -> dict:
    # BEGIN SOLUTION client-1
    # fr: la requête initialize (sans "jsonrpc", ajouté à l’envoi) : id, method, et params avec
    # fr: protocolVersion, capabilities {} et clientInfo {"name": "demo", "version": "0.1"}.
    # en: the initialize request (without "jsonrpc", added when sending): id, method, and params
    # en: with protocolVersion, capabilities {} and clientInfo {"name": "demo", "version": "0.1"}.
    return {
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "demo", "version": "0.1"},
        },
    }
    # END SOLUTION


# BEGIN SOLUTION client-1
# fr: les sept messages de la leçon, dans l’ordre : tools/list (1), initialize 1999-01-01 (2),
# fr: initialize 2024-11-05 (3), tools/list (4), la notification notifications/initialized
# fr: (sans id), tools/list (5), resources/list (6).
# en: the lesson's seven messages, in order: tools/list (1), initialize 1999-01-01 (2),
# en: initialize 2024-11-05 (3), tools/list (4), the notification notifications/initialized
# en: (no id), tools/list (5), resources/list (6).
# placeholder: SCENARIO: list[dict] = []
SCENARIO = [
    {"id": 1, "method": "tools/list"},
    initialize(2, "1999-01-01"),
    initialize(3, "2024-11-05"),
    {"id": 4, "method": "tools/list"},
    {"method": "notifications/initialized"},
    {"id": 5, "method": "tools/list"},
    {"id": 6, "method": "resources/list"},
]
# END SOLUTION


# ---------------------------------------------------------------- client, part 2
# Send the seven messages in one go, then read the six replies.


def start_server(server_file: str = "server.py") -> subprocess.Popen:
    # Its own process group, so that a stuck server is killed with its children.
    return subprocess.Popen(
        [sys.executable, str(HERE / server_file)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        start_new_session=(os.name == "posix"),
    )


def read_lines(stream: Any, lines: queue.Queue) -> None:
    # A thread, so that the main thread can wait for a line with a time limit.
    while True:
        line = stream.readline(MAX_LINE + 1)
        lines.put(line)
        if not line:
            return


def send_scenario(server: subprocess.Popen) -> None:
    # BEGIN SOLUTION client-2
    # fr: pour chaque message de SCENARIO, ajoutez "jsonrpc": "2.0", affichez "-> " + son JSON,
    # fr: puis écrivez les sept lignes d’un coup sur server.stdin (et flush) ; un BrokenPipeError
    # fr: veut dire que le serveur est déjà parti : ignorez-le.
    # en: for each message of SCENARIO, add "jsonrpc": "2.0", print "-> " + its JSON, then write
    # en: the seven lines in one go to server.stdin (and flush); a BrokenPipeError means the
    # en: server is gone already: ignore it.
    outgoing = []
    for message in SCENARIO:
        text = json.dumps({"jsonrpc": "2.0", **message}, ensure_ascii=False)
        print("-> " + text, flush=True)
        outgoing.append(text + "\n")
    try:
        server.stdin.write("".join(outgoing).encode())
        server.stdin.flush()
    except BrokenPipeError:
        pass  # the server is gone already; reading its replies will say so
    # END SOLUTION


def read_replies(server: subprocess.Popen, expected_ids: list[int]) -> list[dict]:
    # Bounded: a server that floods its output makes the reader wait, not the memory grow.
    lines: queue.Queue = queue.Queue(maxsize=64)
    threading.Thread(target=read_lines, args=(server.stdout, lines), daemon=True).start()
    replies: list[dict] = []
    for number, expected in enumerate(expected_ids, start=1):
        try:
            raw = lines.get(timeout=SILENCE_LIMIT)
        except queue.Empty:
            raise ServerProblem("silent", seconds=SILENCE_LIMIT, number=number) from None
        if not raw:  # the end of its output: it stopped, or it closed its stdout and lives on
            try:
                code = server.wait(timeout=EXIT_LIMIT)
            except subprocess.TimeoutExpired:
                raise ServerProblem("closed", count=len(replies)) from None
            raise ServerProblem("exited", code=code, count=len(replies))
        if len(raw) > MAX_LINE:
            raise ServerProblem("too_long", limit=MAX_LINE)
        # BEGIN SOLUTION client-2
        # fr: décodez raw (des octets) en une ligne sans son retour à la ligne, affichez "<- " + la
        # fr: ligne, et lisez-la en JSON dans reply (None si ce n’est pas du JSON).
        # en: decode raw (bytes) into a line without its newline, print "<- " + the line, and read
        # en: it as JSON into reply (None when it is not JSON).
        line = raw.decode(errors="replace").rstrip("\r\n")
        print("<- " + line, flush=True)
        try:
            reply = json.loads(line)
        except (ValueError, RecursionError):  # RecursionError: "[[[[..." nested too deep
            reply = None
        # END SOLUTION
        if not isinstance(reply, dict):
            # In quotes, with its control characters escaped: what the server really wrote.
            raise ServerProblem("not_json", line=json.dumps(line[:200], ensure_ascii=False))
        if reply.get("id") != expected:
            # As JSON, so that the string "1" does not read as the number 1.
            actual = json.dumps(reply.get("id"), ensure_ascii=False)[:100]
            raise ServerProblem("wrong_id", number=number, expected=json.dumps(expected), actual=actual)
        replies.append(reply)
    return replies


def finish(server: subprocess.Popen) -> None:
    """Close the server's input, as the lesson does after six replies, and wait for it."""
    # BEGIN SOLUTION client-2
    # fr: fermez l’entrée du serveur (server.stdin) : c’est sa fin de fichier ; ignorez BrokenPipeError.
    # en: close the server's input (server.stdin): that is its end of file; ignore BrokenPipeError.
    try:
        server.stdin.close()
    except BrokenPipeError:
        pass
    # END SOLUTION
    try:
        code = server.wait(timeout=EXIT_LIMIT)
    except subprocess.TimeoutExpired:
        raise ServerProblem("no_exit", seconds=EXIT_LIMIT) from None
    if code != 0:
        raise ServerProblem("exit_code", code=code)


def stop(server: subprocess.Popen) -> None:
    """Kill the server's whole group and reap the server: no zombie, nothing left.

    The group even when the server itself has exited: a child it left behind may
    still run, and hold its pipes open."""
    try:
        os.killpg(server.pid, signal.SIGKILL)
    except (AttributeError, OSError):  # no process groups here, or nobody left in it
        if server.poll() is None:
            server.kill()
    server.wait()


# ---------------------------------------------------------------- client, part 3
# Ask the model what the capabilities of reply 3 mean.


def announced_capabilities(replies: list[dict]) -> dict:
    """The capabilities of the first initialize that succeeded.

    For the lesson's server that is reply 3 (reply 2 refuses 1999-01-01); a server
    that negotiates as the spec says already accepts reply 2's initialize.
    """
    # BEGIN SOLUTION client-3
    # fr: le result.capabilities de la première réponse à un initialize qui a réussi (sinon de
    # fr: la réponse 3) ; si ce n’est pas un objet, levez ServerProblem("no_capabilities", …).
    # en: the result.capabilities of the first reply to an initialize that succeeded (else of
    # en: reply 3); when it is not an object, raise ServerProblem("no_capabilities", …).
    initialize_ids = {message["id"] for message in SCENARIO if message.get("method") == "initialize"}
    accepted = [reply for reply in replies if reply["id"] in initialize_ids and "result" in reply]
    explained = accepted[0] if accepted else replies[2]
    capabilities = (explained.get("result") or {}).get("capabilities")
    if not isinstance(capabilities, dict):
        number = replies.index(explained) + 1
        raise ServerProblem("no_capabilities", number=number, reply=json.dumps(explained, ensure_ascii=False))
    return capabilities
    # END SOLUTION


def explain(capabilities: dict, lang: str) -> str:
    # BEGIN SOLUTION client-3
    # fr: posez QUESTION[lang] suivie des capacités en JSON au modèle : ask([{"role": "user",
    # fr: "content": question}], SAMPLE[lang], 60), et renvoyez le texte de la réponse.
    # en: ask the model QUESTION[lang] followed by the capabilities as JSON: ask([{"role": "user",
    # en: "content": question}], SAMPLE[lang], 60), and return the answer's text.
    question = QUESTION[lang] + json.dumps(capabilities, separators=(",", ":"))
    answer = ask([{"role": "user", "content": question}], SAMPLE[lang], 60)
    return answer.text
    # END SOLUTION


def main(argv: Optional[list[str]] = None) -> int:
    lang = load_settings()["lang"]
    arguments = sys.argv[1:] if argv is None else argv
    server = start_server(arguments[0] if arguments else "server.py")
    try:
        send_scenario(server)
        expected_ids = [message["id"] for message in SCENARIO if "id" in message]
        replies = read_replies(server, expected_ids)
        finish(server)  # as the lesson: input closed after six replies, then the model is asked
        capabilities = announced_capabilities(replies)
    except ServerProblem as problem:
        stop(server)  # first, so that nothing it still writes comes after the problem line
        what = TEXTS[lang][problem.key].format(**problem.fields)
        print(TEXTS[lang]["problem"].format(what=what), file=sys.stderr, flush=True)
        return 1
    finally:
        stop(server)
    print(TEXTS[lang]["model_says"].format(text=explain(capabilities, lang)), flush=True)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except NotImplementedError as todo:  # an exercise part not written yet: one line, no traceback
        print(TEXTS[load_settings()["lang"]]["todo"].format(part=todo), file=sys.stderr, flush=True)
        sys.exit(1)
