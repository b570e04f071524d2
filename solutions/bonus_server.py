"""The bonus server: the lesson's handshake with the spec's version negotiation.

The lesson's server refuses a version it does not know (-32602). Real clients of
today (the official `mcp` Python SDK, the MCP Inspector) offer 2025-11-25, so they
cannot connect to it. The spec (revision 2025-11-25, basic/lifecycle) says more:

    If the server supports the requested protocol version, it MUST respond with the
    same version. Otherwise, the server MUST respond with another protocol version
    it supports. This SHOULD be the latest version supported by the server.

Then the client decides: it goes on, or it disconnects if it does not speak that
version. The rest is the lesson's rules, written the way a server that follows the
spec is built: a sans-I/O `Session` (one line in, the reply out), the state gate as
data, JSON-RPC batches as revision 2025-03-26 allows them, and an error reply for
every unknown method, so a client that probes `server/discover` first (revision
2026-07-28) never waits for an answer that does not come. You write one function.

Standard library only: run it as `python bonus_server.py`.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Callable, Optional

# The files beside this one, whichever folder it sits in (solutions/ or exercises/).
sys.path.insert(0, str(Path(__file__).resolve().parent))

from jsonrpc_lines import language, todo_line  # noqa: E402
from server import SERVER_INFO, TEXTS  # noqa: E402  the lesson's texts and name, not its code

# The handshake-era revisions of MCP, newest first. Revision 2026-07-28 replaced the
# handshake with `server/discover`; it is not a version `initialize` can agree on.
HANDSHAKE_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = (
    -32700, -32600, -32601, -32602, -32603)
NEW, WAITING, READY = "nouveau", "attente", "pret"
# The gate: the states in which each method passes; any other method passes once ready.
GATE = {"ping": {NEW, WAITING, READY}, "initialize": {NEW}}
TRANSITIONS = {(NEW, "initialize"): WAITING, (WAITING, "notifications/initialized"): READY}
# The spec's words for a call to a tool the server does not have (its example: "Unknown tool: …").
BONUS_TEXTS = {"fr": {"unknown_tool": "Outil inconnu : "}, "en": {"unknown_tool": "Unknown tool: "}}


def not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")  # Python reads NaN and Infinity; JSON has no such thing


DECODER = json.JSONDecoder(parse_constant=not_json)


def is_valid_id(value: Any) -> bool:
    # MCP ids are strings or integers; 0 and "" are ids like any other.
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


# ---------------------------------------------------------------- bonus


def spec_negotiation(requested: Any, supported: list) -> Optional[str]:
    """The requested version if we speak it; otherwise the latest one we speak.

    It never refuses, so it never returns None: the client, not the server, decides
    whether an older version is good enough. `supported` is newest first.
    """
    # BEGIN SOLUTION bonus
    # fr: renvoyez la version demandée si elle est dans supported, sinon la plus récente de
    # fr: supported (la première) : ne refusez plus, le client décidera.
    # en: return the requested version if it is in supported, else the latest one in supported
    # en: (the first one): do not refuse any more, the client will decide.
    return requested if requested in supported else supported[0]
    # END SOLUTION


class RpcError(Exception):
    """An error to send back. Raised anywhere inside; turned into a reply in one place."""

    def __init__(self, code: int, text: str, data: Any = None) -> None:
        super().__init__(text)
        self.code, self.text, self.data = code, text, data


def result_reply(request_id: Any, result: dict) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def error_reply(request_id: Any, code: int, message: str, data: Any = None) -> dict:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


class Session:
    """One client's session with the server. Pure: no reading, no writing."""

    def __init__(self, versions: list[str] = HANDSHAKE_VERSIONS,
                 negotiate: Callable[[Any, list], Optional[str]] = spec_negotiation,
                 lang: str = "fr") -> None:
        self.state = NEW
        self.versions = versions
        self.negotiate = negotiate
        self.texts = {**TEXTS[lang], **BONUS_TEXTS[lang]}
        self.handlers: dict[str, Callable[[dict], dict]] = {
            "ping": lambda params: {},
            "initialize": self.initialize,
            "tools/list": lambda params: {"tools": []},
            "tools/call": self.call_tool,
        }

    def initialize(self, params: dict) -> dict:
        requested = params.get("protocolVersion")
        version = self.negotiate(requested, self.versions)
        if version is None:
            shown = requested if isinstance(requested, str) else None
            raise RpcError(INVALID_PARAMS, self.texts["unsupported_version"],
                           {"requested": shown, "supported": self.versions})
        # An announcement is a promise: tools/list is all this server implements.
        return {"protocolVersion": version, "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": SERVER_INFO}

    def call_tool(self, params: dict) -> dict:
        # Announcing `tools` makes tools/call a method this server has, so a call is never
        # -32601 here. The spec (server/tools, "Error Handling") makes an unknown tool a
        # protocol error, -32602, that names it; and the list is empty, so every tool is unknown.
        name = params.get("name")
        shown = name if isinstance(name, str) else json.dumps(name, ensure_ascii=False)
        raise RpcError(INVALID_PARAMS, self.texts["unknown_tool"] + shown)

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
        method, params = message.get("method"), message.get("params", {})
        if (message.get("jsonrpc") != "2.0" or not isinstance(method, str)
                or not isinstance(params, dict) or bad_id):
            return error_reply(request_id, INVALID_REQUEST, self.texts["invalid_request"])
        if not has_id:  # a notification: never answered; only one of them moves the state
            if method.startswith("notifications/"):
                self.state = TRANSITIONS.get((self.state, method), self.state)
            return None
        try:
            return result_reply(request_id, self.call(method, params))
        except RpcError as error:
            return error_reply(request_id, error.code, error.text, error.data)
        except NotImplementedError as todo:  # the bonus function not written yet: said to the client,
            print(todo_line(todo), file=sys.stderr, flush=True)  # and to whoever runs the server
            return error_reply(request_id, INTERNAL_ERROR, todo_line(todo))

    def call(self, method: str, params: dict) -> dict:
        # The lesson's order: the state gate first, then the method name.
        if self.state not in GATE.get(method, {READY}):
            refusal = "already_initialized" if method == "initialize" else "not_initialized"
            raise RpcError(INVALID_REQUEST, self.texts[refusal])
        handler = self.handlers.get(method)
        if handler is None:
            raise RpcError(METHOD_NOT_FOUND, self.texts["unknown_method"] + method)
        result = handler(params)
        self.state = TRANSITIONS.get((self.state, method), self.state)
        return result


def make_session(lang: str = "fr") -> Session:
    return Session(lang=lang)


# One encoder for every reply, built once; a reply never contains itself (no cycle check).
ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False)


def encode(reply: dict | list) -> bytes:
    # backslashreplace: a lone surrogate the client sent as "\udc80" goes back as the same escape.
    return ENCODER.encode(reply).encode("utf-8", "backslashreplace") + b"\n"


def serve(session: Session, stdin_fd: int = 0, stdout: Any = None) -> None:
    """The stdio loop: read what has arrived, answer every complete line, flush, repeat."""
    stdout = stdout or sys.stdout.buffer
    pieces: list[bytes] = []  # the start of a line still arriving, joined once its newline comes
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
    serve(make_session(language()))
