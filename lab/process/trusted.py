"""Starting a process outside any sandbox: the kit's own code (a submission's check run, the
preloaders, the SDK client), bubblewrap, and the student's processes where there is no
sandbox; a new process, or one a preloader forks (`fork`). Student code shares its machine,
not its view of the kit's:
- Python always runs with `-I`: no PYTHON* variable, no user site, no script folder or
  current folder on sys.path;
- its working folder is TRUSTED_FOLDER, never a submission's: a relative entry on sys.path
  (an editable install's finder puts `__editable__…__path_hook__` there), `.env` lookups
  from the current folder and relative paths all resolve where no student can write;
- the kit is found from its own location (lab/layout.py::KIT_PARENT), never a path a submission made;
- a grading process makes itself non-dumpable (keep_out_same_user) as its first act, since
  unsandboxed student code (`--no-sandbox`, Gradescope's fallback) runs under its own uid.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

from lab.process.groups import Child
from lab.time_limits import PRELOADER_REPLY

TRUSTED_FOLDER = "/"  # root's own, on every host; never a submission's
PR_SET_DUMPABLE = 4  # <linux/prctl.h>


def keep_out_same_user() -> None:
    """Make this process non-dumpable: a process of the same uid (unsandboxed student code) can
    then neither trace it nor open its /proc files (fd, mem, environ), so cannot write into a
    check run's report pipe, read its memory or steer it. Exec resets the flag: each trusted
    program sets it anew. Without prctl (not Linux) there is no /proc to reach either."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0)")


def trusted_python(args: list[str]) -> list[str]:
    """`python -I ARGS...` with this interpreter, and the bytecode cache folder if one is set
    (-I drops PYTHON* variables: a read-only kit keeps its cache)."""
    prefix = os.environ.get("PYTHONPYCACHEPREFIX")
    return [sys.executable, "-I", *(["-X", f"pycache_prefix={prefix}"] if prefix else []), *args]


def start_trusted(argv: list[str], env: dict[str, str], *, cwd: Path | str = TRUSTED_FOLDER,
                  stdin: int | None = subprocess.DEVNULL, stdout: int | None = subprocess.PIPE,
                  stderr: int | None = subprocess.PIPE, pass_fds: tuple[int, ...] = (),
                  forked: tuple[str, str, list[str]] | None = None) -> Child:
    """`argv` in a session of its own, in TRUSTED_FOLDER or `cwd` (a folder of the kit's, or an
    unsandboxed student process's own); by default nothing on stdin, stdout and stderr on pipes.

    `forked`: (a preloader's address, the module or file it runs, its arguments): that program
    forked ready by the preloader instead, its stdio on pipes, under the same limits. The one
    place this choice is made: a preloader that does not answer costs a new interpreter's
    start-up time, never any isolation (what it forks runs unsandboxed, as a new one would)."""
    if forked is not None:
        address, target, args = forked
        process = fork(address, target, args, cwd, env)
        if process is not None:
            if stdin == subprocess.DEVNULL:
                process.stdin.close()  # as /dev/null: nothing to read
            return process
    return Child.new(argv, cwd=cwd, env=env, start_new_session=True, stdin=stdin, stdout=stdout, stderr=stderr,
                     pass_fds=pass_fds)


def fork(address: str, target: str, args: list[str], cwd: Path | str, env: dict[str, str],
         extra_fds: list[int] = (), extra: dict | None = None, holder: Child | None = None) -> Child | None:
    """Ask the preloader at `address` (lab/process/preloader.py) for `python target args...` in
    `cwd`, its stdin, stdout and stderr on pipes to us; None if it cannot. A zygote also takes
    `extra_fds` (its status pipe and namespaces), `extra` fields, and the `holder` of the
    sandbox its fork joins."""
    pipes = [os.pipe() for _ in range(3)]  # stdin, stdout, stderr, each (read, write)
    theirs = [pipes[0][0], pipes[1][1], pipes[2][1]]
    ours = [pipes[0][1], pipes[1][0], pipes[2][0]]
    control = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        control.settimeout(PRELOADER_REPLY)
        control.connect(address)
        order = {"target": target, "args": args, "cwd": str(cwd), "env": env, **(extra or {})}
        socket.send_fds(control, [json.dumps(order).encode()], [*theirs, *extra_fds])
        pid = int(json.loads(control.recv(4096))["pid"])
        control.settimeout(None)
    except (OSError, ValueError, KeyError, TypeError):
        control.close()
        for fd in ours:
            os.close(fd)
        return None
    finally:
        for fd in theirs:
            os.close(fd)
    return Child(pid, os.fdopen(ours[0], "wb"), os.fdopen(ours[1], "rb"), os.fdopen(ours[2], "rb"),
                 control=control, holder=holder)
