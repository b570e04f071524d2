"""The class report's figures, from a ClassRecord: pure functions, no HTML, read from the reason
keys and fields the results keep (causes.py)."""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from lab.grading import causes
from lab.grading.causes import (ANSWERS_TASK, CELL, CPU, CRASH, CRASHED, EMPTY_CELL, HANG, HUNG, MISSING, RUN_KINDS,
                                SPIN, SYNTAX, UNWRITTEN, check_cause, could_run, file_of, first_cause, split)
from lab.grading.readback import ClassRecord, Submission
from lab.results import PASSED, CheckResult

# The kinds "Travaux à regarder" lists, in its order: a file that does not compile is one.
LOOK_AT = (*RUN_KINDS[:3], SYNTAX, *RUN_KINDS[3:])
# A check-level cause that means the program never really ran: the run kind it is listed as.
NEVER_RAN = {HANG: HUNG, SPIN: CPU, CRASH: CRASHED, SYNTAX: SYNTAX}
NOT_WRITTEN = (MISSING, UNWRITTEN)  # a check-level cause that means the work is not there yet
MAX_BARS = 40  # above this many points, a histogram bar holds several scores
TOP_VALUES = 3  # wrong values shown per answers.toml cell
# answers.toml could not be read at all: no cell to speak of (answers_checks.read_answers's reasons).
UNREADABLE = ("file.missing", "answers.not_utf8", "answers.not_toml_at", "answers.not_toml")


def run_kind(submission: Submission) -> str | None:
    """hung, cpu, crashed, stopped, unreadable or kit_error; None for a run that finished."""
    return causes.run_kind(submission.error, submission.kit_error, submission.reason, submission.fields)


def cause(submission: Submission) -> str:
    """The first cause code (causes.py): summary.csv's when it has one, else read from the checks."""
    return submission.cause if submission.cause is not None else \
        first_cause(submission.checks, submission.error, submission.kit_error, submission.reason, submission.fields)


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
    failed: int  # submissions whose work reached the check and broke its rule
    total: int  # submissions whose work reached the check (passed, or failed on a rule of its own)
    not_run: int = 0  # skipped, stopped, or the program never ran (hung, crashed, did not compile)
    not_written: int = 0  # the file or the part it judges is not there yet

    @property
    def rate(self) -> float:
        return self.failed / self.total if self.total else 0.0


@dataclass
class CellFigure:
    cell: str  # e.g. trois_clients."1999-01-01", or what the check expected when no cell is named
    question: str  # what the cell asks (the check's "expected")
    check_id: str
    wrong: int  # students who wrote a wrong value in this cell (an empty cell is not one)
    values: list[tuple[str, int]] = field(default_factory=list)  # most common wrong values, with counts
    unseen: int = 0  # wrong, but the result file names the cell without its value
    empty: int = 0  # students who left this cell empty: still to write, counted apart


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


def lesson_order(record: ClassRecord, check_ids: list[str], task_ids: list[str]) -> tuple[list[str], list[str]]:
    """Task and check ids in the registry's order, then any the records name that it lacks."""
    task_order, check_order = list(task_ids), list(check_ids)
    for submission in record.submissions:
        for check in submission.checks:
            if check.task and check.task not in task_order:
                task_order.append(check.task)
            if check.id not in check_order:
                check_order.append(check.id)
    return task_order, check_order


def parts(record: ClassRecord, task_order: list[str]) -> list[PartFigure]:
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


def check_failures(record: ClassRecord, check_order: list[str], hints: dict[str, str],
                   titles: dict[str, str]) -> list[CheckFigure]:
    """Each check's failures among the submissions whose work reached it, the rule broken by the
    most students first: what to re-teach. Not written yet, and not run (the program never ran,
    or the check was skipped), are counted apart: neither says the rule was misunderstood."""
    figures: dict[str, CheckFigure] = {}
    for submission in record.submissions:
        ended = run_kind(submission)
        finished = ended is None  # a run that did not finish judged nothing
        judged = {check.id: split(check_cause(check))[0] for check in submission.checks
                  if finished and check.status != PASSED and could_run(check)}
        # The files this student has not written yet: a check of theirs that judged no rule is
        # "not written yet", else "not run".
        unwritten = {file_of(check) for check in submission.checks if judged.get(check.id) in NOT_WRITTEN}
        for check in submission.checks:
            figure = figures.setdefault(check.id, CheckFigure(check.id, titles.get(check.id) or check.title,
                                                              check.task, hints.get(check.id) or check.hint, 0, 0))
            figure.task = figure.task or check.task
            kind = judged.get(check.id)
            if finished and (kind == "rule" or (kind is None and check.status == PASSED)):
                figure.total += 1
                figure.failed += kind == "rule"
            elif ended == causes.EMPTY or file_of(check) in unwritten:
                figure.not_written += 1
            else:
                figure.not_run += 1
    order = {check_id: index for index, check_id in enumerate(check_order)}
    return sorted(figures.values(),
                  key=lambda figure: (-figure.failed, -figure.rate, order.get(figure.id, len(order))))


