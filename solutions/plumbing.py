"""Given: the plumbing the lesson does not teach. Use it; do not edit it.

Fourni : la plomberie que la leçon n’enseigne pas. Servez-vous-en ; ne le modifiez pas.

- the server: strict JSON-RPC lines (invalid UTF-8, NaN, numbers too big, nesting too
  deep, ids of the wrong type, batches) with `read_message`, and UTF-8 on stdin/stdout;
- the client: the server's process, reading its lines with a time limit, and stopping
  it with everything it started, whatever goes wrong (`start_server`, `next_line`,
  `read_reply`, `wait_for_exit`, `run_client`);
- the model helper: the settings (environment, then a .env file) and the reason, in
  a few words, why no model answered (`model_settings`, `check_model_address`,
  `why_no_model`).

Standard library only, except openai, imported where a model is asked.
"""

from __future__ import annotations

import io
import json
import math
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Callable, NamedTuple, Optional
from urllib.parse import urlsplit


def language() -> str:
    """"fr" (the lesson's language) unless LAB_LANG says English."""
    return "en" if os.environ.get("LAB_LANG", "fr").lower().startswith("en") else "fr"


def in_language(texts: dict[str, tuple[str, str]], lang: Optional[str] = None) -> dict[str, str]:
    """{key: (French, English)} -> {key: the text in this language (by default LAB_LANG's)}."""
    chosen = 1 if (lang or language()) == "en" else 0
    return {key: pair[chosen] for key, pair in texts.items()}


TODO_LINE = {"fr": "À écrire : {part}", "en": "To write: {part}"}


def todo_line(part: object) -> str:
    """The one line that says which part of the lesson is still to write, in one language:
    a placeholder names its part in both ("serveur, partie 1 / server, part 1")."""
    names = str(part).split(" / ")
    name = names[1] if language() == "en" and len(names) == 2 else names[0]
    return TODO_LINE[language()].format(part=name)


# ---------------------------------------------------------------- the server


class InvalidRequest(Exception):
    """Valid JSON, but not a JSON-RPC request or notification: answer -32600 with this id.

    Not a ValueError: the two answers differ, and the order of the two `except` must not matter."""

    def __init__(self, request_id: Any = None) -> None:
        super().__init__("invalid request")
        self.id = request_id


MAX_DEPTH = 500  # deeper than this, a message could not even be written back


def not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")  # Python reads NaN and Infinity; JSON has no such thing


def finite(text: str) -> float:
    number = float(text)
    if math.isinf(number):  # 1e400: no float can carry it, and Infinity is not JSON
        raise ValueError(f"{text} is too big")
    return number


DECODER = json.JSONDecoder(parse_constant=not_json, parse_float=finite)
SCAN = DECODER.scan_once  # (text, index) -> (value, end); StopIteration when nothing JSON is there


def depth(value: Any) -> int:
    deepest, level = 0, [(value, 1)]
    while level:
        item, at = level.pop()
        deepest = max(deepest, at)
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        level.extend((child, at + 1) for child in children)
    return deepest


def is_valid_id(value: Any) -> bool:
    # MCP ids are strings or integers; 0 and "" are ids like any other.
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def read_message(line: str) -> Optional[dict]:
    """One line of input as a JSON-RPC request or notification: JavaScript's strict JSON.parse.

    Raises ValueError when the line is not JSON (answer -32700), InvalidRequest when it
    is JSON but no request (answer -32600); returns None when nothing is owed (a blank
    line, or a reply: this server sends no request, so nothing answers a reply).
    """
    if not line.isascii():
        line.encode("utf-8")  # UnicodeEncodeError (a ValueError): bytes that were not UTF-8
    try:
        if line[:1] == "{":  # the usual line: the C scanner at once, without decode()'s two regexes
            message, end = SCAN(line, 0)
            if line[end:].strip(" \t\n\r"):
                raise ValueError("more after the JSON value")
        elif not line.strip(" \t\n\r"):
            return None
        else:
            message = DECODER.decode(line)
    except StopIteration:
        raise ValueError("not JSON") from None
    except RecursionError:
        raise ValueError("nested too deep") from None
    if len(line) > 2 * MAX_DEPTH and line.count("[") + line.count("{") > MAX_DEPTH and depth(message) > MAX_DEPTH:
        raise ValueError("nested too deep")
    if type(message) is not dict:  # a number, a string, or a batch (an array)
        raise InvalidRequest()
    if "method" not in message and ("result" in message or "error" in message):
        return None
    request_id = message.get("id")
    id_ok = type(request_id) is str or type(request_id) is int  # not bool, not float
    if ("id" in message and not id_ok) or message.get("jsonrpc") != "2.0" \
            or type(message.get("method")) is not str or type(message.get("params", {})) is not dict:
        raise InvalidRequest(request_id if id_ok else None)
    return message


