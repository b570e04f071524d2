"""docs/platforms.md's GitHub Classroom samples are what the kit prints today: a submission with
one bug (listChanged true) graded in English, read by the reporter's logic (its print rules:
tests/test_grade_classroom.py's Reporter) for --format exercism and classroom, and its `lab
check` view. Each line of a sample is the kit's, in order; `…` stands for lines left out."""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from test_docs import block_after
from test_grade_classroom import Reporter
from totals import FULL, LESSON_CHECKS

PAGE = ROOT / "docs" / "platforms.md"
ELIDED = "…"


def shown_in_order(sample: str, output: list[str]) -> bool:
    """Every run of lines between `…` appears whole in `output`, in order; a sample that does not
    start (end) with `…` starts (ends) where the output does."""
    pieces: list[list[str]] = [[]]
    for line in sample.splitlines():
        if line == ELIDED:
            pieces.append([])
        else:
            pieces[-1].append(line)
    at = 0
    for number, piece in enumerate(pieces):
        if not piece:
            continue
        found = next((start for start in range(at, len(output) - len(piece) + 1)
                      if output[start:start + len(piece)] == piece), None)
        if found is None or (number == 0 and found != 0):
            return False
        at = found + len(piece)
    return not pieces[-1] or at == len(output)


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    root = tmp_path_factory.mktemp("samples")
    folder = root / "exercises"
    shutil.copytree(ROOT / "solutions", folder, ignore=shutil.ignore_patterns("__pycache__"))
    server = (folder / "server.py").read_text(encoding="utf-8")
    one_bug = '{"tools": {"listChanged": False}}'
    assert one_bug in server
    (folder / "server.py").write_text(server.replace(one_bug, one_bug.replace("False", "True")), encoding="utf-8")
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    seen: dict[str, list[str]] = {}
    for fmt in ("exercism", "classroom"):
        done = subprocess.run([sys.executable, "-m", "lab", "--lang", "en", "grade", str(folder), "--format", fmt,
                               "--out", str(root / fmt)], capture_output=True, text=True, timeout=180, env=env)
        assert done.returncode == 0, done.stderr
        results = (root / fmt / "exercises" / "results.json").read_bytes()
        seen[fmt] = ["🔄 Processing: lab", *"\n".join(Reporter(base64.b64encode(results).decode()).lines).splitlines()]
    check = subprocess.run([sys.executable, "-m", "lab", "--lang", "en", "check", "exercises"], capture_output=True,
                           text=True, timeout=180, cwd=root, env=env)
    assert check.returncode == 1, check.stderr
    # The run's time is the one figure that changes from run to run.
    seen["check"] = [re.sub(r"  \(\d+(?:\.\d+)? s\)$", "", line) for line in check.stdout.splitlines()]
    return seen


@pytest.mark.parametrize("marker, kind", [("sample: reporter exercism", "exercism"),
                                          ("sample: reporter classroom", "classroom"),
                                          ("sample: lab check", "check")])
def test_each_sample_is_what_the_kit_prints(graded: dict[str, list[str]], marker: str, kind: str) -> None:
    sample = block_after(PAGE.read_text(encoding="utf-8"), marker)
    if kind == "exercism":  # the reporter prints "Processing" before the tests: the sample starts after it
        sample = "🔄 Processing: lab\n" + sample
    assert shown_in_order(sample, graded[kind]), "\n".join(graded[kind])


def test_the_totals_shown_are_the_kits(graded: dict[str, list[str]]) -> None:
    page = PAGE.read_text(encoding="utf-8")
    # One check failed of the lesson's: the classroom runner prints (passed / tests) × max_score.
    total = f"Total points for lab: {(LESSON_CHECKS - 1) / LESSON_CHECKS * FULL:.2f}/{FULL}"
    assert graded["classroom"][-1] == total and f"Score: {FULL - 1}/{FULL}" in graded["check"]
    # The page says the totals' shape, never the lesson's figure: a new check changes no page.
    assert "Total points for lab: <points>/<the lesson's points>" in page and f"/{FULL}" not in page
    assert graded["check"][graded["check"].index("✓ server, part 1               3/3")] in page


def test_the_matcher_refuses_a_stale_sample() -> None:
    output = ["a", "b", "c", "d"]
    assert shown_in_order("a\n…\nc\n…", output) and shown_in_order("a\nb\n…\nd", output)
    assert not shown_in_order("a\n…\nx\n…", output)  # a line the kit no longer prints
    assert not shown_in_order("b\n…", output)  # not where the output starts
    assert not shown_in_order("…\nc", output)  # not where it ends
    assert not shown_in_order("…\nc\n…\nb\n…", output)  # out of order
