"""What the grader trusts before and around the sandbox (issue 33, rows 1, 2, 4 and 12; issue 35's
two versions): each attack grades a real submission beside an honest classmate, with the real
engine. The honest one keeps full marks; the other gets a student's failure or what its work earns.

Rows 1 and 2 are about root: Gradescope runs `run_autograder` as root with `umask 077`, and
student code then runs as nobody (uid 65534), which must read every file the kit wrote for it.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator

import pytest

from hostile import ROOT, SOLUTIONS, make_submission
from lab.i18n import text
from totals import FULL

EXERCISES = ROOT / "exercises"
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="Gradescope and the docker grader grade as root")


def lab(*args: str, cwd: Path, umask: str = "022", lang: str = "en") -> subprocess.CompletedProcess[str]:
    """`lab ARGS` under this umask, as a shell that set it starts it."""
    env = {**os.environ, "LAB_LANG": lang, "PYTHONPATH": str(ROOT)}
    return subprocess.run(["bash", "-c", f'umask {umask} && exec "$@"', "bash", sys.executable, "-m", "lab", *args],
                          capture_output=True, text=True, timeout=300, cwd=cwd, env=env)


def summary(out: Path) -> dict[str, dict[str, str]]:
    with (out / "summary.csv").open(newline="", encoding="utf-8") as handle:
        return {row["submission"]: row for row in csv.DictReader(handle)}


def scores(out: Path) -> dict[str, int]:
    return {name: int(row["score"]) for name, row in summary(out).items()}


def copy_of(folder: Path, source: Path) -> Path:
    shutil.copytree(source, folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def nest(folder: Path, depth: int) -> Path:
    """`depth` folders one inside the other under `folder` (os.makedirs would recurse)."""
    for _ in range(depth):
        folder = folder / "d"
        folder.mkdir()
    return folder


def private_files(folder: Path) -> Path:
    """Every file 0600 and every folder 0700: what a student's umask 077 leaves."""
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o700 if path.is_dir() else 0o600)
    return folder


@pytest.fixture(scope="module")
def usual_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, int], str]:
    """What `lab grade` gives the untouched exercises and a partial submission, graded the
    usual way (umask 022, files 0644): the scores every other way of grading must give; and
    its start path (the header's first line)."""
    base = tmp_path_factory.mktemp("earned")
    copy_of(base / "class" / "untouched", EXERCISES)
    make_submission(base / "class", "partial", "partial")
    done = lab("grade", "class/untouched", "class/partial", "--out", "out", "--format", "csv", cwd=base)
    assert done.returncode == 0, done.stderr
    found = scores(base / "out")
    assert 0 < found["partial"] < FULL and found["untouched"] < found["partial"]
    return found, done.stderr.splitlines()[0]


@pytest.fixture(scope="module")
def earned(usual_run: tuple[dict[str, int], str]) -> dict[str, int]:
    return usual_run[0]


@as_root
def test_a_root_grader_with_umask_077_gives_every_submission_its_score_even_with_0600_files(
        tmp_path: Path, usual_run: tuple[dict[str, int], str]) -> None:
    """Rows 1 and 2: the private copy, the check folders, the given modules and the runner
    scripts are the kit's modes (0644, 0755), whatever the grader's umask and the student's;
    the zygote's trial script too, so the model runners start the usual way."""
    earned, start_path = usual_run
    folder = tmp_path / "class"
    copy_of(folder / "reference", SOLUTIONS)
    private_files(copy_of(folder / "private", SOLUTIONS))  # row 2: a student's umask 077
    copy_of(folder / "untouched", EXERCISES)
    make_submission(folder, "partial", "partial")
    private_files(make_submission(folder, "private-partial", "partial"))
    done = lab("grade", *sorted(str(path) for path in folder.iterdir()), "--out", "out", "--format", "csv",
               cwd=tmp_path, umask="077")
    assert done.returncode == 0, done.stderr
    assert scores(tmp_path / "out") == {"reference": FULL, "private": FULL, "untouched": earned["untouched"],
                                        "partial": earned["partial"], "private-partial": earned["partial"]}
    assert {row["status"] for row in summary(tmp_path / "out").values()} == {"graded"}
    assert done.stderr.splitlines()[0] == start_path


