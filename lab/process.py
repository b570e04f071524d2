"""Running a child process that may misbehave: own process group, time limit, always reaped."""

from __future__ import annotations

import os
import signal
import subprocess
from typing import Any

POSIX = os.name == "posix"


def kill_group(process: subprocess.Popen) -> None:
    """Kill the process and everything it started, then reap it (no zombie)."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGKILL) if POSIX else process.kill()
        except OSError:
            process.kill()
    process.wait()


def run_with_limit(args: list[str], timeout: float, **popen: Any) -> int | None:
    """Run to the end and return the exit code, or None if it ran past `timeout` (then killed)."""
    process = subprocess.Popen(args, start_new_session=POSIX, **popen)
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    except KeyboardInterrupt:
        kill_group(process)
        raise
    finally:
        kill_group(process)
