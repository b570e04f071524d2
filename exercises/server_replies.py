"""Fourni : pour client.py, les réponses du serveur lues avec un délai, et un arrêt propre.
Servez-vous-en ; ne le modifiez pas. Les six fonctions du haut sont celles que client.py
appelle ; ce qui suit « Sous le capot » n’a pas besoin d’être lu.
Given: for client.py, the server's replies read with a time limit, and a clean stop.
Use it; do not edit it. The six functions at the top are the ones client.py calls; what
follows "Under the hood" need not be read.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from typing import Any, Callable

from jsonrpc_lines import language, todo_line

SILENCE_LIMIT = 5.0  # secondes de silence permises quand une réponse est due / seconds of silence allowed
EXIT_LIMIT = 5.0  # secondes pour s’arrêter une fois l’entrée fermée / seconds to stop once the input is closed
MAX_LINE = 1 << 20  # caractères ; plus long : un serveur cassé / characters; longer: a broken server


def watch(server: subprocess.Popen) -> None:
    """fr : commence à lire les lignes du serveur, pour que next_line les attende avec un délai.
    en: start reading the server's lines, so that next_line can wait for them with a time limit."""
    readers[server] = Reader(server)


def next_line(server: subprocess.Popen) -> str:
    """fr : la prochaine ligne de réponse du serveur, sans son retour à la ligne, en SILENCE_LIMIT s
    au plus ; une notification que le serveur envoie de lui-même est affichée et sautée.
    en: the server's next reply line, without its newline, within SILENCE_LIMIT seconds; a
    notification the server sends on its own is printed and skipped."""
    if server not in readers:  # watch(server) was left out: start now
        watch(server)
    reader = readers[server]
    while True:
        line = reader.next(SILENCE_LIMIT)
        if line is None:  # nothing came in time
            raise ServerProblem("silent", seconds=SILENCE_LIMIT, number=reader.replies + 1)
        if not line:  # it stopped, or it closed its output and lives on
            raise ended(server)
        if len(line) > MAX_LINE:
            raise ServerProblem("too_long", limit=MAX_LINE)
        line = line.rstrip("\r\n")
        if not is_notification(line):
            reader.replies += 1
            return line
        print("<- " + line, flush=True)  # no reply: the transcript shows it, and the client waits on


def read_reply(line: str, number: int) -> dict:
    """fr : la réponse numéro `number` (1 à 6) lue dans sa ligne : un objet JSON dont l’id est `number`.
    en: reply `number` (1 to 6) read from its line: a JSON object whose id is `number`."""
    reply = parsed(line)
    if not isinstance(reply, dict):  # quoted, control characters escaped: what it really wrote
        raise ServerProblem("not_json", line=json.dumps(line[:200], ensure_ascii=False))
    if "id" not in reply:
        raise ServerProblem("no_id", number=number, expected=number)
    if reply["id"] != number or isinstance(reply["id"], bool):  # as JSON: "1" is not 1, true is not 1
        raise ServerProblem("wrong_id", number=number, expected=number,
                            actual=json.dumps(reply["id"], ensure_ascii=False)[:100])
    return reply


def announced_capabilities(replies: list[dict]) -> dict:
    """fr : les capacités du premier initialize accepté (la réponse 3 du serveur de la leçon ; la 2
    d’un serveur qui négocie comme la spécification).
    en: the capabilities of the first initialize that succeeded (reply 3 from the lesson's
    server; reply 2 from a server that negotiates as the spec says)."""
    accepted = [reply for reply in replies if "protocolVersion" in (reply.get("result") or {})]
    explained = accepted[0] if accepted else replies[2]
    capabilities = (explained.get("result") or {}).get("capabilities")
    if not isinstance(capabilities, dict):
        raise ServerProblem("no_capabilities", number=replies.index(explained) + 1,
                            reply=json.dumps(explained, ensure_ascii=False))
    return capabilities


def wait_for_exit(server: subprocess.Popen) -> None:
    """fr : une fois son entrée fermée, le serveur doit s’arrêter de lui-même, avec le code 0.
    en: after its input is closed, the server must stop by itself, with code 0."""
    try:
        code = server.wait(timeout=EXIT_LIMIT)
    except subprocess.TimeoutExpired:
        raise ServerProblem("no_exit", seconds=EXIT_LIMIT) from None
    if code != 0:
        raise ServerProblem("exit_code", code=code)


def run_client(main: Callable[[], None]) -> int:
    """fr : lance main() du client ; ce qui tourne mal devient une ligne sur stderr, et le code 1.
    en: run the client's main(): whatever goes wrong is one line on stderr, and code 1."""
    texts = CLIENT_TEXTS[language()]
    try:
        main()
        return 0
    except (ServerProblem, BrokenPipeError) as problem:
        stop_all()  # first, so that nothing the server still writes comes after the line
        if isinstance(problem, BrokenPipeError):  # it stopped while the client was writing
            problem = ended(list(readers)[-1]) if readers else ServerProblem("exited", code="?", count=0)
        what = texts[problem.key].format(**problem.fields)
        print(texts["problem"].format(what=what), file=sys.stderr, flush=True)
        return 1
    except NotImplementedError as todo:  # a part not written yet: one line
        print(todo_line(todo), file=sys.stderr, flush=True)
        return 1
    finally:
        stop_all()


