"""Grade one submission: a trusted check run outside, the student's processes in a sandbox.

The child is the kit's own `lab check DIR --json` run on a private copy of the submission.
It runs only the kit's code, and every student process it starts runs in a bubblewrap sandbox
of its own (lab/process/sandbox.py, named in its launch context: lab/process/launch.py) that
cannot see or reach the child, its pipes, the grader, the output folder or another
submission: so the child's stdout, which the grader parses, carries a verdict no student code
could write. Without a sandbox (`--no-sandbox`, tests) student processes run as `lab check`
runs them, and every report says so.

The child gets a wall-clock limit (then its process group is killed, and every process that
carries this run's token: a server started in a new session when there is no sandbox); the
submission's control group where one can be made (cgroup.py), so that a submission that uses
up its part fails for it and never takes the child's room; CPU, address-space and file-size
limits and no core dumps, set in the child itself and inherited by every student process; both
pipes read at once with a cap; a trusted start (lab/process/trusted.py: `python -I` in the
kit's folder, so nothing in the submission can stand in for the kit); the grader's environment
without its secrets. During `lab grade` it is forked by the class's preloader
(lab/process/preloader.py) with the same limits. Whatever happens, the answer is a Report: the
child's, or every check at 0 with the reason (catalogue.py), or a kit error.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import secrets
import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from lab.checks.reference import give_helper_bytecode
from lab.grading import catalogue, private_copy, sweep
from lab.grading.capacity import MEMORY_PER_JOB, PIDS_FOR_CHECKS, PIDS_PER_JOB
from lab.grading.cgroup import SubmissionGroup
from lab.i18n import text
from lab.layout import KIT_PARENT, STUDENT_FILES
from lab.process.capped import parse_json, read_run
from lab.process.groups import TOKEN_VARIABLE, Child, stop
from lab.process.launch import Launch
from lab.process.result import Run
from lab.process.sandbox import DEFAULT_TMP_BYTES
from lab.process.trusted import start_trusted, trusted_python
from lab.results import ERROR, FAILED, Report
from lab.time_limits import SUBMISSION

# Never handed to student code: the grader's secrets (an instructor's provider key, a CI
# token...) and the model settings (the checks start their own local model endpoints).
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|COOKIE|SESSION", re.I)
MODEL_SETTINGS = {"AI_URL", "AI_KEY", "AI_MODEL"}
GiB = 1024**3
MiB = 1024**2

# Runs inside the child before anything else: the limits, then the kit.
BOOTSTRAP = """\
import runpy, sys
kit, cpu, memory, file_size, target, *args = sys.argv[1:]
sys.path.insert(0, kit)
from lab.process.trusted import keep_out_same_user
keep_out_same_user()
from lab.process.limits import apply_limits
apply_limits(int(cpu), int(memory), int(file_size))
sys.argv = [target, *args]
if target.endswith(".py"):
    runpy.run_path(target, run_name="__main__")
else:
    runpy.run_module(target, run_name="__main__", alter_sys=True)
