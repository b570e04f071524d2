"""The one reader of a child's output, student or trusted: each pipe is read to its end by a
thread of its own, keeping the first `cap` bytes and counting the rest.

A thread per pipe, because the kit writes to a student's input while it reads: a pipe nobody
reads would fill and block the child, and the kit's next write with it. Past the cap the pipe
is still read (only counted), so a child never blocks on a full pipe.

The reader owns its stream and closes it at the end of the pipe: a stream closed by another
thread while this one waits in read() would free its descriptor for the next file the kit
opens, which this thread would then read.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from typing import IO, Any, Callable

from lab.process.groups import stop, wait_for
from lab.process.result import Run
from lab.time_limits import EXIT_GRACE


class CappedReader:
    """`data`: the first `cap` bytes of `stream`, `dropped`: how many came past them.
    `on_chunk(chunk)` gets each chunk read below the cap; `on_full()` is called once, when it is
    reached (the checks stop a flooding student process then); `on_end()` when the pipe closes."""

    def __init__(self, stream: IO[bytes], cap: int, *, on_chunk: Callable[[bytes], None] | None = None,
                 on_full: Callable[[], None] | None = None, on_end: Callable[[], None] | None = None) -> None:
        self.stream, self.cap = stream, cap
        self.data, self.dropped = bytearray(), 0
        self.on_chunk, self.on_full, self.on_end = on_chunk, on_full, on_end
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()

    @property
    def full(self) -> bool:
        return len(self.data) >= self.cap

    def read(self) -> None:
        try:
            fd = self.stream.fileno()
            while chunk := os.read(fd, 1 << 16):
                if self.full:
                    self.dropped += len(chunk)
                    continue
                room = self.cap - len(self.data)
                self.data += chunk[:room]
                self.dropped += max(0, len(chunk) - room)
                if not self.full:
                    if self.on_chunk is not None:
                        self.on_chunk(chunk)
                elif self.on_full is not None:
                    self.on_full()
        except (OSError, ValueError):
            pass  # the pipe broke under us: the process is gone
        finally:
            self.stream.close()
            if self.on_end is not None:
                self.on_end()

    def wait(self, timeout: float) -> bool:
        """Wait at most `timeout` s for the end of the pipe; True if it came (a process that left
        its group may hold it open long after its parent ended: never wait for it)."""
        self.thread.join(timeout=max(0.0, timeout))
        return not self.thread.is_alive()

    def kept(self) -> bytes:
        return bytes(self.data)


def read_run(process, started: float, limit: float, out_cap: int, err_cap: int, token: str = "") -> Run:
    """A started process (a Child) run to its end, or stopped `limit` s after
    `started` (monotonic; then its code is None), at most `out_cap` and `err_cap` bytes of its
    stdout and stderr kept. Either way it is stopped after (groups.stop, with `token`)."""
    out, err = CappedReader(process.stdout, out_cap), CappedReader(process.stderr, err_cap)
    try:
        code = wait_for(process, started + limit - time.monotonic())
        if code is not None:
            grace = time.monotonic() + EXIT_GRACE
            out.wait(grace - time.monotonic())
            err.wait(grace - time.monotonic())
    finally:
        stop(process, token)  # its pipes are closed by their readers, at their end
    return Run(out.kept(), err.kept(), code, round(time.monotonic() - started, 3), stdout_truncated=out.dropped > 0)


# JSON from a child (a student's line, a runner's answer, a check run's report): hostile input.
# json.loads recurses once per nesting level, so a line of 200,000 "[" raises RecursionError
# (no ValueError) in the trusted process; the depth is counted first, outside the strings.
JSON_DEPTH = 32  # the kit's own frames and the lesson's replies nest 6 deep at most
# A string not closed runs to the end: tried again from each of its quotes, a line of 1 MiB of
# \" would take hours (each try reads to the end), the check run stuck in the regex.
JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)', re.S)
JSON_BRACKETS = re.compile(r"[\[\]{}]")


def parse_json(data: bytes | str, cap: int, depth: int = JSON_DEPTH) -> Any:
    """The JSON value `data` holds; ValueError when it is longer than `cap` (bytes, or characters
    for a str), nested deeper than `depth`, not UTF-8 or not JSON. It never raises anything else."""
    if len(data) > cap:
        raise ValueError(f"longer than {cap}")
    text = data.decode("utf-8") if isinstance(data, (bytes, bytearray)) else data
    level = 0
    for bracket in JSON_BRACKETS.finditer(JSON_STRING.sub("", text)):
        level += 1 if bracket.group() in "[{" else -1
        if level > depth:
            raise ValueError(f"nested deeper than {depth}")
    try:
        return json.loads(text)
    except RecursionError:  # not reached within JSON_DEPTH; kept so that nothing else escapes
        raise ValueError("nested too deep") from None
