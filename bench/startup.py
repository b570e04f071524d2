"""Time whole commands (`lab run`, `lab --help`, the Node pair), repeated.

Both the wall clock (what a person waits) and the CPU time (user + system, of the
command and of every process it waited for) are kept: on a busy machine the wall
clock swings, the CPU time much less. The commands run in turns (A, B, C, A, B, C...)
rather than one after the other, so that a burst of load falls on all of them alike.
Each run's output is checked: a command that went fast by doing less is an error.
"""

from __future__ import annotations

import resource
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

RUN_LIMIT = 60.0  # seconds; far above any healthy run


@dataclass
class Command:
    argv: list[str]
    cwd: Path
    env: dict[str, str]
    check: Callable[[str], str | None]  # stdout -> None if right, else what is wrong
    times: list[float] = field(default_factory=list)  # wall clock, what a person waits
    cpu_times: list[float] = field(default_factory=list)  # user + system, children included


def refused_port() -> int:
    """A port on 127.0.0.1 where nobody listens: connecting to it is refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))  # bound, never listening: the port stays closed
        return probe.getsockname()[1]


def children_cpu() -> float:
    # Every process we waited for, and everything they waited for: lab, client, server.
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(command: Command) -> tuple[float, float]:
    """Wall-clock and CPU seconds of one run, after checking what it printed."""
    cpu_before = children_cpu()
    started = time.perf_counter()
    result = subprocess.run(
        command.argv,
        cwd=command.cwd,
        env=command.env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=RUN_LIMIT,
    )
    elapsed = time.perf_counter() - started
    cpu = children_cpu() - cpu_before
    output = result.stdout.decode(errors="replace")
    problem = command.check(output) if result.returncode == 0 else f"exit code {result.returncode}"
    if problem:
        stderr = result.stderr.decode(errors="replace")[-500:]
        raise RuntimeError(f"{' '.join(command.argv)}: {problem}\n{output[-500:]}{stderr}")
    return elapsed, cpu


def time_in_turns(commands: dict[str, Command], repeat: int) -> None:
    """Fill each command's `times`; one untimed run first (disk caches, .pyc files)."""
    for command in commands.values():
        run_once(command)
    for _ in range(repeat):
        for command in commands.values():
            elapsed, cpu = run_once(command)
            command.times.append(elapsed)
            command.cpu_times.append(cpu)


# ---------------------------------------------------------------- what a right run prints


def scenario_check(fallback: str) -> Callable[[str], str | None]:
    """Six replies, then the model step: the recorded sample, since no model is reachable."""

    def check(output: str) -> str | None:
        replies = [line for line in output.splitlines() if line.startswith("<- ")]
        if len(replies) != 6:
            return f"{len(replies)} replies instead of 6"
        if fallback not in output:
            return f"no {fallback!r} line: the model step did not run"
        return None

    return check


def contains(expected: str) -> Callable[[str], str | None]:
    return lambda output: None if expected in output else f"{expected!r} not in the output"
