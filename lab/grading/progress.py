"""A one-line progress bar with an ETA, drawn only when the stream is a terminal."""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO


def format_duration(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    return f"{seconds // 60}:{seconds % 60:02d}"


def bar_line(done: int, total: int, elapsed: float, width: int = 30) -> str:
    """`[#####-----] 12/40  0:07 ETA 0:18`: the ETA assumes the rest goes at the pace so far."""
    filled = width * done // total if total else width
    line = f"[{'#' * filled}{'-' * (width - filled)}] {done}/{total}  {format_duration(elapsed)}"
    if 0 < done < total:
        line += f" ETA {format_duration(elapsed / done * (total - done))}"
    return line


class ProgressBar:
    """Call it with (done, total) as results come in; `close()` ends the line."""

    def __init__(self, stream: TextIO | None = None, force: bool = False) -> None:
        self.stream = stream or sys.stderr
        self.enabled = force or (hasattr(self.stream, "isatty") and self.stream.isatty())
        self.started = time.monotonic()
        self.lock = threading.Lock()
        self.drawn = False

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        with self.lock:
            self.stream.write("\r" + bar_line(done, total, time.monotonic() - self.started))
            self.stream.flush()
            self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
