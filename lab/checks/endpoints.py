"""The model helper's checks' endpoints: OpenAI-style chat completions under /answer, /error
(HTTP 503) and /slow (never answers), each request written down; `refused_port()`."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from lab.process.capped import parse_json
from lab import time_limits

SILENT_LIMIT = time_limits.MODEL_SILENT  # /slow keeps a connection this long without answering
BODY_CAP = 1 << 20  # bytes of a request's body read (it comes from the student's model.py)


def completion(text: str) -> dict:
    return {
        "id": "chatcmpl-lab", "object": "chat.completion", "created": 0, "model": "lab",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


class Endpoints(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, answer_text: str, listener: socket.socket | None = None) -> None:
        """Serve on `listener` (made in a sandbox's own network), or on a new loopback port."""
        if listener is None:
            super().__init__(("127.0.0.1", 0), Handler)
        else:
            super().__init__(listener.getsockname(), Handler, bind_and_activate=False)
            self.socket.close()
            self.socket = listener
        self.answer_text = answer_text
        self.requests: list[dict[str, Any]] = []
        self.closing = threading.Event()
        threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def url(self, prefix: str) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/{prefix}"

    def close(self) -> None:
        self.closing.set()  # wakes the slow handler
        self.shutdown()
        self.server_close()


class Handler(BaseHTTPRequestHandler):
    server: Endpoints

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        length = self.headers.get("Content-Length") or "0"
        length = min(int(length), BODY_CAP) if length.isdigit() else 0
        body = self.rfile.read(length) if length else b""
        try:
            payload = parse_json(body, 1 << 20)
        except ValueError:
            payload = body.decode(errors="replace")
        self.server.requests.append({"path": self.path, "authorization": self.headers.get("Authorization"),
                                     "body": payload})
        prefix = self.path.strip("/").split("/")[0]
        if prefix == "error":
            self.send(503, {"error": {"message": "model overloaded", "type": "server_error"}})
        elif prefix == "slow":
            self.server.closing.wait(SILENT_LIMIT)  # accepted, read, never answered
        else:
            self.send(200, completion(self.server.answer_text))

    def send(self, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            pass  # the client gave up (the slow case): nothing to tell it

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet


def refused_port(other_than: int = 0) -> socket.socket:
    """A bound socket that does not listen, on a port other than `other_than` (the endpoints',
    which in a sandbox's network could be drawn here again): connecting to it is refused."""
    while True:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        if sock.getsockname()[1] != other_than:
            return sock
        sock.close()
