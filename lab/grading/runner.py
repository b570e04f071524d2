"""Grade one submission: a trusted check run outside, the student's processes in a sandbox.

The child is the kit's own `lab check DIR --json` run on a private copy of the submission.
It is trusted: it runs only the kit's code, and every student process it starts (server,
client, model runner, bonus server) runs inside a bubblewrap sandbox of its own
(lab/sandbox.py, passed in LAB_SANDBOX), which cannot see or reach the child, its pipes, the
grader, the output folder or another submission. So the child's stdout, which the grader
parses, carries a verdict no student code could write. Without a sandbox (`--no-sandbox`,
tests) student processes run as `lab check` runs them, and every report says so.

The child gets:
- a wall-clock limit (then its whole process group is killed, and every process that still
  carries this run's token in its environment: that catches servers started in a new
  session when there is no sandbox; in one, its pid namespace ends them all);
- the submission's control group where one can be made (cgroup.py): memory of all its
  processes together, and their number, capped;
- a CPU limit, a memory (address space) limit, a file size limit and no core dumps, set with
  setrlimit in the child itself: they are inherited by every student process the checks start;
- stdout and stderr read at the same time with a size cap, so no pipe ever fills;
- `python -I`: the submission's folder is not on sys.path, so a `lab/` folder in it cannot
  stand in for the kit, and PYTHON* variables are ignored;
- the grader's environment without its secrets (see student_environment).
During `lab grade` on Linux the child is forked by the class's preloader (lab/process/preloader.py) instead
of started anew: the same limits, environment and isolated interpreter, with the kit and
openai already imported. Whatever happens, the answer is a Report: either the child's, or
every check scored 0 with the reason (see catalogue.py), or a kit error when the kit failed.
"""

from __future__ import annotations

import json
import math
import os
import re
import secrets
import selectors
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from lab.checks.reference import give_helper_bytecode
from lab.grading import catalogue, private_copy
from lab.grading.cgroup import SubmissionGroup
from lab.sandbox import VARIABLE as jail_variable
from lab.sandbox import Spec
from lab.i18n import text
from lab.process.groups import TOKEN_VARIABLE
from lab.process.preloaded import Forked, start
from lab.process.student import PRELOAD_VARIABLE
from lab.process.preloader import KIT_PARENT, cache_options
from lab.results import ERROR, Report

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
    timeout: float = 90.0  # wall clock for the whole submission, seconds
    memory_bytes: int = 2 * GiB  # address space of each process
    output_bytes: int = 4 * MiB  # stdout kept; the rest is read and dropped
    error_bytes: int = 64 * 1024  # stderr kept
    file_bytes: int = 64 * MiB  # the largest file a student process may write
    copy: private_copy.CopyCaps = private_copy.CopyCaps()  # what a submission may hold to be copied at all

    @property
    def cpu_seconds(self) -> int:
        return max(1, math.ceil(self.timeout))


@dataclass
class Outcome:
    """What the child did: exit code (None: killed at the time limit) and what it printed."""

    code: int | None
    stdout: bytes
    stderr: bytes
    stdout_truncated: bool
    elapsed: float


def check_arguments(folder: Path, lang: str, bonus: bool = False) -> list[str]:
    return ["check", str(folder), "--json", "--lang", lang, *(["--bonus"] if bonus else [])]


def check_command(folder: Path, lang: str, limits: Limits, target: str = "lab", bonus: bool = False) -> list[str]:
    """The child's command line: `lab check FOLDER --json --lang LANG [--bonus]` under the limits.

    `target` is a module name or a .py file run as __main__ (tests use a stub engine).
    """
    return [
        sys.executable, "-I", *cache_options(), "-c", BOOTSTRAP,
        str(KIT_PARENT), str(limits.cpu_seconds), str(limits.memory_bytes),
        str(limits.file_bytes), target, *check_arguments(folder, lang, bonus),
    ]


