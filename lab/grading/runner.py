"""Grade one submission: the kit's own `lab check DIR --json`, a trusted check run, on a private
copy, and every student process it starts in a bubblewrap sandbox that cannot reach it: its
stdout carries a verdict no student code could write (`--no-sandbox`: every report says so).

The check run has a wall-clock limit, the submission's control group (cgroup.py), limits every
student process inherits, capped pipes, a trusted start and no secrets in its environment. The
answer is always a Report: the check run's, or every check at 0 with the reason, or a kit error.
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
    """`lab check FOLDER --json ...` under the limits; `target`: a module or a stub engine's .py file."""
    return trusted_python([
        "-c", BOOTSTRAP, str(KIT_PARENT), str(limits.cpu_seconds), str(limits.memory_bytes),
        str(limits.file_bytes), target, *check_arguments(folder, lang, bonus, launch),
    ])


def run_child(folder: Path, lang: str, limits: Limits, target: str, bonus: bool, env: dict[str, str],
              preload: str | None, group: SubmissionGroup | None, launch: Launch) -> Run:
    """Run to the end or to the time limit, both pipes read with caps; moved into `group` at once."""
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
    """Kill every check run going on (each worker then cleans up)."""
    with RUNNING_LOCK:
        running = list(RUNNING.items())
    for token, process in running:
        stop(process, token)


def relative_to_folder(report: Report, copy: str) -> None:
    """Paths as the student knows them: `/tmp/…/lab-grade-…/server.py` becomes `server.py`."""
    prefix = copy.rstrip("/") + "/"
    for result in report.results:
        for name in ("message", "output", "actual", "expected"):
            setattr(result, name, getattr(result, name).replace(prefix, ""))


def student_environment(env: dict[str, str], lang: str) -> dict[str, str]:
    """The grader's environment without its secrets and model settings, in the report's language."""
    kept = {name: value for name, value in env.items()
            if name not in MODEL_SETTINGS and not SECRET_NAME.search(name)}
    kept["LAB_LANG"] = lang
    # The memory limit counts address space, of which glibc reserves a share per thread's arena.
    kept.setdefault("MALLOC_ARENA_MAX", "2")
    return kept


def grade_submission(
    submission: Path, lang: str, limits: Limits, checks: catalogue.Catalogue,
    target: str = "lab", env: dict[str, str] | None = None, preload: str | None = None,
    launch: Launch = Launch(),
) -> Report:
    """Never raises for anything the submission does. `preload`: the class's preloader's address;
    `launch`: how the check run starts student processes."""
    started = time.monotonic()
    checks = checks.for_folder(submission)
    deadline = started + limits.timeout
    with private_copy.private_copy(submission, limits.copy, deadline) as copy:
        if copy is None:
            return checks.stopped(str(submission), lang, "grade.not_a_folder", path=str(submission))
        if isinstance(copy, private_copy.CopyFailed):  # the grader's disk, not the submission
            return checks.failed(str(submission), lang, text(lang, "grade.copy_failed", reason=copy.reason),
                                 kit_error=True)
        if isinstance(copy, private_copy.Refused):  # over the copy's caps: the submission's doing
            return checks.stopped(str(submission), lang, copy.key, **copy.fields)
        blank = blank_files(copy)
        if blank:  # nothing written in any student file: said once, not as a crash per check
            return checks.stopped(str(submission), lang, "grade.empty", files=", ".join(blank))
        give_helper_bytecode(copy)
        child_env = student_environment(dict(os.environ if env is None else env), lang)
        sandboxed = launch.sandbox is not None
        group = None
        if sandboxed:
            # The check run's temporary folders beside the copy: each sandbox sees only its own.
            child_env["TMPDIR"] = str(copy.parent)
            # What one job was sized for, the student processes in a part of their own.
            group = SubmissionGroup(min(limits.memory_bytes, MEMORY_PER_JOB), PIDS_PER_JOB[checks.bonus],
                                    PIDS_FOR_CHECKS[checks.bonus])
            # Its /tmp, a tmpfs counted in the group; without one, an eighth of the memory cap.
            launch = dataclasses.replace(launch, sandbox=dataclasses.replace(
                launch.sandbox, tmp_bytes=min(DEFAULT_TMP_BYTES, limits.memory_bytes // 8),
                group=group.student_procs()))
        remaining = dataclasses.replace(limits, timeout=max(1.0, deadline - time.monotonic()))
        outcome = run_child(copy, lang, remaining, target, checks.bonus, child_env, preload, group, launch)
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
    """The lesson's student files (the bonus aside) when every one there holds only whitespace;
    [] otherwise, or when there are none."""
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
    """The check run's Report if it printed one, else every check at 0 with the reason.

    `trusted`: student code ran sandboxed, out of its reach, so an end without a report is a kit
    error. `used_up`: the student processes met their own process limit, so a check that could
    not start one failed because of them (the check run's room is its own).
    """
    # Its CPU limit is its time limit (Limits.cpu_seconds): whichever came first, it timed out.
    if outcome.code is None or outcome.code == -signal.SIGXCPU:
        return checks.stopped("", lang, "grade.timeout", seconds=limits.timeout)
    parsed = parse_report(outcome.stdout, limits.output_bytes)
    if parsed is None:
        if outcome.stdout_truncated:
            return checks.stopped("", lang, "grade.too_much_output", kit_error=trusted,
                                  limit=limits.output_bytes // MiB)
        return checks.stopped("", lang, "grade.crashed", kit_error=trusted, code=outcome.code,
                              stderr=tail(outcome.stderr))
    report = checks.reconcile(parsed, lang)
    errored = [result for result in report.results if result.status == ERROR]
    if trusted and errored and used_up:
        for result in errored:
            result.status, result.message = FAILED, text(lang, "grade.pids_used_up", pids=PIDS_PER_JOB[checks.bonus]
                                                         - PIDS_FOR_CHECKS[checks.bonus])
        return report
    if trusted and errored:
        # The checks ran out of the student code's reach: a check that errored is the kit's failure.
        report.kit_error = True
        report.error = report.error or "; ".join(
            f"{result.id}: {result.message}" for result in errored)[:1000]
    return report


def parse_report(stdout: bytes, cap: int = Limits.output_bytes) -> Report | None:
    """The whole stdout as a Report, else its last line (a stray print may come first), parsed
    with caps; None when neither is one."""
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
