"""Grade a whole class: submissions in parallel, one results folder each, summary.csv and the
class report beside them.

Worker threads are enough: each only waits on its own check run (runner.py), which carries the
limits. A resource failure on the grader's side is tried again, then a kit error, never a zero.
Each submission's files are written as soon as it is graded, with a record that it is complete:
a rerun into the same folder grades only what is not (`force`: everything).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import queue
import re
import signal
import threading
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterator

from lab.checks import real_clients
from lab.process import sandbox as sandbox_module
from lab.grading import class_report, formats, sweep
from lab.grading.capacity import Fit, Host, fit_jobs, holds_one_job, one_job_pids, read_host
from lab.grading.catalogue import Catalogue
from lab.grading.hygiene import clean_text
from lab.grading.private_copy import CopyCaps, files_digest
from lab.grading.readback import FULL_RECORD_NAME as DONE_NAME  # graded, and how (read by lab report)
from lab.grading.readback import CLASS_FILES, SUMMARY_NAME, load_record
from lab.grading.runner import Limits, grade_submission, kill_running, student_environment
from lab.i18n import text
from lab.layout import STUDENT_FILES, solutions_dir
from lab.process.launch import Launch
from lab.process.preloader import ZYGOTE, Preload, preloaders
from lab.time_limits import WORKER_STOP
from lab.process.sandbox import Spec
from lab.process.student import joins_here
from lab.results import ERROR, Report

# Room held for summary.csv while the class is graded (a generous bound for one row), so that a
# disk the results fill up still takes the summary: released just before it is written.
RESERVE_NAME, RESERVE_PER_ROW = ".lab-summary-room", 4096
PARTIAL = ".partial"  # a file's name while it is written (write_atomically)
RETRY_PAUSES = (0.5, 2.0)  # seconds before the second and third tries of a resource failure
RESOURCE_ERRNOS = {errno.EAGAIN, errno.ENOMEM, errno.EMFILE, errno.ENFILE}


@dataclass
class ClassResult:
    rows: list[tuple[str, Report]]  # (folder name under --out, report), in the order given
    summary: Path
    elapsed: float
    folders: list[Path]  # the folder graded for each row (located: an upload a folder deep is graded there)
    checks_known: bool = True  # False: no list of checks, so a crash scored nothing at all
    jobs: Fit | None = None  # the jobs used, and which limit chose them
    report_problem: str = ""  # why grading.json or report.html could not be written (a full disk)


def output_names(submissions: list[Path]) -> list[str]:
    """The folders' names, made safe and unique (-2, -3...); never a class file's, nor hidden."""
    names: list[str] = []
    # They sit beside the folders, and so does the partial file each is written through.
    taken: set[str] = {name.lower() + end for name in CLASS_FILES for end in ("", PARTIAL)}
    for submission in submissions:
        base = clean_text(submission.resolve().name or "submission").replace("\\", "_")
        if base.startswith("."):
            base = "_" + base[1:]
        name, number = base, 1
        while name.lower() in taken:  # case-insensitive: macOS and Windows folders
            number += 1
            name = f"{base}-{number}"
        taken.add(name.lower())
        names.append(name)
    return names


def summary_text(rows: list[tuple[str, Report]], submissions: list[Path]) -> str:
    """summary.csv, with each path as given made absolute (links not followed)."""
    return formats.summary_csv(rows, [os.path.abspath(submission) for submission in submissions])


def path_problems(submissions: list[Path], lang: str) -> list[str]:
    """One line per path that is not a folder (a glob that matched nothing: `typo/*/`), or that
    is the class folder given alone (among several, it is one student's two versions: `located`)."""
    problems = []
    for submission in submissions:
        shown = clean_text(str(submission))
        if not submission.exists():
            problems.append(text(lang, "grade.bad_path_missing", path=shown))
        elif not submission.is_dir():
            problems.append(text(lang, "grade.bad_path_not_folder", path=shown))
        elif len(submissions) == 1 and is_class_folder(submission):
            problems.append(text(lang, "grade.bad_path_class", path=shown,
                                 pattern=clean_text(os.path.join(submission, "*", ""))))
    return problems


def located(submission: Path, lang: str) -> tuple[Path, list[str], str]:
    """The folder to grade, notes about it, and why it cannot be graded ("" when it can): the
    submission, or the one folder below holding server.py (several, v1/ and v2/, are refused);
    a student file named in another case (Server.py) is named. Bounded, never raises."""
    from lab.grading.bundle import SUBMISSION_FILE, listed, search_upload, shown

    folder, notes = submission, []
    try:
        if not has_student_files(submission):
            candidates, _ = search_upload(submission)
            if len(candidates) > 1:
                return submission, [], text(lang, "grade.many_folders", file=SUBMISSION_FILE,
                                            folders=listed(candidates, submission))
            if len(candidates) == 1 and candidates[0] != submission:
                folder = candidates[0]
                notes.append(text(lang, "grade.graded_folder", folder=shown(folder, submission)))
        present = {path.name for _, path in zip(range(CopyCaps().files + 1), folder.iterdir()) if path.is_file()}
    except (OSError, ValueError):  # unreadable: the grading says so
        return submission, [], ""
    for name in (*STUDENT_FILES, "answers.toml", "bonus_server.py"):
        near = sorted(other for other in present if other.lower() == name.lower())
        if near and name not in present:
            notes.append(text(lang, "grade.case_only", found=clean_text(near[0]), expected=name))
    return folder, notes, ""


def has_student_files(folder: Path) -> bool:
    return any((folder / name).is_file() for name in STUDENT_FILES)


def is_class_folder(folder: Path) -> bool:
    """No student file of its own, and two or more subfolders with some (one is an upload a
    folder deep, which `located` grades)."""
    try:
        return not has_student_files(folder) and sum(
            1 for child in folder.iterdir() if child.is_dir() and has_student_files(child)) >= 2
    except OSError:  # an unreadable folder is graded, and its report says so
        return False


def is_resource_failure(error: BaseException) -> bool:
    """The grader could not get a process, a thread, a file or memory: not the student's doing."""
    return isinstance(error, MemoryError) or (isinstance(error, OSError) and error.errno in RESOURCE_ERRNOS) \
        or (isinstance(error, RuntimeError) and "can't start new thread" in str(error))


def record_kit_error(submissions: list[Path], out: Path, fmt: str, lang: str, reason: str,
                     bonus: bool = False) -> None:
    """What stopped `lab grade` (no sandbox, a kit bug) as every submission's kit error, and
    summary.csv: a platform reads a file that says why. Best effort."""
    checks = Catalogue.from_engine(lang, bonus=bonus) or Catalogue(bonus=bonus)
    rows = []
    with contextlib.suppress(OSError):
        for submission, name in zip(submissions, output_names(submissions)):
            report = checks.for_folder(submission).failed(str(submission), lang, reason, kit_error=True)
            write_one(out, name, report, fmt, bonus)
            rows.append((name, report))
        write_atomically(out / SUMMARY_NAME, summary_text(rows, submissions))


def grade_with_retries(grade: Callable[[], Report], checks: Catalogue, submission: Path, lang: str,
                       pauses: tuple[float, ...] = RETRY_PAUSES, stop: threading.Event | None = None) -> Report:
    """`grade()`, tried again after a pause when the grader ran out of a resource, or when its
    report is a kit error (the last one stands); any other exception is a kit error at once.
    Only the grader's own error decides, never a report's text (a student's program can print
    "Resource temporarily unavailable"). Once `stop` is set, no try follows."""
    for attempt in range(len(pauses) + 1):
        try:
            report = grade()
            # The checks the engine marked its own error in a run that finished: never the student's.
            inside = [] if report.error else [result.message for result in report.results if result.status == ERROR]
        except Exception as error:
            report, inside = None, [f"{type(error).__name__}: {error}"]
            if not is_resource_failure(error):
                return checks.failed(str(submission), lang, inside[0], kit_error=True)
        last = attempt == len(pauses) or (stop is not None and stop.is_set())
        if inside and last:
            return checks.failed(str(submission), lang, text(
                lang, "grade.resource_failure", error=inside[0], attempts=attempt + 1), kit_error=True)
        if report is not None and not inside and (last or not report.kit_error):
            return report
        time.sleep(pauses[attempt])
    raise AssertionError("unreachable")  # the last attempt always returns


def load_catalogue(lang: str, limits: Limits, target: str = "lab", bonus: bool = False) -> Catalogue:
    """The engine's list of checks; failing that, what a run on the solutions reports."""
    listed = Catalogue.from_engine(lang, bonus=bonus)
    if listed is not None and listed.checks:
        return listed
    solutions = grade_submission(solutions_dir(), lang, limits, Catalogue(bonus=bonus), target)
    return Catalogue.from_report(solutions, bonus=bonus)


class SandboxUnavailable(Exception):
    """`lab grade` cannot grade here: the message says what to do; `detail`, what the sandbox said."""

    def __init__(self, message: str, detail: str | None = None) -> None:
        super().__init__(message)
        self.detail = detail


def in_turn_limits(limits: Limits, bonus: bool) -> Limits:
    """The time limit when the probes run in turn: their limits add up where they overlapped."""
    from lab.checks import probes_time

    return replace(limits, timeout=limits.timeout + (probes_time(bonus, in_turn=True) - probes_time(bonus)))


# The settings that forbid bubblewrap's user namespace, by distribution: Ubuntu 23.10 and later
# (GitHub's ubuntu-latest) restrict them through AppArmor, Debian through its own sysctl.
USERNS_SETTINGS = (("kernel/apparmor_restrict_unprivileged_userns", "1", "kernel.apparmor_restrict_unprivileged_userns=0"),
                   ("kernel/unprivileged_userns_clone", "0", "kernel.unprivileged_userns_clone=1"),
                   ("user/max_user_namespaces", "0", "user.max_user_namespaces=15000"))


def userns_setting(proc_sys: Path = Path("/proc/sys"), os_release: Path = Path("/etc/os-release")) -> str:
    """The sysctl that lets bubblewrap start: the one set to forbid it, else the distribution's."""
    for name, forbids, setting in USERNS_SETTINGS:
        try:
            if (proc_sys / name).read_text(encoding="ascii").strip() == forbids:
                return setting
        except (OSError, UnicodeDecodeError):
            continue
    try:
        release = os_release.read_text(encoding="utf-8", errors="replace").lower()
    except OSError:
        release = ""
    ubuntu = re.search(r"^(?:id|id_like)=\"?[^\n]*\bubuntu\b", release, re.M)
    return USERNS_SETTINGS[0][2] if ubuntu else USERNS_SETTINGS[1][2]


def find_sandbox(lang: str) -> Spec:
    spec, why = sandbox_module.find()
    if spec is None:
        kind, _, detail = why.partition(":")
        raise SandboxUnavailable(text(lang, f"grade.no_sandbox.{kind}", detail=detail, setting=userns_setting()),
                                 detail=detail or ("bwrap: command not found" if kind == "missing" else kind))
    return spec


def write_atomically(path: Path, content: str) -> None:
    """A reader (or a rerun) sees the old file or the new one, never half of one."""
    partial = path.with_name(path.name + PARTIAL)
    try:
        partial.write_text(content, encoding="utf-8")
        os.replace(partial, path)
    except OSError:  # a full disk: leave no half file taking the room summary.csv needs
        with contextlib.suppress(OSError):
            partial.unlink()
        raise


def write_one(out: Path, name: str, report: Report, fmt: str, bonus: bool = False,
              settings: dict | None = None) -> None:
    """The results file, then the record that it is complete, with the `settings` a rerun compares."""
    folder = out / name
    folder.mkdir(parents=True, exist_ok=True)
    write_atomically(folder / formats.FILE_NAMES[fmt], formats.render(report, fmt, name))
    record = {"kit": class_report.kit_version(), "format": fmt, "bonus": bonus, "settings": settings or {},
              "report": report.to_dict()}
    write_atomically(folder / DONE_NAME, json.dumps(record))


def grading_settings(submission: Path, lang: str, limits: Limits) -> dict:
    """Everything besides the format and --bonus that changes the results; "files" hashes what
    would be graded."""
    return {"lang": lang, "timeout": limits.timeout, "memory": limits.memory_bytes,
            "kit": class_report.kit_version(), "files": files_digest(submission, limits.copy)}


def finished(out: Path, name: str, fmt: str, bonus: bool, settings: dict) -> Report | None:
    """The report an earlier run with the same settings finished, if any."""
    folder = out / name
    try:
        record = load_record(folder)
        if record.get("format") != fmt or record.get("bonus") != bonus or record.get("settings") != settings \
                or not settings.get("files") or not (folder / formats.FILE_NAMES[fmt]).is_file():
            return None
        report = Report.from_dict(record["report"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return None if report.kit_error else report  # a kit error is worth another try


def graded_in_parallel(items: list[Any], grade_one: Callable[[Any], Report],
                       jobs: int, stop: "Stop | None" = None) -> Iterator[tuple[int, Report]]:
    """(position in `items`, report) as each is graded, by up to `jobs` threads (`grade_one` never
    raises). A thread the host will not start is done without; if none is left, the caller grades.
    Once `stop` is set, no item is begun and the wait ends with its KeyboardInterrupt."""
    todo: queue.SimpleQueue[int] = queue.SimpleQueue()
    for index in range(len(items)):
        todo.put(index)
    done: queue.SimpleQueue[tuple[int, Report]] = queue.SimpleQueue()

    def work() -> None:
        while not (stop is not None and stop.is_set()):
            try:
                index = todo.get_nowait()
            except queue.Empty:
                return
            done.put((index, grade_one(items[index])))

    workers: list[threading.Thread] = []
    for number in range(min(jobs, len(items))):
        worker = threading.Thread(target=work, name=f"grade-{number}", daemon=True)
        try:
            worker.start()
        except RuntimeError:  # can't start new thread: grade with the workers that did start
            break
        workers.append(worker)
    for _ in range(len(items)):
        while True:
            try:
                yield done.get(timeout=0.5)
                break
            except queue.Empty:
                if stop is not None:  # the signal's own exception may have been lost (Stop)
                    stop.raise_if_set()
                if any(worker.is_alive() for worker in workers):
                    continue
                if todo.empty() and done.empty():  # a worker died holding one: never wait forever
                    raise RuntimeError("a grading worker stopped without a report")
                work()


# What the class's preloader loads for each check run (it forks them): the kit's checks and
# openai, and with --bonus the SDK client too. Named here: lab/process imports nothing above it.
CHECKS_PRELOAD = Preload(
    ("lab.cli", "lab.checks", "lab.checks.endpoints", "lab.checks.scripts.model_runner", "lab.process.preloader",
     "lab.process.sandbox", "lab.report", "openai"),
    ("lab.process.preloader:warm_up_openai", "lab.checks:warm_up"))
BONUS_PRELOAD = Preload(CHECKS_PRELOAD.modules + ("anyio", "mcp", "mcp.client.client", "mcp.client.stdio",
                                                  "lab.checks.real_clients"), CHECKS_PRELOAD.warm_ups)


@dataclass(frozen=True)
class StartPath:
    """Which start path graded the class, as message keys (grade.start.*): said in the run's
    header and recorded with the results."""

    isolation: str  # sandboxed, unsandboxed
    checks: str  # preloaded, new, new_unavailable
    model: str  # zygote, preloaded, new, new_unavailable, new_cannot_join

    def said(self, lang: str) -> str:
        return text(lang, "grade.start_path", **{part: text(lang, f"grade.start.{key}")
                                                  for part, key in asdict(self).items()})


def start_path(jail: Spec | None, preload: bool, address: str | None, zygote: str | None, joins: bool) -> StartPath:
    if not preload:
        return StartPath("sandboxed" if jail else "unsandboxed", "new", "new")
    checks = "preloaded" if address else "new_unavailable"
    if jail is None:
        model = "preloaded" if address else "new_unavailable"
    else:
        model = "zygote" if zygote and joins else "new_cannot_join" if zygote else "new_unavailable"
    return StartPath("sandboxed" if jail else "unsandboxed", checks, model)


def class_inspector(bonus: bool, lang: str = "fr") -> str:
    """With --bonus, the Inspector's CLI client every check run uses, found in npx's cache before
    grading; it and the mcp SDK missing are SandboxUnavailable (else the whole class scores 0)."""
    if not bonus:
        return ""
    missing = real_clients.sdk_missing()
    if missing:
        raise SandboxUnavailable(text(lang, "grade.no_sdk", missing=missing))
    entry = real_clients.inspector_entry()
    if entry is None:
        raise SandboxUnavailable(text(lang, "grade.no_inspector", package=real_clients.INSPECTOR))
    return entry


@dataclass(frozen=True)
class Sizing:
    """The host, read once: what `lab grade` says it lowered is what it uses."""

    host: Host
    fit: Fit


def size_class(jobs: int | None, bonus: bool) -> Sizing:
    host = read_host()
    return Sizing(host, fit_jobs(host, jobs, bonus))


@dataclass(frozen=True)
class Grading:
    """How a class is graded (grade_class's keywords), and whom to tell as it goes."""

    fmt: str = "gradescope"
    lang: str = "fr"
    jobs: int | None = None  # None: as many as the host fits (capacity.fit_jobs)
    limits: Limits = Limits()
    target: str = "lab"
    bonus: bool = False
    # Fork every submission's checks from one preloaded process, and its model runner from the
    # zygote (False: a new interpreter each, with the same isolation).
    preload: bool = True
    # Every student process in a bubblewrap sandbox (SandboxUnavailable where it cannot start);
    # False grades as `lab check` does, with a warning in every report.
    sandboxed: bool = True
    force: bool = False  # grade again what an earlier run into the same folder finished
    catalogue: Catalogue | None = None  # None: the engine's list (load_catalogue)
    sizing: Sizing | None = None  # None: read when grading starts
    on_done: Callable[[int, int], None] | None = None  # (graded so far, in all)
    on_resume: Callable[[int], None] | None = None  # how many an earlier run had finished
    on_start: Callable[[StartPath], None] | None = None  # the start path, once the preloaders are up (or not)


def grade_class(submissions: list[Path], out: Path, **options: Any) -> ClassResult:
    """Grade every submission into `out` (module docstring); `options` are Grading's fields."""
    grading = Grading(**options)
    started = time.monotonic()
    jail = find_sandbox(grading.lang) if grading.sandboxed else None
    out.mkdir(parents=True, exist_ok=True)
    sweep.sweep()  # what an earlier run that was killed left behind (only a dead run's)
    try:
        with sweep.recorded_run(), stopped_cleanly() as stop:
            return grade_recorded(submissions, out, grading, jail, started, stop)
    finally:  # a run stopped half-way leaves no room held in --out (given back before the summary otherwise)
        with contextlib.suppress(OSError):
            (out / RESERVE_NAME).unlink()


class Stop(threading.Event):
    """Set by SIGINT or SIGTERM, with the signal's number. The KeyboardInterrupt the handler
    raises is lost when it lands in a finalizer (a __del__, a weakref callback run by the
    garbage collector: Python prints it and goes on); the grading then reads this event, which
    stays set, and raises it again: the run never goes on as if no signal had come."""

    number: int = signal.SIGINT

    def raise_if_set(self) -> None:
        if self.is_set():
            raise KeyboardInterrupt(self.number)  # its number: `lab grade` exits with 128 + it


@contextlib.contextmanager
def stopped_cleanly() -> Iterator[Stop]:
    """SIGTERM stops the run as Ctrl-C does: the check runs are killed, and the workers let finish
    their clean-up (private copies, control groups)."""
    stop = Stop()
    previous = {}
    if threading.current_thread() is threading.main_thread():
        def interrupted(number: int, _frame: object) -> None:
            # Set at once, before the contexts inside this one unwind: stopping the preloaders
            # ends the check runs they forked, and a worker that saw one end before `stop` was
            # set would try it again (grade_with_retries), on a new interpreter, and be waited for.
            stop.number = number
            stop.set()
            stop.raise_if_set()

        # A run started with a signal ignored (Ctrl-C under `&`) keeps it ignored.
        previous = {number: signal.signal(number, interrupted) for number in (signal.SIGINT, signal.SIGTERM)
                    if signal.getsignal(number) is not signal.SIG_IGN}
    try:
        yield stop
    except BaseException:
        stop.set()
        kill_running()
        for worker in list(threading.enumerate()):
            if worker.name.startswith("grade-") and worker is not threading.current_thread():
                worker.join(timeout=WORKER_STOP)
        raise
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


class SummaryNotWritten(Exception):
    """summary.csv could not be written, even in the room held for it: the reason (strerror)."""


def hold_room(path: Path, size: int) -> None:
    """Take `size` bytes of the output disk now, as a file (none if there is no room)."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        try:
            os.posix_fallocate(fd, 0, size)
        except OSError:
            path.unlink()
        finally:
            os.close(fd)


def grade_recorded(submissions: list[Path], out: Path, grading: Grading, jail: Spec | None, started: float,
                   stop: Stop) -> ClassResult:
    fmt, lang, bonus, limits, target = grading.fmt, grading.lang, grading.bonus, grading.limits, grading.target
    names = output_names(submissions)
    settings = [grading_settings(submission, lang, limits) for submission in submissions]
    reports: dict[int, Report] = {} if grading.force else {
        index: report for index, name in enumerate(names)
        if (report := finished(out, name, fmt, bonus, settings[index])) is not None}
    if reports and grading.on_resume:
        grading.on_resume(len(reports))
    todo = [index for index in range(len(submissions)) if index not in reports]
    placed = [located(submission, lang) for submission in submissions]  # whatever it meets costs that one only
    sizing = grading.sizing or size_class(grading.jobs, bonus)
    if todo and not holds_one_job(sizing.host, bonus):  # fail closed: a fork refused a student reads as theirs
        raise SandboxUnavailable(text(lang, "grade.too_few_pids", have=sizing.host.pids, need=one_job_pids(bonus)))
    hold_room(out / RESERVE_NAME, RESERVE_PER_ROW * (len(submissions) + 1))
    checks = grading.catalogue if grading.catalogue is not None else load_catalogue(lang, limits, target, bonus)
    fit = sizing.fit
    if fit.probes_in_turn:
        limits = in_turn_limits(limits, bonus)
    environment = student_environment(dict(os.environ), lang)
    kinds = {"checks": BONUS_PRELOAD if bonus else CHECKS_PRELOAD}
    if jail is not None:
        kinds["zygote"] = ZYGOTE
    with preloaders(limits.cpu_seconds, limits.memory_bytes, limits.file_bytes, environment,
                    kinds if grading.preload and todo else {}) as addresses:
        address, zygote = addresses.get("checks"), addresses.get("zygote")
        joins = bool(zygote) and jail is not None and joins_here(zygote, jail)
        path = start_path(jail, grading.preload, address, zygote, joins)
        if grading.on_start:
            grading.on_start(path)
        launch = Launch(jail, zygote=zygote if joins else "", preloader=address or "",
                        probes_in_turn=fit.probes_in_turn, inspector=class_inspector(bonus and bool(todo), lang))

        def grade_one(index: int) -> Report:
            submission, (folder, notes, refusal) = submissions[index], placed[index]

            def grade() -> Report:
                if refusal:  # two versions in one upload: this student's to fix, graded alone
                    return checks.for_folder(submission).failed(str(submission), lang, refusal, "grade.many_folders")
                report = grade_submission(folder, lang, limits, checks, target, preload=address, launch=launch)
                report.warnings[:0] = notes
                return report

            return grade_with_retries(grade, checks, submission, lang, stop=stop)

        for position, report in graded_in_parallel(todo, grade_one, fit.jobs, stop):
            index = todo[position]
            reports[index] = report
            try:
                write_one(out, names[index], report, fmt, bonus, settings[index])
            except OSError as error:  # a full output disk: that submission's kit error, never the class's end
                report.kit_error = True
                report.error = text(lang, "grade.output_failed", reason=error.strerror or error)
                with contextlib.suppress(OSError):  # no results file the summary would contradict
                    (out / names[index] / formats.FILE_NAMES[fmt]).unlink()
            if grading.on_done:
                grading.on_done(len(reports), len(submissions))
        stop.raise_if_set()  # a signal whose exception was lost: never a summary as if it had not come
    rows = [(names[index], reports[index]) for index in range(len(submissions))]
    summary = out / SUMMARY_NAME
    with contextlib.suppress(OSError):
        (out / RESERVE_NAME).unlink()
    try:
        write_atomically(summary, summary_text(rows, submissions))
    except OSError as error:
        raise SummaryNotWritten(error.strerror or str(error)) from None
    problem = ""
    try:  # after summary.csv: on a full disk, the class page is what goes missing, said so
        class_report.record_grading(out, rows, {
            "format": fmt, "lang": lang, "bonus": bonus, "sandbox": "bubblewrap" if jail else False,
            "jobs": fit.jobs, "preload": grading.preload, "start": asdict(path),
            "limits": {**asdict(limits), "cpu_seconds": limits.cpu_seconds}})
        class_report.write_report(out, lang)
    except OSError as error:
        problem = error.strerror or str(error)
    return ClassResult(rows=rows, summary=summary, elapsed=time.monotonic() - started, folders=[
        folder for folder, _, _ in placed], checks_known=bool(checks.checks), jobs=fit, report_problem=problem)
