"""Grade a whole class: submissions in parallel, one results folder each, one summary CSV.

A thread pool is enough: each thread only waits on its own child process (runner.py), which
does the work and carries the limits. A submission that hangs holds one worker for its own
time limit and no longer; the others go on. The children are forked by one preloader for the
class (preload.py), which has imported the kit and openai once for all of them.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

from lab.grading import class_report, formats
from lab.grading.catalogue import Catalogue
from lab.grading.preload import preloader
from lab.grading.runner import Limits, grade_submission, student_environment
from lab.results import Report

SOLUTIONS = Path(__file__).resolve().parent.parent.parent / "solutions"
SUMMARY_NAME = "summary.csv"
SANDBOX = "private copy"  # what isolates a submission, as recorded in grading.json


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
    taken: set[str] = {SUMMARY_NAME, *class_report.FILE_NAMES}  # the class's files sit beside the folders
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


def write_one(out: Path, name: str, report: Report, fmt: str) -> Path:
    folder = out / name
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / formats.FILE_NAMES[fmt]
    path.write_text(formats.render(report, fmt, name), encoding="utf-8")
    return path


def grade_class(
    submissions: list[Path], out: Path, fmt: str = "gradescope", lang: str = "fr",
    jobs: int | None = None, limits: Limits = Limits(), target: str = "lab",
    on_done: Callable[[int, int], None] | None = None, catalogue: Catalogue | None = None,
    bonus: bool = False, preload: bool = True,
) -> ClassResult:
    """Grade every submission, write `out/NAME/<results file>` and `out/summary.csv`.

    `preload`: fork every submission's checks from one preloaded process (False: a new
    interpreter each, as on systems where the preloader cannot run).
    """
    started = time.monotonic()
    out.mkdir(parents=True, exist_ok=True)
    checks = catalogue if catalogue is not None else load_catalogue(lang, limits, target, bonus)
    names = output_names(submissions)
    reports: dict[int, Report] = {}
    workers = max(1, jobs or default_jobs())
    environment = student_environment(dict(os.environ), lang)
    with preloader(limits.cpu_seconds, limits.memory_bytes, limits.file_bytes, environment, preload) as address, \
            ThreadPoolExecutor(max_workers=workers, thread_name_prefix="grade") as pool:
        futures = {
            pool.submit(grade_submission, submission, lang, limits, checks, target, preload=address): index
            for index, submission in enumerate(submissions)
        }
        for future in as_completed(futures):
            index = futures[future]
            try:
                report = future.result()
            except Exception as error:  # a grader bug: that submission still gets a file
                report = checks.failed(str(submissions[index]), lang, f"{type(error).__name__}: {error}")
            reports[index] = report
            write_one(out, names[index], report, fmt)
            if on_done:
                on_done(len(reports), len(submissions))
    rows = [(names[index], reports[index]) for index in range(len(submissions))]
    summary = out / SUMMARY_NAME
    summary.write_text(formats.summary_csv(rows), encoding="utf-8")
    class_report.record_grading(out, rows, {
        "format": fmt, "lang": lang, "bonus": bonus, "sandbox": SANDBOX, "jobs": workers, "preload": preload,
        "limits": {**asdict(limits), "cpu_seconds": limits.cpu_seconds}})
    class_report.write_report(out, lang)
    return ClassResult(rows=rows, summary=summary, elapsed=time.monotonic() - started,
                       checks_known=bool(checks.checks))
