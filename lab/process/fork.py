"""The kit's own scripts in a fork of this interpreter (`lab run`), and a script run in a
forked process (the preloader's children): Python and what is imported already come free."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from lab.process.groups import POSIX, kill_group, kill_pid_group

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


def run_python_with_limit(script: Path, args: list[str], timeout: float, env: dict[str, str]) -> int | None:
    """`python script args...` to the end: its exit code, or None past `timeout` (then killed).

    Where it is safe, the script runs in a fork of this interpreter instead of a new
    one: Python itself and the modules the kit has already imported come for free,
    which takes about a tenth of a second off every `lab run` (README, "Performance").
    The child still gets its own process group, environment and arguments.
    """
    if not can_fork():
        return run_with_limit([sys.executable, str(script), *args], timeout, env=env)
    sys.stdout.flush()  # else the child would print what our buffers hold a second time
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            code = run_script_here(script, args, env)
        finally:
            os._exit(code)  # the child never returns into the kit's code
    try:
        exited = exits_within(pid, timeout)
    except KeyboardInterrupt:
        kill_and_reap(pid)
        raise
    if not exited:
        kill_and_reap(pid)
        return None
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def can_fork() -> bool:
    # Linux only: a forked macOS process can crash inside system frameworks. Our
    # stdout and stderr must be the real ones (a test's in-memory capture would not
    # reach the child), and the kernel must give pidfds (5.3+) to wait with a limit.
    if sys.platform != "linux" or not all(hasattr(os, name) for name in ("pidfd_open", "fork", "setsid")):
        return False
    try:
        if sys.stdout.fileno() != 1 or sys.stderr.fileno() != 2:
            return False
        os.close(os.pidfd_open(os.getpid()))
    except (AttributeError, ValueError, OSError):  # io.UnsupportedOperation is both
        return False
    return True


def run_script_here(script: Path | str, args: list[str], env: dict[str, str], new_session: bool = True) -> int:
    """In a forked child: become `python script args...` (or `python -m module`), return its exit code."""
    import runpy

    if new_session:
        os.setsid()  # its own group, as start_new_session gives a new interpreter
    os.environ.clear()
    os.environ.update(env)
    # A new interpreter reads TMPDIR afresh; the forked one must not keep the folder its parent
    # found first (tempfile caches it): a check run's temporary folders go where it is told.
    tempfile.tempdir = None
    is_module = not str(script).endswith(".py")
    path = "" if is_module else os.path.abspath(script)  # as Python gives __file__
    sys.argv = [str(script), *args]
    if not is_module:
        sys.path.insert(0, os.path.dirname(path))  # `python script` puts the script's folder first
    try:
        if is_module:
            runpy.run_module(str(script), run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(path, run_name="__main__")
        code = 0
    except SystemExit as stop:  # what Python does with sys.exit(...)
        if stop.code is None or isinstance(stop.code, int):
            code = stop.code or 0
        else:
            print(stop.code, file=sys.stderr)
            code = 1
    except BaseException as error:  # the traceback Python would print, without runpy's frames
        import traceback  # only now: it is slow to import, and most runs never need it

        frames = error.__traceback__
        while path and frames and frames.tb_frame.f_code.co_filename != path:
            frames = frames.tb_next
        traceback.print_exception(type(error), error, frames)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    return code


def exits_within(pid: int, timeout: float) -> bool:
    """True once child `pid` has exited (not reaped yet), False if still running at `timeout`."""
    pidfd = os.pidfd_open(pid)
    try:
        readable, _, _ = select.select([pidfd], [], [], timeout)
        return bool(readable)
    finally:
        os.close(pidfd)


def kill_and_reap(pid: int) -> None:
    """Kill the group of a forked child that was not reaped yet, then reap it (no zombie)."""
    kill_pid_group(pid)
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass  # reaped already
