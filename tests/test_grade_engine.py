"""`lab grade` end to end with the real check engine, on a class with every hostile case in it."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hostile import ROOT, make_submission, tree_digest, with_prelude
from lab.grading.catalogue import Catalogue
from lab.i18n import text
from totals import LESSON_CHECKS

TIMEOUT = 40  # the class's limit: the engine's own limits catch a hung server first
SHORT_TIMEOUT = 2  # below the engine's limit for a hung server: then ours is the one that acts
CLASS = ["full", "partial", "hangs", "loops", "floods", "exits", "syntax", "deletes", "import_error"]


def lab(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("LAB_LANG", None)
    return subprocess.run([sys.executable, "-m", "lab", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Grade the class once (Exercism format, English); the tests read the files."""
    root = tmp_path_factory.mktemp("engine")
    submissions = []
    for kind in CLASS:
        # Only `full` has every file: the others differ in server.py, and the engine's other
        # checks (client, model) would only cost time; they fail at once without files.
        submissions.append(make_submission(root / "class", kind, kind, server_only=kind != "full"))
    originals = {path.name: tree_digest(path) for path in submissions}
    done = lab("--lang", "en", "grade", *map(str, submissions), "--format", "exercism",
               "--out", str(root / "out"), "--jobs", "3", "--timeout", str(TIMEOUT), cwd=root)
    results = {kind: json.loads((root / "out" / kind / "results.json").read_text(encoding="utf-8"))
               for kind in CLASS if (root / "out" / kind / "results.json").is_file()}
    return {"done": done, "results": results, "root": root,
            "submissions": submissions, "originals": originals}


def failed_ids(results: dict) -> list[str]:
    return [test["test_code"] for test in results["tests"] if test["status"] != "pass"]


def test_every_submission_gets_a_results_file_and_a_summary_row(graded: dict) -> None:
    assert graded["done"].returncode == 0, graded["done"].stderr
    assert sorted(graded["results"]) == sorted(CLASS)
    with (graded["root"] / "out" / "summary.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["submission"] for row in rows] == CLASS
    listed = Catalogue.from_engine("en")
    # Without --bonus, every submission is graded on the lesson's checks alone.
    assert {check.task for check in listed.checks} == {
        "server-1", "server-2", "server-3", "client-1", "client-2", "client-3", "model", "answers"}
    assert [row["max"] for row in rows] == [str(listed.max_score)] * len(CLASS)
    header, done = graded["done"].stderr.strip().splitlines()[:2]
    # The run's header names the start path that graded the class.
    assert header == ("Start path: student code in bubblewrap; checks forked by the preloader; "
                      "model runner forked by the zygote, joined into its sandbox.")
    assert done.startswith(f"{len(CLASS)} submission(s) graded in ")


def test_the_reference_scores_full_marks_and_a_bug_is_caught(graded: dict) -> None:
    full, partial = graded["results"]["full"], graded["results"]["partial"]
    assert (full["status"], full["score"]) == ("pass", full["max_score"])
    assert partial["status"] == "fail"
    server_failures = [name for name in failed_ids(partial) if name.startswith("server.")]
    assert server_failures == ["server.list-changed-false"]


@pytest.mark.parametrize(("kind", "message"), [
    ("hangs", "The server wrote nothing in 11.5 s."),  # server_session.SERVER_LIMIT: start-up and end
    ("loops", "The server used up its CPU time (0.5 s) without writing, an endless loop most likely."),
])
def test_a_server_that_never_answers_is_caught_by_the_engine(graded: dict, kind: str, message: str) -> None:
    results = graded["results"][kind]
    assert results["status"] == "fail"
    first = results["tests"][0]
    assert (first["test_code"], first["status"]) == ("server.json-rpc-replies", "fail")
    assert first["message"].startswith(message), first["message"]


def test_a_submission_past_our_time_limit_scores_zero_with_the_reason(tmp_path: Path) -> None:
    submission = make_submission(tmp_path, "hangs", "hangs", server_only=True)
    done = lab("grade", str(submission), "--format", "gradescope", "--out", str(tmp_path / "out"),
               "--timeout", str(SHORT_TIMEOUT), "--lang", "fr", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "out" / "hangs" / "results.json").read_text(encoding="utf-8"))
    reason = text("fr", "grade.timeout", seconds=SHORT_TIMEOUT)
    assert results["score"] == 0
    # Stopped at the class's limit: a zero with the reason at the top, the submission's own doing.
    assert results["output"].splitlines()[0] == reason
    assert results["extra_data"] == {"status": "graded"}
    assert {test["status"] for test in results["tests"]} == {"failed"}
    assert {test["output"].splitlines()[0] for test in results["tests"]} == {reason}  # ours stopped it, not a clock


