"""Starting a trusted process: the kit's own code, run outside any sandbox (a submission's
check run, the preloaders, the SDK client). Student code shares its machine, not its view:
- Python always runs with `-I`: no PYTHON* variable, no user site, no script folder or
  current folder on sys.path;
- its working folder is TRUSTED_FOLDER, never a submission's: a relative entry on sys.path
  (an editable install's finder puts `__editable__…__path_hook__` there), `.env` lookups
  from the current folder and relative paths all resolve where no student can write;
- the kit is found from its own location (lab/layout.py::KIT_PARENT), resolved once, not through a
  path a submission could change;
- a grading process makes itself non-dumpable (keep_out_same_user) as its first act, since
  unsandboxed student code (`--no-sandbox`, Gradescope's fallback) runs under its own uid.
"""

from __future__ import annotations

import os
import subprocess
import sys

from lab.process.groups import Child
from lab.process.preloaded import Forked, start


TRUSTED_FOLDER = "/"  # root's own, on every host; never a submission's


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


# A started process as the kit holds it: a new one, or a preloader's fork; both are waited
# for, read and stopped alike (lab/process/groups.py).
Started = Child | Forked


def start_trusted(argv: list[str], env: dict[str, str], stdin: int = subprocess.DEVNULL,
                  stdout: int = subprocess.PIPE, stderr: int = subprocess.PIPE,
                  cwd: str = TRUSTED_FOLDER, forked: tuple[str, str, list[str]] | None = None) -> Started:
    """`argv` (a trusted_python command line, or a trusted program's) in TRUSTED_FOLDER, or in
    `cwd`, a fresh folder of the kit's (a real client's), never one student code can write; in
    a session of its own; by default nothing on stdin, stdout and stderr on pipes.

    `forked`: (a preloader's address, the module or file it runs, its arguments), the same
    program forked ready by `lab grade`'s preloader (lab/process/preloader.py applies the same
    limits) instead of `argv`, with the default pipes. The one place this choice is made: a
    preloader that does not answer costs a new interpreter's start-up time, never any isolation."""
    if forked is not None:
        address, target, args = forked
        process = start(address, target, args, cwd, env)
        if process is not None:
            process.stdin.close()  # as /dev/null: nothing to read
            return process
    return Child(argv, cwd=cwd, env=env, start_new_session=True, stdin=stdin, stdout=stdout, stderr=stderr)