"""


@dataclass(frozen=True)
class Limits:
    timeout: float = SUBMISSION  # wall clock for the whole submission
    memory_bytes: int = 2 * GiB  # address space of each process
    output_bytes: int = 4 * MiB  # stdout kept; the rest is read and dropped
    error_bytes: int = 64 * 1024  # stderr kept
    file_bytes: int = 64 * MiB  # the largest file a student process may write
    copy: private_copy.CopyCaps = private_copy.CopyCaps()  # what a submission may hold to be copied at all

    @property
    def cpu_seconds(self) -> int:
        return max(1, math.ceil(self.timeout))


def check_arguments(folder: Path, lang: str, bonus: bool = False, launch: Launch | None = None) -> list[str]:
    return ["check", str(folder), "--json", "--lang", lang, *(["--bonus"] if bonus else []),
            *(["--launch", launch.to_json()] if launch is not None else [])]


def check_command(folder: Path, lang: str, limits: Limits, target: str = "lab", bonus: bool = False,
                  launch: Launch | None = None) -> list[str]:
    """`lab check FOLDER --json ...` under the limits; `target`: a module or a .py file (a stub engine)."""
    return trusted_python([
        "-c", BOOTSTRAP, str(KIT_PARENT), str(limits.cpu_seconds), str(limits.memory_bytes),
        str(limits.file_bytes), target, *check_arguments(folder, lang, bonus, launch),
    ])


def run_child(folder: Path, lang: str, limits: Limits, target: str, bonus: bool, env: dict[str, str],
              preload: str | None, group: SubmissionGroup | None, launch: Launch) -> Run:
    """Run to the end or to the time limit, reading both pipes with caps; always clean up. The
    child is moved into `group` at once, so what it starts is born inside."""
    token = secrets.token_hex(8)
    env, launch = {**env, TOKEN_VARIABLE: token}, dataclasses.replace(launch, nonce=token)
    started = time.monotonic()
    sweep.note("token", token)  # a killed grader's next run kills what carries it
    process = start_trusted(check_command(folder, lang, limits, target, bonus, launch), env,
                            forked=(preload, target, check_arguments(folder, lang, bonus, launch)) if preload else None)
    if group is not None:
        group.add(process.pid)
    with RUNNING_LOCK:
        RUNNING[token] = process
    try:
        return read_run(process, started, limits.timeout, limits.output_bytes, limits.error_bytes, token)
    finally:
        with RUNNING_LOCK:
            RUNNING.pop(token, None)
        if group is not None:
            group.close()


# The check runs going on now, by token: a stopped class run (Ctrl-C, SIGTERM) kills them all.
RUNNING: dict[str, Child] = {}
RUNNING_LOCK = threading.Lock()


def kill_running() -> None:
    """Kill every check run going on (their readers then return, and each worker cleans up)."""
    with RUNNING_LOCK:
        running = list(RUNNING.items())
    for token, process in running:
        stop(process, token)


def relative_to_folder(report: Report, copy: str) -> None:
    """Paths as the student knows them: a traceback or a Python error that names the private
    copy (`/tmp/…/lab-grade-…/server.py`) names `server.py`, relative to their folder."""
    prefix = copy.rstrip("/") + "/"
    for result in report.results:
        for name in ("message", "output", "actual", "expected"):
            value = getattr(result, name)
            if prefix in value:
                setattr(result, name, value.replace(prefix, ""))


def student_environment(env: dict[str, str], lang: str) -> dict[str, str]:
    """The grader's environment without its secrets and model settings, in the report's language."""
    kept = {name: value for name, value in env.items()
            if name not in MODEL_SETTINGS and not SECRET_NAME.search(name)}
    kept["LAB_LANG"] = lang
    # The memory limit counts address space, and glibc reserves 64 MiB of it for each thread's
    # malloc arena: with the checks' threads, a correct submission failed under --memory 768.
    kept.setdefault("MALLOC_ARENA_MAX", "2")
    return kept


def grade_submission(
    submission: Path, lang: str, limits: Limits, checks: catalogue.Catalogue,
    target: str = "lab", env: dict[str, str] | None = None, preload: str | None = None,
    launch: Launch = Launch(),
) -> Report:
    """Grade one submission folder; never raises for anything the submission does.

    `preload`: the class's preloader's address, if one runs. `launch`: how the check run starts
    student processes; with no sandbox in it, the report says so.
    """
    started = time.monotonic()
    checks = checks.for_folder(submission)
    deadline = started + limits.timeout
    with private_copy.private_copy(submission, limits.copy, deadline) as copy:
        if copy is None:
            return checks.stopped(str(submission), lang, "grade.not_a_folder", path=str(submission))
        if isinstance(copy, private_copy.CopyFailed):  # the grader's disk, not the submission
            report = checks.failed(str(submission), lang, text(lang, "grade.copy_failed", reason=copy.reason))
            report.kit_error = True
            return report
        if isinstance(copy, private_copy.Refused):  # over the copy's caps: the submission's doing
            return checks.stopped(str(submission), lang, copy.key, **copy.fields)
        blank = blank_files(copy)
        if blank:  # nothing written in any student file: said once, not as 34 crashes
            return checks.stopped(str(submission), lang, "grade.empty", files=", ".join(blank))
        give_helper_bytecode(copy)
        child_env = student_environment(dict(os.environ if env is None else env), lang)
        sandboxed = launch.sandbox is not None
        group = None
        if sandboxed:
            # The check run's temporary folders (client, model) go beside the copy, in the
            # submission's own folder; each student process sees only the one it works in.
            child_env["TMPDIR"] = str(copy.parent)
            # The processes and memory one job was sized for; student processes in a part of
            # their own, so that using it all up stops them, not their check run.
            group = SubmissionGroup(min(limits.memory_bytes, MEMORY_PER_JOB), PIDS_PER_JOB[checks.bonus],
                                    PIDS_FOR_CHECKS[checks.bonus])
            # Its /tmp, its one writable place: a tmpfs whose pages count toward the group where
            # there is one; where none can be made, an eighth of the memory cap keeps it within.
            launch = dataclasses.replace(launch, sandbox=dataclasses.replace(
                launch.sandbox, tmp_bytes=min(DEFAULT_TMP_BYTES, limits.memory_bytes // 8),
                group=group.student_procs()))
        remaining = Limits(**{**limits.__dict__, "timeout": max(1.0, deadline - time.monotonic())})
        outcome = run_child(copy, lang, remaining, target, checks.bonus, child_env, preload, group, launch)
        # Tracebacks name the private copy; the reader knows the submission, not that folder.
        outcome.stderr = outcome.stderr.replace(str(copy).encode(), b"<submission>")
    report = read_report(outcome, lang, limits, checks, trusted=sandboxed,
                         used_up=group.forks_refused > 0 if group is not None else False)
    relative_to_folder(report, str(copy))
    report.target = str(submission)
    report.duration = round(time.monotonic() - started, 3)
    if not sandboxed:
        report.warnings.append(text(lang, "grade.unsandboxed"))
    return report


BLANK_READ = 64 * 1024  # a student file longer than this is not blank, whatever it holds


def blank_files(folder: Path) -> list[str]:
    """The lesson's student files (the bonus aside) in `folder` when there are some and every
    one holds only whitespace; [] otherwise (none at all: then server.py is missing)."""
    blank = []
    for name in (*STUDENT_FILES, "answers.toml"):
        path = folder / name
        try:
            if path.is_symlink() or not path.is_file():
                continue
            with path.open("rb") as handle:
                head = handle.read(BLANK_READ + 1)
        except OSError:
            return []
        if len(head) > BLANK_READ or head.strip():
            return []
        blank.append(name)
    return blank


def read_report(outcome: Run, lang: str, limits: Limits, checks: catalogue.Catalogue,
                trusted: bool = False, used_up: bool = False) -> Report:
    """The child's Report if it printed a readable one, else every check at 0 with the reason.

    `trusted`: student code ran sandboxed, out of the child's reach, so a child that ends
    without a report is the kit's failure (a kit error), not the submission's.
    `used_up`: the submission's student processes met their own process limit (its group
    refused them a fork): a check that could not start its student process then failed
    because of them, the student's failure, not the kit's (the check run's room is its own).
    """
    # Its CPU limit is its time limit (Limits.cpu_seconds): a check run that spent it all was
    # stopped at its time limit too, whichever of the two came first.
    if outcome.code is None or outcome.code == -signal.SIGXCPU:
        return checks.stopped("", lang, "grade.timeout", seconds=limits.timeout)
    parsed = parse_report(outcome.stdout, limits.output_bytes)
    if parsed is None:
        if outcome.stdout_truncated:
            report = checks.stopped("", lang, "grade.too_much_output", limit=limits.output_bytes // MiB)
        else:
            report = checks.stopped("", lang, "grade.crashed", code=outcome.code, stderr=tail(outcome.stderr))
        report.kit_error = trusted
        return report
    report = checks.reconcile(parsed, lang)
    errored = [result for result in report.results if result.status == ERROR]
    if trusted and errored and used_up:
        for result in errored:
            result.status, result.message = FAILED, text(lang, "grade.pids_used_up", pids=PIDS_PER_JOB[checks.bonus]
                                                         - PIDS_FOR_CHECKS[checks.bonus])
        return report
    if trusted and errored:
        # The checks ran out of the student code's reach: a check that errored is the kit's
        # failure (a probe past its own limit, a launcher that gave no listeners...).
        report.kit_error = True
        report.error = report.error or "; ".join(
            f"{result.id}: {result.message}" for result in errored)[:1000]
    return report


def parse_report(stdout: bytes, cap: int = Limits.output_bytes) -> Report | None:
    """The whole stdout as a Report, else its last line (a stray print may come before it);
    None when neither is one: parsed with caps (lab/process/capped.py), each result read by
    its known fields and types, every text cut (lab/results.py)."""
    text = stdout.decode("utf-8", errors="replace").strip()
    for candidate in (text, text.rsplit("\n", 1)[-1]):
        try:
            data = parse_json(candidate, cap)
            if isinstance(data, dict) and isinstance(data.get("results"), list):
                return Report.from_dict(data)
        except (ValueError, TypeError, KeyError, AttributeError):
            continue
    return None


def tail(stderr: bytes, lines: int = 8, limit: int = 2000) -> str:
    text = stderr.decode("utf-8", errors="replace").strip()
    return "\n".join(text.splitlines()[-lines:])[-limit:]