@as_root
@pytest.mark.parametrize("kind", ["reference", "reference, files 0600", "untouched", "partial"])
def test_run_autograder_as_gradescope_runs_it_gives_what_lab_grade_gives(
        tmp_path: Path, earned: dict[str, int], kind: str) -> None:
    """Row 1: Gradescope runs run_autograder as root, and the script sets its own umask 077;
    on full submissions the reference scores every point and the others what `lab grade`
    gives them (the kit's modes, not the umask's)."""
    from test_grade_bundle import run_autograder, unpack

    from lab.grading.bundle import write_bundle

    unpack(write_bundle(tmp_path / "autograder.zip", lang="en"), tmp_path)
    upload = tmp_path / "submission"
    upload.mkdir()
    if kind == "untouched":
        copy_of(upload / "work", EXERCISES)
    elif kind == "partial":
        make_submission(upload, "work", "partial")
    else:
        work = copy_of(upload / "work", SOLUTIONS)
        if kind.endswith("0600"):
            private_files(work)
    done = run_autograder(tmp_path, grade_timeout=90)
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "results" / "results.json").read_text(encoding="utf-8"))
    expected = FULL if kind.startswith("reference") else earned[kind]
    assert (results["score"], results["extra_data"]) == (expected, {"status": "graded"}), results["output"]
    assert sum(test["max_score"] for test in results["tests"]) == FULL


def test_the_kit_writes_files_for_student_code_in_its_own_modes(tmp_path: Path) -> None:
    """Whatever the umask and the source's modes: files 0644 (0755 with an x bit), folders
    0755, no setuid, setgid or sticky bit; the holder stays the grader's (0700)."""
    from lab.checks.reference import HELPERS, copy_with_given_modules
    from lab.grading.private_copy import private_copy

    submission = private_files(copy_of(tmp_path / "work", SOLUTIONS))
    (submission / "notes").mkdir(mode=0o700)
    (submission / "notes" / "deep").mkdir(mode=0o1777)
    (submission / "notes" / "deep" / "run.sh").write_text("#!/bin/sh\n")
    (submission / "notes" / "deep" / "run.sh").chmod(0o6700)
    previous = os.umask(0o077)
    try:
        with private_copy(submission) as copy:
            assert isinstance(copy, Path)
            assert stat.S_IMODE(copy.parent.stat().st_mode) == 0o700
            modes = {path.relative_to(copy).as_posix(): stat.S_IMODE(path.stat().st_mode)
                     for path in [copy, *copy.rglob("*")]}
            work = copy.parent / "check"
            work.mkdir()
            copy_with_given_modules(copy, work)
            given = {path.relative_to(work).as_posix(): stat.S_IMODE(path.stat().st_mode)
                     for path in [*work.rglob("*")]}
    finally:
        os.umask(previous)
    assert modes.pop(".") == 0o755
    assert modes.pop("notes") == modes.pop("notes/deep") == 0o755
    assert modes.pop("notes/deep/run.sh") == 0o755
    assert set(modes.values()) == {0o644} and "server.py" in modes
    assert given.pop("__pycache__") == 0o755
    assert set(given.values()) == {0o644}
    assert {name for name in given if name.endswith(".pyc")} and set(HELPERS) <= set(given)


@pytest.fixture
def deep_place() -> Iterator[Path]:
    """A folder outside pytest's own (its clean-up, shutil.rmtree, recurses and would fail on
    what is nested here, in this run and in the next ones), emptied from the bottom up."""
    place = Path(tempfile.mkdtemp(prefix="lab-test-deep-"))
    try:
        yield place
    finally:
        pending = [place]
        while pending:
            folder = pending[-1]
            children = list(folder.iterdir())
            subfolders = [child for child in children if child.is_dir() and not child.is_symlink()]
            for child in children:
                if child not in subfolders:
                    child.unlink()
            if subfolders:
                pending.extend(subfolders)
            else:
                folder.rmdir()
                pending.pop()