@pytest.mark.parametrize(("kind", "evidence"), [
    ("exits", "code 3"),
    ("syntax", "SyntaxError"),
    ("import_error", "ModuleNotFoundError"),
])
def test_a_server_that_cannot_run_fails_its_checks_with_the_cause(graded: dict, kind: str, evidence: str) -> None:
    results = graded["results"][kind]
    assert results["status"] == "fail"
    first = results["tests"][0]
    assert (first["test_code"], first["status"]) == ("server.json-rpc-replies", "fail")
    assert evidence in (first["message"] or "") + (first["output"] or "")


def test_a_flood_is_cut_and_judged(graded: dict) -> None:
    results = graded["results"]["floods"]
    assert results["status"] == "fail"
    assert "server.json-rpc-replies" in failed_ids(results)


def test_no_submission_changed_its_original_or_another(graded: dict) -> None:
    assert {path.name: tree_digest(path) for path in graded["submissions"]} == graded["originals"]



# ---------------------------------------------------------------- the preloader, with the real engine


def verdicts(report) -> list[tuple[str, str]]:
    return [(result.id, result.status) for result in report.results]


def test_the_preloader_gives_the_same_verdicts_as_new_interpreters(tmp_path: Path) -> None:
    from lab.grading.classroom import grade_class
    from lab.grading.runner import Limits

    submissions = [ROOT / "solutions", ROOT / "exercises", make_submission(tmp_path, "partial", "partial")]
    graded = {preload: grade_class(submissions, tmp_path / str(preload), lang="en", jobs=3,
                                   limits=Limits(timeout=TIMEOUT), preload=preload)
              for preload in (False, True)}
    plain, preloaded = ([verdicts(report) for _, report in graded[mode].rows] for mode in (False, True))
    assert preloaded == plain
    assert [sum(status == "passed" for _, status in rows) for rows in preloaded] == \
        [LESSON_CHECKS, 0, LESSON_CHECKS - 1]  # partial: all but server.list-changed-false (PARTIAL_BUG)


@pytest.mark.parametrize("preload", [False, True])
def test_the_reference_keeps_full_marks_under_a_small_memory_limit(tmp_path: Path, preload: bool) -> None:
    # --memory limits address space; glibc used to reserve 64 MiB of it per thread (MALLOC_ARENA_MAX).
    from lab.grading.classroom import grade_class
    from lab.grading.runner import MiB, Limits

    result = grade_class([ROOT / "solutions"], tmp_path / "out", lang="en", preload=preload,
                         limits=Limits(timeout=TIMEOUT, memory_bytes=384 * MiB))
    report = result.rows[0][1]
    assert [result.id for result in report.results if result.status != "passed"] == []


def test_student_processes_never_see_the_preloader_without_the_sandbox(tmp_path: Path) -> None:
    """--no-sandbox only: in the sandbox, student processes never come from the preloader."""
    from lab.grading.classroom import grade_class
    from lab.process.preloader import available
    from lab.grading.runner import Limits

    if not available():
        pytest.skip("the preloader needs Linux (pidfds)")
    submission = make_submission(tmp_path, "snoop", "full")
    seen = tmp_path / "seen"
    seen.mkdir()
    spy = ("import json as _json, os as _os, sys as _sys\n"
           f"_json.dump({{'env': dict(_os.environ), 'openai': 'openai' in _sys.modules}}, "
           f"open(_os.path.join({str(seen)!r}, _os.path.basename(__file__) + str(_os.getpid())), 'w'))\n")
    for name in ("server.py", "model.py"):
        path = submission / name
        path.write_text(with_prelude(path.read_text(encoding="utf-8"), spy), encoding="utf-8")
    result = grade_class([submission], tmp_path / "out", lang="en", limits=Limits(timeout=TIMEOUT), preload=True,
                         sandboxed=False)
    assert result.rows[0][1].score == result.rows[0][1].max_score
    reports = {path.name: json.loads(path.read_text()) for path in seen.iterdir()}
    by_file = {name: [r for file, r in reports.items() if file.startswith(name)] for name in ("server.py", "model.py")}
    # The reference's server runs: the scenario's, the rules' and the bad lines' sessions; one model runner.
    assert len(by_file["server.py"]) == len(("server.scenario", "server.rules", "server.bad-lines"))
    assert len(by_file["model.py"]) == 1
    assert all("LAB_PRELOAD" not in report["env"] for report in reports.values())
    assert [r["openai"] for r in by_file["model.py"]] == [True]  # the model runner was forked, preloaded
