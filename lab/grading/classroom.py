"""Grade a whole class: submissions in parallel, one results folder each, one summary CSV.

A thread pool is enough: each thread only waits on its own child process (runner.py), which
does the work and carries the limits. A submission that hangs holds one worker for its own
time limit and no longer; the others go on. The children are forked by one preloader for the
class (preload.py), which has imported the kit and openai once for all of them.
"""

from __future__ import annotations

import json
import os
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from lab import sandbox as sandbox_module
from lab.grading import formats
from lab.grading.catalogue import Catalogue
from lab.grading.preload import preloader
from lab.grading.runner import Limits, grade_submission, student_environment
from lab.i18n import text
from lab.results import Report
from lab.sandbox import Spec

SOLUTIONS = Path(__file__).resolve().parent.parent.parent / "solutions"
SUMMARY_NAME = "summary.csv"
DONE_NAME = ".lab-report.json"  # in each submission's output folder: graded, and how


@dataclass
class ClassResult:
    rows: list[tuple[str, Report]]  # (folder name under --out, report), in the order given
    summary: Path
    elapsed: float
    checks_known: bool = True  # False: no list of checks, so a crash scored nothing at all

    @property
    def rate(self) -> float:
        return len(self.rows) / self.elapsed if self.elapsed else 0.0


def output_names(submissions: list[Path]) -> list[str]:
    """The submission folders' names; equal names get -2, -3... in the order given."""
    names: list[str] = []
    taken: set[str] = {SUMMARY_NAME}  # the class summary sits beside the folders
    for submission in submissions:
        base = submission.resolve().name or "submission"
        name, number = base, 1
        while name.lower() in taken:  # case-insensitive: macOS and Windows folders
            number += 1
            name = f"{base}-{number}"
        taken.add(name.lower())
        names.append(name)
    return names


def default_jobs() -> int:
    """Two submissions per core: each job waits on student processes much of the time (a hanging
    server holds its job for 5 s doing nothing), and the other one keeps the core busy meanwhile."""
    return 2 * (os.cpu_count() or 1)


def load_catalogue(lang: str, limits: Limits, target: str = "lab", bonus: bool = False) -> Catalogue:
    """The engine's list of checks; failing that, what a run on the solutions reports."""
    listed = Catalogue.from_engine(lang, bonus=bonus)
    if listed is not None and listed.checks:
        return listed
    solutions = grade_submission(SOLUTIONS, lang, limits, Catalogue(bonus=bonus), target)
    return Catalogue.from_report(solutions, bonus=bonus)


class SandboxUnavailable(Exception):
    """`lab grade` cannot isolate the submissions here: the message says what to do (fr/en)."""


def find_sandbox(lang: str) -> Spec:
    spec, why = sandbox_module.find()
    if spec is None:
        kind, _, detail = why.partition(":")
        raise SandboxUnavailable(text(lang, f"grade.no_sandbox.{kind}", detail=detail))
    return spec


def write_atomically(path: Path, content: str) -> None:
    """A reader (or a rerun) sees the old file or the new one, never half of one."""
    partial = path.with_name(path.name + ".partial")
    partial.write_text(content, encoding="utf-8")
    os.replace(partial, path)


def write_one(out: Path, name: str, report: Report, fmt: str, bonus: bool = False) -> Path:
    """The submission's results file, then the record that says it is complete (for a rerun)."""
    folder = out / name
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / formats.FILE_NAMES[fmt]
    write_atomically(path, formats.render(report, fmt, name))
    record = {"format": fmt, "bonus": bonus, "report": report.to_dict()}
    write_atomically(folder / DONE_NAME, json.dumps(record, ensure_ascii=False))
    return path


def finished(out: Path, name: str, fmt: str, bonus: bool) -> Report | None:
    """The report of a submission graded by an earlier run with the same settings, if complete."""
    folder = out / name
    try:
        record = json.loads((folder / DONE_NAME).read_text(encoding="utf-8"))
        if record["format"] != fmt or record["bonus"] != bonus or not (folder / formats.FILE_NAMES[fmt]).is_file():
            return None
        report = Report.from_dict(record["report"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return None if report.kit_error else report  # a kit error is worth another try


def grade_class(
    submissions: list[Path], out: Path, fmt: str = "gradescope", lang: str = "fr",
    jobs: int | None = None, limits: Limits = Limits(), target: str = "lab",
    on_done: Callable[[int, int], None] | None = None, catalogue: Catalogue | None = None,
    bonus: bool = False, preload: bool = True, sandboxed: bool = True, force: bool = False,
    on_resume: Callable[[int], None] | None = None,
) -> ClassResult:
    """Grade every submission, write `out/NAME/<results file>` and `out/summary.csv`.

    `preload`: fork every submission's checks from one preloaded process (False: a new
    interpreter each, as on systems where the preloader cannot run).
    `sandboxed`: every student process runs in a bubblewrap sandbox (raises SandboxUnavailable
    where it cannot); False grades as `lab check` does, with a warning in every report.
    Each submission's files are written as soon as it is graded; a rerun with the same `out`
    keeps what an earlier run finished (`force`: grade everything again).
    """
    started = time.monotonic()
    jail = find_sandbox(lang) if sandboxed else None
    out.mkdir(parents=True, exist_ok=True)
    names = output_names(submissions)
    reports: dict[int, Report] = {}
    if not force:
        for index, name in enumerate(names):
            earlier = finished(out, name, fmt, bonus)
            if earlier is not None:
                reports[index] = earlier
        if reports and on_resume:
            on_resume(len(reports))
    todo = [index for index in range(len(submissions)) if index not in reports]
    checks = catalogue if catalogue is not None else load_catalogue(lang, limits, target, bonus)
    workers = max(1, jobs or default_jobs())
    environment = student_environment(dict(os.environ), lang)
    with preloader(limits.cpu_seconds, limits.memory_bytes, limits.file_bytes, environment,
                   preload and bool(todo)) as address, \
            ThreadPoolExecutor(max_workers=workers, thread_name_prefix="grade") as pool:
        futures = {
            pool.submit(grade_submission, submissions[index], lang, limits, checks, target,
                        preload=address, jail=jail): index
            for index in todo
        }
        for future in as_completed(futures):
            index = futures[future]
            try:
                report = future.result()
            except Exception as error:  # a grader bug: that submission gets a kit error, not a zero
                report = checks.failed(str(submissions[index]), lang,
                                       text(lang, "grade.kit_error", error=f"{type(error).__name__}: {error}"))
                report.kit_error = True
            reports[index] = report
            write_one(out, names[index], report, fmt, bonus)
            if on_done:
                on_done(len(reports), len(submissions))
    rows = [(names[index], reports[index]) for index in range(len(submissions))]
    summary = out / SUMMARY_NAME
    summary.write_text(formats.summary_csv(rows), encoding="utf-8")
    return ClassResult(rows=rows, summary=summary, elapsed=time.monotonic() - started,
                       checks_known=bool(checks.checks))
