"""Given: the plumbing the lesson does not teach. Use it; do not edit it.
Fourni : la plomberie que la leçon n’enseigne pas. Servez-vous-en ; ne le modifiez pas.

Three parts, one per file that imports it: server.py (read and write JSON-RPC lines), client.py
(the server's lines with a time limit, and a clean stop), model.py (the settings, and why no
model answered).
"""

from __future__ import annotations

import json
import math
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
from typing import Any, Callable, NamedTuple
from urllib.parse import urlsplit


def language() -> str:
    """"fr" (the lesson's language) unless LAB_LANG says English."""
    return "en" if os.environ.get("LAB_LANG", "fr").lower().startswith("en") else "fr"


TODO_LINE = {"fr": "À écrire : {part}", "en": "To write: {part}"}


def todo_line(part: object) -> str:
    # A part names itself in both languages ("serveur, partie 1 / server, part 1"): keep one.
    names = str(part).split(" / ")
    return TODO_LINE[language()].format(part=names[-1] if language() == "en" else names[0])


# ---------------------------------------------------------------- for server.py

class InvalidRequest(Exception):
    """JSON, but no JSON-RPC request: answer -32600 with this id (None without a good one).
    Not a ValueError, which means "not JSON" (-32700): the two answers never mix up."""

    def __init__(self, request_id: Any = None) -> None:
        super().__init__("invalid request")
        self.id = request_id


def json_number(text: str) -> float:
    # Python reads NaN, Infinity and 1e400 (as infinity). JSON has no such numbers, and a reply
    # that gave one back (as the -32602 error gives the version back) would not be JSON.
    number = float(text)
    if math.isinf(number) or math.isnan(number):
        raise ValueError(f"{text} is not a JSON number")
    return number


# Made once: json.loads and json.dumps with options make a new decoder or encoder at each call.
DECODER = json.JSONDecoder(parse_constant=json_number, parse_float=json_number)
ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
MAX_DEPTH = 500  # Python reads about 990 levels, and writes fewer back: a reply may echo a value


def depth(value: Any) -> int:
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else None
    return 0 if children is None else 1 + max(map(depth, children), default=0)


def read_message(line: str) -> dict | None:
    """One input line as a request or a notification; None when nothing is owed (a blank line,
    or a reply: this server sends no request). ValueError: not JSON. InvalidRequest: no request."""
    if not line.strip():
        return None
    try:
        message = DECODER.decode(line)
        too_deep = line.count("[") + line.count("{") > MAX_DEPTH and depth(message) > MAX_DEPTH
    except RecursionError:  # so deep that Python cannot even read it
        too_deep = True
    if too_deep:
        raise ValueError("nested too deep")
    if not isinstance(message, dict):  # a number, a string, or a batch (an array)
        raise InvalidRequest()
    if "method" not in message and ("result" in message or "error" in message):
        return None
    request_id = message.get("id")
    # MCP ids are strings or integers (not true, not 1.0); 0 and "" are ids like any other.
    id_ok = isinstance(request_id, str) or (isinstance(request_id, int) and not isinstance(request_id, bool))
    if ("id" in message and not id_ok) or message.get("jsonrpc") != "2.0" \
            or not isinstance(message.get("method"), str) or not isinstance(message.get("params", {}), dict):
        raise InvalidRequest(request_id if id_ok else None)
    return message


def to_json(value: Any) -> str:
    """JSON on one line, compact, accents as they are: what JavaScript's JSON.stringify writes."""
    return ENCODER.encode(value)


def use_utf8_stdio() -> None:
    # Whatever the system's default. A byte that is not UTF-8 reads as "�" (as in Node's
    # readline: the line is still answered), a line ends at "\n" only, and a lone surrogate a
    # client sent as "\udc80" goes back as that same escape.
    sys.stdin.reconfigure(encoding="utf-8", errors="replace", newline="\n")  # type: ignore[union-attr]
    sys.stdout.reconfigure(encoding="utf-8", errors="backslashreplace")  # type: ignore[union-attr]


# ---------------------------------------------------------------- for client.py

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


# ---------------------------------------------------------------- for model.py

REASONS = {
    "fr": {
        "bad_url": "AI_URL invalide : {value!r}",
        "bad_timeout": "AI_TIMEOUT invalide : {value!r}",
        "refused": "connexion refusée par {address}",
        "unknown_host": "hôte inconnu : {host}",
        "unreachable": "{address} injoignable",
        "timeout": "pas de réponse en {seconds:g} s",
        "closed": "connexion fermée par {address}",
        "status": "statut HTTP {status}",
        "unreadable": "réponse illisible",
        "no_text": "réponse sans texte",
        "other": "{error}",
    },
    "en": {
        "bad_url": "invalid AI_URL: {value!r}",
        "bad_timeout": "invalid AI_TIMEOUT: {value!r}",
        "refused": "connection refused by {address}",
        "unknown_host": "unknown host: {host}",
        "unreachable": "{address} unreachable",
        "timeout": "no answer within {seconds:g} s",
        "closed": "connection closed by {address}",
        "status": "HTTP status {status}",
        "unreadable": "unreadable answer",
        "no_text": "answer with no text",
        "other": "{error}",
    },
}