def names(fields: dict, name: str) -> list[str]:
    """The cells a wrong cell's fields name besides it (a record is read as hostile: names only)."""
    value = fields.get(name)
    return [item for item in value if isinstance(item, str) and item] if isinstance(value, list) else []


def answers_unreadable(record: ClassRecord) -> int:
    """Students whose answers.toml is missing, not UTF-8 or not TOML: no cell of theirs is counted."""
    return sum(1 for submission in record.submissions
               if any(is_answers(check) and check.reason in UNREADABLE for check in submission.checks))


def is_answers(check: CheckResult) -> bool:
    return check.task == ANSWERS_TASK or check.id.startswith(ANSWERS_TASK + ".")


def answer_cells(record: ClassRecord) -> list[CellFigure]:
    """For each answers.toml cell, the students with a wrong value, the values seen most often,
    and apart those who left it empty (once per student), the most often wrong first. A check
    gives its first wrong cell's value and only names the others (their values unseen)."""
    cells: dict[str, CellFigure] = {}
    values: dict[str, Counter[str]] = defaultdict(Counter)
    for submission in record.submissions:
        counted: set[str] = set()

        def wrong(cell: str, question: str, check_id: str, value: str | None) -> None:
            figure = cells.setdefault(cell, CellFigure(cell, question, check_id, 0))
            value = EMPTY_CELL if value == "" else value
            figure.question = figure.question or question
            if cell in counted:
                return
            counted.add(cell)
            figure.empty += value == EMPTY_CELL
            figure.wrong += value != EMPTY_CELL
            figure.unseen += value is None
            if value not in (None, EMPTY_CELL):
                values[cell][value] += 1

        for check in submission.checks:
            if check.status == PASSED or not is_answers(check):
                continue
            if not (check.expected or check.actual) or check.reason in UNREADABLE:
                continue  # skipped, never ran, or no file to read: no cell to speak of
            if check.reason != CELL:  # a missing table, or a message of other words: what the check expected
                wrong(check.expected, check.expected, check.id, check.actual)
                continue
            cell = check.fields.get("cell")
            wrong(cell if isinstance(cell, str) else check.expected, check.expected, check.id, check.actual)
            for other in names(check.fields, "empty_cells"):
                wrong(other, "", check.id, EMPTY_CELL)
            for other in names(check.fields, "wrong_cells"):
                wrong(other, "", check.id, None)
    for cell, figure in cells.items():
        figure.values = sorted(values[cell].items(), key=lambda item: (-item[1], item[0]))[:TOP_VALUES]
    return sorted(cells.values(), key=lambda figure: (-figure.wrong, -figure.empty, figure.cell))


def runs(record: ClassRecord) -> list[tuple[Submission, str]]:
    """The submissions to look at, with what happened: a run that did not finish, or a program
    that never ran."""
    return [(submission, kind) for submission in record.submissions
            if (kind := run_kind(submission) or NEVER_RAN.get(split(cause(submission))[0])) is not None]


def times(record: ClassRecord) -> Times | None:
    durations = [submission.duration for submission in record.submissions if submission.duration is not None]
    if not durations:
        return None
    return Times(len(durations), statistics.median(durations), max(durations), sum(durations))


def first_stuck_part(submission: Submission, task_order: list[str]) -> str:
    """The part the program says is still to write, else the first where the student lost points."""
    kind, subject = split(cause(submission))
    if kind == "unwritten" and subject:
        return subject
    failing = {check.task for check in submission.checks if check.status != PASSED and check.task}
    return next((task for task in task_order if task in failing), "")
