"""The kit works as users install it: a built wheel in a fresh virtual environment, away from
the checkout. `lab run`, `lab check`, `lab grade` and `lab gradescope-bundle` must find
everything they need (the reference solutions above all) inside the installed package."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT
from lab.checks import reference


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The `bin/` folder of a fresh venv holding the kit's wheel and nothing of the checkout."""
    work = tmp_path_factory.mktemp("wheel")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--verbose", "--no-deps", "-w", str(work / "dist"),
                            str(ROOT)], capture_output=True, text=True, check=True, timeout=300)
    assert "absent from the `packages` configuration" not in built.stdout + built.stderr  # every data folder declared
    wheel = next((work / "dist").glob("mcp_handshake_lab-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert {"lab/solutions/server.py", "lab/solutions/client.py", "lab/solutions/model.py",
            "lab/solutions/answers.toml"} <= set(names)
    # Every file of the kit's source (its data folders too), and nothing that is not there (a stale build/ folder).
    source = {path.relative_to(ROOT).as_posix() for path in (ROOT / "lab").rglob("*")
              if path.is_file() and "__pycache__" not in path.parts}
    assert {name for name in names if name.startswith("lab/") and not name.startswith("lab/solutions/")} == source
    venv.create(work / "venv", with_pip=True)
    bin_dir = work / "venv" / "bin"
    subprocess.run([str(bin_dir / "python"), "-m", "pip", "install", "--quiet", str(wheel)],
                   check=True, timeout=600)
    return bin_dir


def lab(bin_dir: Path, *args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", AI_URL="http://127.0.0.1:9", LAB_LANG="en")
    return subprocess.run([str(bin_dir / "lab"), *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_the_installed_kit_is_not_the_checkout(installed: Path, tmp_path: Path) -> None:
    done = subprocess.run([str(installed / "python"), "-c", "import lab, lab.layout; print(lab.__file__);"
                           "print(lab.layout.solutions_dir())"], cwd=tmp_path, capture_output=True, text=True)
    package, solutions = done.stdout.split()
    assert not package.startswith(str(ROOT)) and "site-packages" in package
    assert solutions == str(Path(package).parent / "solutions")


def test_lab_run_uses_the_packaged_solutions(installed: Path, tmp_path: Path) -> None:
    done = lab(installed, "run", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line[:3] for line in lines[:13]] == ["-> "] * 7 + ["<- "] * 6
    assert lines[-1] == reference.model_says("en") + reference.client_sample("en")


def test_lab_check_and_grade_from_the_wheel(installed: Path, tmp_path: Path) -> None:
    packaged = subprocess.run([str(installed / "python"), "-c", "import lab.layout; print(lab.layout.solutions_dir())"],
                              capture_output=True, text=True, check=True).stdout.strip()
    alice = tmp_path / "class" / "alice"
    shutil.copytree(packaged, alice)
    checked = lab(installed, "check", str(alice), "--json", cwd=tmp_path)
    report = json.loads(checked.stdout)
    assert checked.returncode == 0, checked.stdout
    assert report["score"] == report["max_score"] > 0

    graded = lab(installed, "grade", str(alice), "--format", "gradescope", "--out", str(tmp_path / "out"),
                 cwd=tmp_path)
    assert graded.returncode == 0, graded.stderr
    results = json.loads((tmp_path / "out" / "alice" / "results.json").read_text())
    assert results["score"] == sum(test["max_score"] for test in results["tests"]) == report["max_score"]


def test_gradescope_bundle_from_the_wheel(installed: Path, tmp_path: Path) -> None:
    done = lab(installed, "gradescope-bundle", "--out", str(tmp_path / "autograder.zip"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    bundle = zipfile.ZipFile(tmp_path / "autograder.zip")
    assert {"setup.sh", "run_autograder", "kit/pyproject.toml", "kit/lab/solutions/server.py"} <= set(bundle.namelist())
    # The bundled kit is itself installable, as setup.sh installs it on Gradescope.
    bundle.extractall(tmp_path / "source")
    subprocess.run([str(installed / "python"), "-m", "pip", "wheel", "--quiet", "--no-deps",
                    "-w", str(tmp_path / "dist"), str(tmp_path / "source" / "kit")], check=True, timeout=300)
    rebuilt = zipfile.ZipFile(next((tmp_path / "dist").glob("mcp_handshake_lab-*.whl"))).namelist()
    assert {"lab/cli.py", "lab/grading/bundle.py", "lab/solutions/server.py", "lab/solutions/answers.toml",
            "lab/grading/page/class_report.css", "lab/grading/gradescope/run_autograder"} <= set(rebuilt)
    assert {name for name in rebuilt if name.startswith("lab/")} == {name.removeprefix("kit/") for name in bundle.namelist()
                                                                     if name.startswith("kit/lab/")}


def test_lab_exercises_from_the_wheel_writes_the_student_files_here(installed: Path, tmp_path: Path) -> None:
    done = lab(installed, "exercises", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert sorted(path.name for path in (tmp_path / "exercises").iterdir()) == [
        "BONUS.md", "answers.toml", "bonus_server.py", "client.py", "jsonrpc_lines.py", "model.py", "model_setup.py",
        "server.py", "server_replies.py"]
    checked = lab(installed, "check", "exercises", "--json", cwd=tmp_path)
    assert checked.returncode == 1 and json.loads(checked.stdout)["score"] == 0
