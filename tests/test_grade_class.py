"""A whole class in parallel: one results folder per submission, a summary, nobody stops the rest."""

from __future__ import annotations

import csv
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from hostile import ROOT, STUB_ENGINE, make_submission, tree_digest
from lab.grading.catalogue import Catalogue
from lab.grading.classroom import grade_class, output_names
from lab.grading.runner import Limits
from totals import FULL

TIMEOUT = 2.0
LIMITS = Limits(timeout=TIMEOUT)
STUB = str(STUB_ENGINE)


def read_summary(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_output_names_are_the_folders_names_made_unique(tmp_path: Path) -> None:
    paths = [tmp_path / "a" / "exercises", tmp_path / "b" / "exercises", tmp_path / "alice",
             tmp_path / "c" / "Exercises", tmp_path / "summary.csv"]
    assert output_names(paths) == ["exercises", "exercises-2", "alice", "Exercises-3", "summary.csv-2"]


def test_a_hostile_class_is_graded_whole_and_nobody_harms_anybody(tmp_path: Path, catalogue: Catalogue) -> None:
    kinds = ["full", "partial", "hangs", "loops", "floods", "exits", "syntax", "deletes", "import_error"]
    submissions = [make_submission(tmp_path / "class", kind, kind) for kind in kinds]
    twin = make_submission(tmp_path / "other", "full", "full")  # same folder name as the first
    submissions.append(twin)
    originals = {path: tree_digest(path) for path in submissions}
    # The kit files that only grading changes (other parts of the kit are edited as we run).
    kit_parts = ("lab/grading", "tests/hostile")
    kit_before = {name: tree_digest(ROOT / name) for name in kit_parts}
    out = tmp_path / "grades"
    progress: list[tuple[int, int]] = []

    result = grade_class(submissions, out, fmt="gradescope", lang="en", jobs=2, limits=LIMITS,
                         target=STUB, catalogue=catalogue, on_done=lambda *done: progress.append(done))

    # Each endless one was stopped by its own time limit; the four kit errors (below) were each
    # tried again after the retry pauses, two jobs side by side.
    durations = {name: report.duration for name, report in result.rows}
    reports = dict(result.rows)
    assert [reports[name].reason for name in ("hangs", "loops")] == ["grade.timeout"] * 2  # stopped at their limit
    # Each ran to its limit (no sooner); that our limit stopped it is the reason above, not a clock.
    assert TIMEOUT <= durations["hangs"] and TIMEOUT <= durations["loops"]
    names = [name for name, _ in result.rows]
    assert names == [*kinds, "full-2"]
    scores = {name: report.score for name, report in result.rows}
    assert scores == {"full": 10, "partial": 2, "full-2": 10, **{kind: 0 for kind in kinds[2:]}}
    for name in names:  # every submission has its file, even the ones that crashed
        data = json.loads((out / name / "results.json").read_text(encoding="utf-8"))
        assert data["score"] == scores[name]
        assert sum(test["max_score"] for test in data["tests"]) == 10
    # Past the class's time limit the submission is stopped and scores what was checked (0
    # here), with the reason at the top: its own doing, not a kit error.
    hangs = json.loads((out / "hangs" / "results.json").read_text())
    assert hangs["output"].startswith("The checks did not finish within 2 s (stuck or looping code?)")
    assert hangs["extra_data"] == {"status": "graded"}
    # The kit's record keeps that reason as the grader's message key: causes.py reads it.
    record = json.loads((out / "hangs" / ".lab-report.json").read_text())["report"]
    assert (record["reason"], record["fields"]) == ("grade.timeout", {"seconds": TIMEOUT})
    rows = read_summary(result.summary)
    assert [(row["submission"], row["score"], row["max"]) for row in rows] == [
        (name, "" if report.kit_error else str(scores[name]), "10") for name, report in result.rows]
    assert rows[1]["failed"] == "stub.two stub.three" and rows[1]["error"] == ""
    assert rows[0]["failed"] == ""
    assert [row["path"] for row in rows] == [str(path) for path in submissions]  # absolute already
    # The stub engine runs student code in its own trusted process: when that process dies
    # without a report, the kit failed (a kit error). Past the class's time limit the
    # submission is stopped and scores 0 with the reason: that is its own doing.
    died = {"floods", "exits", "syntax", "import_error"}
    assert [row["status"] for row in rows] == ["kit-error" if name in died else "graded" for name in names]
    assert progress == [(done, len(submissions)) for done in range(1, len(submissions) + 1)]
    # Nothing a submission did reached its original folder, another submission or the kit.
    assert {path: tree_digest(path) for path in submissions} == originals
    assert {name: tree_digest(ROOT / name) for name in kit_parts} == kit_before


@pytest.mark.parametrize(("fmt", "file_name"), [
    ("gradescope", "results.json"), ("exercism", "results.json"),
    ("junit", "results.xml"), ("csv", "results.csv"),
])
def test_each_format_writes_its_file_per_submission(tmp_path: Path, catalogue: Catalogue, fmt: str, file_name: str) -> None:
    submissions = [make_submission(tmp_path, "ada", "full"), make_submission(tmp_path, "bo", "exits")]
    out = tmp_path / "out"
    grade_class(submissions, out, fmt=fmt, lang="fr", jobs=2, limits=LIMITS, target=STUB, catalogue=catalogue)
    assert sorted(path.name for path in out.iterdir()) == ["ada", "bo", "grading.json", "report.html", "summary.csv"]
    # The results file, and the record that lets a rerun skip this finished submission.
    assert sorted(path.name for path in (out / "bo").iterdir()) == [".lab-report.json", file_name]
    content = (out / "bo" / file_name).read_text(encoding="utf-8")
    if fmt == "exercism":
        assert json.loads(content)["status"] == "error"
        assert json.loads((out / "ada" / file_name).read_text())["status"] == "pass"
    elif fmt == "junit":
        assert ET.fromstring(content).find("testsuite").get("errors") == "3"
    elif fmt == "csv":
        assert content.splitlines()[1].startswith("stub.one,server-1,kit-error,0,2,")
    else:
        assert json.loads(content)["score"] == 0


def test_without_an_engine_list_the_solutions_give_the_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    from lab.grading import classroom

    monkeypatch.setattr(Catalogue, "from_engine", classmethod(lambda cls, lang, bonus=False: None))
    # The stub engine run on solutions/ awards nothing there but still lists its three checks.
    listed = classroom.load_catalogue("en", LIMITS, target=STUB)
    assert [(check.id, check.points) for check in listed.checks] == [
        ("stub.one", 2), ("stub.two", 3), ("stub.three", 5)]


def test_the_engine_list_matches_the_registry_and_a_missing_bonus_file_is_not_attempted(tmp_path: Path) -> None:
    from lab.checks import registry

    listed = Catalogue.from_engine("en", bonus=True)
    checks = registry()[0]
    assert [(c.id, c.points, c.task) for c in listed.checks] == [(c.id, c.points, c.task) for c in checks]
    assert [c.title for c in listed.checks] == [c.title["en"] for c in checks]
    # Every submission has the same maximum: a bonus check without its file is kept, and scores
    # 0 as "bonus not attempted" when the engine (which does not run it) leaves it out.
    first, second = listed.checks[:2]
    conditional = Catalogue(listed.checks[:2], {second.id: "bonus_server.py"}, bonus=True)
    without = conditional.for_folder(tmp_path)
    assert ([c.id for c in without.checks], without.absent) == ([first.id, second.id], {second.id})
    from dataclasses import replace

    from lab.results import PASSED, Report
    ran = Report("x", "en", [replace(first, status=PASSED)])
    reconciled = without.reconcile(ran, "en")
    assert [(r.id, r.status, r.message) for r in reconciled.results] == [
        (first.id, "passed", ""), (second.id, "failed", "Bonus not attempted: there is no bonus_server.py file.")]
    assert (reconciled.score, reconciled.max_score) == (first.points, first.points + second.points)
    from lab.grading.causes import first_cause
    assert first_cause(reconciled.results) == "missing:bonus_server.py"
    (tmp_path / "bonus_server.py").write_text("")
    with_file = conditional.for_folder(tmp_path)
    assert (len(with_file.checks), with_file.absent) == (2, frozenset())
    assert with_file.reconcile(ran, "en").results[1].message == "Check missing from the report: scored 0."


# --- the submission list, the output names, hostile output ---------------------------------

def run_lab(*args: str, cwd: Path, lang: str = "en") -> "subprocess.CompletedProcess[str]":
    import os
    import subprocess
    import sys

    env = {**os.environ, "LAB_LANG": lang}
    return subprocess.run([sys.executable, "-m", "lab", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd, env=env)


@pytest.mark.parametrize(("lang", "heading", "missing", "not_folder", "class_folder"), [
    ("en", "These paths are not submission folders, nothing was graded:",
     "  typo/*: not found (a shell pattern that matched nothing?)", "  notes.txt: not a folder",
     "  class: the class folder (its subfolders are the submissions): give them one by one, class/*/"),
    ("fr", "Ces chemins ne sont pas des dossiers de travaux, rien n’a été noté :",
     "  typo/* : introuvable (un motif du shell qui ne correspondait à rien ?)", "  notes.txt : pas un dossier",
     "  class : le dossier de la classe (ses sous-dossiers sont les travaux) : donnez-les un par un, class/*/"),
])
def test_a_glob_that_matched_nothing_or_the_class_folder_is_an_error_not_a_zero(
    tmp_path: Path, lang: str, heading: str, missing: str, not_folder: str, class_folder: str,
) -> None:
    (tmp_path / "notes.txt").write_text("x")
    make_submission(tmp_path, "ada", "full", server_only=True)
    make_submission(tmp_path / "class", "grace", "full", server_only=True)
    make_submission(tmp_path / "class", "alan", "full", server_only=True)
    (tmp_path / "empty").mkdir()  # a student who handed in nothing is graded: zero
    done = run_lab("grade", "ada", "typo/*/", "notes.txt", "empty", "--out", "grades",
                   cwd=tmp_path, lang=lang)
    assert done.returncode == 2
    assert done.stdout == ""
    assert f"{heading}\n{missing}\n{not_folder}\n" in done.stderr
    assert "empty" not in done.stderr
    assert not (tmp_path / "grades").exists()  # nothing graded, nothing written
    # The class folder given alone, where its submissions were meant (among several, such a
    # folder is one student's upload of two versions: test_grade_trust.py).
    done = run_lab("grade", "class", "--out", "grades", cwd=tmp_path, lang=lang)
    assert done.returncode == 2 and done.stdout == ""
    assert f"{heading}\n{class_folder}\n" in done.stderr
    assert not (tmp_path / "grades").exists()


def test_output_names_never_take_a_class_file_name_nor_hide_nor_carry_control_characters(tmp_path: Path) -> None:
    paths = [tmp_path / "report.html", tmp_path / "x" / "Summary.CSV", tmp_path / ".hidden",
             tmp_path / "evil\x1b[2J", tmp_path / "a\\b"]
    assert output_names(paths) == ["report.html-2", "Summary.CSV-2", "_hidden", "evil_x1b[2J", "a_b"]


def test_same_named_folders_keep_distinct_outputs_and_their_original_paths(tmp_path: Path, catalogue: Catalogue) -> None:
    first = make_submission(tmp_path / "groupe-a", "exercises", "full")
    second = make_submission(tmp_path / "groupe-b", "exercises", "partial")
    out = tmp_path / "out"
    grade_class([first, second], out, lang="en", jobs=2, limits=LIMITS, target=STUB, catalogue=catalogue)
    rows = read_summary(out / "summary.csv")
    assert [(row["submission"], row["score"], row["path"]) for row in rows] == [
        ("exercises", "10", str(first)), ("exercises-2", "2", str(second))]
    assert json.loads((out / "exercises-2" / "results.json").read_text())["score"] == 2


HOSTILE_SERVER = '''\
import sys
hostile = "\\x1b[31mred\\x1b[0m \\x00\\x01\\x02\\x03\\x04\\x05\\x06\\x07\\x08 \\x0b\\x0c end"
sys.stderr.write("boom " + hostile + "\\n")
sys.stderr.buffer.write(b"lone \\xed\\xa0\\x80 surrogate\\n")
sys.stderr.flush()
for line in sys.stdin:
    sys.stdout.write(hostile + "\\n")
    sys.stdout.buffer.write(b"\\xed\\xa0\\x80\\n")
    sys.stdout.flush()
'''


def test_junit_stays_well_formed_when_a_real_server_prints_control_characters(tmp_path: Path) -> None:
    """The real engine, a real server.py printing ANSI colours, C0 controls and encoded surrogates."""
    folder = tmp_path / "class" / "eve"
    folder.mkdir(parents=True)
    (folder / "server.py").write_text(HOSTILE_SERVER, encoding="utf-8")
    out = tmp_path / "out"
    result = grade_class([folder], out, fmt="junit", lang="en", jobs=1, limits=Limits(timeout=60))
    content = (out / "eve" / "results.xml").read_bytes()
    root = ET.fromstring(content)  # strict: a raw \x1b or \x00 would raise here
    lxml = pytest.importorskip("lxml.etree")
    lxml.fromstring(content, lxml.XMLParser(recover=False))
    failures = [element.text for element in root.iter("failure")]
    assert any("\\x1b[31mred\\x1b[0m \\x00\\x01\\x02\\x03\\x04\\x05\\x06\\x07\\x08" in text for text in failures)
    assert any("boom \\x1b[31mred" in text for text in failures)
    assert result.rows[0][1].score < result.rows[0][1].max_score
    assert read_summary(out / "summary.csv")[0]["status"] == "graded"


def test_the_classroom_workflow_prints_the_students_view_and_hands_the_reporter_the_reasons(tmp_path: Path) -> None:
    """The grading step of docs/classroom-workflow.yml, run as it is on a submission with one bug."""
    import base64
    import os
    import subprocess

    import yaml

    steps = yaml.safe_load((ROOT / "docs" / "classroom-workflow.yml").read_text(encoding="utf-8"))[
        "jobs"]["run-autograding-tests"]["steps"]
    script = next(step for step in steps if step.get("id") == "lab")["run"]
    assert script.splitlines()[1] == "lab grade exercises --format classroom --out grades --timeout 120 --show || status=$?"
    make_submission(tmp_path, "exercises", "partial", server_only=True)
    output = tmp_path / "github_output"
    import sys

    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"  # `lab`, as pip installs it
    env = {**os.environ, "GITHUB_OUTPUT": str(output), "LAB_LANG": "en", "PATH": path}
    done = subprocess.run(["bash", "-e", "-c", script], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    # The log: the student's own `lab check` view, first failure with expected, actual and hint.
    assert done.stdout.startswith("Checking exercises\n")
    assert "✗ Reply 3: listChanged is false" in done.stdout
    assert "      hint:     This server never says when its list changes: it says listChanged: false." in done.stdout
    # The reporter's input: LAB_RESULTS, base64, the classroom format.
    encoded = output.read_text().split("result=", 1)[1].strip()
    results = json.loads(base64.b64decode(encoded))
    failed = next(test for test in results["tests"] if test["name"] == "Reply 3: listChanged is false")
    assert (failed["status"], failed["line_no"]) == ("fail", 0)
    assert failed["test_code"].splitlines()[0] == (
        "Reply to the request initialize (id 3): result.capabilities.tools.listChanged is true instead of false.")
    assert failed["test_code"].splitlines()[-1] == (
        "Hint: This server never says when its list changes: it says listChanged: false.")


def test_a_rerun_grades_again_what_changed_files_language_or_time_limit(tmp_path: Path, catalogue: Catalogue) -> None:
    submissions = [make_submission(tmp_path / "class", name, "full") for name in ("ada", "bo", "cy")]
    out = tmp_path / "out"

    def rerun(lang: str = "en", limits: Limits = LIMITS) -> list[str]:
        graded: list[str] = []
        result = grade_class(submissions, out, lang=lang, jobs=2, limits=limits, target=STUB, catalogue=catalogue,
                             sandboxed=False, on_resume=lambda count: graded.append(f"kept {count}"))
        return graded + [report.lang for _, report in result.rows]

    assert rerun() == ["en", "en", "en"]
    assert rerun() == ["kept 3", "en", "en", "en"]
    (submissions[1] / "server.py").write_text((submissions[1] / "server.py").read_text() + "\n# resubmitted\n")
    assert rerun() == ["kept 2", "en", "en", "en"]  # bo's files changed: graded again
    assert rerun("fr") == ["fr", "fr", "fr"]  # never French feedback mixed with English
    assert rerun("fr", Limits(timeout=TIMEOUT + 1)) == ["fr", "fr", "fr"]
    record = json.loads((out / "ada" / ".lab-report.json").read_text(encoding="utf-8"))
    assert set(record["settings"]) == {"lang", "timeout", "memory", "kit", "files"}
    assert (record["settings"]["lang"], record["settings"]["timeout"]) == ("fr", TIMEOUT + 1)


def test_summary_csv_is_replaced_whole_or_not_at_all(tmp_path: Path, catalogue: Catalogue) -> None:
    from lab.grading.classroom import SummaryNotWritten

    submissions = [make_submission(tmp_path / "class", name, "full") for name in ("ada", "bo")]
    out = tmp_path / "out"
    grade_class(submissions, out, lang="en", jobs=2, limits=LIMITS, target=STUB, catalogue=catalogue, sandboxed=False)
    earlier = (out / "summary.csv").read_bytes()
    assert earlier.count(b"\n") == 3 and not list(out.glob("*.partial"))
    (out / "summary.csv.partial").mkdir()  # where the new summary is written first: it cannot be
    with pytest.raises(SummaryNotWritten):
        grade_class(submissions, out, lang="en", jobs=2, limits=LIMITS, target=STUB, catalogue=catalogue,
                    sandboxed=False, force=True)
    assert (out / "summary.csv").read_bytes() == earlier  # never truncated nor half written


def test_the_last_lines_count_kit_errors_empty_submissions_and_timeouts(tmp_path: Path) -> None:
    import subprocess
    import sys

    hangs = tmp_path / "hangs"
    hangs.mkdir()
    (hangs / "server.py").write_text("import time\ntime.sleep(600)\n")
    (tmp_path / "empty").mkdir()
    done = subprocess.run([sys.executable, "-m", "lab", "--lang", "en", "grade", str(hangs), str(tmp_path / "empty"),
                           "--out", str(tmp_path / "out"), "--timeout", "2"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines[-2] == "Kit errors: 0 · empty submissions: 1 · timeouts: 1."


def test_a_nested_folder_is_found_and_a_case_only_name_is_named(tmp_path: Path) -> None:
    import shutil

    nested = tmp_path / "ana" / "sub" / "exercises"
    shutil.copytree(ROOT / "solutions", nested)
    cased = tmp_path / "ben"
    shutil.copytree(ROOT / "solutions", cased)
    (cased / "client.py").rename(cased / "Client.py")
    result = grade_class([tmp_path / "ana", cased], tmp_path / "out", lang="en", jobs=2, limits=Limits(timeout=60))
    ana, ben = (report for _, report in result.rows)
    assert ana.warnings[0] == "Graded folder: sub/exercises/"
    assert (ana.score, ana.max_score) == (FULL, FULL)
    assert ben.warnings[0] == "Client.py found, but the file must be called client.py (case matters): counted as missing."
    assert {r.id for r in ben.results if r.status != "passed"} >= {"client.seven-messages"}
    assert [name for name, _ in result.rows] == ["ana", "ben"]


@pytest.mark.parametrize(("lang", "note"), [("en", "Graded folder: sub/"), ("fr", "Dossier noté : sub/")])
def test_one_students_upload_a_folder_deep_is_graded_there_not_refused_as_a_class(
    tmp_path: Path, lang: str, note: str,
) -> None:
    import shutil

    shutil.copytree(ROOT / "solutions", tmp_path / "carol" / "sub")
    done = run_lab("grade", "carol", "--out", "grades", cwd=tmp_path, lang=lang)
    assert done.returncode == 0, done.stderr
    rows = read_summary(tmp_path / "grades" / "summary.csv")
    assert [(row["submission"], row["score"], row["max"]) for row in rows] == [("carol", str(FULL), str(FULL))]
    assert note in (tmp_path / "grades" / "carol" / "results.json").read_text(encoding="utf-8")