def test_a_thousand_nested_folders_cost_their_submission_only(deep_place: Path) -> None:
    """Row 4: 1,000 nested folders (git clones that fine) once made the settings digest
    recurse until RecursionError, and every submission of the class a kit error. Now each
    step before grading walks without recursion, and the copy refuses that submission alone."""
    folder = deep_place / "class"
    copy_of(folder / "honest", SOLUTIONS)
    nest(copy_of(folder / "deep", SOLUTIONS), 1000)
    nested = folder / "nested"  # its files 1,000 folders down: not found 12 deep, graded as it is
    nested.mkdir()
    shutil.copy(SOLUTIONS / "server.py", nest(nested, 1000) / "server.py")
    for lang in ("en", "fr"):
        done = lab("grade", "class/honest", "class/deep", "class/nested", "--out", f"out-{lang}", "--format",
                   "csv", cwd=deep_place, lang=lang)
        assert done.returncode == 0, done.stderr
        rows = summary(deep_place / f"out-{lang}")
        assert {name: (row["score"], row["status"]) for name, row in rows.items()} == {
            "honest": (str(FULL), "graded"), "deep": ("0", "graded"), "nested": ("0", "graded")}  # no kit error
        assert rows["deep"]["error"] == rows["nested"]["error"] == text(lang, "grade.copy_depth", limit=32)
        assert rows["deep"]["cause"] == rows["nested"]["cause"] == "refused"  # the upload's, not the kit's


def test_a_file_changed_with_its_size_and_time_kept_is_graded_again(tmp_path: Path, earned: dict[str, int]) -> None:
    """Row 12: tar, zip and `touch -r` keep a file's mtime; a resumed run compares the
    content's hash, so the new work is graded and the honest classmate's result is kept."""
    folder = tmp_path / "class"
    copy_of(folder / "honest", SOLUTIONS)
    student = copy_of(folder / "student", SOLUTIONS)
    server = student / "server.py"
    first = lab("grade", "class/honest", "class/student", "--out", "out", "--format", "csv", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert scores(tmp_path / "out") == {"honest": FULL, "student": FULL}
    before = server.stat()
    source = server.read_text(encoding="utf-8")
    changed = source.replace('"listChanged": False', '"listChanged":  True')  # the partial bug, same size
    assert changed != source and len(changed.encode()) == len(source.encode())
    server.write_text(changed, encoding="utf-8")
    os.utime(server, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (server.stat().st_size, server.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    again = lab("grade", "class/honest", "class/student", "--out", "out", "--format", "csv", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert text("en", "grade.resumed", count=1, path="out") in again.stderr  # the honest one, kept
    assert scores(tmp_path / "out") == {"honest": FULL, "student": earned["partial"]}


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_two_versions_in_one_students_folder_are_that_students_refusal(tmp_path: Path, lang: str) -> None:
    """Issue 35: `v1/` and `v2/` in one student's folder made it look like the class folder,
    and `lab grade class/*/` refused the whole class. Now that student alone is refused, with
    both versions named; the classmates are graded."""
    folder = tmp_path / "class"
    copy_of(folder / "ada", SOLUTIONS)
    make_submission(folder / "alan", "v1", "partial", server_only=True)
    copy_of(folder / "alan" / "v2", SOLUTIONS)
    copy_of(folder / "grace", SOLUTIONS)
    done = lab("grade", *sorted(f"class/{name}/" for name in ("ada", "alan", "grace")), "--out", "out",
               "--format", "csv", cwd=tmp_path, lang=lang)
    assert done.returncode == 0, done.stderr
    rows = summary(tmp_path / "out")
    assert {name: row["score"] for name, row in rows.items()} == {"ada": str(FULL), "alan": "0", "grace": str(FULL)}
    refusal = text(lang, "grade.many_folders", file="server.py", folders="v1/, v2/")
    assert rows["alan"]["error"] == refusal
    assert rows["alan"]["status"] == "graded"  # the student's to fix, not a kit error
    assert rows["alan"]["cause"] == "refused"
