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

from lab.grading.readback import ClassRecord, Submission
from lab.i18n import MESSAGES
from lab.results import PASSED

HUNG, CPU, CRASHED, STOPPED, UNREADABLE, KIT_ERROR = "hung", "cpu", "crashed", "stopped", "unreadable", "kit_error"
RUN_KINDS = (HUNG, CPU, CRASHED, STOPPED, UNREADABLE, KIT_ERROR)
SIGXCPU = 24  # the signal RLIMIT_CPU sends when a process has used up its CPU time
MAX_BARS = 40  # above this many points, a histogram bar holds several scores
TOP_VALUES = 3  # wrong values shown per answers.toml cell


def message_pattern(key: str) -> re.Pattern[str]:
    """The first line of a grader message, in either language, with its fields as groups."""
    alternatives = []
    for lang in ("fr", "en"):
        first_line = MESSAGES[lang][key].split("\n")[0]
        pieces = re.split(r"\{(\w+)(?:[^}]*)\}", first_line)
        regex = "".join(re.escape(piece) if index % 2 == 0 else f"(?P<{piece}_{lang}>.*?)"
                        for index, piece in enumerate(pieces))
        alternatives.append(regex)
    return re.compile("|".join(f"(?:{regex})" for regex in alternatives))


PATTERNS = {key: message_pattern(f"grade.{key}") for key in ("timeout", "crashed", "too_much_output", "not_a_folder")}


def kit_error_prefix() -> re.Pattern[str] | None:
    """The grader's "kit error: {reason}" wrapper, in either language, if it has one."""
    regexes = []
    for lang in ("fr", "en"):
        template = MESSAGES[lang].get("grade.kit_error", "")
        if template.count("{") == 1 and template.endswith("}"):
            regexes.append(re.escape(template[:template.index("{")]))
    return re.compile("|".join(regexes)) if regexes else None


KIT_ERROR_PREFIX = kit_error_prefix()


def run_kind(submission: Submission) -> str | None:
    """hung, cpu, crashed, stopped, unreadable or kit_error; None for a run that finished.

    The error's text decides, whatever status came with it (a grader may call every run it
    could not finish a kit error); an error the grader has no message for is its own failure.
    """
    first = submission.error.split("\n")[0].strip()
    if KIT_ERROR_PREFIX is not None and (prefix := KIT_ERROR_PREFIX.match(first)):
        first = first[prefix.end():]
    if PATTERNS["timeout"].fullmatch(first):
        return HUNG
    if PATTERNS["too_much_output"].fullmatch(first):
        return STOPPED
    if PATTERNS["not_a_folder"].fullmatch(first):
        return UNREADABLE
    crashed = PATTERNS["crashed"].fullmatch(first)
    if crashed:
        code = next((value for name, value in crashed.groupdict().items() if name.startswith("code") and value), "")
        try:
            number = int(code)
        except ValueError:
            return CRASHED
        if number in (-SIGXCPU, 128 + SIGXCPU):
            return CPU
        return STOPPED if number < 0 else CRASHED
    return KIT_ERROR if submission.error or submission.kit_error else None


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
    total: int

    @property
    def rate(self) -> float:
        return self.failed / self.total if self.total else 0.0


@dataclass
class CellFigure:
    cell: str  # e.g. trois_clients."1999-01-01", or what the check expected when no cell is named
    question: str  # what the cell asks (the check's "expected")
    check_id: str
    wrong: int  # submissions with this cell wrong
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
    """Every check's failure rate, most failed first (ties in the lesson's order)."""
    _, check_order = lesson_order(record)
    figures: dict[str, CheckFigure] = {}
    for submission in record.submissions:
        for check in submission.checks:
            figure = figures.get(check.id)
            if figure is None:
                figure = figures[check.id] = CheckFigure(check.id, titles.get(check.id) or check.title, check.task,
                                                         hints.get(check.id) or check.hint, 0, 0)
            figure.task = figure.task or check.task
            figure.total += 1
            figure.failed += check.status != PASSED
    order = {check_id: index for index, check_id in enumerate(check_order)}
    return sorted(figures.values(), key=lambda figure: (-figure.rate, order.get(figure.id, len(order))))


CELL = re.compile(r"^(?:Cellule|Cell)\s+(\S+)\s*:")
OTHER_CELLS = re.compile(r"(?:Autres cellules fausses|Other wrong cells)\s*:\s*([^\n]*?)\.?\s*$", re.M)


def answer_cells(record: ClassRecord, answers_task: str = "answers") -> list[CellFigure]:
    """For each answers.toml cell, how many got it wrong and the wrong values seen most often.

    An answers check reports its first wrong cell with the value written (its "actual"), and
    only names the others: those count as wrong, with their value unseen.
    """
    cells: dict[str, CellFigure] = {}
    values: dict[str, Counter[str]] = {}
    for submission in record.submissions:
        for check in submission.checks:
            if check.status == PASSED or not (check.task == answers_task or check.id.startswith(answers_task + ".")):
                continue
            if not (check.expected or check.actual):
                continue  # skipped or never ran: no cell to speak of
            named = CELL.match(check.message)
            cell = named.group(1) if named else check.expected
            figure = cells.setdefault(cell, CellFigure(cell, check.expected, check.id, 0))
            figure.question = figure.question or check.expected
            figure.wrong += 1
            values.setdefault(cell, Counter())[check.actual] += 1
            others = OTHER_CELLS.search(check.message)
            for other in (others.group(1).split(", ") if others else []):
                other = other.strip()
                if other:
                    extra = cells.setdefault(other, CellFigure(other, "", check.id, 0))
                    extra.wrong += 1
                    extra.unseen += 1
    for cell, figure in cells.items():
        figure.values = sorted(values.get(cell, Counter()).items(), key=lambda item: (-item[1], item[0]))[:TOP_VALUES]
    return sorted(cells.values(), key=lambda figure: (-figure.wrong, figure.cell))


def runs(record: ClassRecord) -> list[tuple[Submission, str]]:
    """The submissions whose run did not finish normally, with what happened."""
    return [(submission, kind) for submission in record.submissions
            if (kind := run_kind(submission)) is not None]


def times(record: ClassRecord) -> Times | None:
    durations = [submission.duration for submission in record.submissions if submission.duration is not None]
    if not durations:
        return None
    return Times(len(durations), statistics.median(durations), max(durations), sum(durations))


def first_stuck_part(submission: Submission, task_order: list[str]) -> str:
    """The first lesson part, in the lesson's order, where this student lost points."""
    failing = {check.task for check in submission.checks if check.status != PASSED and check.task}
    return next((task for task in task_order if task in failing), "")