def start_child(folder: Path, lang: str, limits: Limits, target: str, bonus: bool,
                env: dict[str, str], preload: str | None) -> subprocess.Popen | Forked:
    """`lab check FOLDER --json` in FOLDER: forked by the class's preloader when there is one
    (it applies the same limits), else a new interpreter that applies them itself."""
    if preload:
        forked = start(preload, target, check_arguments(folder, lang, bonus), folder,
                       {**env, PRELOAD_VARIABLE: preload})
        if forked is not None:
            forked.stdin.close()  # as /dev/null: nothing to read
            return forked
    return subprocess.Popen(
        check_command(folder, lang, limits, target, bonus), cwd=folder, env=env,
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
    )


def run_child(folder: Path, lang: str, limits: Limits, target: str, bonus: bool,
              env: dict[str, str], preload: str | None = None,
              group: SubmissionGroup | None = None) -> Outcome:
    """Run to the end or to the time limit, reading both pipes with caps; always clean up.

    `group`: the submission's control group; the child is moved in at once, so what it starts
    is born inside (memory and process count capped for the whole submission)."""
    token = secrets.token_hex(8)
    env = {**env, TOKEN_VARIABLE: token}
    started = time.monotonic()
    process = start_child(folder, lang, limits, target, bonus, env, preload)
    if group is not None:
        group.add(process.pid)
    try:
        out, err, timed_out = read_capped(process, started + limits.timeout, limits)
    finally:
        kill_everything(process, token)
        if group is not None:
            group.close()
    return Outcome(
        code=None if timed_out else process.returncode,
        stdout=bytes(out.data), stderr=bytes(err.data), stdout_truncated=out.dropped > 0,
        elapsed=time.monotonic() - started,
    )


class Capped:
    """A byte buffer that keeps the first `cap` bytes and counts the rest."""

    def __init__(self, cap: int) -> None:
        self.cap, self.data, self.dropped = cap, bytearray(), 0

    def add(self, chunk: bytes) -> None:
        room = self.cap - len(self.data)
        self.data += chunk[:room]
        self.dropped += max(0, len(chunk) - room)


def read_capped(
    process: subprocess.Popen, deadline: float, limits: Limits
) -> tuple[Capped, Capped, bool]:
    """Read stdout and stderr together until both close or the deadline; True if it passed."""
    out, err = Capped(limits.output_bytes), Capped(limits.error_bytes)
    timed_out = False
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ, out)
    selector.register(process.stderr, selectors.EVENT_READ, err)
    exited_at: float | None = None
    while selector.get_map():
        now = time.monotonic()
        if now >= deadline:
            timed_out = True
            break
        if exited_at is None and process.poll() is not None:
            exited_at = now
        if exited_at is not None and now - exited_at > 0.5:
            break  # a process that escaped the group still holds the pipe: stop waiting
        for key, _ in selector.select(timeout=min(0.1, deadline - now)):
            chunk = os.read(key.fileobj.fileno(), 65536)
            if chunk:
                key.data.add(chunk)
            else:
                selector.unregister(key.fileobj)
    selector.close()
    if not timed_out:
        try:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            timed_out = True
    return out, err, timed_out