# ---------------------------------------------------------------- Sous le capot / Under the hood
# fr : rien à lire ici pour la leçon. Les lignes du serveur sont lues dans un fil d’exécution
# (thread) à part, pour que le client puisse n’attendre une réponse qu’un temps borné.
# en: nothing to read here for the lesson. The server's lines are read in a separate thread,
# so that the client can wait for a reply for a limited time only.

CLIENT_TEXTS = {
    "fr": {
        "problem": "Problème : {what}",
        "exited": "le serveur s’est arrêté (code {code}) après {count} réponse(s) sur 6",
        "closed": "le serveur a fermé sa sortie après {count} réponse(s) sur 6, sans s’arrêter",
        "silent": "le serveur n’a rien répondu en {seconds:g} s (réponse {number} sur 6 attendue)",
        "not_json": "le serveur a écrit une ligne qui n’est pas un objet JSON : {line}",
        "too_long": "le serveur a écrit une ligne de plus de {limit} caractères",
        "wrong_id": "réponse {number} : id {expected} attendu, id {actual} reçu",
        "no_id": "réponse {number} : id {expected} attendu, une réponse sans id reçue",
        "no_capabilities": "la réponse {number} n’a pas de result.capabilities : {reply}",
        "no_exit": "le serveur ne s’est pas arrêté {seconds:g} s après la fin de son entrée",
        "exit_code": "le serveur s’est arrêté avec le code {code} au lieu de 0",
    },
    "en": {
        "problem": "Problem: {what}",
        "exited": "the server stopped (code {code}) after {count} of 6 replies",
        "closed": "the server closed its output after {count} of 6 replies, and did not stop",
        "silent": "the server sent nothing for {seconds:g} s (reply {number} of 6 expected)",
        "not_json": "the server wrote a line that is not a JSON object: {line}",
        "too_long": "the server wrote a line longer than {limit} characters",
        "wrong_id": "reply {number}: expected id {expected}, got id {actual}",
        "no_id": "reply {number}: expected id {expected}, got a reply without an id",
        "no_capabilities": "reply {number} has no result.capabilities: {reply}",
        "no_exit": "the server did not stop {seconds:g} s after its input ended",
        "exit_code": "the server stopped with code {code} instead of 0",
    },
}


class ServerProblem(Exception):
    """Ce que le serveur a mal fait : une clé de CLIENT_TEXTS et ses champs.
    Something the server did wrong: a key of CLIENT_TEXTS, and its fields."""

    def __init__(self, key: str, **fields: Any) -> None:
        super().__init__(key)
        self.key, self.fields = key, fields


class Reader:
    """Les lignes d’un serveur, lues dans un thread à mesure qu’elles arrivent.
    A server's lines, read in a thread as they come."""

    def __init__(self, server: Any) -> None:
        self.lines: queue.Queue[str] = queue.Queue(maxsize=64)  # a flooding server is read no faster than used
        self.replies = 0  # reply lines handed to the client so far
        threading.Thread(target=self.read_all, args=(server.stdout,), daemon=True).start()

    def read_all(self, output: Any) -> None:
        while line := output.readline(MAX_LINE + 1):
            self.lines.put(line)
        self.lines.put("")  # the end of its output

    def next(self, seconds: float) -> str | None:
        """The next line ("" at the end of the output), or None when none came in time."""
        try:
            return self.lines.get(timeout=seconds)
        except queue.Empty:
            return None


readers: dict[subprocess.Popen, Reader] = {}  # the servers watched, which run_client stops at the end


def parsed(line: str) -> Any:
    try:
        return json.loads(line)
    except (ValueError, RecursionError):  # RecursionError: "[[[[..." nested too deep
        return None


def is_notification(line: str) -> bool:
    """A method and no id: a message the server sends on its own, no reply."""
    message = parsed(line)
    return isinstance(message, dict) and "method" in message and "id" not in message


def ended(server: subprocess.Popen) -> ServerProblem:
    count = readers[server].replies if server in readers else 0
    try:
        return ServerProblem("exited", code=server.wait(timeout=EXIT_LIMIT), count=count)
    except subprocess.TimeoutExpired:
        return ServerProblem("closed", count=count)


def stop_all() -> None:
    """Stop every server watched, with what it started: client.py gave each a process group
    of its own (start_new_session=True), and a child it started may still hold its pipes."""
    for server in readers:
        try:
            os.killpg(server.pid, signal.SIGKILL)
        except (AttributeError, OSError):  # no process groups (Windows), or nobody left in it
            if server.poll() is None:
                server.kill()
        server.wait()
