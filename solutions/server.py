"""The lesson's MCP server (serveur2.js), in Python.

It speaks JSON-RPC 2.0 over stdio, one JSON object per line, and walks through
three states: new -> waiting -> ready (nouveau, attente, pret).

The protocol logic is a sans-I/O core: `Session.handle_line` takes one line and
returns the reply (or None), and changes the state. The stdio loop at the bottom
is the only place that reads or writes. The bonus server reuses this core with
another negotiation rule: `Session(versions=..., negotiate=...)`.

Standard library only: run it as `python server.py`.
"""

from __future__ import annotations

import enum
import json
import os
import sys
from typing import Any, Callable, Optional

SERVER_INFO = {"name": "mcp-handshake-lab", "version": "0.1.0"}

# The versions this server speaks, newest first.
VERSIONS = ["2025-03-26", "2024-11-05"]

# JSON-RPC 2.0 error codes (https://www.jsonrpc.org/specification#error_object).
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

# The texts on the wire follow the lesson, in French unless LAB_LANG=en.
TEXTS = {
    "fr": {
        "parse_error": "Erreur d’analyse",
        "invalid_request": "Requête invalide",
        "not_initialized": "Pas initialisé",
        "already_initialized": "Déjà initialisé",
        "unsupported_version": "Version non prise en charge",
        "unknown_method": "Méthode inconnue : {method}",
        "internal_error": "Erreur interne",
        "todo": "À écrire : {part}",
    },
    "en": {
        "parse_error": "Parse error",
        "invalid_request": "Invalid request",
        "not_initialized": "Not initialized",
        "already_initialized": "Already initialized",
        "unsupported_version": "Unsupported protocol version",
        "unknown_method": "Unknown method: {method}",
        "internal_error": "Internal error",
        "todo": "To write: {part}",
    },
}


def language() -> str:
    return "en" if os.environ.get("LAB_LANG", "fr").lower().startswith("en") else "fr"


class State(enum.Enum):
    NEW = "nouveau"
    WAITING = "attente"
    READY = "pret"


class RpcError(Exception):
    """An error to send back. Raised anywhere inside; turned into a reply in one place."""

    def __init__(self, code: int, text_key: str, data: Any = None, **fields: str) -> None:
        super().__init__(text_key)
        self.code = code
        self.text_key = text_key
        self.fields = fields
        self.data = data


# ---------------------------------------------------------------- server, part 1
# Building messages: every message carries "jsonrpc": "2.0".


def result_reply(request_id: Any, result: dict) -> dict:
    # BEGIN SOLUTION server-1
    # fr: renvoyez la réponse : "jsonrpc": "2.0", l’id de la requête et son result.
    # en: return the reply: "jsonrpc": "2.0", the request's id and its result.
    # placeholder: return {"todo": "{part}"}  # (dit seulement ce qui manque / only says what is missing)
    return {"jsonrpc": "2.0", "id": request_id, "result": result}
    # END SOLUTION


def error_reply(request_id: Any, code: int, message: str, data: Any = None) -> dict:
    # BEGIN SOLUTION server-1
    # fr: renvoyez la réponse d’erreur : "jsonrpc": "2.0", l’id, et "error": {code, message},
    # fr: avec "data" seulement quand data n’est pas None.
    # en: return the error reply: "jsonrpc": "2.0", the id, and "error": {code, message},
    # en: with "data" only when data is not None.
    # placeholder: return {"todo": "{part}"}  # (dit seulement ce qui manque / only says what is missing)
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}
    # END SOLUTION


# ---------------------------------------------------------------- server, part 2
# Version negotiation: a small pure function, and the initialize handler.

Negotiation = Callable[[Any, list], Optional[str]]


def strict_negotiation(requested: Any, supported: list) -> Optional[str]:
    """The lesson's rule: the requested version if we speak it, otherwise refuse (None)."""
    # BEGIN SOLUTION server-2
    # fr: la version demandée si elle est dans supported, sinon None (le refus).
    # en: the requested version if it is in supported, else None (the refusal).
    return requested if requested in supported else None
    # END SOLUTION


def initialize_result(version: str) -> dict:
    # An announcement is a promise: tools/list is all this server implements,
    # and its list never changes, so listChanged is false.
    # BEGIN SOLUTION server-2
    # fr: le result d’initialize : protocolVersion, capabilities (seulement tools, avec
    # fr: listChanged false : une annonce est une promesse) et serverInfo (SERVER_INFO).
    # en: initialize's result: protocolVersion, capabilities (only tools, with listChanged
    # en: false: an announcement is a promise) and serverInfo (SERVER_INFO).
    return {
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": False}},
        "serverInfo": SERVER_INFO,
    }
    # END SOLUTION


