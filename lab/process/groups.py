"""Process groups and CPU budgets: how a child and everything it started are limited and killed."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import time

from lab.time_limits import REAP

POSIX = os.name == "posix"
# Process groups (POSIX): where there are none (Windows), a child is killed alone, and the
# kit's own children take care to leave nothing behind.
GROUPS = hasattr(os, "killpg")
TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK") if POSIX else 100  # /proc's unit of CPU time
TOKEN_VARIABLE = "LAB_GRADE_TOKEN"  # set by `lab grade` for each check run: what it left running carries it


def stop(process, token: str = "") -> None:
    """The one way the kit ends a child it started (a Child, or a preloader's Forked): its group
    killed, even when its leader has exited (what it started may still run, and while one does
    the group's id names no other process), the child reaped, then, with `token`, every process
    still carrying that grading token (one that left the group: setsid). Safe to repeat."""
    if GROUPS:
        kill_tree(process.pid, leader=process.returncode is None)
    elif process.poll() is None:
        process.kill()  # Windows: no group, the child alone
    try:
        process.wait(timeout=REAP)
    except subprocess.TimeoutExpired:
        pass  # stuck in the kernel (a dying sandbox's mounts): the kill stands, the reap comes later
    if token:
        kill_marked(token)


def kill_tree(pid: int, leader: bool = True) -> None:
    """SIGKILL the process group `pid` leads and, with `leader` (only for a pid not reaped yet),
    the process too: right after fork(), before its setsid(), a child has no group yet."""
    for kill in (os.killpg, os.kill) if leader else (os.killpg,):
        with contextlib.suppress(OSError):  # gone already
            kill(pid, signal.SIGKILL)


class Child(subprocess.Popen):
    """A new process as the kit starts it: a Popen whose wait hears its end at once, through a
    pidfd (Linux 5.3+), where Popen.wait(timeout) polls and wakes up to 50 ms late."""

    def wait(self, timeout: float | None = None) -> int:
        if timeout is not None and self.returncode is None and hasattr(os, "pidfd_open"):
            try:
                pidfd = os.pidfd_open(self.pid)
            except OSError:  # reaped already, or a kernel without pidfds: Popen's own wait below
                pidfd = None
            if pidfd is not None:
                try:
                    if not select.select([pidfd], [], [], max(0.0, timeout))[0]:
                        raise subprocess.TimeoutExpired(self.args, timeout)
                finally:
                    os.close(pidfd)
        return super().wait(timeout)


def wait_for(process, timeout: float) -> int | None:
    """Its exit code as soon as it ends, or None when it still runs at `timeout`."""
    try:
        return process.wait(timeout=max(0.0, timeout))
    except subprocess.TimeoutExpired:
        return None


def wait_or_kill(process, timeout: float) -> int | None:
    """Its exit code, or None when it still runs at `timeout`. Either way (Ctrl-C too), what it
    started and left running is killed with it."""
    try:
        return wait_for(process, timeout)
    finally:
        stop(process)


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
