"""Process groups and CPU budgets: how a child and everything it started are limited and killed.

`Child` is the one type of a child process, a new one or a preloader's fork; `stop` is the one
way to end one (its group killed, the child reaped, what carries its grading token swept)."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import threading
import time
from typing import IO

from lab.time_limits import REAP

POSIX = os.name == "posix"
# Process groups (POSIX): where there are none (Windows), a child is killed alone, and the
# kit's own children take care to leave nothing behind.
GROUPS = hasattr(os, "killpg")
TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK") if POSIX else 100  # /proc's unit of CPU time
TOKEN_VARIABLE = "LAB_GRADE_TOKEN"  # set by `lab grade` for each check run: what it left running carries it


class Child:
    """A child process the kit started, waited for, read and stopped alike: a new process
    (`Child.new`: a Popen inside), or one a preloader forked (`control`: the connection that
    asked for it, which brings its exit code; closing it has the preloader kill the fork's
    group and reap it, lab/process/preloader.py). `holder`: a zygote's fork only, the sandbox
    it joined (lab/process/sandbox_entry.py), stopped with it."""

    def __init__(self, pid: int, stdin: IO[bytes] | None, stdout: IO[bytes] | None, stderr: IO[bytes] | None,
                 popen: subprocess.Popen | None = None, control: socket.socket | None = None,
                 holder: "Child | None" = None) -> None:
        self.pid, self.stdin, self.stdout, self.stderr = pid, stdin, stdout, stderr
        self.popen, self.control, self.holder = popen, control, holder
        self.returncode: int | None = None
        self.lock = threading.Lock()  # one reader of a fork's exit message

    @classmethod
    def new(cls, argv: list[str], **options) -> "Child":
        popen = subprocess.Popen(argv, **options)
        return cls(popen.pid, popen.stdin, popen.stdout, popen.stderr, popen=popen)

    def poll(self) -> int | None:
        return wait_for(self, 0.0)

    def wait(self, timeout: float | None = None) -> int:
        """Its exit code (negative: the signal that ended it) as soon as it ends; TimeoutExpired
        while it still runs at `timeout`."""
        if self.returncode is None:
            self.returncode = self.popen_end(timeout) if self.popen is not None else self.fork_end(timeout)
        if self.returncode is None:
            raise subprocess.TimeoutExpired(f"process {self.pid}", timeout or 0.0)
        return self.returncode

    def popen_end(self, timeout: float | None) -> int | None:
        """Heard through a pidfd (Linux 5.3+) at once, where Popen.wait(timeout) polls and wakes
        up to 50 ms late."""
        if timeout is not None and hasattr(os, "pidfd_open"):
            with contextlib.suppress(OSError):  # reaped already, or no pidfds: Popen's own wait below
                pidfd = os.pidfd_open(self.pid)
                try:
                    if not select.select([pidfd], [], [], max(0.0, timeout))[0]:
                        return None
                finally:
                    os.close(pidfd)
        try:
            return self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def fork_end(self, timeout: float | None) -> int | None:
        """The preloader's {"exit": CODE}; then the connection is closed, so that it sweeps the
        fork's group and reaps it. A preloader gone is a fork gone (killed with it)."""
        with self.lock:
            if self.returncode is not None:
                return self.returncode
            if not select.select([self.control], [], [], None if timeout is None else max(0.0, timeout))[0]:
                return None
            try:
                message = self.control.recv(4096)
                code = int(json.loads(message)["exit"]) if message else -signal.SIGKILL
            except (OSError, ValueError, KeyError, TypeError):
                code = -signal.SIGKILL
            self.control.close()
            return code


def stop(process: Child, token: str = "") -> None:
    """The one way the kit ends a child it started: its group killed, even when its leader has
    exited (what it started may still run, and while one does the group's id names no other
    process), the child reaped, the sandbox a zygote's fork joined stopped too, then, with
    `token`, every process still carrying that grading token (one that left the group:
    setsid). Safe to repeat, and from another thread."""
    if GROUPS:
        kill_group(process.pid, leader=process.returncode is None)
    elif process.poll() is None:
        with contextlib.suppress(OSError):  # Windows: no group; TerminateProcess, the child alone
            os.kill(process.pid, signal.SIGTERM)
    wait_for(process, REAP)  # None: stuck in the kernel (a dying sandbox's mounts), reaped later
    if process.holder is not None:
        stop(process.holder)
    if token:
        kill_marked(token)