def _not_json(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


try:  # the C encoder, built once: json.dumps builds a new one (and more) at every call
    from json.encoder import c_make_encoder, encode_basestring

    _ENCODE = c_make_encoder(None, _not_json, encode_basestring, None, ":", ",", False, False, False) \
        if c_make_encoder else None
except ImportError:  # another Python than CPython
    _ENCODE = None


def to_json(value: Any) -> str:
    """JSON text as JavaScript's JSON.stringify writes it: on one line, compact, accents as they are.

    json.dumps(value, ensure_ascii=False, separators=(",", ":")) gives the same text, slower.
    """
    if _ENCODE is None or type(value) is not dict:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return "".join(_ENCODE(value, 0))


def use_utf8_stdio() -> None:
    """UTF-8 on stdin and stdout on every system; one line ends at "\\n" only.

    A byte that is not UTF-8 reaches read_message, which refuses it, instead of crashing
    the loop; a lone surrogate a client sent as "\\udc80" goes back as the same escape.
    """
    sys.stdin.reconfigure(encoding="utf-8", errors="surrogateescape", newline="\n")  # type: ignore[union-attr]
    sys.stdout.reconfigure(encoding="utf-8", errors="backslashreplace")  # type: ignore[union-attr]


# ---------------------------------------------------------------- the client

SILENCE_LIMIT = 5.0  # seconds a server may stay silent while a reply is owed
EXIT_LIMIT = 5.0  # seconds a server may take to exit once its input is closed
MAX_LINE = 1 << 20  # bytes; a longer line is a broken server, not a reply

CLIENT_TEXTS = {
    "fr": {
        "problem": "Problème : {what}",
        "exited": "le serveur s’est arrêté (code {code}) après {count} réponse(s) sur 6",
        "closed": "le serveur a fermé sa sortie après {count} réponse(s) sur 6, sans s’arrêter",
        "silent": "le serveur n’a rien répondu en {seconds:g} s (réponse {number} sur 6 attendue)",
        "not_json": "le serveur a écrit une ligne qui n’est pas un objet JSON : {line}",
        "too_long": "le serveur a écrit une ligne de plus de {limit} octets",
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
        "too_long": "the server wrote a line longer than {limit} bytes",
        "wrong_id": "reply {number}: expected id {expected}, got id {actual}",
        "no_id": "reply {number}: expected id {expected}, got a reply without an id",
        "no_capabilities": "reply {number} has no result.capabilities: {reply}",
        "no_exit": "the server did not stop {seconds:g} s after its input ended",
        "exit_code": "the server stopped with code {code} instead of 0",
    },
}


class ServerProblem(Exception):
    """Something the server did wrong: a key of CLIENT_TEXTS and its fields."""

    def __init__(self, key: str, **fields: Any) -> None:
        super().__init__(key)
        self.key = key
        self.fields = fields


class Server(subprocess.Popen):
    """The server's process (a subprocess.Popen), with its lines read by a thread."""

    lines: "queue.Queue[bytes]"
    count = 0  # the lines handed out by next_line


started: list[Server] = []


def start_server(server_file: Optional[str] = None) -> Server:
    """`python server.py` from the client's folder (or the file named on the command line).

    In its own process group, so that a stuck server is stopped with its children;
    stdin takes text (UTF-8); its lines are read by a thread, at most 64 ahead.
    """
    name = server_file or (sys.argv[1] if len(sys.argv) > 1 else "server.py")
    folder = Path(sys.argv[0]).resolve().parent if sys.argv and sys.argv[0] else Path.cwd()
    server = Server([sys.executable, str(folder / name)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                    start_new_session=(os.name == "posix"))
    server.stdin = io.TextIOWrapper(server.stdin, encoding="utf-8")  # type: ignore[arg-type,assignment]
    server.lines = queue.Queue(maxsize=64)
    threading.Thread(target=read_lines, args=(server,), daemon=True).start()
    started.append(server)
    return server


def read_lines(server: Server) -> None:
    while True:
        line = server.stdout.readline(MAX_LINE + 1)  # type: ignore[union-attr]
        server.lines.put(line)
        if not line:
            return


def next_line(server: Server) -> str:
    """The server's next reply line, without its newline; waits at most SILENCE_LIMIT seconds.

    A server may send notifications at any time (JSON-RPC and MCP allow it: a real server
    may say first that its list of tools changed). They are no reply: printed as `<- `
    lines, so that the transcript shows everything the server said, and skipped."""
    while True:
        try:
            raw = server.lines.get(timeout=SILENCE_LIMIT)
        except queue.Empty:
            raise ServerProblem("silent", seconds=SILENCE_LIMIT, number=server.count + 1) from None
        if not raw:  # the end of its output: it stopped, or it closed its stdout and lives on
            raise ended(server)
        if len(raw) > MAX_LINE:
            raise ServerProblem("too_long", limit=MAX_LINE)
        line = raw.decode(errors="replace").rstrip("\r\n")
        if not is_notification(line):
            server.count += 1
            return line
        print("<- " + line, flush=True)


def is_notification(line: str) -> bool:
    """A message from the server with a method and no id: it expects no answer."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return False
    return isinstance(message, dict) and "method" in message and "id" not in message


def ended(server: Server) -> ServerProblem:
    try:
        code = server.wait(timeout=EXIT_LIMIT)
    except subprocess.TimeoutExpired:
        return ServerProblem("closed", count=server.count)
    return ServerProblem("exited", code=code, count=server.count)


def read_reply(line: str, number: int) -> dict:
    """Reply `number` (1 to 6) read from its line: a JSON object whose id is `number`."""
    try:
        reply = json.loads(line)
    except (ValueError, RecursionError):  # RecursionError: "[[[[..." nested too deep
        reply = None
    if not isinstance(reply, dict):
        # In quotes, with its control characters escaped: what the server really wrote.
        raise ServerProblem("not_json", line=json.dumps(line[:200], ensure_ascii=False))
    if "id" not in reply:
        raise ServerProblem("no_id", number=number, expected=json.dumps(number))
    if reply.get("id") != number or isinstance(reply.get("id"), bool):
        # As JSON, so that the string "1" does not read as the number 1.
        actual = json.dumps(reply.get("id"), ensure_ascii=False)[:100]
        raise ServerProblem("wrong_id", number=number, expected=json.dumps(number), actual=actual)
    return reply


def announced_capabilities(replies: list[dict]) -> dict:
    """The capabilities of the first initialize that succeeded (reply 3 for the lesson's
    server; reply 2 for a server that negotiates as the spec says)."""
    accepted = [reply for reply in replies if "protocolVersion" in (reply.get("result") or {})]
    explained = accepted[0] if accepted else replies[2]
    capabilities = (explained.get("result") or {}).get("capabilities")
    if not isinstance(capabilities, dict):
        reply = json.dumps(explained, ensure_ascii=False)
        raise ServerProblem("no_capabilities", number=replies.index(explained) + 1, reply=reply)
    return capabilities


def wait_for_exit(server: Server) -> None:
    """After its input is closed, the server must stop by itself, with code 0."""
    try:
        code = server.wait(timeout=EXIT_LIMIT)
    except subprocess.TimeoutExpired:
        raise ServerProblem("no_exit", seconds=EXIT_LIMIT) from None
    if code != 0:
        raise ServerProblem("exit_code", code=code)


def stop(server: Server) -> None:
    """Kill the server's whole group and reap the server: no zombie, nothing left.

    The group even when the server itself has exited: a child it left behind may
    still run, and hold its pipes open."""
    try:
        os.killpg(server.pid, signal.SIGKILL)  # type: ignore[attr-defined]
    except (AttributeError, OSError):  # no process groups here, or nobody left in it
        if server.poll() is None:
            server.kill()
    server.wait()


def run_client(main: Callable[[], None]) -> int:
    """Run the client's main(): whatever goes wrong is one line on stderr and code 1."""
    texts = CLIENT_TEXTS[language()]
    try:
        main()
        return 0
    except (ServerProblem, BrokenPipeError) as problem:
        for server in started:  # first, so that nothing it still writes comes after the line
            stop(server)
        if isinstance(problem, BrokenPipeError):  # it stopped while the client was writing
            problem = ended(started[-1]) if started else ServerProblem("exited", code="?", count=0)
        what = texts[problem.key].format(**problem.fields)
        print(texts["problem"].format(what=what), file=sys.stderr, flush=True)
        return 1
    except NotImplementedError as todo:  # an exercise part not written yet: one line
        print(todo_line(todo), file=sys.stderr, flush=True)
        return 1
    finally:
        for server in started:
            stop(server)


# ---------------------------------------------------------------- the model helper

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
    """No model answered: a key of REASONS and its fields."""

    def __init__(self, reason: str, **fields: object) -> None:
        super().__init__(reason)
        self.reason = reason
        self.fields = fields


class Settings(NamedTuple):
    url: str  # AI_URL with /v1 added (the SDK's base_url)
    key: str
    model: str
    timeout: float  # seconds
    lang: str
    raw_url: str
    raw_timeout: str


def find_env_file() -> Optional[str]:
    """The nearest .env from the current directory up (as python-dotenv's find_dotenv)."""
    folder = os.getcwd()
    while not os.path.isfile(os.path.join(folder, ".env")):
        if os.path.dirname(folder) == folder:
            return None
        folder = os.path.dirname(folder)
    return os.path.join(folder, ".env")


def model_settings() -> Settings:
    """AI_URL (http://ai:4000), AI_KEY (lab), AI_MODEL (lab), AI_TIMEOUT (30), LAB_LANG (fr).

    The environment wins over a .env file (python-dotenv only fills in what is missing).
    An AI_TIMEOUT that is not a number counts as 30 here; check_model_address says so.
    """
    env_file = find_env_file()
    if env_file:  # python-dotenv is slow to import (it loads logging): only when there is a .env
        from dotenv import load_dotenv

        load_dotenv(env_file)
    raw_url = os.environ.get("AI_URL", "http://ai:4000")
    raw_timeout = os.environ.get("AI_TIMEOUT", "30")
    try:
        timeout = float(raw_timeout)
    except ValueError:
        timeout = math.nan
    base = raw_url.strip().rstrip("/")
    return Settings(base if base.endswith("/v1") else base + "/v1", os.environ.get("AI_KEY", "lab"),
                    os.environ.get("AI_MODEL", "lab"), timeout if 0 < timeout < math.inf else 30.0,
                    language(), raw_url, raw_timeout)


def address_of(settings: Settings) -> tuple[str, int]:
    try:
        parts = urlsplit(settings.raw_url.strip())
        port = parts.port
    except ValueError:  # a port that is not a number, or an unclosed "[" (IPv6)
        raise NoModel("bad_url", value=settings.raw_url) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise NoModel("bad_url", value=settings.raw_url)
    if port is None:  # not `or`: port 0 is a port (a wrong one), not a missing one
        port = 443 if parts.scheme == "https" else 80
    return parts.hostname, port


def check_model_address(settings: Settings) -> None:
    """Raises NoModel at once when the settings are wrong or nothing listens at AI_URL.

    A plain TCP connect: with no model around (the classroom's usual case) it fails in a
    millisecond, before the openai SDK (slow to import) is even loaded."""
    try:
        timeout = float(settings.raw_timeout)
    except ValueError:
        timeout = math.nan
    if not 0 < timeout < math.inf:
        raise NoModel("bad_timeout", value=settings.raw_timeout)
    host, port = address_of(settings)
    address = f"{host}:{port}"
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except ConnectionRefusedError:
        raise NoModel("refused", address=address) from None
    except (socket.gaierror, UnicodeError):  # UnicodeError: a name no DNS can carry
        raise NoModel("unknown_host", host=host) from None
    except socket.timeout:
        raise NoModel("timeout", seconds=timeout) from None
    except OSError:
        raise NoModel("unreachable", address=address) from None


def why_no_model(error: BaseException, settings: Settings) -> str:
    """Why no model answered, in a few words, in the settings' language."""
    found = reason_of(error, settings)
    return REASONS[settings.lang][found.reason].format(**found.fields)


def failed_address(error: BaseException, settings: Settings) -> tuple:
    """The host and port the failed request went to (a helper may not use AI_URL's), else AI_URL's."""
    url = getattr(getattr(error, "request", None), "url", None)
    if getattr(url, "host", None):
        return url.host, url.port or (443 if url.scheme == "https" else 80)
    return address_of(settings)


def reason_of(error: BaseException, settings: Settings) -> NoModel:
    if isinstance(error, NoModel):
        return error
    openai = sys.modules.get("openai")
    if openai is not None:
        if isinstance(error, openai.APITimeoutError):
            return NoModel("timeout", seconds=settings.timeout)
        if isinstance(error, openai.APIStatusError):
            return NoModel("status", status=error.status_code)
        if isinstance(error, openai.APIConnectionError):
            try:
                host, port = failed_address(error, settings)
            except NoModel as bad:
                return bad
            causes = []
            cause: Optional[BaseException] = error
            while cause is not None and len(causes) < 10:
                causes.append(cause)
                cause = cause.__cause__ or cause.__context__
            if any(isinstance(each, ConnectionRefusedError) for each in causes):
                return NoModel("refused", address=f"{host}:{port}")
            if any(isinstance(each, socket.gaierror) for each in causes):
                return NoModel("unknown_host", host=host)
            return NoModel("closed", address=f"{host}:{port}")
        if isinstance(error, openai.OpenAIError):
            return NoModel("unreadable")
    if isinstance(error, (IndexError, TypeError)):  # no choices, or no message in them
        return NoModel("no_text")
    if isinstance(error, (AttributeError, KeyError, ValueError)):  # a body that is not the JSON we expect
        return NoModel("unreadable")
    return NoModel("other", error=f"{type(error).__name__}: {error}"[:200])
