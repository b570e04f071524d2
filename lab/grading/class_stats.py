"""The class report's figures, from a ClassRecord: pure functions, no HTML.

What went wrong with a run is read from its error text, matched against the grader's own
messages (lab/i18n.py, both languages), so a message reworded there is still recognised.
"""

from __future__ import annotations

import math
import re
import statistics
from collections import Counter
from dataclasses import dataclass, field

from lab.grading import causes
from lab.grading.causes import (CPU, CRASHED, HUNG, RUN_KINDS,
                                could_run, first_cause, split)
from lab.grading.readback import ClassRecord, Submission
from lab.results import PASSED, CheckResult

# How a run ended, and why a student first lost points: lab/grading/causes.py, shared with
# summary.csv's cause column.
SYNTAX = "syntax"  # a student file that does not compile: a run of its own kind to look at
LOOK_AT = (*RUN_KINDS[:3], SYNTAX, *RUN_KINDS[3:])  # the kinds "Travaux à regarder" lists, in its order
# A check-level cause that means the program never really ran: the run kind it is listed as.
NEVER_RAN = {"hang": HUNG, "cpu": CPU, "crash": CRASHED, "syntax": SYNTAX}
MAX_BARS = 40  # above this many points, a histogram bar holds several scores
TOP_VALUES = 3  # wrong values shown per answers.toml cell
# answers.toml could not be read at all: no cell to speak of (answers_checks.read_answers).
ANSWERS_UNREADABLE = re.compile(r"(?:n’est pas du TOML valide|is not valid TOML|Il n’y a pas de fichier answers\.toml"
                                r"|There is no answers\.toml file)")


def run_kind(submission: Submission) -> str | None:
    """hung, cpu, crashed, stopped, unreadable or kit_error; None for a run that finished."""
    return causes.run_kind(submission.error, submission.kit_error, submission.reason, submission.fields)


def cause(submission: Submission) -> str:
    """The first cause code (causes.py): summary.csv's when it has one, else read from the checks."""
    return submission.cause if submission.cause is not None else \
        first_cause(submission.checks, submission.error, submission.kit_error, submission.reason, submission.fields)


def look_at_kind(submission: Submission) -> str | None:
    """Why this submission is one to look at (a run that did not finish, or a program that
    never ran: it hung, spun, crashed or did not compile), or None."""
    kind = run_kind(submission)
    if kind is not None:
        return kind
    return NEVER_RAN.get(split(cause(submission))[0])


@dataclass
class Bar:
    low: int
    high: int
    count: int

    @property
    def label(self) -> str:
        return str(self.low) if self.low == self.high else f"{self.low}–{self.high}"


@dataclass
class PartFigure:
    task: str
    full: int  # submissions with every check of this part passed
    total: int  # submissions graded on this part

    @property
    def share(self) -> float:
        return self.full / self.total if self.total else 0.0


@dataclass
class CheckFigure:
    id: str
    title: str
    task: str
    hint: str
    failed: int
    total: int  # submissions where the check could run (passed, or failed on its own)
    not_run: int = 0  # submissions where it was skipped or stopped: counted apart

    @property
    def rate(self) -> float:
        return self.failed / self.total if self.total else 0.0


@dataclass
class CellFigure:
    cell: str  # e.g. trois_clients."1999-01-01", or what the check expected when no cell is named
    question: str  # what the cell asks (the check's "expected")
    check_id: str
    wrong: int  # students with this cell wrong
    values: list[tuple[str, int]] = field(default_factory=list)  # most common wrong values, with counts
    unseen: int = 0  # wrong, but the result file names the cell without its value


@dataclass
class Times:
    known: int
    median: float
    longest: float
    total: float