def kill_group(pid: int, leader: bool = True) -> None:
    """SIGKILL the process group `pid` leads and, with `leader` (only for a pid not reaped yet),
    the process too: right after fork(), before its setsid(), a child has no group yet."""
    for kill in (os.killpg, os.kill) if leader else (os.killpg,):
        with contextlib.suppress(OSError):  # gone already
            kill(pid, signal.SIGKILL)


def wait_for(process: Child, timeout: float) -> int | None:
    """Its exit code as soon as it ends, or None when it still runs at `timeout`."""
    try:
        return process.wait(timeout=max(0.0, timeout))
    except subprocess.TimeoutExpired:
        return None


def limit_cpu(pid: int, seconds: int) -> None:
    """At most `seconds` of CPU for process `pid` (then SIGXCPU, and SIGKILL a second later),
    where prlimit exists (Linux); nothing when it has exited already or its limit is lower."""
    with contextlib.suppress(ImportError, AttributeError, OSError, ValueError):
        import resource  # POSIX only

        resource.prlimit(pid, resource.RLIMIT_CPU, (seconds, seconds + 1))


def read_stat(pid: int) -> tuple[int, int, int] | None:
    """(parent pid, CPU ticks used by it and its reaped children, start time) of a process, from
    /proc; None when it is gone or /proc cannot tell."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            # After the command's closing parenthesis: state, ppid, ... utime (12th), stime,
            # cutime, cstime, ... starttime (20th).
            fields = stat.read().rsplit(b")", 1)[1].split()
        return int(fields[1]), sum(int(value) for value in fields[11:15]), int(fields[19])
    except (OSError, IndexError, ValueError):
        return None


class ProcessTree:
    """The CPU seconds a process and everything under it still running have used (with what
    their reaped children used), read from /proc.

    Why: an rlimit counts whole seconds and each process alone; this sums a tree, a sandboxed
    one included (bwrap and the program inside are its descendants), to a fraction of a second.
    Finding the tree means reading every process (/proc lists no children on some kernels),
    which costs milliseconds on a busy grader: it is done at the first look and once every
    SEARCH_EVERY seconds, and the looks between read only the processes already found (each
    known by its start time too, so that a reused pid is not counted)."""

    SEARCH_EVERY = 1.0

    def __init__(self, root: int) -> None:
        self.root = root
        self.members: dict[int, int] = {}  # pid -> start time
        self.searched = -self.SEARCH_EVERY

    def cpu(self) -> float | None:
        """None once the root has ended, or where /proc cannot tell."""
        if time.monotonic() - self.searched >= self.SEARCH_EVERY:
            self.members = self.search()
            self.searched = time.monotonic()
        if self.root not in self.members:
            return None
        ticks = 0
        for pid, started in self.members.items():
            seen = read_stat(pid)
            if seen is not None and seen[2] == started:
                ticks += seen[1]
            elif pid == self.root:
                return None
        return ticks / TICKS_PER_SECOND

    def search(self) -> dict[int, int]:
        """Every process under the root (the root included), from the whole of /proc."""
        try:
            names = os.listdir("/proc")
        except OSError:
            return {}
        seen = {int(name): read_stat(int(name)) for name in names if name.isdigit()}
        children: dict[int, list[int]] = {}
        for pid, stat in seen.items():
            if stat is not None:
                children.setdefault(stat[0], []).append(pid)
        found: dict[int, int] = {}
        pending = [self.root] if seen.get(self.root) else []
        while pending:
            pid = pending.pop()
            found[pid] = seen[pid][2]  # type: ignore[index]
            pending += children.get(pid, [])
        return found


def kill_pids(pids: list[int]) -> int:
    """SIGKILL each of `pids` (gone already: passed over); how many it reached."""
    killed = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
            killed += 1
    return killed


def kill_marked(token: str) -> int:
    """Kill every process whose environment carries TOKEN_VARIABLE=`token` (Linux, best
    effort): processes that left their group (setsid) still inherit it. How many it killed."""
    needle, marked = f"{TOKEN_VARIABLE}={token}".encode(), []
    for name in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if name.isdigit() and int(name) != os.getpid():
            with contextlib.suppress(OSError), open(f"/proc/{name}/environ", "rb") as environ:
                if needle in environ.read().split(b"\0"):
                    marked.append(int(name))
    return kill_pids(marked)
