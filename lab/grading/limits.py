"""The class's resource limits, set with setrlimit in a student-side process before it runs
anything: everything that process starts inherits them."""

from __future__ import annotations

import resource


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