# ---------------------------------------------------------------- server, part 3
# The state machine: which states let each method through (the gate), and the
# only two transitions. A method not named in GATE is open once ready.

# BEGIN SOLUTION server-3
# fr: GATE : pour chaque méthode, les états où elle passe (ping : tous ; initialize : nouveau).
# en: GATE: for each method, the states where it passes (ping: all; initialize: new).
# placeholder: GATE: dict[str, frozenset[State]] = {}
GATE: dict[str, frozenset[State]] = {
    "ping": frozenset(State),
    "initialize": frozenset({State.NEW}),
}
# END SOLUTION
OPEN_WHEN_READY = frozenset({State.READY})

# BEGIN SOLUTION server-3
# fr: TRANSITIONS : (état, méthode) -> nouvel état ; initialize mène à attente, la notification à prêt.
# en: TRANSITIONS: (state, method) -> new state; initialize leads to waiting, the notification to ready.
# placeholder: TRANSITIONS: dict[tuple[State, str], State] = {}
TRANSITIONS: dict[tuple[State, str], State] = {
    (State.NEW, "initialize"): State.WAITING,
    (State.WAITING, "notifications/initialized"): State.READY,
}
# END SOLUTION


def not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")  # Python reads NaN and Infinity; JSON has no such thing


# One decoder for every line: strict JSON, read from strict UTF-8 (as MCP requires).
DECODER = json.JSONDecoder(parse_constant=not_json)


def is_valid_id(value: Any) -> bool:
    # MCP ids are strings or integers; 0 and "" are ids like any other.
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


