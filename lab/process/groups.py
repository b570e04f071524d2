"""Process groups and CPU budgets: how a child and everything it started are limited and killed."""

from __future__ import annotations

import os
import signal
import subprocess

POSIX = os.name == "posix"
# Process groups (POSIX): where there are none (Windows), a child is killed alone, and the
# kit's own children take care to leave nothing behind.
GROUPS = hasattr(os, "killpg")
TOKEN_VARIABLE = "LAB_GRADE_TOKEN"  # set by `lab grade` for each check run: the checks know they are graded


def kill_group(process: subprocess.Popen) -> None:
    """Kill the process and everything it started, then reap it (no zombie).

    The group is killed even when its leader has exited already: what the leader
    started may still run (until the leader is reaped, its pid names the group).
    """
    if GROUPS:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except OSError:
            pass  # the group is gone already
    if process.poll() is None:
        process.kill()
    process.wait()


def limit_cpu(pid: int, seconds: int) -> None:
    """At most `seconds` of CPU for process `pid` (then SIGXCPU, and SIGKILL a second later)."""
    try:
        import resource  # POSIX only
    except ImportError:
        return
    if hasattr(resource, "prlimit"):  # Linux
        try:
            resource.prlimit(pid, resource.RLIMIT_CPU, (seconds, seconds + 1))
        except (OSError, ValueError):
            pass  # it has exited already, or its limit is lower still


def tree_cpu(pid: int) -> float | None:
    """CPU seconds used so far by process `pid` and everything under it still running (with
    what their reaped children used), read from /proc; None where /proc cannot tell.

    Why: an rlimit counts whole seconds and each process alone; this sums a process tree,
    a sandboxed one included (bwrap and the program inside are its descendants), to any
    fraction of a second. Every process is read, as /proc lists no children on some kernels."""
    parents: dict[int, int] = {}
    used: dict[int, int] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return None
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                # After the command's closing parenthesis: state, ppid, ... utime (11th),
                # stime, cutime, cstime.
                fields = stat.read().rsplit(b")", 1)[1].split()
            parents[int(name)] = int(fields[1])
            used[int(name)] = sum(int(value) for value in fields[11:15])
        except (OSError, IndexError, ValueError):
            continue  # it ended while we read
    if pid not in used:
        return None
    children: dict[int, list[int]] = {}
    for child, parent in parents.items():
        children.setdefault(parent, []).append(child)
    total, pending = 0, [pid]
    while pending:
        current = pending.pop()
        total += used.get(current, 0)
        pending += children.get(current, [])
    return total / os.sysconf("SC_CLK_TCK")


def sweep_group(pgid: int) -> None:
    """Kill what the process left running in its group after it exited (a stray child)."""
    if GROUPS:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass  # the group is empty: the usual case
