"""The one result type of a process the kit ran: what it wrote, how it ended, how long it took."""

from __future__ import annotations

import signal
from dataclasses import dataclass

from lab.process.groups import POSIX

CPU_SIGNAL = getattr(signal, "SIGXCPU", 0)  # what ends a process whose CPU budget ran out


@dataclass
class Run:
    stdout: bytes
    stderr: bytes
    code: int | None  # None: still running at the limit, then killed
    duration: float
    stdout_truncated: bool = False  # more was written than was kept

    @property
    def timed_out(self) -> bool:
        return self.code is None

    @property
    def cpu_exhausted(self) -> bool:
        """Stopped by its CPU budget: an endless loop, most likely."""
        return POSIX and self.code == -CPU_SIGNAL

    @property
    def out(self) -> str:
        return self.stdout.decode("utf-8", errors="replace")

    @property
    def err(self) -> str:
        return self.stderr.decode("utf-8", errors="replace")

    def stdout_lines(self) -> list[str]:
        """Its lines as a reader of the pipe reads them: cut at "\n" only (str.splitlines also
        cuts inside a JSON text, at \u2028 or \x1c), a "\r" before it dropped."""
        lines = self.out.split("\n")
        if lines[-1] == "":
            lines.pop()  # after the last line's end, or no output at all
        return [line.removesuffix("\r") for line in lines]
