"""Starting a trusted process: the kit's own code, run outside any sandbox (a submission's
check run, the preloaders, the SDK client). Student code shares its machine, not its view:
- Python always runs with `-I`: no PYTHON* variable, no user site, no script folder or
  current folder on sys.path;
- its working folder is TRUSTED_FOLDER, never a submission's: a relative entry on sys.path
  (an editable install's finder puts `__editable__…__path_hook__` there), `.env` lookups
  from the current folder and relative paths all resolve where no student can write;
- the kit is found from its own location (KIT_PARENT), resolved once here, not through a
  path a submission could change.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TRUSTED_FOLDER = "/"  # root's own, on every host; never a submission's
KIT_PARENT = Path(__file__).resolve().parent.parent.parent  # the folder that holds `lab/`


def cache_options() -> list[str]:
    # -I drops PYTHON* variables: keep a bytecode cache folder if one is set (a read-only kit).
    prefix = os.environ.get("PYTHONPYCACHEPREFIX")
    return ["-X", f"pycache_prefix={prefix}"] if prefix else []


def trusted_python(args: list[str]) -> list[str]:
    """`python -I ARGS...` with this interpreter."""
    return [sys.executable, "-I", *cache_options(), *args]


def start_trusted(argv: list[str], env: dict[str, str], **pipes: int) -> subprocess.Popen:
    """`argv` (a trusted_python command line, or a trusted program's) in TRUSTED_FOLDER, in a
    session of its own. `pipes`: stdin, stdout, stderr as for Popen."""
    return subprocess.Popen(argv, cwd=TRUSTED_FOLDER, env=env, start_new_session=True, **pipes)
