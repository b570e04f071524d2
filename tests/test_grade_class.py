"""A whole class in parallel: one results folder per submission, a summary, nobody stops the rest."""

from __future__ import annotations

import csv
import json
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from hostile import ROOT, STUB_ENGINE, make_submission, tree_digest
from lab.grading.catalogue import Catalogue
from lab.grading.classroom import grade_class, output_names
from lab.grading.runner import Limits

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

    started = time.monotonic()
    result = grade_class(submissions, out, fmt="gradescope", lang="en", jobs=2, limits=LIMITS,
                         target=STUB, catalogue=catalogue, on_done=lambda *done: progress.append(done))
    elapsed = time.monotonic() - started

    # The two endless ones ran side by side; each cost its own time limit, no more.
    assert elapsed < 2 * TIMEOUT + 3
    names = [name for name, _ in result.rows]
    assert names == [*kinds, "full-2"]
    scores = {name: report.score for name, report in result.rows}
    assert scores == {"full": 10, "partial": 2, "full-2": 10, **{kind: 0 for kind in kinds[2:]}}
    for name in names:  # every submission has its file, even the ones that crashed
        data = json.loads((out / name / "results.json").read_text(encoding="utf-8"))
        assert data["score"] == scores[name]
        assert sum(test["max_score"] for test in data["tests"]) == 10
    assert json.loads((out / "hangs" / "results.json").read_text())["output"].startswith(
        "The checks did not finish within 2 s")
    rows = read_summary(result.summary)
    assert [(row["submission"], row["score"], row["max"]) for row in rows] == [
        (name, str(scores[name]), "10") for name in names]
    assert rows[1]["failed"] == "stub.two stub.three" and rows[1]["error"] == ""
    assert rows[0]["failed"] == ""
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
    assert [path.name for path in (out / "bo").iterdir()] == [file_name]
    content = (out / "bo" / file_name).read_text(encoding="utf-8")
    if fmt == "exercism":
        assert json.loads(content)["status"] == "error"
        assert json.loads((out / "ada" / file_name).read_text())["status"] == "pass"
    elif fmt == "junit":
        assert ET.fromstring(content).find("testsuite").get("errors") == "3"
    elif fmt == "csv":
        assert content.splitlines()[1].startswith("stub.one,server-1,error,0,2,")
    else:
        assert json.loads(content)["score"] == 0


def test_without_an_engine_list_the_solutions_give_the_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    from lab.grading import classroom

    monkeypatch.setattr(Catalogue, "from_engine", classmethod(lambda cls, lang, bonus=False: None))
    # The stub engine run on solutions/ awards nothing there but still lists its three checks.
    listed = classroom.load_catalogue("en", LIMITS, target=STUB)
    assert [(check.id, check.points) for check in listed.checks] == [
        ("stub.one", 2), ("stub.two", 3), ("stub.three", 5)]


def test_the_engine_list_matches_the_registry_and_counts_bonus_checks_only_with_their_file(tmp_path: Path) -> None:
    from lab.checks import registry

    listed = Catalogue.from_engine("en", bonus=True)
    checks = registry()[0]
    assert [(c.id, c.points, c.task) for c in listed.checks] == [(c.id, c.points, c.task) for c in checks]
    assert [c.title for c in listed.checks] == [c.title["en"] for c in checks]
    conditional = Catalogue(listed.checks[:2], {listed.checks[1].id: "bonus_server.py"})
    assert [c.id for c in conditional.for_folder(tmp_path).checks] == [listed.checks[0].id]
    (tmp_path / "bonus_server.py").write_text("")
    assert len(conditional.for_folder(tmp_path).checks) == 2
