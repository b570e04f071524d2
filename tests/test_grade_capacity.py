"""The jobs `lab grade` picks fit the host's limits; a resource failure is the kit's, not a student's."""

from __future__ import annotations

import csv
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from hostile import ROOT, STUB_ENGINE, make_submission
from lab.grading import capacity, classroom
from lab.grading.capacity import Fit, Host, fit_jobs, read_host
from lab.grading.catalogue import Catalogue
from lab.grading.runner import Limits
from lab.i18n import text
from lab.results import CheckResult, Report
from totals import FULL

GiB = 1024**3


def write(path: Path, content: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)


def fake_host(tmp_path: Path, cgroup_lines: str, files: dict[str, str], meminfo_kib: int = 16 * 1024**2) -> tuple[Path, Path]:
    root, proc = tmp_path / "cgroup", tmp_path / "proc"
    write(proc / "self" / "cgroup", cgroup_lines)
    write(proc / "meminfo", f"MemTotal: {meminfo_kib} kB\nMemAvailable: {meminfo_kib} kB\n")
    for name, content in files.items():
        write(root / name, content)
    return root, proc


def test_cgroup_v2_limits_are_read_from_the_process_cgroup_and_its_ancestors(tmp_path: Path) -> None:
    root, proc = fake_host(tmp_path, "0::/grader/run\n", {
        "grader/pids.max": "256\n", "grader/pids.current": "40\n",
        "grader/run/pids.max": "max\n", "grader/run/pids.current": "12\n",
        "grader/run/cpu.max": "200000 100000\n", "grader/cpu.max": "max 100000\n",
        "grader/run/memory.max": f"{2 * GiB}\n", "grader/run/memory.current": f"{GiB // 2}\n",
    })
    assert capacity.cgroup_pids(root, proc) == 216  # the parent's 256 less its 40 in use
    assert capacity.cgroup_cpus(root, proc) == 2.0
    assert capacity.cgroup_memory(root, proc) == 3 * GiB // 2
    host = read_host(root, proc)
    assert (host.pids, host.memory) == (216, 3 * GiB // 2)
    assert host.cpus == min(2.0, len(os.sched_getaffinity(0)))


def test_cgroup_v1_hybrid_limits_are_read_per_controller(tmp_path: Path) -> None:
    root, proc = fake_host(tmp_path, "8:pids:/lab\n4:memory:/lab\n1:cpu,cpuacct:/lab\n0::/\n", {
        "pids/lab/pids.max": "100\n", "pids/lab/pids.current": "4\n",
        "cpu,cpuacct/lab/cpu.cfs_quota_us": "150000\n", "cpu,cpuacct/lab/cpu.cfs_period_us": "100000\n",
        "memory/lab/memory.limit_in_bytes": "9223372036854771712\n",  # v1's "no limit"
        "memory/lab/memory.usage_in_bytes": "1000\n",
    }, meminfo_kib=4 * 1024**2)
    assert capacity.cgroup_pids(root, proc) == 96
    assert capacity.cgroup_cpus(root, proc) == 1.5
    assert capacity.cgroup_memory(root, proc) is None
    assert read_host(root, proc).memory == 4 * GiB  # MemAvailable, then


def test_no_cgroup_limit_means_none(tmp_path: Path) -> None:
    root, proc = fake_host(tmp_path, "8:pids:/\n0::/\n", {"pids/cgroup.procs": "", "cpu/cpu.cfs_quota_us": "-1\n"})
    assert (capacity.cgroup_pids(root, proc), capacity.cgroup_cpus(root, proc)) == (None, None)


# The budgets of lab/grading/capacity.py, so that a host is described by how many jobs it holds
# and a refitted budget moves the hosts with it.
RESERVE, PER_JOB, PER_JOB_BONUS = capacity.PIDS_RESERVE, capacity.PIDS_PER_JOB[False], capacity.PIDS_PER_JOB[True]
WORST, PER_CPU = capacity.WORST_JOB_PIDS[False], capacity.JOBS_PER_CPU


@pytest.mark.parametrize(("host", "asked", "expected"), [
    (Host(cpus=8), None, Fit(8 * PER_CPU, "cpu")),  # three per CPU when nothing else limits
    (Host(cpus=8, pids=RESERVE + 3 * PER_JOB), None, Fit(3, "pids")),
    (Host(cpus=2, pids=RESERVE + 4 * PER_JOB - 1), None, Fit(3, "pids")),  # a job's budget whole, or not at all
    (Host(cpus=8, pids=RESERVE + 3 * PER_JOB), 32, Fit(3, "pids")),  # an explicit --jobs is lowered too
    (Host(cpus=4, pids=RESERVE + 3 * PER_JOB), 3, Fit(3, "asked")),  # but kept when the limits allow it
    (Host(cpus=2, pids=RESERVE + 4 * 2 * PER_CPU * PER_JOB), 4 * PER_CPU, Fit(2 * PER_CPU, "cpu")),  # and held per CPU
    (Host(cpus=0.4), 16, Fit(1, "cpu")),  # a 0.4-CPU cgroup: one job, whatever --jobs says
    (Host(cpus=8, memory=2 * capacity.MEMORY_PER_JOB + 1), None, Fit(2, "memory")),
    (Host(cpus=8, pids=RESERVE + PER_JOB - 1), None, Fit(1, "pids", probes_in_turn=True)),  # one job, its probes in turn
    (Host(cpus=8, pids=RESERVE + PER_JOB), None, Fit(1, "pids")),
    (Host(cpus=8, pids=RESERVE + 2 * PER_JOB), None, Fit(2, "pids")),
    # No control group per submission under a process limit: they all draw on it, so only as
    # many as it holds each at its worst (its check run and each of its sandboxes at its limit).
    (Host(cpus=2, pids=RESERVE + WORST, groups=False), None, Fit(1, "groups")),
    (Host(cpus=2, pids=RESERVE + WORST, groups=False), 4, Fit(1, "groups")),
    (Host(cpus=8, pids=RESERVE + 3 * WORST, groups=False), None, Fit(3, "groups")),
    (Host(cpus=2, pids=60000, groups=False), None, Fit(2 * PER_CPU, "cpu")),  # a desktop's ulimit -u
    (Host(cpus=2, groups=False), None, Fit(2 * PER_CPU, "cpu")),  # no limit to share: nothing to take
    # As root its sandboxes share uid 65534, with no process limit of their own: one.
    (Host(cpus=2, pids=60000, groups=False, own_limits=False), None, Fit(1, "groups")),
])
def test_fit_jobs(host: Host, asked: int | None, expected: Fit) -> None:
    assert fit_jobs(host, asked) == expected


@pytest.mark.parametrize(("host", "expected"), [
    (Host(cpus=2, pids=RESERVE + 2 * PER_JOB_BONUS), Fit(2, "pids")),  # the real clients hold more threads
    (Host(cpus=8, pids=RESERVE + PER_JOB_BONUS), Fit(1, "pids")),
    (Host(cpus=8, pids=RESERVE + PER_JOB_BONUS - 1), Fit(1, "pids", probes_in_turn=True)),
])
def test_fit_jobs_with_the_bonus(host: Host, expected: Fit) -> None:
    assert fit_jobs(host, bonus=True) == expected


# Peaks of processes and threads measured under a pids cgroup (docs/performance.md): (jobs,
# peak) with the probes all at once, and one job's with its probes in turn; without and with --bonus.
PEAKS_AT_ONCE = {False: ((1, 50), (2, 88), (3, 120), (4, 146), (6, 204)), True: ((1, 82), (2, 146), (3, 205))}
PEAKS_IN_TURN = {False: 29, True: 44}


def test_the_budgets_hold_the_measured_peaks_with_headroom() -> None:
    for bonus in (False, True):
        for jobs, peak in PEAKS_AT_ONCE[bonus]:
            assert capacity.PIDS_RESERVE + jobs * capacity.PIDS_PER_JOB[bonus] >= peak * 1.1
        assert capacity.one_job_pids(bonus) >= PEAKS_IN_TURN[bonus] * 1.1


def test_one_job_needs_its_budget_with_its_probes_in_turn() -> None:
    for bonus in (False, True):
        least = RESERVE + capacity.PIDS_IN_TURN[bonus]
        assert capacity.one_job_pids(bonus) == least
        assert [capacity.holds_one_job(Host(cpus=2, pids=pids), bonus) for pids in (None, least - 1, least)] == \
            [True, False, True]


# --- resource failures ------------------------------------------------------------------


def one_check() -> Catalogue:
    return Catalogue([CheckResult(id="a", task="t", points=2, status="error", title="A")])


def passed() -> Report:
    return Report(target="s", lang="en", results=[CheckResult(id="a", task="t", points=2, status="passed", title="A")])


def test_a_resource_failure_of_the_grader_is_retried_then_graded() -> None:
    calls: list[int] = []

    def grade() -> Report:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("can't start new thread")
        if len(calls) == 2:
            raise BlockingIOError(11, "Resource temporarily unavailable")
        return passed()

    report = classroom.grade_with_retries(grade, one_check(), Path("s"), "en", pauses=(0, 0))
    assert (len(calls), report.score, report.error) == (3, 2, "")


def test_a_resource_failure_that_persists_is_a_kit_error_not_a_zero() -> None:
    def grade() -> Report:
        raise OSError(12, "Cannot allocate memory")

    report = classroom.grade_with_retries(grade, one_check(), Path("s"), "fr", pauses=(0, 0))
    assert report.error == text("fr", "grade.resource_failure",
                                error="OSError: [Errno 12] Cannot allocate memory", attempts=3)
    from lab.grading import formats

    row = formats.summary_row("s", report, "/c/s")
    assert row[1:3] == ["", "2"] and row[5:] == ["kit-error", "/c/s", "kit-error"]


def test_any_other_grader_failure_is_a_kit_error_at_once() -> None:
    calls: list[int] = []

    def grade() -> Report:
        calls.append(1)
        raise KeyError("bug")

    report = classroom.grade_with_retries(grade, one_check(), Path("s"), "en", pauses=(0, 0))
    assert (len(calls), report.error) == (1, "KeyError: 'bug'")


def test_a_kit_error_report_is_tried_again_but_the_last_one_stands() -> None:
    broken = Report(target="s", lang="en", kit_error=True, error="a: RuntimeError: can't start new thread",
                    results=[CheckResult(id="a", task="t", points=2, status="error", title="A")])
    answers = [broken, passed()]
    report = classroom.grade_with_retries(lambda: answers.pop(0), one_check(), Path("s"), "en", pauses=(0, 0))
    assert report.score == 2 and answers == []
    calls: list[int] = []
    report = classroom.grade_with_retries(lambda: calls.append(1) or broken, one_check(), Path("s"), "en",
                                          pauses=(0, 0))
    assert (len(calls), report.kit_error) == (3, True)


def test_a_stopping_run_tries_nothing_again() -> None:
    """Once the run is stopping (Ctrl-C, SIGTERM: its check runs were killed), a kit error
    stands at once, and so does a resource failure: no new check run is started and waited for."""
    broken = Report(target="s", lang="en", kit_error=True, error="a: the check run was killed",
                    results=[CheckResult(id="a", task="t", points=2, status="error", title="A")])
    stop = threading.Event()
    stop.set()
    calls: list[int] = []
    report = classroom.grade_with_retries(lambda: calls.append(1) or broken, one_check(), Path("s"), "en",
                                          pauses=(0, 0), stop=stop)
    assert (len(calls), report.kit_error) == (1, True)

    def refused() -> Report:
        calls.append(1)
        raise BlockingIOError(11, "Resource temporarily unavailable")

    report = classroom.grade_with_retries(refused, one_check(), Path("s"), "fr", pauses=(0, 0), stop=stop)
    assert len(calls) == 2
    assert report.error == text("fr", "grade.resource_failure",
                                error="BlockingIOError: [Errno 11] Resource temporarily unavailable", attempts=1)


def test_what_a_student_printed_never_decides_a_retry() -> None:
    """A failed check whose text says "Resource temporarily unavailable" (the student's
    program printed it) is graded once: only the grader's own errors are tried again."""
    printed = Report(target="s", lang="en", results=[CheckResult(
        id="a", task="t", points=2, status="failed", title="A", message="no reply",
        actual="OSError: [Errno 11] Resource temporarily unavailable\ncan't start new thread")])
    calls: list[int] = []
    report = classroom.grade_with_retries(lambda: calls.append(1) or printed, one_check(), Path("s"), "en",
                                          pauses=(0, 0))
    assert (len(calls), report.score, report.kit_error) == (1, 0, False)


def test_grade_class_retries_a_submission_whose_grading_could_not_start_a_thread(
    tmp_path: Path, catalogue: Catalogue, monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = classroom.grade_submission
    failures = {"twin-a": 1, "twin-b": 5}  # b never gets its thread

    def starving(submission: Path, *args, **kwargs) -> Report:
        if failures.get(submission.parent.name, 0) > 0:
            failures[submission.parent.name] -= 1
            raise RuntimeError("can't start new thread")
        return real(submission, *args, **kwargs)

    monkeypatch.setattr(classroom, "grade_submission", starving)
    submissions = [make_submission(tmp_path / name, "work", "full") for name in ("twin-a", "twin-b")]
    result = classroom.grade_class(submissions, tmp_path / "out", lang="en", jobs=2, limits=Limits(timeout=5),
                                   target=str(STUB_ENGINE), catalogue=catalogue)
    rows = list(csv.DictReader((tmp_path / "out" / "summary.csv").open(encoding="utf-8")))
    assert [(row["submission"], row["score"], row["status"]) for row in rows] == [
        ("work", "10", "graded"), ("work-2", "", "kit-error")]
    assert rows[1]["error"].startswith("The grader ran out of resources (RuntimeError: can't start new thread)")
    assert [row["path"] for row in rows] == [str(path) for path in submissions]
    assert result.rows[1][1].score == 0  # nothing was earned, and the summary does not call it a mark


# --- lab grade under a real pids limit ----------------------------------------------------


def writable_pids_cgroup() -> Path | None:
    """A fresh pids cgroup this test may fill: cgroup v1's pids hierarchy, or a v2 subtree."""
    for parent in (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup")):
        if not (parent / "cgroup.procs").exists() or not os.access(parent, os.W_OK):
            continue
        if parent.name != "pids" and "pids" not in (parent / "cgroup.subtree_control").read_text():
            continue
        group = parent / f"lab-test-{uuid.uuid4().hex[:8]}"
        try:
            group.mkdir()
        except OSError:
            continue
        if (group / "pids.max").exists():
            return group
        group.rmdir()
    return None


def grade_under_pids_limit(limit: int, submissions: list[str], out: Path, cwd: Path,
                           *options: str) -> tuple[subprocess.CompletedProcess, int | None]:
    """`lab grade` (English, csv) run in a fresh pids cgroup of `limit`: its result, and how many
    forks the limit refused (pids.events' max; None where the kernel does not count them).
    Skipped where no such cgroup can be made, except in CI, where that is a failure."""
    group = writable_pids_cgroup()
    if group is None:
        reason = "no writable pids cgroup here (cgroup v1 pids hierarchy or a delegated v2 subtree)"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(reason)
        pytest.skip(reason)
    try:
        (group / "pids.max").write_text(f"{limit}\n")
        script = f'echo $$ > "{group}/cgroup.procs" && exec "$@"'
        done = subprocess.run(["sh", "-c", script, "sh", sys.executable, "-m", "lab", "grade", *submissions, *options,
                               "--out", str(out), "--lang", "en", "--format", "csv"],
                              capture_output=True, text=True, timeout=300, cwd=cwd)
        events = group / "pids.events"
        counts = dict(line.split() for line in events.read_text().splitlines()) if events.exists() else {}
        refused = int(counts["max"]) if "max" in counts else None
    finally:
        for pid in (group / "cgroup.procs").read_text().split():
            subprocess.run(["kill", "-9", pid], check=False)
        group.rmdir()
    return done, refused


def test_identical_submissions_get_identical_scores_under_a_small_pids_limit(tmp_path: Path) -> None:
    submissions = []
    for number in range(6):
        folder = tmp_path / "class" / f"s{number}"
        shutil.copytree(ROOT / "solutions", folder, ignore=shutil.ignore_patterns("__pycache__"))
        submissions.append(str(folder))
    out = tmp_path / "out"
    done, refused = grade_under_pids_limit(100, submissions, out, tmp_path, "--jobs", "8")
    assert done.returncode == 0, done.stderr
    # 100 pids, less the grader's reserve, leave room for this many jobs with their probes at once
    # (lab/grading/capacity.py): --jobs 8 is lowered to it, never below one.
    pid_jobs = max(1, (100 - capacity.PIDS_RESERVE) // capacity.PIDS_PER_JOB[False])
    lowered = [line for line in done.stderr.splitlines() if line.startswith("--jobs 8 lowered to ")]
    assert lowered == [f"--jobs 8 lowered to {pid_jobs}: this host's limit on processes and threads."]
    rows = list(csv.DictReader((out / "summary.csv").open(encoding="utf-8")))
    assert [row["status"] for row in rows] == ["graded"] * 6
    assert {row["score"] for row in rows} == {rows[0]["max"]}, rows  # all identical, and full marks
    assert [row["failed"] for row in rows] == [""] * 6
    if refused is not None:
        assert refused == 0  # the limit was never reached: no fork was refused to anyone


def test_under_a_tight_process_limit_the_probes_run_in_turn_for_the_same_grades(tmp_path: Path) -> None:
    """A pids.max under what one job with its probes all at once was measured to use: a fork
    refused in a student's process would read as that student's mistake. The probes run one
    after the other instead, said in the header: the solutions and the untouched exercises get,
    check by check, what they get on a free host."""
    submissions = []
    for name, source in (("correct", "solutions"), ("untouched", "exercises")):
        shutil.copytree(ROOT / source, tmp_path / "class" / name, ignore=shutil.ignore_patterns("__pycache__"))
        submissions.append(str(tmp_path / "class" / name))
    tight = 46  # what the budgets give one job with its probes in turn, and less than they use at once
    assert capacity.one_job_pids(False) <= tight < dict(PEAKS_AT_ONCE[False])[1]
    done, refused = grade_under_pids_limit(tight, submissions, tmp_path / "tight", tmp_path)
    assert done.returncode == 0, done.stderr
    assert re.search(r"^This host's limit on processes and threads \(\d+\) does not hold a submission's files tried "
                     r"all at once: they are tried one after the other, one submission at a time \(slower, the same "
                     r"checks, the same grades\)\.$", done.stderr, re.M), done.stderr
    free = subprocess.run([sys.executable, "-m", "lab", "grade", *submissions, "--out", str(tmp_path / "free"),
                           "--lang", "en", "--format", "csv"], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert free.returncode == 0, free.stderr
    assert "one after the other" not in free.stderr

    def graded(out: Path) -> list[tuple[str, ...]]:
        rows = csv.DictReader((out / "summary.csv").open(encoding="utf-8"))
        return [(row["submission"], row["score"], row["max"], row["status"], row["failed"], row["cause"]) for row in rows]

    assert graded(tmp_path / "tight") == graded(tmp_path / "free")
    assert [row[1:4] for row in graded(tmp_path / "tight")][0] == (str(FULL), str(FULL), "graded")
    assert graded(tmp_path / "tight")[1][4].split()  # the untouched exercises fail checks: there is a difference to keep
    if refused is not None:
        assert refused == 0  # in turn, the job fits: no fork was refused to a student's process


@pytest.mark.parametrize("in_turn", [True, False])
def test_a_probe_waiting_for_its_turn_is_not_timed_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       in_turn: bool) -> None:
    """A lazy probe is queued behind the probes started before it (the server's parts behind the
    client and the model helper): its limit counts from when it starts, not from when a check
    asked for it. Each probe but the first takes 0.25 s of a 0.3 s limit; in turn, the lazy one
    waits 0.5 s first."""
    from lab.checks import engine
    from lab.process.launch import Launch

    monkeypatch.setattr(engine, "PROBE_GRACE", 0.1)
    lock, running, most = threading.Lock(), [0], [0]

    def probe(context: engine.Context, seconds: float = 0.25) -> str:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(seconds)
        with lock:
            running[0] -= 1
        return "seen"

    def reads(name: str):
        def run(context: engine.Context) -> None:
            assert context.probe(name) == "seen"
        return run

    words = {"fr": ("t", "h"), "en": ("t", "h")}
    checks = [engine.Check(id="c0", task="t", probes=("p0",), lazy_probes=("lazy",), run=reads("lazy"), **words),
              engine.Check(id="c1", task="t", probes=("p1",), run=reads("p1"), **words),
              engine.Check(id="c2", task="t", probes=("p2",), run=reads("p2"), **words)]
    probes = {name: engine.Probe(probe, 0.3) for name in ("p1", "p2", "lazy")}
    probes["p0"] = engine.Probe(lambda context: probe(context, 0.0), 0.3)
    report = engine.run(tmp_path, "en", checks, probes, launch=Launch(probes_in_turn=in_turn))
    assert [(result.id, result.status, result.message) for result in report.results] == \
        [("c0", "passed", ""), ("c1", "passed", ""), ("c2", "passed", "")]
    assert most[0] == (1 if in_turn else 3)  # all at once: p1, p2 and the lazy one


def test_in_turn_a_submission_has_the_time_its_probes_take_end_to_end() -> None:
    from lab.checks import probes_time, registry
    from lab.grading.classroom import in_turn_limits

    limits = [probe.limit for name, probe in registry()[1].items() if not name.startswith("bonus.")]
    assert (probes_time(), probes_time(in_turn=True)) == (max(limits), sum(limits))  # the longest; all the lesson's
    assert in_turn_limits(Limits(timeout=90), bonus=False).timeout == 90 + sum(limits) - max(limits)
    assert in_turn_limits(Limits(timeout=90), bonus=True).timeout == 90 + probes_time(True, True) - probes_time(True)


def test_under_a_process_limit_one_job_cannot_hold_nothing_is_graded_and_that_is_said(tmp_path: Path) -> None:
    """Below one job with its probes in turn (36 processes and threads), lab grade refuses, in the
    run's language, and the platform still gets a file per submission."""
    folder = tmp_path / "class" / "s0"
    shutil.copytree(ROOT / "solutions", folder, ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path / "out"
    done, _ = grade_under_pids_limit(30, [str(folder)], out, tmp_path)
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert re.fullmatch(r"Error: This host allows only \d+ more processes and threads; grading one submission takes "
                        r"up to 36\. Under that limit, a fork refused in a student's process would read as their "
                        r"mistake: nothing is graded\. Raise the limit \(the control group's pids\.max, ulimit -u\) "
                        r"or grade elsewhere\.", last), last
    rows = list(csv.DictReader((out / "summary.csv").open(encoding="utf-8")))
    assert [(row["submission"], row["score"], row["status"]) for row in rows] == [("s0", "", "kit-error")]


def test_workers_the_host_will_not_start_are_done_without(monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    started: list[str] = []
    real_start = threading.Thread.start

    def start_two_at_most(thread: threading.Thread) -> None:
        if thread.name.startswith("grade-") and len(started) >= 2:
            raise RuntimeError("can't start new thread")
        started.append(thread.name)
        real_start(thread)

    monkeypatch.setattr(threading.Thread, "start", start_two_at_most)
    folders = [Path(f"s{number}") for number in range(7)]
    graders: set[str] = set()

    def grade_one(folder: Path) -> Report:
        graders.add(threading.current_thread().name)
        return Report(target=str(folder), lang="en")

    results = dict(classroom.graded_in_parallel(folders, grade_one, jobs=6))
    assert sorted(results) == list(range(7))
    assert [results[n].target for n in range(7)] == [f"s{n}" for n in range(7)]
    assert started == ["grade-0", "grade-1"] and graders <= {"grade-0", "grade-1"}


def test_when_no_worker_starts_the_callers_thread_grades_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    def refuse(thread: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", refuse)
    graders: set[str] = set()

    def grade_one(folder: Path) -> Report:
        graders.add(threading.current_thread().name)
        return Report(target=str(folder), lang="en")

    results = dict(classroom.graded_in_parallel([Path("a"), Path("b")], grade_one, jobs=4))
    assert (sorted(results), graders) == ([0, 1], {threading.main_thread().name})



def test_rlimit_nproc_counts_the_users_tasks_and_does_not_hold_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """RLIMIT_NPROC counts every process and thread of the real uid (a real run under it needs a
    Python a non-root user can execute; this machine's lives in /root, hence fake /proc entries)."""
    import resource

    proc = tmp_path / "proc"
    for pid, uid, threads in ((10, 1000, 3), (11, 1000, 1), (12, 0, 40), (13, 1001, 7)):
        write(proc / str(pid) / "status", f"Name:\tx\nUid:\t{uid}\t{uid}\t{uid}\t{uid}\nThreads:\t{threads}\n")
    assert capacity.user_tasks(1000, proc) == 4
    monkeypatch.setattr(resource, "getrlimit", lambda kind: (100, 100))
    monkeypatch.setattr(os, "getuid", lambda: 1000)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert capacity.nproc_room(proc) == 96
    assert fit_jobs(Host(cpus=8, pids=capacity.nproc_room(proc))) == fit_jobs(Host(cpus=8, pids=96))  # a pids limit
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    assert capacity.nproc_room(proc) is None  # root is not held to it
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    monkeypatch.setattr(resource, "getrlimit", lambda kind: (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    assert capacity.nproc_room(proc) is None


def test_a_check_the_engine_marked_as_its_own_error_is_retried_then_a_kit_error() -> None:
    """A fork refused inside a probe (EAGAIN under a pids limit) reaches the grader as a check
    in status error: the grader's own signal, not a text, decides the retry."""
    refused = Report(target="s", lang="en", results=[CheckResult(
        id="a", task="t", points=2, status="error", title="A",
        message="Kit error, not your code's: BlockingIOError: [Errno 11] Resource temporarily unavailable")])
    answers = [refused, passed()]
    report = classroom.grade_with_retries(lambda: answers.pop(0), one_check(), Path("s"), "en", pauses=(0, 0))
    assert (report.score, report.kit_error, answers) == (2, False, [])
    calls: list[int] = []

    def always_refused() -> Report:
        calls.append(1)
        return refused

    report = classroom.grade_with_retries(always_refused, one_check(), Path("s"), "en", pauses=(0, 0))
    assert (len(calls), report.kit_error) == (3, True)
    assert report.error.startswith("The grader ran out of resources (Kit error, not your code's: BlockingIOError")
    from lab.grading import formats

    assert formats.summary_row("s", report)[1] == ""  # no score: not the student's zero
