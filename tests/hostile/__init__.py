"""Submissions for grading tests, built in temporary folders: correct, partial and hostile.

Each is a copy of solutions/ (what a student who finished would hand in) with its server.py
changed. The hostile code is put at the top of server.py, so it runs both when a check starts
the server as a process and when the stub engine runs the file in its own process.
`SCORE` tells the stub engine (tests/hostile/stub_engine.py) what to award; the real engine
ignores it.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
SOLUTIONS = ROOT / "solutions"
STUB_ENGINE = Path(__file__).resolve().parent / "stub_engine.py"

HOSTILE_PRELUDES = {
    # never answers, never ends
    "hangs": "import time\ntime.sleep(3600)\n",
    # burns CPU forever
    "loops": "while True:\n    pass\n",
    # 64 MB on stdout before anything else
    "floods": (
        "import sys\nfor _ in range(64):\n    sys.stdout.write('x' * 1_000_000)\n"
        "sys.stdout.flush()\n"
    ),
    # exits at once
    "exits": "raise SystemExit(3)\n",
    # does not even parse
    "syntax": "def broken(:\n    pass\n",
    # deletes every file in its own folder (once the module it imports is loaded), then carries on
    "deletes": (
        "import pathlib, jsonrpc_lines\n"
        "for _path in pathlib.Path(__file__).resolve().parent.iterdir():\n"
        "    if _path.is_file():\n        _path.unlink()\n"
    ),
    # fails to import
    "import_error": "import lab_module_that_does_not_exist\n",
    # starts a process in a session of its own (out of the process group), then hangs
    "escapes": (
        "import os, subprocess, sys, time\n"
        "_child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'],"
        " start_new_session=True)\n"
        "_pid_file = os.environ.get('GRADE_TEST_PID_FILE')\n"
        "if _pid_file:\n    open(_pid_file, 'w').write(str(_child.pid))\n"
        "time.sleep(3600)\n"
    ),
}
KINDS = ("full", "partial", *HOSTILE_PRELUDES)

# A real bug for the real engine: the server announces listChanged: true (the lesson says false).
PARTIAL_BUG = ('"listChanged": False', '"listChanged": True')


def make_submission(parent: Path, name: str, kind: str, server_only: bool = False) -> Path:
    """Write submission `name` of the given kind under `parent` and return its folder.

    `server_only`: just server.py and the given jsonrpc_lines.py it imports (the other checks then
    fail at once: quicker tests).
    """
    folder = parent / name
    if server_only:
        folder.mkdir(parents=True)
        shutil.copy2(SOLUTIONS / "server.py", folder / "server.py")
        shutil.copy2(SOLUTIONS / "jsonrpc_lines.py", folder / "jsonrpc_lines.py")  # given beside it
    else:
        shutil.copytree(SOLUTIONS, folder, ignore=shutil.ignore_patterns("__pycache__"))
    server = folder / "server.py"
    source = server.read_text(encoding="utf-8")
    if kind == "full":
        source += '\nSCORE = "full"\n'
    elif kind == "partial":
        old, new = PARTIAL_BUG
        assert old in source, "the partial bug no longer applies to solutions/server.py"
        source = source.replace(old, new) + '\nSCORE = "partial"\n'
    else:
        source = with_prelude(source, HOSTILE_PRELUDES[kind])
    server.write_text(source, encoding="utf-8")
    return folder


def with_prelude(source: str, prelude: str) -> str:
    """`prelude` as the first statements run (after `from __future__`, which must come first)."""
    future = "from __future__ import annotations\n"
    if future in source:
        head, tail = source.split(future, 1)
        return head + future + prelude + tail
    return prelude + source


def stub_catalogue(parent: Path):
    """The stub engine's list of checks, from its run on a full submission (as a class run does)."""
    from lab.grading.catalogue import Catalogue
    from lab.grading.runner import Limits, grade_submission

    reference = make_submission(parent, "reference", "full")
    return Catalogue.from_report(grade_submission(reference, "fr", Limits(timeout=10), Catalogue(), str(STUB_ENGINE)))


def tree_digest(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` (relative path -> bytes), caches aside: to prove nothing changed."""
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def is_gone(pid: int) -> bool:
    """True once process `pid` has ended (a zombie waiting to be reaped counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")


def wait_until_gone(*pids: int, seconds: float = 5.0) -> bool:
    """Whether every one of `pids` has ended within `seconds` (a kill takes a moment to land)."""
    deadline = time.monotonic() + seconds
    while not all(is_gone(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return all(is_gone(pid) for pid in pids)
