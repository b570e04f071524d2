"""Talking to a started student process, within limits: input in, capped output out, a
limit on every wait, and always killed with what it started at the end.

A CPU budget (lab.process.groups) ends an endless loop rather than let it burn a core the
rest of a class needs until the wall-clock limit. Output is read by the kit's one capped
reader (lab.process.capped); once MAX_OUTPUT bytes fill either pipe's buffer the process is
stopped (a flood is a broken program, not an answer).
"""

from __future__ import annotations

import math
import queue
import threading
import time
from pathlib import Path
from typing import IO, Callable

from lab.process.capped import CappedReader
from lab.process.groups import ProcessTree, stop, wait_for
from lab.process.launch import Launch
from lab.process.result import CPU_SIGNAL, Run
from lab.process.student import start_student
from lab.time_limits import CPU_LOOK, PIPE_GRACE

MAX_OUTPUT = 1 << 20  # bytes kept of stdout, and of stderr


def feed(stream: IO[bytes], data: bytes) -> None:
    try:
        stream.write(data)
        stream.close()
    except (OSError, ValueError):
        pass  # the process is gone or stopped reading: what it wrote says the rest


def run_python(launch: Launch, script: Path, *, limit: float, cwd: Path, env: dict[str, str],
               cpu_seconds: int | None = None, listen: tuple[str, ...] = (),
               serve: Callable[[dict], None] | None = None) -> Run:
    """Run `python script` as `launch` says, its stdin closed, and wait at most `limit` s (and at
    most `cpu_seconds` of CPU): a conversation in which nothing is said. `listen`: see
    student.start_student; `serve` gets the listeners (name -> socket) before the process's input
    is closed."""
    started = time.monotonic()
    process, listeners = start_student(launch, script, cwd=cwd, env=env, listen=listen, cpu_seconds=cpu_seconds or 0)
    if serve is not None:
        serve(listeners)
    return Conversation(process, launch=launch, started=started).finish(limit)


class Conversation:
    """A process talked to as a real client does: write a line, wait for a line, with a limit
    on each wait. Nothing helps it along: its output arrives when it writes (and flushes) it.
    `finish()` closes its input, waits for its end and returns the whole Run."""

    def __init__(self, process, cpu_budget: float | None = None, launch: Launch | None = None,
                 started: float | None = None) -> None:
        self.process = process
        self.launch = launch or Launch()
        self.started = time.monotonic() if started is None else started  # what its Run's duration counts from
        self.over_budget = False  # stopped by the watchdog below: its CPU budget ran out
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.pending = b""  # the start of a line not ended yet
        self.ended = False  # its stdout reached its end (it exited, or closed it)
        self.closed_at: float | None = None  # when its input was closed
        self.lines_before_close = 0  # lines it wrote while its input was open
        self.done = threading.Event()
        self.out = CappedReader(process.stdout, MAX_OUTPUT, on_chunk=self.split_lines,
                                on_full=lambda: stop(process), on_end=self.no_more_lines)
        self.err = CappedReader(process.stderr, MAX_OUTPUT, on_full=lambda: stop(process))
        self.watchdog: threading.Thread | None = None
        if cpu_budget is not None:
            self.watchdog = threading.Thread(target=self.watch_cpu, args=(cpu_budget,), daemon=True)
            self.watchdog.start()

    def watch_cpu(self, budget: float) -> None:
        """Stop the process once it and what it started have used `budget` s of CPU: a loop is
        stopped at a fraction of a second, where the rlimit behind this counts whole seconds.
        The first look comes once a single process could have spent the budget: most sessions
        are over by then, and cost no look at all."""
        wait = budget
        tree = ProcessTree(self.process.pid)
        while not self.done.wait(wait):
            used = tree.cpu()
            if used is None:
                return  # it has ended, or /proc cannot tell: the rlimit still holds
            if used >= budget:
                self.over_budget = True
                stop(self.process)
                return
            wait = CPU_LOOK

    def split_lines(self, chunk: bytes) -> None:
        # Called by the stdout reader, in its thread, for each chunk read below the cap.
        *complete, self.pending = (self.pending + chunk).split(b"\n")
        for line in complete:
            if self.closed_at is None:
                self.lines_before_close += 1
            self.lines.put(line)

    def no_more_lines(self) -> None:
        if self.pending:
            self.lines.put(self.pending)
        self.lines.put(None)

    def send(self, data: bytes) -> bool:
        """Write to its input; False when it no longer reads (it has exited)."""
        try:
            self.process.stdin.write(data)
            self.process.stdin.flush()
            return True
        except (OSError, ValueError):  # BrokenPipeError among them
            return False

    def read_line(self, within: float) -> bytes | None:
        """Its next line, waiting at most `within` s; None when none came (see `ended`)."""
        if self.ended:
            return None
        try:
            line = self.lines.get(timeout=max(0.0, within))
        except queue.Empty:
            return None
        if line is None:
            self.ended = True
        return line

    def finish(self, within: float) -> Run:
        """Close its input, wait at most `within` s for its end, then kill what is left."""
        if self.closed_at is None:
            self.closed_at = time.monotonic()
        feed(self.process.stdin, b"")
        try:
            code = wait_for(self.process, within)
        finally:
            self.done.set()
            stop(self.process)
        for reader in (self.out, self.err):
            reader.wait(PIPE_GRACE)  # a grandchild in another group may hold a pipe: don't wait for it
        if self.watchdog is not None:
            self.watchdog.join(timeout=PIPE_GRACE)
        code = -CPU_SIGNAL if self.over_budget else exit_code(code, self.launch)
        return Run(self.out.kept(), self.err.kept(), code, round(time.monotonic() - self.started, 3))

    def close(self) -> Run:
        """Kill it now with what it started (it may be waiting for more input); safe to repeat."""
        return self.finish(0.0)

    def remaining_lines(self) -> list[bytes]:
        """The lines it wrote that were not read yet (call after finish)."""
        return list(iter(lambda: self.read_line(0), None))


def converse(launch: Launch, script: Path, *, cwd: Path, env: dict[str, str],
             cpu_seconds: float | None = None) -> Conversation:
    """Start `python script` as `launch` says, for a line-by-line conversation (see
    Conversation), with at most `cpu_seconds` of CPU (a fraction of a second too: see
    Conversation.watch_cpu)."""
    process, _ = start_student(launch, script, cwd=cwd, env=env, cpu_seconds=math.ceil(cpu_seconds or 0))
    return Conversation(process, cpu_seconds or None, launch)


def exit_code(code: int | None, launch: Launch) -> int | None:
    """bwrap ends with 128 + N when the program inside was killed by signal N: as Popen says it."""
    if code is not None and launch.sandbox is not None and 128 < code < 160:
        return 128 - code
    return code