class Answer(NamedTuple):
    text: str
    recorded: bool  # True when `text` is the recorded sample, not a model's words


class NoModel(Exception):
    """No model answered: a key of REASONS, and its fields."""

    def __init__(self, reason: str, **fields: object) -> None:
        super().__init__(reason)
        self.reason, self.fields = reason, fields


class Settings(NamedTuple):
    url: str  # AI_URL with /v1 added: the base_url of the openai SDK
    key: str
    model: str
    timeout: float  # seconds
    lang: str
    raw_url: str  # AI_URL and AI_TIMEOUT as written, for check_model_address
    raw_timeout: str


def seconds(text: str) -> float:
    """A positive, finite number of seconds, else NaN."""
    try:
        number = float(text)
    except ValueError:
        return math.nan
    return number if 0 < number < math.inf else math.nan


def model_settings() -> Settings:
    """AI_URL (http://ai:4000), AI_KEY (lab), AI_MODEL (lab), AI_TIMEOUT (30), LAB_LANG (fr):
    from the environment, then the nearest .env file for what the environment lacks."""
    try:
        from dotenv import find_dotenv, load_dotenv
    except ImportError:  # no python-dotenv here: the environment alone
        pass
    else:
        load_dotenv(find_dotenv(usecwd=True))
    get = os.environ.get
    raw_url, raw_timeout = get("AI_URL", "http://ai:4000"), get("AI_TIMEOUT", "30")
    base, timeout = raw_url.strip().rstrip("/"), seconds(raw_timeout)
    # A wrong AI_TIMEOUT counts as 30 here; check_model_address says it is wrong.
    return Settings(base if base.endswith("/v1") else base + "/v1", get("AI_KEY", "lab"), get("AI_MODEL", "lab"),
                    30.0 if math.isnan(timeout) else timeout, language(), raw_url, raw_timeout)


def check_model_address(settings: Settings) -> None:
    """Raises NoModel at once when the settings are wrong or nothing listens at AI_URL."""
    # A plain TCP connection: with no model around (a classroom's usual case) it fails in a
    # millisecond, before the openai SDK (half a second to import) is even loaded.
    timeout = seconds(settings.raw_timeout)
    if math.isnan(timeout):
        raise NoModel("bad_timeout", value=settings.raw_timeout)
    try:
        parts = urlsplit(settings.raw_url.strip())
        host, port = parts.hostname, parts.port
    except ValueError:  # a port that is not a number, or an unclosed "[" (IPv6)
        raise NoModel("bad_url", value=settings.raw_url) from None
    if parts.scheme not in ("http", "https") or not host:
        raise NoModel("bad_url", value=settings.raw_url)
    port = (443 if parts.scheme == "https" else 80) if port is None else port  # port 0 is a port
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except ConnectionRefusedError:
        raise NoModel("refused", address=f"{host}:{port}") from None
    except (socket.gaierror, UnicodeError):  # UnicodeError: a name no DNS can carry
        raise NoModel("unknown_host", host=host) from None
    except socket.timeout:
        raise NoModel("timeout", seconds=timeout) from None
    except OSError:
        raise NoModel("unreachable", address=f"{host}:{port}") from None


def why_no_model(error: BaseException, settings: Settings) -> str:
    """Why no model answered, in a few words, in the settings' language."""
    found = reason_of(error, settings)
    return REASONS[settings.lang][found.reason].format(**found.fields)


def reason_of(error: BaseException, settings: Settings) -> NoModel:
    openai = sys.modules.get("openai")  # its errors can only come from it once it is imported
    if isinstance(error, NoModel):
        return error
    if openai and isinstance(error, openai.APITimeoutError):
        return NoModel("timeout", seconds=settings.timeout)
    if openai and isinstance(error, openai.APIStatusError):
        return NoModel("status", status=error.status_code)
    if openai and isinstance(error, openai.APIConnectionError):
        url = error.request.url  # where the request went: AI_URL, unless model.py ignored it
        host, address = url.host, f"{url.host}:{url.port or (443 if url.scheme == 'https' else 80)}"
        causes = [error]  # the SDK wraps the socket's own error: it is down this chain
        while len(causes) < 10 and (causes[-1].__cause__ or causes[-1].__context__):
            causes.append(causes[-1].__cause__ or causes[-1].__context__)  # type: ignore[arg-type]
        if any(isinstance(cause, ConnectionRefusedError) for cause in causes):
            return NoModel("refused", address=address)
        if any(isinstance(cause, socket.gaierror) for cause in causes):
            return NoModel("unknown_host", host=host)
        return NoModel("closed", address=address)
    if openai and isinstance(error, openai.OpenAIError):
        return NoModel("unreadable")
    if isinstance(error, (IndexError, TypeError)):  # no choices, or no message in them
        return NoModel("no_text")
    if isinstance(error, (AttributeError, KeyError, ValueError)):  # a body that is not the JSON expected
        return NoModel("unreadable")
    return NoModel("other", error=f"{type(error).__name__}: {error}"[:200])
