"""Drive a stdio MCP server: the handshake, then many pipelined requests, or one at a time.

Measures how many replies per second come back, the server's memory (Linux: its
resident set, from /proc), and the round trip of a lone request. The driver does
as little as it can per reply (it counts lines, it parses only a few), so that on
a 2-core machine the server, not the driver, is what gets measured.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

SILENCE_LIMIT = 60.0  # seconds without a byte from the server: it is stuck (the SDK starts in ~3 s)
BATCH = 10_000  # requests generated and written per write(): the driver's memory stays small

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2024-11-05",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0.1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


class ServerFailure(Exception):
    """The server under test did not do its part (stuck, exited, wrong replies)."""


@dataclass
class Throughput:
    requests: int
    seconds: float  # from the first request written to the last reply read
    rss_before_kib: int | None  # after the handshake, before the requests
    peak_rss_kib: int | None  # the server's high-water mark, requests included
    cpu_seconds: float | None  # the server's own CPU time for the requests (user + system)

    @property
    def per_second(self) -> float:
        return self.requests / self.seconds

    @property
    def cpu_per_reply(self) -> float | None:
        # Steadier than replies per second on a busy machine: waiting for a core costs no CPU.
        return None if self.cpu_seconds is None else self.cpu_seconds / self.requests


def memory_kib(pid: int, field: str) -> int | None:
    """VmRSS (now) or VmHWM (peak) of a live process, in KiB; None where /proc is absent."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return None


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a live process so far; None where /proc is absent."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def request_lines(first_id: int, count: int, method: str = "tools/list") -> bytes:
    template = '{"jsonrpc":"2.0","id":%d,"method":"' + method + '"}\n'
    return "".join(template % number for number in range(first_id, first_id + count)).encode()


class StdioServer:
    """One server process with pipes on stdin and stdout; stderr is thrown away, never piped."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.out_fd = self.process.stdout.fileno()
        self.pending = b""  # the start of a reply line not yet complete

    def __enter__(self) -> StdioServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def send(self, data: bytes) -> None:
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def read_chunk(self) -> bytes:
        """Whatever the server has written, complete lines only; a bounded wait."""
        while True:
            ready, _, _ = select.select([self.out_fd], [], [], SILENCE_LIMIT)
            if not ready:
                raise ServerFailure(f"no reply for {SILENCE_LIMIT:g} s")
            chunk = os.read(self.out_fd, 1 << 20)
            if not chunk:
                raise ServerFailure(f"the server exited (code {self.process.wait()})")
            data = self.pending + chunk
            end = data.rfind(b"\n") + 1
            self.pending = data[end:]
            if end:
                return data[:end]

    def read_replies(self, count: int) -> list[dict]:
        replies: list[dict] = []
        while len(replies) < count:
            replies.extend(json.loads(line) for line in self.read_chunk().splitlines())
        return replies

    def handshake(self) -> None:
        self.send(json.dumps(INITIALIZE).encode() + b"\n")
        (reply,) = self.read_replies(1)
        if "result" not in reply:
            raise ServerFailure(f"initialize was refused: {reply}")
        self.send(json.dumps(INITIALIZED).encode() + b"\n")

    def close(self) -> None:
        """Close stdin, give the server a moment to end, then kill its group; always reap it."""
        try:
            self.process.stdin.close()
        except OSError:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, 9)
            self.process.wait()
        self.process.stdout.close()


def pipelined(argv: list[str], cwd: Path, env: dict[str, str], count: int) -> Throughput:
    """The handshake, then `count` tools/list requests written without waiting for replies."""
    with StdioServer(argv, cwd, env) as server:
        server.handshake()
        rss_before = memory_kib(server.process.pid, "VmRSS")
        cpu_before = cpu_seconds(server.process.pid)
        errors: list[BaseException] = []

        def write_all() -> None:  # a thread: writing and reading at once, no pipe ever fills up
            try:
                for first in range(1, count + 1, BATCH):
                    server.send(request_lines(first, min(BATCH, count + 1 - first)))
            except OSError as error:
                errors.append(error)

        writer = threading.Thread(target=write_all, daemon=True)
        started = time.perf_counter()
        writer.start()
        received = results = 0
        last = b""
        while received < count:
            lines = server.read_chunk()
            received += lines.count(b"\n")
            # every reply must be the empty tool list (JSON.stringify's spelling, or json.dumps's)
            results += lines.count(b'"tools":[]') + lines.count(b'"tools": []')
            last = lines
        seconds = time.perf_counter() - started
        peak = memory_kib(server.process.pid, "VmHWM")
        cpu_after = cpu_seconds(server.process.pid)
        cpu = None if cpu_before is None or cpu_after is None else cpu_after - cpu_before
        writer.join(SILENCE_LIMIT)
        final = json.loads(last.splitlines()[-1])
        if errors or received != count or results != count or final.get("result") != {"tools": []}:
            raise ServerFailure(
                f"{received} replies, {results} tool lists for {count} requests; last: {final}"
            )
        return Throughput(count, seconds, rss_before, peak, cpu)


def round_trips(argv: list[str], cwd: Path, env: dict[str, str], count: int) -> list[float]:
    """Seconds for each of `count` pings sent one at a time, each after the previous reply."""
    times: list[float] = []
    with StdioServer(argv, cwd, env) as server:
        server.handshake()
        for number in range(1, count + 1):
            started = time.perf_counter()
            server.send(request_lines(number, 1, "ping"))
            (reply,) = server.read_replies(1)
            times.append(time.perf_counter() - started)
            if reply.get("id") != number or reply.get("result") != {}:
                raise ServerFailure(f"ping {number} got {reply}")
    return times
