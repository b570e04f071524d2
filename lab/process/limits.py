"""The class's resource limits, set with setrlimit in a student-side process before it runs
anything (everything that process starts inherits them), and the submission's control group
(lab/grading/cgroup.py makes it) that a preloaded fork joins."""

from __future__ import annotations

import contextlib
import os
import resource
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
GROUP_PREFIX = "lab-grade-"  # a submission's group


def cap(kind: int, soft: int, hard: int) -> None:
    """Lower a limit, never raise it above what this process was given already."""
    old_hard = resource.getrlimit(kind)[1]
    if old_hard != resource.RLIM_INFINITY:
        soft, hard = min(soft, old_hard), min(hard, old_hard)
    resource.setrlimit(kind, (soft, hard))


def apply_limits(cpu_seconds: int, memory_bytes: int, file_bytes: int) -> None:
    cap(resource.RLIMIT_CPU, cpu_seconds, cpu_seconds + 2)  # SIGXCPU first, SIGKILL 2 s later
    cap(resource.RLIMIT_AS, memory_bytes, memory_bytes)
    cap(resource.RLIMIT_FSIZE, file_bytes, file_bytes)
    cap(resource.RLIMIT_CORE, 0, 0)


def join_groups_of(pid: int) -> None:
    """Move this process into the memory and pids groups of process `pid` (a sandbox's holder,
    itself inside its submission's group): a zygote's fork is born outside the submission's
    group, and must count against it. Nothing happens where there are no such groups."""
    try:
        lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
    except OSError:
        return
    for line in lines:
        number, controllers, path = line.split(":", 2)
        if not path.strip("/").split("/")[-1].startswith(GROUP_PREFIX):
            continue  # not a submission's group: leave this process where it is
        folders = [CGROUP_ROOT / path.lstrip("/")] if number == "0" and not controllers else [
            CGROUP_ROOT / controller / path.lstrip("/") for controller in controllers.split(",")
            if controller in ("memory", "pids")]
        for folder in folders:
            with contextlib.suppress(OSError):
                (folder / "cgroup.procs").write_text(f"{os.getpid()}\n")
