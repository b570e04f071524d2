"""Given: the server's replies read with a time limit, and a clean stop, for client.py. Use it;
do not edit it.
Fourni : les réponses du serveur lues avec un délai, et un arrêt propre, pour client.py.
Servez-vous-en ; ne le modifiez pas.
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

SILENCE_LIMIT = 5.0  # seconds a server may stay silent while a reply is owed
EXIT_LIMIT = 5.0  # seconds a server may take to exit once its input is closed
MAX_LINE = 1 << 20  # characters; a longer line is a broken server, not a reply

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
    """Something the server did wrong: a key of CLIENT_TEXTS, and its fields."""

    def __init__(self, key: str, **fields: Any) -> None:
        super().__init__(key)
        self.key, self.fields = key, fields


watched: list[subprocess.Popen] = []  # the servers run_client stops at the end


def watch(server: subprocess.Popen) -> None:
    """Read the server's lines in a thread, so that next_line can wait for one with a time limit."""
    # At most 64 lines ahead: a server that floods its output is read no faster than used.
    server.lines, server.count = queue.Queue(maxsize=64), 0  # type: ignore[attr-defined]
    watched.append(server)

    def read_lines() -> None:
        while line := server.stdout.readline(MAX_LINE + 1):  # type: ignore[union-attr]
            server.lines.put(line)  # type: ignore[attr-defined]
        server.lines.put("")  # type: ignore[attr-defined]  # the end of its output

    threading.Thread(target=read_lines, daemon=True).start()


def next_line(server: Any) -> str:
    """The server's next reply line, without its newline, within SILENCE_LIMIT seconds."""
    while True:
        try:
            line = server.lines.get(timeout=SILENCE_LIMIT)
        except queue.Empty:
            raise ServerProblem("silent", seconds=SILENCE_LIMIT, number=server.count + 1) from None
        if not line:  # it stopped, or it closed its output and lives on
            raise ended(server)
        if len(line) > MAX_LINE:
            raise ServerProblem("too_long", limit=MAX_LINE)
        line = line.rstrip("\r\n")
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            message = None
        if not (isinstance(message, dict) and "method" in message and "id" not in message):
            server.count += 1
            return line
        # A notification (a method, no id) may come at any time. It is no reply: the transcript
        # shows it as a "<- " line, and the client waits on.
        print("<- " + line, flush=True)


def ended(server: Any) -> ServerProblem:
    try:
        return ServerProblem("exited", code=server.wait(timeout=EXIT_LIMIT), count=server.count)
    except subprocess.TimeoutExpired:
        return ServerProblem("closed", count=server.count)


def read_reply(line: str, number: int) -> dict:
    """Reply `number` (1 to 6) read from its line: a JSON object whose id is `number`."""
    try:
        reply = json.loads(line)
    except (ValueError, RecursionError):  # RecursionError: "[[[[..." nested too deep
        reply = None
    if not isinstance(reply, dict):  # quoted, control characters escaped: what it really wrote
        raise ServerProblem("not_json", line=json.dumps(line[:200], ensure_ascii=False))
    if "id" not in reply:
        raise ServerProblem("no_id", number=number, expected=number)
    if reply["id"] != number or isinstance(reply["id"], bool):  # as JSON: "1" is not 1
        raise ServerProblem("wrong_id", number=number, expected=number,
                            actual=json.dumps(reply["id"], ensure_ascii=False)[:100])
    return reply


def announced_capabilities(replies: list[dict]) -> dict:
    """The capabilities of the first initialize that succeeded (reply 3 from the lesson's
    server; reply 2 from a server that negotiates as the spec says)."""
    accepted = [reply for reply in replies if "protocolVersion" in (reply.get("result") or {})]
    explained = accepted[0] if accepted else replies[2]
    capabilities = (explained.get("result") or {}).get("capabilities")
    if not isinstance(capabilities, dict):
        raise ServerProblem("no_capabilities", number=replies.index(explained) + 1,
                            reply=json.dumps(explained, ensure_ascii=False))
    return capabilities


def wait_for_exit(server: subprocess.Popen) -> None:
    """After its input is closed, the server must stop by itself, with code 0."""
    try:
        code = server.wait(timeout=EXIT_LIMIT)
    except subprocess.TimeoutExpired:
        raise ServerProblem("no_exit", seconds=EXIT_LIMIT) from None
    if code != 0:
        raise ServerProblem("exit_code", code=code)


def stop(server: subprocess.Popen) -> None:
    # The whole process group (start_new_session=True made it the server's own), even when the
    # server has exited: a child it started may still hold its pipes.
    try:
        os.killpg(server.pid, signal.SIGKILL)
    except (AttributeError, OSError):  # no process groups (Windows), or nobody left in it
        if server.poll() is None:
            server.kill()
    server.wait()


def run_client(main: Callable[[], None]) -> int:
    """Run the client's main(): whatever goes wrong is one line on stderr, and code 1."""
    texts = CLIENT_TEXTS[language()]
    try:
        main()
        return 0
    except (ServerProblem, BrokenPipeError) as problem:
        for server in watched:  # first, so that nothing it still writes comes after the line
            stop(server)
        if isinstance(problem, BrokenPipeError):  # it stopped while the client was writing
            problem = ended(watched[-1]) if watched else ServerProblem("exited", code="?", count=0)
        what = texts[problem.key].format(**problem.fields)
        print(texts["problem"].format(what=what), file=sys.stderr, flush=True)
        return 1
    except NotImplementedError as todo:  # a part not written yet: one line
        print(todo_line(todo), file=sys.stderr, flush=True)
        return 1
    finally:
        for server in watched:
            stop(server)
