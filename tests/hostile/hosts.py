"""Running a test's command as another host would: in a private mount and pid namespace of
this one (`unshare`, as root), where folders can differ without touching the host's own.

- the interpreter, the virtual environment and the kit reachable by every user: a folder on
  their way that others cannot enter (pyenv's /root, a clone made in a 0700 folder) is there
  an open tmpfs holding only what is on that way (all of it, for one of those folders itself);
- /proc showing only the namespace's processes (a clean-up that kills a user's processes
  reaches nothing outside).
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
from pathlib import Path

# OPENED: one line per closed folder, shallowest first: the folder, then what of it to keep,
# tab-separated. Each kept entry is bound aside, the folder covered, the entry bound back.
PRIVATE_HOST = """\
set -eu
scratch=$1; shift
n=0
while IFS=$'\\t' read -r -a way; do
  [ ${#way[@]} -gt 0 ] || continue
  kept=()
  for entry in "${way[@]:1}"; do
    n=$((n + 1)); aside="$scratch/kept$n"
    if [ -d "$entry" ]; then mkdir "$aside"; else : > "$aside"; fi
    mount --bind "$entry" "$aside" && kept+=("$entry" "$aside")
  done
  mount -t tmpfs -o mode=0755 tmpfs "${way[0]}"
  for ((i = 0; i < ${#kept[@]}; i += 2)); do
    if [ -d "${kept[i + 1]}" ]; then mkdir -p "${kept[i]}"; else : > "${kept[i]}"; fi
    mount --bind "${kept[i + 1]}" "${kept[i]}"
  done
done <<< "$OPENED"
exec "$@"
"""

CAN_RUN = os.geteuid() == 0 and all(shutil.which(tool) for tool in ("unshare", "setpriv"))


def closed_folders(*paths: Path) -> list[list[str]]:
    """Each folder on the way to these paths (or one of them) that other users cannot enter,
    shallowest first, with what of it to keep: its entry on the way, or all a path holds."""
    ways: dict[Path, set[Path]] = {}
    for path in (Path(path).resolve() for path in paths):
        for folder in [*reversed(path.parents), path]:
            if not folder.stat().st_mode & stat.S_IXOTH:
                kept = set(folder.iterdir()) if folder == path else {folder / path.relative_to(folder).parts[0]}
                ways.setdefault(folder, set()).update(kept)
    return [[str(folder), *map(str, sorted(kept))] for folder, kept in sorted(ways.items(), key=lambda way: len(way[0].parts))]


def private_host(scratch: Path, command: list[str], env: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    """(command line, environment) that run `command` in such a namespace; `scratch`: an
    empty folder of root's for the copies."""
    scratch.mkdir(parents=True, exist_ok=True)
    kit = Path(__file__).resolve().parents[2]
    opened = "\n".join("\t".join(way) for way in closed_folders(Path(sys.base_prefix), Path(sys.prefix), kit))
    env = {**env, "OPENED": opened}
    return ["unshare", "--mount", "--pid", "--fork", "--mount-proc", "bash", "-c", PRIVATE_HOST, "host",
            str(scratch), *command], env