class Session:
    """One client's session with the server. Pure: no reading, no writing."""

    def __init__(
        self,
        versions: list[str] = VERSIONS,
        negotiate: Negotiation = strict_negotiation,
        lang: str = "fr",
    ) -> None:
        self.state = State.NEW
        self.versions = versions
        self.negotiate = negotiate
        self.texts = TEXTS[lang]
        self.handlers: dict[str, Callable[[dict], dict]] = {
            "ping": lambda params: {},
            "initialize": self.initialize,
            "tools/list": lambda params: {"tools": []},
        }

    def initialize(self, params: dict) -> dict:
        # BEGIN SOLUTION server-2
        # fr: négociez la version demandée (self.negotiate, self.versions) ; si elle est refusée, levez
        # fr: RpcError(INVALID_PARAMS, "unsupported_version", data={"requested": …, "supported": …}) ;
        # fr: sinon renvoyez initialize_result(version).
        # en: negotiate the requested version (self.negotiate, self.versions); if it is refused, raise
        # en: RpcError(INVALID_PARAMS, "unsupported_version", data={"requested": …, "supported": …});
        # en: otherwise return initialize_result(version).
        requested = params.get("protocolVersion")
        version = self.negotiate(requested, self.versions)
        if version is None:
            # A version is a string; anything else is echoed as null (a hostile
            # array nested a thousand deep could not even be written back).
            shown = requested if isinstance(requested, str) else None
            raise RpcError(
                INVALID_PARAMS,
                "unsupported_version",
                data={"requested": shown, "supported": self.versions},
            )
        return initialize_result(version)
        # END SOLUTION

    # -- routing: by shape first (batch, request, notification, response), then by name

    def handle_line(self, line: bytes | str) -> Optional[dict | list]:
        """One line in, the reply out (None when nothing is owed)."""
        if not line.strip():
            return None
        try:
            message = DECODER.decode(line.decode() if isinstance(line, bytes) else line)
        except (ValueError, RecursionError):  # ValueError covers invalid UTF-8 too
            return error_reply(None, PARSE_ERROR, self.texts["parse_error"])
        if isinstance(message, list):
            return self.handle_batch(message)
        return self.handle(message)

    def handle_batch(self, messages: list) -> Optional[dict | list]:
        # JSON-RPC 2.0 batches, as revision 2025-03-26 allows them: one reply per
        # request, in one array; nothing at all if they were all notifications.
        if not messages:
            return error_reply(None, INVALID_REQUEST, self.texts["invalid_request"])
        replies = [reply for reply in map(self.handle_in_batch, messages) if reply is not None]
        return replies or None

    def handle_in_batch(self, message: Any) -> Optional[dict]:
        # 2025-03-26: "The initialize request MUST NOT be part of a JSON-RPC batch."
        if isinstance(message, dict) and message.get("method") == "initialize" and "id" in message:
            request_id = message["id"] if is_valid_id(message["id"]) else None
            return error_reply(request_id, INVALID_REQUEST, self.texts["invalid_request"])
        return self.handle(message)

    def handle(self, message: Any) -> Optional[dict]:
        if not isinstance(message, dict):
            return error_reply(None, INVALID_REQUEST, self.texts["invalid_request"])
        if "method" not in message and ("result" in message or "error" in message):
            return None  # a response: this server sent no request, so nothing answers it
        has_id = "id" in message
        bad_id = has_id and not is_valid_id(message["id"])
        request_id = None if bad_id else message.get("id")
        method = message.get("method")
        params = message.get("params", {})
        if (
            message.get("jsonrpc") != "2.0"
            or not isinstance(method, str)
            or not isinstance(params, dict)
            or bad_id
        ):
            return error_reply(request_id, INVALID_REQUEST, self.texts["invalid_request"])
        if not has_id:
            self.notify(method)
            return None
        try:
            return result_reply(request_id, self.call(method, params))
        except RpcError as error:
            message_text = self.texts[error.text_key].format(**error.fields)
            return error_reply(request_id, error.code, message_text, error.data)
        except NotImplementedError as todo:  # an exercise part not written yet
            return error_reply(request_id, INTERNAL_ERROR, self.texts["todo"].format(part=todo))
        except Exception:  # never let one request bring the session down
            return error_reply(request_id, INTERNAL_ERROR, self.texts["internal_error"])

    def notify(self, method: str) -> None:
        # Notifications never get an answer; only one of them moves the state. An
        # "initialize" sent without an id is no request: it must not start the handshake.
        if method.startswith("notifications/"):
            self.state = TRANSITIONS.get((self.state, method), self.state)

    def call(self, method: str, params: dict) -> dict:
        # BEGIN SOLUTION server-3
        # fr: d’abord la porte (GATE ; sinon OPEN_WHEN_READY) : refus -32600 (RpcError), « Déjà
        # fr: initialisé » pour initialize ; puis le gestionnaire de self.handlers, ou -32601 ;
        # fr: puis la transition (TRANSITIONS) ; renvoyez le result du gestionnaire.
        # en: first the gate (GATE; else OPEN_WHEN_READY): refuse with -32600 (RpcError), "already
        # en: initialized" for initialize; then the handler from self.handlers, or -32601; then
        # en: the transition (TRANSITIONS); return the handler's result.
        # placeholder: handler = self.handlers.get(method)  # (sans porte ni transition / no gate, no transition yet)
        # placeholder: if handler is None:
        # placeholder:     raise NotImplementedError("{part}")
        # placeholder: return handler(params)
        # The lesson's order: the state gate first, then the method name.
        if self.state not in GATE.get(method, OPEN_WHEN_READY):
            refusal = "already_initialized" if method == "initialize" else "not_initialized"
            raise RpcError(INVALID_REQUEST, refusal)
        handler = self.handlers.get(method)
        if handler is None:
            raise RpcError(METHOD_NOT_FOUND, "unknown_method", method=method)
        result = handler(params)
        self.state = TRANSITIONS.get((self.state, method), self.state)
        return result
        # END SOLUTION


# One encoder for every reply: json.dumps with options builds a new encoder at each
# call, which costs as much as the encoding itself. A reply is built here and never
# contains itself, so the encoder need not check for cycles.
ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False)


def encode(reply: dict | list) -> bytes:
    # backslashreplace: a lone surrogate the client sent as "\udc80" (valid JSON, not
    # valid UTF-8) goes back as the same escape instead of crashing the server.
    return ENCODER.encode(reply).encode("utf-8", "backslashreplace") + b"\n"


def serve(session: Session, stdin_fd: int = 0, stdout: Any = None) -> None:
    """The stdio loop: read what has arrived, answer every complete line, repeat.

    Replies to the lines that arrived together go out in one write; a client that
    sends one request at a time still gets each reply at once.
    """
    stdout = stdout or sys.stdout.buffer
    # The start of a line still arriving, in pieces joined once when its newline comes:
    # adding each piece to the last would copy a 32 MB line hundreds of times (minutes).
    pieces: list[bytes] = []
    while chunk := os.read(stdin_fd, 1 << 16):
        *lines, rest = chunk.split(b"\n")
        if lines:
            lines[0] = b"".join(pieces) + lines[0]
            pieces = []
            replies = [reply for line in lines if (reply := session.handle_line(line)) is not None]
            if replies:
                stdout.write(b"".join(map(encode, replies)))
                stdout.flush()
        pieces.append(rest)
    reply = session.handle_line(b"".join(pieces))  # a last line without its newline
    if reply is not None:
        stdout.write(encode(reply))
        stdout.flush()


if __name__ == "__main__":
    serve(Session(lang=language()))
