"""A `lab grade` output folder read back: summary.csv (the class's scores), grading.json (the
options, each submission's time) and each submission's record, the whole Report.

A folder another kit graded (a record missing or of another version) raises NoResults("older"):
to grade again, never half read. Everything is read as hostile, within caps; a malformed
record costs that student's row only.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lab.grading import formats
from lab.process.capped import parse_json
from lab.results import FAILED, PASSED, CheckResult, Report

SUMMARY_NAME = "summary.csv"
GRADING_NAME = "grading.json"
REPORT_NAME = "report.html"
CLASS_FILES = (SUMMARY_NAME, GRADING_NAME, REPORT_NAME)  # beside the submissions' folders: none takes their names
FULL_RECORD_NAME = ".lab-report.json"  # the whole Report, written by classroom.write_one
RECORD_BYTES = 8 << 20  # a record's texts are cut (results.SHOWN_CHARS): anything longer is not one


@dataclass
class Submission:
    name: str  # the folder's name under OUT
    score: int = 0
    max_score: int = 0
    checks: list[CheckResult] = field(default_factory=list)
    error: str = ""  # why the run could not finish ("" when it did)
    reason: str = ""  # the grader's message key for the error (Report.reason)
    fields: dict = field(default_factory=dict)
    duration: float | None = None  # seconds, when a source records it
    feedback: str = ""  # the student's results file, relative to OUT ("" when there is none)
    kit_error: bool = False  # a status says the kit, not the submission, failed
    scored: bool = True  # False: summary.csv gives no score (a kit error is not a zero)
    unreadable: str = ""  # why the record could not be read ("" when it could)
    cause: str | None = None  # summary.csv's first cause (causes.py); None: not recorded there

    @property
    def failed_ids(self) -> list[str]:
        return [check.id for check in self.checks if check.status != PASSED]


@dataclass
class ClassRecord:
    submissions: list[Submission]
    grading: dict[str, Any]  # grading.json ({} when the folder has none)
    mismatches: list[str] = field(default_factory=list)  # names whose record and summary disagree


class NoResults(Exception):
    """The folder holds nothing this kit can report on: `reason` is "missing", "empty" or
    "older" (graded by another kit: to grade again)."""

    def __init__(self, reason: str, path: Path) -> None:
        super().__init__(f"{reason}: {path}")
        self.reason, self.path = reason, path


def as_int(value: Any) -> int:
    try:
        return int(float(value))
    except (TypeError, ValueError):
        return 0


def unquoted(cell: str) -> str:
    """A CSV cell as written before a spreadsheet guard: "'=SUM(1)" was "=SUM(1)"."""
    return cell[1:] if len(cell) > 1 and cell[0] == "'" and cell[1] in "=+-@\t\r" else cell


def kit_version() -> str:
    """The version a record must name to be read (records of another are to grade again)."""
    try:
        from importlib.metadata import version

        return version("mcp-handshake-lab")
    except Exception:  # not installed (run from a checkout): the package's own
        from lab import __version__

        return __version__


def load_record(folder: Path) -> dict[str, Any]:
    """A submission's record as JSON, read as hostile: a file of its own (never through a
    link), within RECORD_BYTES, depth-capped. Raises OSError or ValueError."""
    path = folder / FULL_RECORD_NAME
    if path.is_symlink() or not path.is_file():
        raise ValueError("not a file")
    with path.open("rb") as handle:
        data = parse_json(handle.read(RECORD_BYTES + 1), RECORD_BYTES)
    if not isinstance(data, dict):
        raise ValueError("not an object")
    return data


def read_record(folder: Path, submission: Submission) -> None:
    """Fill `submission` from its record (a malformed one sets `unreadable`); NoResults("older")
    when it is another kit's, or missing."""
    path = folder / FULL_RECORD_NAME
    if not path.is_file() and not path.is_symlink():
        raise NoResults("older", folder.parent)
    present = [name for name in formats.FILE_NAMES.values() if (folder / name).is_file()]
    submission.feedback = f"{folder.name}/{present[0]}" if present else ""
    try:
        data = load_record(folder)
        if data.get("kit") != kit_version():
            raise NoResults("older", folder.parent)
        report = Report.from_dict(data["report"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        submission.unreadable = f"{type(error).__name__}: {error}"[:200]
        return
    submission.checks = report.results
    submission.score, submission.max_score = report.score, report.max_score
    submission.error, submission.reason, submission.fields = report.error, report.reason, report.fields
    submission.duration = float(report.duration) if report.duration >= 0 else None
    submission.kit_error = report.kit_error
    graded_in = formats.FILE_NAMES.get(str(data.get("format")), "")
    if graded_in in present:  # the format it was graded in, of the results files there
        submission.feedback = f"{folder.name}/{graded_in}"


def read_summary(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8", errors="replace") as handle:
        return [{(key or ""): (value or "") for key, value in row.items()} for row in csv.DictReader(handle)]


def read_grading(out: Path) -> dict[str, Any]:
    """grading.json, within the caps a record is read with ({} when it is not one)."""
    try:
        with (out / GRADING_NAME).open("rb") as handle:
            data = parse_json(handle.read(RECORD_BYTES + 1), RECORD_BYTES)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def result_folders(out: Path) -> list[Path]:
    """The folders `lab grade` wrote: a record, or (another kit's) a results file."""
    names = (FULL_RECORD_NAME, *formats.FILE_NAMES.values())
    return sorted((path for path in out.iterdir() if path.is_dir() and not path.is_symlink()
                   and any((path / name).is_file() for name in names)), key=lambda path: path.name)


def match_folders(rows: list[dict[str, str]], folders: list[Path]) -> list[tuple[dict[str, str] | None, Path | None]]:
    """Pair summary rows with folders by name: lab grade names both the same (output_names),
    a row's cell guarded against formulas (hygiene.csv_cell) or not."""
    by_name = {folder.name: folder for folder in folders}
    pairs: list[tuple[dict[str, str] | None, Path | None]] = []
    for row in rows:
        cell = row.get("submission", "")
        pairs.append((row, by_name.pop(cell, None) or by_name.pop(unquoted(cell), None)))
    return pairs + [(None, folder) for folder in sorted(by_name.values(), key=lambda path: path.name)]


def read_class(out: Path) -> ClassRecord:
    """Everything `lab grade` left in `out`; NoResults when there is nothing to report."""
    if not out.is_dir():
        raise NoResults("missing", out)
    grading = read_grading(out)
    summary_path = out / SUMMARY_NAME
    rows = read_summary(summary_path) if summary_path.is_file() else []
    folders = result_folders(out)
    if not rows and not folders:
        raise NoResults("empty", out)
    durations = grading.get("durations") if isinstance(grading.get("durations"), dict) else {}
    record = ClassRecord(submissions=[], grading=grading)
    for row, folder in match_folders(rows, folders):
        name = folder.name if folder is not None else unquoted(row.get("submission", "")) if row else ""
        submission = Submission(name=name, unreadable="" if folder else "missing")
        if folder is not None:
            read_record(folder, submission)
        if row is not None:
            merge_summary(submission, row, record)
        if isinstance(durations.get(name), (int, float)):
            submission.duration = float(durations[name])
        record.submissions.append(submission)
    return record


def merge_summary(submission: Submission, row: dict[str, str], record: ClassRecord) -> None:
    """summary.csv is the class's record of scores: it wins where the file disagrees or says nothing."""
    cells = {key: unquoted(value) for key, value in row.items()}
    score, maximum = as_int(cells.get("score", "")), as_int(cells.get("max", ""))
    submission.scored = cells.get("score", "").strip() != "" or "score" not in cells
    failed = cells.get("failed", "").split()
    error_line = cells.get("error", "").strip()
    if submission.checks and submission.scored and \
            (score, maximum, failed) != (submission.score, submission.max_score, submission.failed_ids):
        record.mismatches.append(submission.name)
    submission.score, submission.max_score = score, maximum
    if not submission.checks:  # no readable file: the failed ids are all there is
        submission.checks = [CheckResult(id=check_id, task="", points=0, status=FAILED, title="") for check_id in failed]
    if error_line and not submission.error.startswith(error_line):
        submission.error = error_line
    elif not error_line and "error" in cells:
        submission.error = ""
    submission.kit_error = submission.kit_error or cells.get("status") == formats.KIT_ERROR
    if "cause" in cells:
        submission.cause = cells["cause"].strip()
