"""The sandbox's edges: what `lab grade` does where it cannot run, --no-sandbox, a kit error,
resuming a stopped run, and what a sandboxed student process sees."""

from __future__ import annotations

import json
import os
import re
import ssl
import subprocess
import sys
from pathlib import Path

import pytest

from hostile import ROOT, STUB_ENGINE, make_submission
from lab.process.capped import read_run
from lab.process.launch import Launch
from lab.process import sandbox
from lab.grading.catalogue import Catalogue
from lab.grading.cgroup import SubmissionGroup
from lab.grading.classroom import DONE_NAME, grade_class
from lab.grading.runner import Limits, grade_submission
from lab.i18n import text

needs_bwrap = pytest.mark.skipif(sandbox.find()[0] is None, reason="bubblewrap cannot run here")
LIMITS = Limits(timeout=20)
STUB = str(STUB_ENGINE)


def lab(*args: str, cwd: Path, path: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("LAB_LANG", None)
    if path is not None:
        env["PATH"] = path
    return subprocess.run([sys.executable, "-m", "lab", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_without_bubblewrap_lab_grade_stops_and_says_what_to_install(tmp_path: Path, lang: str) -> None:
    submission = make_submission(tmp_path, "ada", "full", server_only=True)
    done = lab("--lang", lang, "grade", str(submission), "--out", str(tmp_path / "out"), cwd=tmp_path,
               path=str(tmp_path / "no-bin"))
    assert done.returncode == 1
    error = {"fr": "Erreur : ", "en": "Error: "}[lang]  # click's word, in the run's language
    assert done.stderr.strip() == error + text(lang, "grade.no_sandbox.missing")
    # Nothing graded: the submission's results file says why, as a kit error (never a zero),
    # so a platform's reporter reads a file (docs/platforms.md, "A results file whatever happens").
    import json

    data = json.loads((tmp_path / "out" / "ada" / "results.json").read_text(encoding="utf-8"))
    assert data["extra_data"] == {"status": "kit-error"} and data["score"] == 0
    assert data["output"].startswith(text(lang, "grade.kit_error", reason=text(lang, "grade.no_sandbox.missing")))


def test_the_sandbox_says_why_it_cannot_run(monkeypatch: pytest.MonkeyPatch) -> None:
    sandbox.find.cache_clear()
    try:
        monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
        assert sandbox.find() == (None, "missing")
        monkeypatch.setattr(sandbox.sys, "platform", "darwin")
        sandbox.find.cache_clear()
        assert sandbox.find() == (None, "platform")
    finally:
        monkeypatch.undo()
        sandbox.find.cache_clear()


def test_no_sandbox_grades_with_a_loud_warning_in_every_result(tmp_path: Path) -> None:
    submission = make_submission(tmp_path, "ada", "full", server_only=True)
    done = lab("--lang", "en", "grade", str(submission), "--out", str(tmp_path / "out"), "--no-sandbox",
               "--format", "exercism", cwd=tmp_path, path=str(tmp_path / "no-bin"))
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith(text("en", "grade.unsandboxed") + "\n")
    record = json.loads((tmp_path / "out" / "ada" / DONE_NAME).read_text(encoding="utf-8"))
    assert record["report"]["warnings"] == [text("en", "grade.unsandboxed")]


@needs_bwrap
def test_a_check_run_that_dies_without_a_report_is_a_kit_error_not_a_zero(tmp_path: Path) -> None:
    crasher = tmp_path / "crash_engine.py"
    crasher.write_text("raise SystemExit(70)\n", encoding="utf-8")
    submission = make_submission(tmp_path, "ada", "full", server_only=True)
    checks = Catalogue.from_engine("en")
    report = grade_submission(submission, "en", LIMITS, checks, str(crasher), launch=Launch(sandbox.find()[0]))
    assert report.kit_error is True
    assert report.error.startswith("The checks stopped (exit code 70)")


def test_a_rerun_keeps_what_was_finished_and_force_grades_again(tmp_path: Path, catalogue: Catalogue) -> None:
    submissions = [make_submission(tmp_path, name, "full") for name in ("ada", "bo", "cy")]
    out = tmp_path / "out"
    first = grade_class(submissions, out, lang="en", limits=LIMITS, target=STUB, catalogue=catalogue,
                        sandboxed=False)
    assert [report.score for _, report in first.rows] == [10, 10, 10]
    (out / "bo" / DONE_NAME).unlink()  # as if the grader had been stopped while grading bo
    (out / "bo" / DONE_NAME).symlink_to(out / "ada" / DONE_NAME)  # a link is no record: never followed
    (out / "cy" / "results.json").unlink()
    resumed: list[int] = []
    graded: list[tuple[int, int]] = []
    again = grade_class(submissions, out, lang="en", limits=LIMITS, target=STUB, catalogue=catalogue,
                        sandboxed=False, on_resume=resumed.append, on_done=lambda n, total: graded.append((n, total)))
    assert resumed == [1]  # ada only
    assert graded == [(2, 3), (3, 3)]  # bo and cy graded again
    assert [report.score for _, report in again.rows] == [10, 10, 10]
    assert again.summary.read_text(encoding="utf-8") == first.summary.read_text(encoding="utf-8")
    forced: list[tuple[int, int]] = []
    grade_class(submissions, out, lang="en", limits=LIMITS, target=STUB, catalogue=catalogue,
                sandboxed=False, force=True, on_done=lambda n, total: forced.append((n, total)))
    assert len(forced) == 3


def test_a_rerun_in_another_format_grades_again(tmp_path: Path, catalogue: Catalogue) -> None:
    submissions = [make_submission(tmp_path, "ada", "full")]
    out = tmp_path / "out"
    grade_class(submissions, out, lang="en", limits=LIMITS, target=STUB, catalogue=catalogue, sandboxed=False)
    resumed: list[int] = []
    grade_class(submissions, out, fmt="junit", lang="en", limits=LIMITS, target=STUB, catalogue=catalogue,
                sandboxed=False, on_resume=resumed.append)
    assert resumed == []
    assert (out / "ada" / "results.xml").is_file()


def communicate(process, limit: float) -> tuple[bytes, bytes]:
    """Its stdout and stderr once it has ended (then reaped: its returncode is set)."""
    import time

    run = read_run(process, time.monotonic(), limit, 1 << 20, 1 << 20)
    return run.stdout, run.stderr


@needs_bwrap
def test_a_sandboxed_process_sees_only_its_folder_python_and_the_system(tmp_path: Path) -> None:
    from lab.process.student import start_new

    folder = tmp_path / "copy"
    folder.mkdir()
    (tmp_path / "beside.txt").write_text("not yours")
    probe = ("import importlib.util, json, os, sys\n"
             "def exists(p):\n    return os.path.exists(p)\n"
             f"print(json.dumps({{'kit': exists({str(ROOT / 'lab')!r}), 'solutions': exists({str(ROOT / 'solutions')!r}),"
             f" 'beside': exists({str(tmp_path / 'beside.txt')!r}), 'home': os.listdir(os.path.expanduser('~')),"
             " 'env': sorted(os.environ), 'pids': sorted(p for p in os.listdir('/proc') if p.isdigit()),"
             " 'uid_map': open('/proc/self/uid_map').read().split(),"
             " 'openai': importlib.util.find_spec('openai') is not None,"
             " 'lab': importlib.util.find_spec('lab') is not None}))\n")
    spec = sandbox.find()[0].with_writable(folder)
    env = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "LAB_LANG": "en"}
    process, listeners = start_new(Launch(spec), [sys.executable, "-c", probe], folder, env, listen=("LAB_PORT",))
    out, err = communicate(process, 20)
    seen = json.loads(out)
    assert (seen["kit"], seen["solutions"], seen["beside"], seen["lab"], seen["openai"]) == (
        False, False, False, False, True), err
    # HOME is the private /tmp: only the way down to the writable folder is in it, and to the
    # read-only Python folders when they lie under the host's /tmp (a venv there, as in CI).
    ways_down = {Path(shown).relative_to("/tmp").parts[0] for shown in (str(folder), *spec.readable)
                 if sandbox.inside(shown, "/tmp")}
    assert sorted(seen["home"]) == sorted(ways_down)
    assert seen["env"] == ["HOME", "LAB_LANG", "LAB_PORT", "LC_CTYPE", "PATH", "PWD"]  # PWD: bwrap; LC_CTYPE: Python
    assert seen["pids"] == ["1", "2"]  # bwrap's own init, and this process (the launcher became it)
    assert list(listeners) == ["LAB_PORT"]
    listeners["LAB_PORT"].close()


HASHED = re.compile(r"[0-9a-f]{8}\.\d+")


@needs_bwrap
def test_a_sandboxed_student_process_looks_certificates_up_in_the_systems_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SSL_CERT_DIR names the system's hashed certificate folder, shown in the sandbox whole:
    the openai SDK then looks certificates up instead of loading all of them into every client
    (see sandbox.certificate_folder), and an `OpenAI(...)` is made there as anywhere."""
    from lab.process.launch import HERE
    from lab.process.student import child_env, start_new

    spec = sandbox.find()[0]
    assert spec.certificates == os.path.realpath(ssl.get_default_verify_paths().capath)
    folder = tmp_path / "copy"
    folder.mkdir()
    launch = Launch(spec.with_writable(folder))
    env = child_env(launch, "en")
    assert env["SSL_CERT_DIR"] == spec.certificates
    probe = ("import json, os, re, openai\n"
             "openai.OpenAI(base_url='http://127.0.0.1:9/v1', api_key='lab', max_retries=0).close()\n"
             "print(json.dumps(sorted(name for name in os.listdir(os.environ['SSL_CERT_DIR'])"
             f" if re.fullmatch({HASHED.pattern!r}, name))))\n")
    process, _ = start_new(launch, [sys.executable, "-c", probe], folder, env)
    out, err = communicate(process, 30)
    assert process.returncode == 0, err
    assert json.loads(out) == sorted(name for name in os.listdir(spec.certificates) if HASHED.fullmatch(name))
    # Outside the sandbox (`lab check` on a student's machine) the same folder, in place of a
    # bundle SSL_CERT_FILE names: each OpenAI(...) then loads no certificate at all.
    monkeypatch.setenv("SSL_CERT_FILE", ssl.get_default_verify_paths().cafile or "/etc/ssl/certs/ca-certificates.crt")
    monkeypatch.setenv("LAB_TEST_KEPT", "yes")
    env = child_env(HERE, "en")
    assert "SSL_CERT_FILE" not in env
    assert env["SSL_CERT_DIR"] == spec.certificates and env["LAB_TEST_KEPT"] == "yes"
    spy = ("import ssl, openai\n"
           "loaded = []\n"
           "real = ssl.SSLContext.load_verify_locations\n"
           "def spied(context, *args, **named):\n"
           "    loaded.append([*args, *named.values()])\n"
           "    return real(context, *args, **named)\n"
           "ssl.SSLContext.load_verify_locations = spied\n"
           "openai.OpenAI(base_url='http://127.0.0.1:9/v1', api_key='lab', max_retries=0).close()\n"
           "print(loaded)\n")
    process, _ = start_new(HERE, [sys.executable, "-c", spy], folder, env)
    out, err = communicate(process, 30)
    assert process.returncode == 0, err
    assert out.decode().strip() == f"[[None, {spec.certificates!r}, None]]"


def test_only_a_folder_of_hashed_certificates_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder OpenSSL cannot look certificates up in (no hashed names) is not named: the
    SDK then loads its bundle as it would anywhere."""
    folder = tmp_path / "certs"
    folder.mkdir()
    (folder / "some-ca.pem").write_text("not hashed")
    paths = ssl.DefaultVerifyPaths("", str(folder), "SSL_CERT_FILE", "", "SSL_CERT_DIR", "")
    monkeypatch.setattr(ssl, "get_default_verify_paths", lambda: paths)
    assert sandbox.certificate_folder() == ""
    (folder / "002c0b4f.0").symlink_to(folder / "some-ca.pem")
    assert sandbox.certificate_folder() == str(folder.resolve())


@needs_bwrap
def test_a_real_mcp_client_starts_the_bonus_server_inside_the_sandbox(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The SDK client runs outside (its report is out of the server's reach); the server it
    starts runs in the sandbox: a server that refuses to start where it can see the kit
    connects only when sandboxed."""
    from hostile import with_prelude
    from lab.checks import real_clients

    folder = tmp_path / "copy"
    folder.mkdir()
    for name in ("server.py", "bonus_server.py", "jsonrpc_lines.py"):  # jsonrpc_lines.py: the given module they import
        (folder / name).write_text((ROOT / "solutions" / name).read_text(encoding="utf-8"), encoding="utf-8")
    bonus = folder / "bonus_server.py"
    bonus.write_text(with_prelude(bonus.read_text(encoding="utf-8"),
                                  f"import os as _o, sys as _s\nif _o.path.exists({str(ROOT / 'lab')!r}):\n"
                                  "    _s.exit(3)\n"), encoding="utf-8")
    outside = real_clients.run_sdk(bonus, ("legacy",))
    assert [run.outcome for run in outside] == [real_clients.REFUSED]  # MCP error -32000: Connection closed
    inside = real_clients.run_sdk(bonus, ("legacy",), launch=Launch(sandbox.find()[0]))
    assert [(run.outcome, run.tools) for run in inside] == [(real_clients.CONNECTED, [])]


@needs_bwrap
def test_a_check_that_errors_in_the_trusted_run_is_a_kit_error(tmp_path: Path, catalogue: Catalogue) -> None:
    engine = tmp_path / "erring_engine.py"
    results = [{"id": check.id, "task": check.task, "points": check.points, "title": check.title,
                "status": "error" if index == 0 else "passed", "message": "RuntimeError: a kit bug" if index == 0 else ""}
               for index, check in enumerate(catalogue.checks)]
    engine.write_text(f"import json\nprint(json.dumps({{'target': 'x', 'lang': 'en', 'results': {results!r}}}))\n",
                      encoding="utf-8")
    submission = make_submission(tmp_path, "ada", "full", server_only=True)
    jailed = grade_submission(submission, "en", LIMITS, catalogue, str(engine), launch=Launch(sandbox.find()[0]))
    assert (jailed.kit_error, jailed.error) == (
        True, f"{catalogue.checks[0].id}: RuntimeError: a kit bug")
    # Without the sandbox, student code could have caused it: it stays the submission's.
    assert grade_submission(submission, "en", LIMITS, catalogue, str(engine)).kit_error is False


def test_the_checks_read_a_students_file_never_through_a_link(tmp_path: Path) -> None:
    """Student code runs while the checks read its folder: a `model.py` it turned into a link
    to one of the grader's files must not be read (nor a pipe that would block the read)."""
    from lab.process.student import copy_student_file, read_student_file

    secret = tmp_path / "grader.env"
    secret.write_text("AI_KEY=sk-secret\n")
    folder = tmp_path / "copy"
    folder.mkdir()
    (folder / "model.py").symlink_to(secret)
    os.mkfifo(folder / "answers.toml")
    (folder / "client.py").write_bytes(b"x" * 100)
    assert read_student_file(folder / "model.py") is None
    assert read_student_file(folder / "answers.toml") is None
    assert read_student_file(folder / "missing.py") is None
    assert read_student_file(folder / "client.py", limit=10) == b"x" * 10
    assert copy_student_file(folder / "model.py", tmp_path / "copied.py") is False
    assert not (tmp_path / "copied.py").exists()


HOG = """
import os as _o, select as _sl, time as _t
_readers = []
for _ in range(6):
    _r, _w = _o.pipe()
    if _o.fork() == 0:
        _o.close(_r)
        _held = b'x' * (200 * 1024 * 1024)  # written, so every page is really used
        _o.write(_w, b'1')
        _t.sleep(30)
        _o._exit(0)
    _o.close(_w)
    _readers.append(_r)
_count, _deadline = 0, _t.monotonic() + 10
while _readers and _t.monotonic() < _deadline:
    for _r in _sl.select(_readers, [], [], 0.1)[0]:
        _count += len(_o.read(_r, 1))
        _readers.remove(_r)
raise RuntimeError(f'HELD {_count} OF 6')  # what the model check reports: model.py does not load
"""


@needs_bwrap
def test_memory_is_capped_for_the_whole_submission_where_a_cgroup_can_be_made(tmp_path: Path) -> None:
    """Six children of 200 MiB each, under --memory 512: each is within the per-process limit,
    all six together are not. With the submission's control group, they cannot all hold.
    (In model.py, at import: the model check waits for the import longer than the server
    checks wait for a reply, time enough for six children to fill their memory.)"""
    from hostile import with_prelude

    probe = SubmissionGroup(1 << 30)
    probe.close()
    if not probe.active:
        pytest.skip("no control group can be made here: the memory limit is per process only")
    submission = make_submission(tmp_path, "hog", "full")
    model = submission / "model.py"
    model.write_text(with_prelude(model.read_text(encoding="utf-8"), HOG), encoding="utf-8")
    checks = Catalogue.from_engine("en")
    limits = Limits(timeout=30, memory_bytes=512 * 1024 * 1024)
    report = grade_submission(submission, "en", limits, checks, launch=Launch(sandbox.find()[0]))
    # Held back by the group: fewer than six children hold, or the whole load is stopped (the
    # student processes' memory is the job's share); either way model.py's own failure.
    assert not any("HELD 6 OF 6" in result.actual for result in report.results)
    assert {result.status for result in report.results if result.task == "model"} == {"failed"}, [
        (result.id, result.status, result.message) for result in report.results if result.task == "model"]
    # The same submission without the group: every child holds its 200 MiB.
    unsandboxed = grade_submission(submission, "en", limits, checks)
    assert any("HELD 6 OF 6" in result.actual for result in unsandboxed.results), [
        (result.id, result.actual[:200]) for result in unsandboxed.results if result.task == "model"]


FIND = "import sys; sys.path.insert(0, sys.argv[1]); from lab.process import sandbox; print(sandbox.find()[1] or 'ok')"


@pytest.mark.skipif(os.geteuid() != 0 or sandbox.find()[0] is None, reason="needs root and bubblewrap")
@pytest.mark.parametrize(("mode", "said"), [(0o755, "ok"), (0o700, "unreachable:setpriv: failed to execute")])
def test_as_root_the_sandbox_runs_a_python_nobody_can_reach_and_names_one_it_cannot(
    tmp_path: Path, mode: int, said: str,
) -> None:
    """Under a root grader student code runs as uid 65534. A virtual environment below a
    folder only root can enter (pytest's own /tmp/pytest-of-root) still runs: the sandbox
    makes the folders on the way open. One that is itself closed to others is named as such,
    not taken for user namespaces being refused."""
    hidden = tmp_path / "root-only"
    hidden.mkdir(mode=0o700)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(hidden / "venv")], check=True)
    (hidden / "venv").chmod(mode)
    done = subprocess.run([str(hidden / "venv" / "bin" / "python"), "-I", "-c", FIND, str(ROOT)],
                          capture_output=True, text=True, timeout=60)
    assert done.stdout.strip().startswith(said), done.stderr
