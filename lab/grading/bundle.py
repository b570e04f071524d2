"""The Gradescope autograder zip: `setup.sh`, `run_autograder` and the kit itself.

Gradescope unpacks the zip into /autograder/source, runs setup.sh once (as root) while it
builds the image, then runs /autograder/run_autograder for each submission, which must write
/autograder/results/results.json. Every path in run_autograder can be overridden from the
environment, so the same script can be tried on temporary folders.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from lab.i18n import text

KIT_ROOT = Path(__file__).resolve().parent.parent.parent
KIT_ENTRIES = ("pyproject.toml", "README.md", "lab", "solutions", "exercises")
SKIPPED_PARTS = {"__pycache__", ".pytest_cache", ".mypy_cache"}
FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # the same bytes every time: a bundle is reproducible

SETUP_SH = """\
#!/usr/bin/env bash
# Gradescope runs this once, as root, while it builds the autograder image
# (apt-get update has already run). It installs the kit in its own virtual environment.
set -euo pipefail
apt-get install -y --no-install-recommends python3 python3-venv python3-pip bubblewrap
# Where bubblewrap cannot run, lab grade runs as this user instead (run_autograder).
id lab-student >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin lab-student
python3 -m venv /autograder/venv
/autograder/venv/bin/pip install --upgrade pip
/autograder/venv/bin/pip install -e /autograder/source/kit
"""

RUN_AUTOGRADER = """\
#!/usr/bin/env bash
# Gradescope runs this for every submission, from /autograder, as root. It grades the submission
# with `lab grade` (limits, private copy, a results file even when the code crashes) and
# puts Gradescope's results.json where Gradescope reads it.
# Each path can be overridden from the environment (the kit's tests use temporary folders).
set -u
root="${{AUTOGRADER_ROOT:-/autograder}}"
submission="${{AUTOGRADER_SUBMISSION:-$root/submission}}"
results="${{AUTOGRADER_RESULTS:-$root/results}}"
lab="${{AUTOGRADER_LAB:-$root/venv/bin/lab}}"
lang="${{LAB_LANG:-{lang}}}"
timeout="${{LAB_GRADE_TIMEOUT:-{timeout}}}"

# Students may upload the files or the folder that holds them: grade the one with server.py.
if [ ! -f "$submission/server.py" ]; then
  found=$(find "$submission" -maxdepth 3 -name server.py -type f -print -quit 2>/dev/null)
  if [ -n "$found" ]; then submission=$(dirname "$found"); fi
fi

# Student processes run in lab grade's bubblewrap sandbox, which sees neither $results nor
# this script. Where the container refuses the sandbox's namespaces, the whole grading runs
# as the unprivileged user lab-student instead (--no-sandbox, recorded in the results):
# it cannot write $results, which only this script (root) writes, from what lab produced.
work=$(mktemp -d)
mkdir -p "$results"
options=(--format gradescope --out "$work" --lang "$lang" --timeout "$timeout" --jobs 1{bonus})
if ! $lab grade "$submission" "${{options[@]}}" && [ -z "$(ls -A "$work")" ] \\
    && [ "$(id -u)" = 0 ] && id lab-student >/dev/null 2>&1; then
  chown lab-student "$work"
  runuser -u lab-student -- $lab grade "$submission" "${{options[@]}}" --no-sandbox
fi
produced=$(find "$work" -mindepth 2 -maxdepth 2 -name results.json -print -quit)
if [ -n "$produced" ]; then
  cp "$produced" "$results/results.json"
else
  # lab itself could not run: Gradescope still gets a valid file, and stdout has the reason.
  printf '%s\\n' {fallback} > "$results/results.json"
fi
rm -rf "$work"
"""


def shell_quote(value: str) -> str:
    return "'" + value.replace("'", "'\"'\"'") + "'"


def run_autograder_script(lang: str, timeout: float = 90.0, bonus: bool = False) -> str:
    fallback = json.dumps({"score": 0, "output": text(lang, "bundle.failed"), "tests": []},
                          ensure_ascii=False)
    return RUN_AUTOGRADER.format(lang=lang, timeout=f"{timeout:g}", fallback=shell_quote(fallback),
                                 bonus=" --bonus" if bonus else "")


def kit_files(root: Path = KIT_ROOT) -> list[Path]:
    """The files setup.sh needs to install the kit, relative to the project root."""
    found: list[Path] = []
    for entry in KIT_ENTRIES:
        path = root / entry
        if path.is_file():
            found.append(Path(entry))
        elif path.is_dir():
            found.extend(
                file.relative_to(root) for file in sorted(path.rglob("*"))
                if file.is_file() and not SKIPPED_PARTS & set(file.parts) and file.suffix != ".pyc"
            )
    return found


def add(archive: zipfile.ZipFile, name: str, data: bytes, executable: bool = False) -> None:
    info = zipfile.ZipInfo(name, date_time=FIXED_TIME)
    info.external_attr = (0o100755 if executable else 0o100644) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, data)


def write_bundle(path: Path, lang: str = "fr", timeout: float = 90.0, root: Path = KIT_ROOT,
                 bonus: bool = False) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as archive:
        add(archive, "setup.sh", SETUP_SH.encode(), executable=True)
        add(archive, "run_autograder", run_autograder_script(lang, timeout, bonus).encode(), executable=True)
        for relative in kit_files(root):
            add(archive, f"kit/{relative.as_posix()}", (root / relative).read_bytes())
    return path