def histogram(submissions: list[Submission]) -> list[Bar]:
    """Submissions per score; one that summary.csv leaves unscored (a kit error) is not counted."""
    top = max((submission.max_score for submission in submissions), default=0)
    submissions = [submission for submission in submissions if submission.scored]
    top = max(top, max((submission.score for submission in submissions), default=0))
    width = max(1, math.ceil((top + 1) / MAX_BARS))
    bars = [Bar(low, min(low + width - 1, top), 0) for low in range(0, top + 1, width)]
    for submission in submissions:
        bars[min(max(submission.score, 0) // width, len(bars) - 1)].count += 1
    return bars


def lesson_order(record: ClassRecord) -> tuple[list[str], list[str]]:
    """Task ids and check ids in the catalogue's order, then any the files name that it lacks."""
    try:
        from lab.checks import registry

        checks, _, tasks = registry()
        task_order, check_order = list(tasks), [check.id for check in checks]
    except Exception:
        task_order, check_order = [], []
    for submission in record.submissions:
        for check in submission.checks:
            if check.task and check.task not in task_order:
                task_order.append(check.task)
            if check.id not in check_order:
                check_order.append(check.id)
    return task_order, check_order


def parts(record: ClassRecord) -> list[PartFigure]:
    task_order, _ = lesson_order(record)
    figures = {task: PartFigure(task, 0, 0) for task in task_order}
    for submission in record.submissions:
        by_task: dict[str, list[bool]] = {}
        for check in submission.checks:
            if check.task:
                by_task.setdefault(check.task, []).append(check.status == PASSED)
        for task, passes in by_task.items():
            figures[task].total += 1
            figures[task].full += all(passes)
    return [figure for figure in figures.values() if figure.total]


def check_failures(record: ClassRecord, hints: dict[str, str], titles: dict[str, str]) -> list[CheckFigure]:
    """Every check's failure rate over the submissions where it could run, most failed first
    (ties in the lesson's order); a check skipped after an earlier failure is counted apart."""
    _, check_order = lesson_order(record)
    figures: dict[str, CheckFigure] = {}
    for submission in record.submissions:
        finished = run_kind(submission) is None  # a run that did not finish judged nothing
        for check in submission.checks:
            figure = figures.get(check.id)
            if figure is None:
                figure = figures[check.id] = CheckFigure(check.id, titles.get(check.id) or check.title, check.task,
                                                         hints.get(check.id) or check.hint, 0, 0)
            figure.task = figure.task or check.task
            if finished and could_run(check):
                figure.total += 1
                figure.failed += check.status != PASSED
            else:
                figure.not_run += 1
    order = {check_id: index for index, check_id in enumerate(check_order)}
    return sorted(figures.values(), key=lambda figure: (-figure.rate, order.get(figure.id, len(order))))


CELL = re.compile(r"^(?:Cellule|Cell)\s+(\S+)\s*:")
OTHER_CELLS = re.compile(r"(?:Autres cellules fausses|Other wrong cells)\s*:\s*([^\n]*?)\.?\s*$", re.M)


def answers_unreadable(record: ClassRecord, answers_task: str = "answers") -> int:
    """Students whose answers.toml is missing or not TOML: no cell of theirs is counted."""
    return sum(1 for submission in record.submissions
               if any(is_answers(check, answers_task) and ANSWERS_UNREADABLE.search(check.message)
                      for check in submission.checks))


def is_answers(check: CheckResult, answers_task: str) -> bool:
    return check.task == answers_task or check.id.startswith(answers_task + ".")


def answer_cells(record: ClassRecord, answers_task: str = "answers") -> list[CellFigure]:
    """For each answers.toml cell, how many students got it wrong and the wrong values seen
    most often (a student counts once per cell, whatever checks name it).

    An answers check reports its first wrong cell with the value written (its "actual"), and
    only names the others: those count as wrong, with their value unseen. A file that could
    not be read names no cell (answers_unreadable counts those students).
    """
    cells: dict[str, CellFigure] = {}
    values: dict[str, Counter[str]] = {}
    for submission in record.submissions:
        counted: set[str] = set()

        def wrong(cell: str, question: str, check_id: str, value: str | None) -> None:
            figure = cells.setdefault(cell, CellFigure(cell, question, check_id, 0))
            figure.question = figure.question or question
            if cell in counted:
                return
            counted.add(cell)
            figure.wrong += 1
            if value is None:
                figure.unseen += 1
            else:
                values.setdefault(cell, Counter())[value] += 1

        for check in submission.checks:
            if check.status == PASSED or not is_answers(check, answers_task):
                continue
            if not (check.expected or check.actual) or ANSWERS_UNREADABLE.search(check.message):
                continue  # skipped, never ran, or no file to read: no cell to speak of
            named = CELL.match(check.message)
            wrong(named.group(1) if named else check.expected, check.expected, check.id, check.actual)
            others = OTHER_CELLS.search(check.message)
            for other in (others.group(1).split(", ") if others else []):
                if other.strip():
                    wrong(other.strip(), "", check.id, None)
    for cell, figure in cells.items():
        figure.values = sorted(values.get(cell, Counter()).items(), key=lambda item: (-item[1], item[0]))[:TOP_VALUES]
    return sorted(cells.values(), key=lambda figure: (-figure.wrong, figure.cell))


def runs(record: ClassRecord) -> list[tuple[Submission, str]]:
    """The submissions to look at (look_at_kind), with what happened."""
    return [(submission, kind) for submission in record.submissions
            if (kind := look_at_kind(submission)) is not None]


def times(record: ClassRecord) -> Times | None:
    durations = [submission.duration for submission in record.submissions if submission.duration is not None]
    if not durations:
        return None
    return Times(len(durations), statistics.median(durations), max(durations), sum(durations))


def first_stuck_part(submission: Submission, task_order: list[str]) -> str:
    """The first lesson part still missing: the one the program says is still to write, else
    the first part, in the lesson's order, where this student lost points."""
    kind, subject = split(cause(submission))
    if kind == "unwritten" and subject:
        return subject
    failing = {check.task for check in submission.checks if check.status != PASSED and check.task}
    return next((task for task in task_order if task in failing), "")
