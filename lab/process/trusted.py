"""Starting a trusted process: the kit's own code, run outside any sandbox (a submission's
check run, the preloaders, the SDK client). Student code shares its machine, not its view:
- Python always runs with `-I`: no PYTHON* variable, no user site, no script folder or
  current folder on sys.path;
- its working folder is TRUSTED_FOLDER, never a submission's: a relative entry on sys.path
  (an editable install's finder puts `__editable__…__path_hook__` there), `.env` lookups
  from the current folder and relative paths all resolve where no student can write;
- the kit is found from its own location (KIT_PARENT), resolved once here, not through a
  path a submission could change;
- a grading process makes itself non-dumpable (keep_out_same_user) as its first act, since
  unsandboxed student code (`--no-sandbox`, Gradescope's fallback) runs under its own uid.
"""

from __future__ import annotations

import os
import selectors
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Protocol

from lab.process.groups import kill_group, kill_marked

TRUSTED_FOLDER = "/"  # root's own, on every host; never a submission's
KIT_PARENT = Path(__file__).resolve().parent.parent.parent  # the folder that holds `lab/`


def cache_options() -> list[str]:
    # -I drops PYTHON* variables: keep a bytecode cache folder if one is set (a read-only kit).
    prefix = os.environ.get("PYTHONPYCACHEPREFIX")
    return ["-X", f"pycache_prefix={prefix}"] if prefix else []


PR_SET_DUMPABLE = 4  # <linux/prctl.h>


def keep_out_same_user() -> None:
    """Make this process non-dumpable. A process of the same uid can then neither trace it nor
    open its /proc files (fd, mem, environ): unsandboxed student code, which shares the
    grader's uid, cannot write into a check run's report pipe, read its memory or steer it. The
    flag holds across fork and is reset by exec, so each trusted program sets it anew; on a
    system without prctl there is no /proc to reach either."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0)")


def trusted_python(args: list[str]) -> list[str]:
    """`python -I ARGS...` with this interpreter."""
    return [sys.executable, "-I", *cache_options(), *args]


class Started(Protocol):
    """A started process as the kit holds it: a Popen, or a preloader's fork (lab/process/preloaded.py)."""

    pid: int
    returncode: int | None
    stdout: IO[bytes] | None
    stderr: IO[bytes] | None

    def poll(self) -> int | None: ...
    def wait(self, timeout: float | None = None) -> int: ...
    def kill(self) -> None: ...


def start_trusted(argv: list[str], env: dict[str, str], stdin: int = subprocess.DEVNULL,
                  stdout: int = subprocess.PIPE, stderr: int = subprocess.PIPE,
                  cwd: str = TRUSTED_FOLDER) -> subprocess.Popen:
    """`argv` (a trusted_python command line, or a trusted program's) in TRUSTED_FOLDER, or in
    `cwd`, a fresh folder of the kit's (a real client's), never one student code can write; in
    a session of its own; by default nothing on stdin, stdout and stderr on pipes."""
    return subprocess.Popen(argv, cwd=cwd, env=env, start_new_session=True,
                            stdin=stdin, stdout=stdout, stderr=stderr)


class Capped:
    """A byte buffer that keeps the first `cap` bytes and counts the rest."""

    def __init__(self, cap: int) -> None:
        self.cap, self.data, self.dropped = cap, bytearray(), 0

    def add(self, chunk: bytes) -> None:
        room = self.cap - len(self.data)
        self.data += chunk[:room]
        self.dropped += max(0, len(chunk) - room)


def read_capped(process: Started, deadline: float, out_cap: int, err_cap: int) -> tuple[Capped, Capped, bool]:
    """Read stdout and stderr together until both close or the deadline, keeping at most
    `out_cap` and `err_cap` bytes (the rest is read and counted, so no pipe ever fills);
    True if the deadline passed."""
    out, err = Capped(out_cap), Capped(err_cap)
    timed_out = False
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ, out)
    selector.register(process.stderr, selectors.EVENT_READ, err)
    exited_at: float | None = None
    while selector.get_map():
        now = time.monotonic()
        if now >= deadline:
            timed_out = True
            break
        if exited_at is None and process.poll() is not None:
            exited_at = now
        if exited_at is not None and now - exited_at > 0.5:
            break  # a process that escaped the group still holds the pipe: stop waiting
        for key, _ in selector.select(timeout=min(0.1, deadline - now)):
            chunk = os.read(key.fileobj.fileno(), 65536)
            if chunk:
                key.data.add(chunk)
            else:
                selector.unregister(key.fileobj)
    selector.close()
    if not timed_out:
        try:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            timed_out = True
    return out, err, timed_out


def end_everything(process: Started, token: str) -> None:
    """Kill the process with its group, close its pipes, then kill any process still carrying
    the grading token `token` in its environment (one that left the group: setsid)."""
    kill_group(process)
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()
    kill_marked(token)
