"""Running a test's command as another host would: in a private mount and pid namespace of
this one (`unshare`, as root), where folders can differ without touching the host's own.

- the interpreter reachable by every user: pyenv keeps it in /root, which others cannot
  enter, so there /root is an empty, open tmpfs holding only the interpreter's tree;
- /proc showing only the namespace's processes (a clean-up that kills a user's processes
  reaches nothing outside).
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
from pathlib import Path

PRIVATE_HOST = """\
set -eu
scratch=$1; shift
if [ -n "$HIDDEN" ]; then
  mkdir "$scratch/kept" && mount --bind "$KEPT" "$scratch/kept"
  mount -t tmpfs -o mode=0755 tmpfs "$HIDDEN"
  mkdir -p "$KEPT" && mount --bind "$scratch/kept" "$KEPT"
fi
exec "$@"
"""

CAN_RUN = os.geteuid() == 0 and all(shutil.which(tool) for tool in ("unshare", "setpriv"))


def interpreter_folders() -> tuple[str, str]:
    """(the first folder on the way to this interpreter that other users cannot enter, its
    child on that way), or ("", "") when every one is open."""
    prefix = Path(sys.base_prefix).resolve()
    for folder in [*reversed(prefix.parents), prefix]:
        if folder != prefix and not folder.stat().st_mode & stat.S_IXOTH:
            return str(folder), str(folder / prefix.relative_to(folder).parts[0])
    return "", ""


def private_host(scratch: Path, command: list[str], env: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    """(command line, environment) that run `command` in such a namespace; `scratch`: an
    empty folder of root's for the copies."""
    scratch.mkdir(parents=True, exist_ok=True)
    hidden, kept = interpreter_folders()
    env = {**env, "HIDDEN": hidden, "KEPT": kept}
    return ["unshare", "--mount", "--pid", "--fork", "--mount-proc", "bash", "-c", PRIVATE_HOST, "host",
            str(scratch), *command], env
