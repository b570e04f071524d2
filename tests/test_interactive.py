"""An interactive client, one request at a time: each reply comes before the next request.

The server writes the replies of everything it has read in one go (fast for pipelined
clients, see bench/); these tests make sure that batching never holds back a reply a
client is waiting for. The server's stdin stays open all along, so a server that
only wrote at the end of its input, or kept replies in a buffer, would fail here.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

import lab
from conftest import SOLUTIONS, initialize, request

REPLY_WAIT = 5.0  # seconds; a healthy server answers in well under a millisecond
SERVER_INFO = {"name": "mcp-handshake-lab", "version": lab.__version__}
SERVERS = [path for path in (SOLUTIONS / "server.py", SOLUTIONS / "bonus_server.py") if path.is_file()]


def server_env() -> dict[str, str]:
    # Without PYTHONUNBUFFERED (set in the docker image, maybe on the machine too): the
    # server must flush its replies itself, and this is where we would see it did not.
    env = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}
    return {**env, "LAB_LANG": "en"}


class Client:
    """Talks to a server over real pipes; reads with a bounded wait."""

    def __init__(self, server: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(server)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=server_env(),
        )
        self.received = b""

    def write(self, data: bytes) -> None:
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def read_reply(self) -> Any:
        """The next reply line, or a failure if none comes within REPLY_WAIT."""
        deadline = time.monotonic() + REPLY_WAIT
        fd = self.process.stdout.fileno()
        while b"\n" not in self.received:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([fd], [], [], max(left, 0))
            if not ready:
                pytest.fail(f"no reply within {REPLY_WAIT:g} s (got so far: {self.received!r})")
            chunk = os.read(fd, 65536)
            if not chunk:
                pytest.fail(f"the server closed its output (got so far: {self.received!r})")
            self.received += chunk
        line, self.received = self.received.split(b"\n", 1)
        return json.loads(line)

    def ask(self, message: dict) -> Any:
        self.write(json.dumps(message).encode() + b"\n")
        return self.read_reply()

    def close(self) -> int:
        self.process.stdin.close()
        try:
            return self.process.wait(timeout=REPLY_WAIT)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            self.process.stdout.close()


@pytest.fixture(params=SERVERS, ids=lambda path: path.name)
def client(request: pytest.FixtureRequest) -> Iterator[Client]:
    talk = Client(request.param)
    yield talk
    if talk.process.poll() is None:
        talk.close()


def test_each_request_is_answered_before_the_next_is_sent(client: Client) -> None:
    assert client.ask(initialize(0)) == {
        "jsonrpc": "2.0", "id": 0,
        "result": {"protocolVersion": "2024-11-05", "capabilities": {"tools": {"listChanged": False}},
                   "serverInfo": SERVER_INFO},
    }
    assert client.ask(request(1, "tools/list")) == {
        "jsonrpc": "2.0", "id": 1, "error": {"code": -32600, "message": "Not initialized"},
    }
    client.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    # The notification gets no reply, so the next line read is the ping's own.
    assert client.ask(request(2, "ping")) == {"jsonrpc": "2.0", "id": 2, "result": {}}
    assert client.ask(request(3, "tools/list")) == {"jsonrpc": "2.0", "id": 3, "result": {"tools": []}}
    assert client.ask(request(4, "resources/list")) == {
        "jsonrpc": "2.0", "id": 4, "error": {"code": -32601, "message": "Unknown method: resources/list"},
    }
    assert client.close() == 0


def test_a_hundred_pings_one_at_a_time(client: Client) -> None:
    for number in range(100):
        assert client.ask(request(number, "ping")) == {"jsonrpc": "2.0", "id": number, "result": {}}
    assert client.close() == 0


def test_two_requests_in_one_write_then_a_third_alone(client: Client) -> None:
    client.write(json.dumps(request(1, "ping")).encode() + b"\n" + json.dumps(request(2, "ping")).encode() + b"\n")
    assert client.read_reply() == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert client.read_reply() == {"jsonrpc": "2.0", "id": 2, "result": {}}
    assert client.ask(request(3, "ping")) == {"jsonrpc": "2.0", "id": 3, "result": {}}


def test_a_request_split_across_two_writes_is_answered_once_its_line_ends(client: Client) -> None:
    line = json.dumps(request(7, "ping")).encode()
    client.write(line[:10])
    client.write(line[10:] + b"\n")
    assert client.read_reply() == {"jsonrpc": "2.0", "id": 7, "result": {}}
    assert client.ask(request(8, "ping")) == {"jsonrpc": "2.0", "id": 8, "result": {}}
