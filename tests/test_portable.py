"""The student's path (lab run, lab check, lab check --watch, lab exercises) on a Python without
the POSIX-only modules and calls: what a student on Windows has (no resource, fcntl, termios,
pty, pwd, grp; no os.fork, setsid, killpg, getpgid, setpgid, pidfd_open).

A sitecustomize hides them from every interpreter the kit starts (the checks' student
processes too). Run on Linux in CI; the hiding is what makes the test stand for the other
platforms (docs/isolation.md, "Platforms").
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hostile import ROOT
from totals import FULL


HIDE = '''\
import os, sys
HIDDEN = {"resource", "fcntl", "termios", "pty", "grp", "pwd"}
class Hide:
    def find_spec(self, name, path=None, target=None):
        if name in HIDDEN:
            raise ModuleNotFoundError(f"No module named {name!r} (hidden)", name=name)
        return None
sys.meta_path.insert(0, Hide())
for name in HIDDEN:
    sys.modules.pop(name, None)
for name in ("fork", "setsid", "killpg", "pidfd_open", "getpgid", "setpgid", "forkpty"):
    if hasattr(os, name):
        delattr(os, name)
'''


@pytest.fixture(scope="module")
def hidden_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("hide")
    (folder / "sitecustomize.py").write_text(HIDE, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), str(ROOT)]), "LAB_LANG": "en"}
    env.pop("LAB_SANDBOX", None)
    return env


def lab(env: dict[str, str], *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lab", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def test_the_modules_are_really_hidden(hidden_env: dict[str, str]) -> None:
    probe = "import os; print(hasattr(os, 'fork'), hasattr(os, 'killpg')); import resource"
    done = subprocess.run([sys.executable, "-c", probe], env=hidden_env, capture_output=True, text=True, timeout=30)
    assert done.stdout == "False False\n"
    assert done.stderr.strip().endswith("ModuleNotFoundError: No module named 'resource' (hidden)")


def test_lab_check_gives_full_marks_to_the_solutions(hidden_env: dict[str, str]) -> None:
    done = lab(hidden_env, "check", "solutions")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"Score: {FULL}/{FULL}" in done.stdout


def test_lab_check_still_catches_the_untouched_exercises(hidden_env: dict[str, str]) -> None:
    done = lab(hidden_env, "check", "exercises")
    assert done.returncode == 1
    assert f"Score: 0/{FULL}" in done.stdout


def test_lab_run_and_lab_exercises(hidden_env: dict[str, str]) -> None:
    run = lab(hidden_env, "run", "solutions")
    assert run.returncode == 0, run.stderr
    first = run.stdout.splitlines()[0]
    assert first.startswith("-> ")
    assert json.loads(first[3:]) == {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    assert lab(hidden_env, "exercises", "--check").stdout == "exercises/ is up to date.\n"


def test_lab_check_watch_runs_again_after_a_save(hidden_env: dict[str, str], tmp_path: Path) -> None:
    folder = tmp_path / "work"
    shutil.copytree(ROOT / "solutions", folder, ignore=shutil.ignore_patterns("__pycache__"))
    process = subprocess.Popen([sys.executable, "-m", "lab", "check", str(folder), "--watch"], env=hidden_env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        lines: list[str] = []

        def wait_for(count: int) -> None:
            deadline = time.monotonic() + 60
            while sum("Score: " in line for line in lines) < count and time.monotonic() < deadline:
                lines.append(process.stdout.readline())

        wait_for(1)
        server = folder / "server.py"
        server.write_text(server.read_text(encoding="utf-8").replace('"listChanged": False', '"listChanged": True'),
                          encoding="utf-8")
        wait_for(2)
    finally:
        process.kill()
        process.wait(timeout=10)
    scores = [line.strip() for line in lines if "Score: " in line]
    assert [score.split("  ")[0] for score in scores] == [f"Score: {FULL}/{FULL}", f"Score: {FULL - 1}/{FULL}"]
