"""One submission in a sandboxed child: limits, caps, kills, and a Report whatever happens.

These tests drive the runner with a stub engine (tests/hostile/stub_engine.py) that runs the
student's server.py in the very process the runner watches: the hardest case for the runner.
Each runs twice: the child as a new interpreter, and forked by the class's preloader.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import Iterator

import pytest

from hostile import STUB_ENGINE, make_submission, tree_digest, wait_until_gone, with_prelude
from lab.grading.catalogue import Catalogue
from lab.process.preloader import available, preloader
from lab.process.launch import Launch
from lab.grading.runner import GiB, MiB, Limits, grade_submission, parse_report, student_environment
from lab.i18n import text
from lab.results import CheckResult, Report

TIMEOUT = 2.0
LIMITS = Limits(timeout=TIMEOUT)
STUB = str(STUB_ENGINE)


@contextlib.contextmanager
def preloaded(limits: Limits, env: dict[str, str] | None = None) -> Iterator[str]:
    """A preloader for these limits, as `lab grade` starts one for a class."""
    environment = student_environment(dict(os.environ if env is None else env), "en")
    with preloader(limits.cpu_seconds, limits.memory_bytes, limits.file_bytes, environment) as address:
        assert address is not None
        yield address


@pytest.fixture(scope="module")
def class_preloader() -> Iterator[str | None]:
    with (preloaded(LIMITS) if available() else contextlib.nullcontext()) as address:
        yield address


@pytest.fixture(params=["new interpreter", "preloaded"])
def preload(request: pytest.FixtureRequest) -> str | None:
    """The address of a preloader with the default LIMITS, or None for a new interpreter."""
    if request.param == "preloaded":
        if not available():
            pytest.skip("the preloader needs Linux (pidfds)")
        return request.getfixturevalue("class_preloader")
    return None


@contextlib.contextmanager
def preloader_like(preload: str | None, limits: Limits, env: dict[str, str] | None = None) -> Iterator[str | None]:
    """For tests with limits of their own: a preloader with those limits if `preload` says so."""
    with (preloaded(limits, env) if preload else contextlib.nullcontext()) as address:
        yield address


def grade(tmp_path: Path, kind: str, catalogue: Catalogue, preload: str | None, lang: str = "en",
          limits: Limits = LIMITS, env: dict[str, str] | None = None) -> tuple[Report, float]:
    submission = make_submission(tmp_path, kind, kind)
    started = time.monotonic()
    report = grade_submission(submission, lang, limits, catalogue, STUB, env=env, preload=preload)
    return report, time.monotonic() - started


def test_the_catalogue_comes_from_a_full_run(catalogue: Catalogue) -> None:
    assert [(check.id, check.points) for check in catalogue.checks] == [
        ("stub.one", 2), ("stub.two", 3), ("stub.three", 5)]
    assert catalogue.max_score == 10


@pytest.mark.parametrize(("kind", "score"), [("full", 10), ("partial", 2)])
def test_well_behaved_submissions_get_their_score(tmp_path: Path, catalogue: Catalogue, preload: str | None, kind: str, score: int) -> None:
    report, _ = grade(tmp_path, kind, catalogue, preload)
    assert (report.score, report.max_score, report.error) == (score, 10, "")
    assert report.target == str(tmp_path / kind)


def assert_all_zero_with(report: Report, reason_start: str) -> None:
    assert report.error.startswith(reason_start), report.error
    assert (report.score, report.max_score) == (0, 10)
    assert [(result.id, result.status) for result in report.results] == [
        ("stub.one", "error"), ("stub.two", "error"), ("stub.three", "error")]
    assert {result.message for result in report.results} == {report.error}


@pytest.mark.parametrize("kind", ["hangs", "loops"])
def test_a_submission_that_never_ends_is_stopped_at_its_time_limit(
    tmp_path: Path, catalogue: Catalogue, preload: str | None, kind: str
) -> None:
    report, elapsed = grade(tmp_path, kind, catalogue, preload)
    assert_all_zero_with(report, text("en", "grade.timeout", seconds=TIMEOUT))  # stopped by its limit
    assert TIMEOUT <= elapsed < 3 * TIMEOUT  # and only by it, with room for a busy machine


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="the token sweep reads /proc")
def test_a_process_that_left_the_group_is_killed_too(tmp_path: Path, catalogue: Catalogue, preload: str | None) -> None:
    pid_file = tmp_path / "escaped.pid"
    report, elapsed = grade(tmp_path, "escapes", catalogue, preload,
                            env={**os.environ, "GRADE_TEST_PID_FILE": str(pid_file)})
    assert_all_zero_with(report, text("en", "grade.timeout", seconds=TIMEOUT))
    assert TIMEOUT <= elapsed < 3 * TIMEOUT
    assert wait_until_gone(int(pid_file.read_text()), seconds=2)


def test_megabytes_of_output_are_cut_and_reported(tmp_path: Path, catalogue: Catalogue, preload: str | None) -> None:
    limits = Limits(timeout=10 * TIMEOUT)  # the cap, not the clock, must stop it, even on a busy machine
    with preloader_like(preload, limits) as address:
        report, _ = grade(tmp_path, "floods", catalogue, address, limits=limits)
    assert_all_zero_with(report, text("en", "grade.too_much_output", limit=4))  # cut, not timed out


@pytest.mark.parametrize(("kind", "last_line"), [
    ("syntax", "SyntaxError: invalid syntax"),
    ("import_error", "ModuleNotFoundError: No module named 'lab_module_that_does_not_exist'"),
])
def test_code_that_cannot_load_gets_the_python_error(tmp_path: Path, catalogue: Catalogue, preload: str | None, kind: str, last_line: str) -> None:
    report, _ = grade(tmp_path, kind, catalogue, preload)
    assert_all_zero_with(report, text("en", "grade.crashed", code=1, stderr=""))
    assert report.error.splitlines()[-1] == last_line
    assert "lab-grade-" not in report.error  # the private copy's path is not shown
    assert "<submission>/server.py" in report.error


def test_a_submission_that_exits_at_once(tmp_path: Path, catalogue: Catalogue, preload: str | None) -> None:
    report, _ = grade(tmp_path, "exits", catalogue, preload, lang="fr")
    assert_all_zero_with(report, text("fr", "grade.crashed", code=3, stderr=""))


def test_a_submission_that_deletes_its_files_leaves_the_original_alone(tmp_path: Path, catalogue: Catalogue, preload: str | None) -> None:
    submission = make_submission(tmp_path, "deletes", "deletes")
    before = tree_digest(submission)
    report = grade_submission(submission, "en", LIMITS, catalogue, STUB, preload=preload)
    assert report.error == "" and report.score == 0  # it ran, in its copy
    assert tree_digest(submission) == before


def test_the_limits_reach_the_student_code(tmp_path: Path, catalogue: Catalogue, preload: str | None) -> None:
    submission = make_submission(tmp_path, "probe", "full")
    seen = tmp_path / "limits.json"
    server = submission / "server.py"
    server.write_text(with_prelude(server.read_text(), (
        "import json, os, resource\n"
        "json.dump({name: resource.getrlimit(getattr(resource, name)) for name in "
        "('RLIMIT_CPU', 'RLIMIT_AS', 'RLIMIT_FSIZE', 'RLIMIT_CORE')}, "
        f"open({str(seen)!r}, 'w'))\n")))
    limits = Limits(timeout=3.5, memory_bytes=1 * GiB, file_bytes=8 * MiB)
    with preloader_like(preload, limits) as address:
        report = grade_submission(submission, "en", limits, catalogue, STUB, preload=address)
    assert report.score == 10
    assert json.loads(seen.read_text()) == {
        "RLIMIT_CPU": [4, 6], "RLIMIT_AS": [GiB, GiB], "RLIMIT_FSIZE": [8 * MiB, 8 * MiB],
        "RLIMIT_CORE": [0, 0]}


def test_a_memory_hog_fails_instead_of_eating_the_machine(tmp_path: Path, catalogue: Catalogue, preload: str | None) -> None:
    submission = make_submission(tmp_path, "hog", "full")
    server = submission / "server.py"
    server.write_text(with_prelude(server.read_text(), "hog = bytearray(2 * 1024 ** 3)\n"))
    limits = Limits(timeout=5, memory_bytes=512 * MiB)
    with preloader_like(preload, limits) as address:
        report = grade_submission(submission, "en", limits, catalogue, STUB, preload=address)
    assert report.score == 0
    assert report.error.splitlines()[-1] == "MemoryError"


def test_modules_in_the_submission_cannot_replace_the_kit_or_the_standard_library(tmp_path: Path, catalogue: Catalogue, preload: str | None) -> None:
    submission = make_submission(tmp_path, "impostor", "full", server_only=True)
    fake = {"target": "x", "lang": "en", "error": "", "duration": 0, "results": [
        {"id": check.id, "task": check.task, "points": check.points, "status": "passed", "title": "FAKE"}
        for check in catalogue.checks]}
    claim = f"print({json.dumps(json.dumps(fake))})\nraise SystemExit(0)\n"
    (submission / "lab").mkdir()
    (submission / "lab" / "__init__.py").write_text("")
    (submission / "lab" / "__main__.py").write_text(claim)
    for module in ("runpy", "resource"):  # what the child imports first, from the standard library
        (submission / f"{module}.py").write_text(claim)
    report = grade_submission(submission, "en", LIMITS, catalogue, target="lab", preload=preload)
    assert "FAKE" not in {result.title for result in report.results}


def test_a_folder_that_does_not_exist(tmp_path: Path, catalogue: Catalogue, preload: str | None) -> None:
    report = grade_submission(tmp_path / "nobody", "en", LIMITS, catalogue, STUB, preload=preload)
    assert_all_zero_with(report, text("en", "grade.not_a_folder", path=tmp_path / "nobody"))


def test_a_stray_print_before_the_json_is_tolerated() -> None:
    report = Report(target="t", lang="fr", results=[CheckResult("a", "t", 1, "passed", "A")])
    parsed = parse_report(b"hello from the student\n" + json.dumps(report.to_dict()).encode() + b"\n")
    assert parsed is not None and parsed.score == 1
    assert parse_report(b"not json at all") is None
    assert parse_report(b'{"results": "no"}') is None


def test_a_report_cannot_award_itself_more_points(catalogue: Catalogue) -> None:
    claimed = Report(target="t", lang="en", results=[
        CheckResult("stub.one", "server-1", 200, "passed", "one"),
        CheckResult("stub.extra", "server-1", 50, "passed", "made up"),
        CheckResult("stub.three", "client-1", 5, "weird", "three"),
    ])
    report = catalogue.reconcile(claimed, "en")
    assert [(r.id, r.points, r.status) for r in report.results] == [
        ("stub.one", 2, "passed"), ("stub.two", 3, "error"), ("stub.three", 5, "error")]
    assert report.results[1].message == text("en", "grade.not_reported")
    assert (report.score, report.max_score) == (2, 10)


def test_student_code_does_not_see_the_graders_secrets(tmp_path: Path, catalogue: Catalogue, preload: str | None) -> None:
    submission = make_submission(tmp_path, "snoop", "full")
    seen = tmp_path / "environment.json"
    server = submission / "server.py"
    server.write_text(with_prelude(server.read_text(), (
        f"import json, os\njson.dump(dict(os.environ), open({str(seen)!r}, 'w'))\n")))
    env = {"PATH": os.environ["PATH"], "HOME": "/home/teacher", "OPENAI_API_KEY": "sk-secret",
           "GITHUB_TOKEN": "ghp-secret", "AWS_SECRET_ACCESS_KEY": "x", "DB_PASSWORD": "x",
           "AI_URL": "https://api.example.com", "AI_KEY": "sk-real", "AI_MODEL": "gpt",
           "AI_TIMEOUT": "30", "LAB_LANG": "fr"}
    with preloader_like(preload, LIMITS, env) as address:
        report = grade_submission(submission, "en", LIMITS, catalogue, STUB, env=env, preload=address)
    assert report.score == 10
    environment = json.loads(seen.read_text())
    environment.pop("LC_CTYPE", None)  # Python may set it for a UTF-8 locale
    token = environment.pop("LAB_GRADE_TOKEN")
    assert len(token) == 16
    # Nothing names the preloader in the environment: the check run hears of it in its launch
    # context, on its command line (lab/process/launch.py).
    assert environment == {"PATH": os.environ["PATH"], "HOME": "/home/teacher", "AI_TIMEOUT": "30",
                           "LAB_LANG": "en", "MALLOC_ARENA_MAX": "2"}


def test_the_child_keeps_a_bytecode_cache_folder_despite_isolated_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    from lab.grading.runner import check_command

    monkeypatch.setenv("PYTHONPYCACHEPREFIX", "/tmp/pycache")
    assert check_command(Path("/x"), "fr", LIMITS)[1:4] == ["-I", "-X", "pycache_prefix=/tmp/pycache"]
    monkeypatch.delenv("PYTHONPYCACHEPREFIX")
    command = check_command(Path("/x"), "en", LIMITS)
    assert command[1:3] == ["-I", "-c"]
    assert command[-5:] == ["check", "/x", "--json", "--lang", "en"]
    launch = check_command(Path("/x"), "en", LIMITS, launch=Launch(nonce="n"))
    assert launch[-2:] == ["--launch", Launch(nonce="n").to_json()]
    assert check_command(Path("/x"), "en", LIMITS, bonus=True)[-6:] == ["check", "/x", "--json", "--lang", "en",
                                                                        "--bonus"]


def test_the_bonus_checks_count_only_when_the_class_is_graded_with_bonus() -> None:
    from lab.grading.catalogue import Catalogue

    lesson, with_bonus = Catalogue.from_engine("en"), Catalogue.from_engine("en", bonus=True)
    assert [check.task for check in lesson.checks if check.task == "bonus"] == []
    assert len([check for check in with_bonus.checks if check.task == "bonus"]) == 9
    assert (lesson.bonus, with_bonus.bonus, with_bonus.for_folder(Path("/nowhere")).bonus) == (False, True, True)