def kill_everything(process: subprocess.Popen, token: str) -> None:
    """Kill the child's process group, then any process still carrying this run's token."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    for stream in (process.stdout, process.stderr):
        stream.close()
    kill_by_token(token)


def kill_by_token(token: str) -> int:
    """Best effort on Linux: processes that left the group (setsid) still inherit the token."""
    proc = Path("/proc")
    if not proc.is_dir():
        return 0
    needle = f"{TOKEN_VARIABLE}={token}".encode()
    killed = 0
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if needle in environ.split(b"\0"):
            try:
                os.kill(int(entry.name), signal.SIGKILL)
                killed += 1
            except OSError:
                pass
    return killed


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
    jail: Spec | None = None, helpers: dict[str, str] | None = None,
) -> Report:
    """Grade one submission folder; never raises for anything the submission does.

    `preload`: the address of the class's preloader (lab/process/preloader.py), if one runs.
    `jail`: the sandbox every student process of this submission runs in (lab/sandbox.py);
    None grades without one, and the report says so. The check run itself (the child) stays
    outside it: it is the kit's code, and the only one that writes the verdict.
    `helpers`: variables that name the class's trusted helpers for the check run (the zygote,
    the Inspector: classroom.class_helpers).
    """
    started = time.monotonic()
    checks = checks.for_folder(submission)
    deadline = started + limits.timeout
    with private_copy.private_copy(submission, limits.copy, deadline) as copy:
        if copy is None:
            return checks.failed(str(submission), lang, text(lang, "grade.not_a_folder", path=submission))
        if isinstance(copy, private_copy.CopyFailed):  # the grader's disk, not the submission
            report = checks.failed(str(submission), lang, text(lang, "grade.copy_failed", reason=copy.reason))
            report.kit_error = True
            return report
        if isinstance(copy, private_copy.Refused):  # over the copy's caps: the submission's doing
            return checks.failed(str(submission), lang, text(lang, copy.key, **copy.fields))
        give_helper_bytecode(copy)
        child_env = student_environment(dict(os.environ if env is None else env), lang)
        if jail is not None:
            # The check run's temporary folders (client, model) go beside the copy, in the
            # submission's own folder; each student process sees only the one it works in.
            child_env.update({jail_variable: jail.to_json(), "TMPDIR": str(copy.parent)})
        child_env.update(helpers or {})
        remaining = Limits(**{**limits.__dict__, "timeout": max(1.0, deadline - time.monotonic())})
        group = SubmissionGroup(limits.memory_bytes) if jail is not None else None
        outcome = run_child(copy, lang, remaining, target, checks.bonus, child_env, preload, group)
        # Tracebacks name the private copy; the reader knows the submission, not that folder.
        outcome.stderr = outcome.stderr.replace(str(copy).encode(), b"<submission>")
    report = read_report(outcome, lang, limits, checks, trusted=jail is not None)
    report.target = str(submission)
    report.duration = round(time.monotonic() - started, 3)
    if jail is None:
        report.warnings.append(text(lang, "grade.unsandboxed"))
    return report


def read_report(outcome: Outcome, lang: str, limits: Limits, checks: catalogue.Catalogue,
                trusted: bool = False) -> Report:
    """The child's Report if it printed a readable one, else every check at 0 with the reason.

    `trusted`: student code ran sandboxed, out of the child's reach, so a child that ends
    without a report is the kit's failure (a kit error), not the submission's.
    """
    if outcome.code is None:
        return checks.failed("", lang, text(lang, "grade.timeout", seconds=limits.timeout))
    parsed = parse_report(outcome.stdout)
    if parsed is None:
        if outcome.stdout_truncated:
            why = text(lang, "grade.too_much_output", limit=limits.output_bytes // MiB)
        else:
            why = text(lang, "grade.crashed", code=outcome.code, stderr=tail(outcome.stderr))
        if trusted:
            report = checks.failed("", lang, why)
            report.kit_error = True
            return report
        return checks.failed("", lang, why)
    report = checks.reconcile(parsed, lang)
    errored = [result for result in report.results if result.status == ERROR]
    if trusted and errored:
        # The checks ran out of the student code's reach: a check that errored is the kit's
        # failure (a probe past its own limit, a launcher that gave no listeners...).
        report.kit_error = True
        report.error = report.error or "; ".join(
            f"{result.id}: {result.message}" for result in errored)[:1000]
    return report


def parse_report(stdout: bytes) -> Report | None:
    """The whole stdout as a Report, else its last line (a stray print may come before it)."""
    text = stdout.decode("utf-8", errors="replace").strip()
    for candidate in (text, text.rsplit("\n", 1)[-1]):
        try:
            data = json.loads(candidate)
            if isinstance(data, dict) and isinstance(data.get("results"), list):
                return Report.from_dict(data)
        except (ValueError, TypeError, KeyError):
            continue
    return None


def tail(stderr: bytes, lines: int = 8, limit: int = 2000) -> str:
    text = stderr.decode("utf-8", errors="replace").strip()
    return "\n".join(text.splitlines()[-lines:])[-limit:]
