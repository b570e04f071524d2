"""Read a `lab grade` output folder back: summary.csv, grading.json and each student's file.

The class report is made from what is on disk, so `lab report OUT` rebuilds it from any
output folder, in any of the formats. Each format keeps a different part of a Report
(see formats.py); this module takes from each what it carries and reads the rest from
summary.csv (the score, the failed checks, the first line of the error) and grading.json
(the options and each submission's time), so a file that is missing or unreadable costs
that student's details, never the report.
"""

from __future__ import annotations

import csv
import io
import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lab.grading import formats
from lab.i18n import MESSAGES
from lab.results import ERROR, FAILED, PASSED, SKIPPED, CheckResult

SUMMARY_NAME = "summary.csv"
GRADING_NAME = "grading.json"
REPORT_NAME = "report.html"
RESULT_FILES = tuple(dict.fromkeys(formats.FILE_NAMES.values()))  # results.json, .xml, .csv
# The whole Report as JSON, when the grader keeps one in each submission's folder (to resume
# a stopped run): every field, whatever the format. Read first when present.
FULL_RECORD_NAME = ".lab-report.json"
CHECK_FIELDS = tuple(CheckResult.__dataclass_fields__)


@dataclass
class Submission:
    name: str  # the folder's name under OUT
    score: int = 0
    max_score: int = 0
    checks: list[CheckResult] = field(default_factory=list)
    error: str = ""  # why the run could not finish ("" when it did)
    reason: str = ""  # the same as the grader's message key, when the kit's record keeps it (Report.reason)
    fields: dict = field(default_factory=dict)
    duration: float | None = None  # seconds, when a source records it
    feedback: str = ""  # the student's results file, relative to OUT ("" when there is none)
    kit_error: bool = False  # a status says the kit, not the submission, failed
    scored: bool = True  # False: summary.csv gives no score (a kit error is not a zero)
    unreadable: str = ""  # why the results file could not be read ("" when it could)
    cause: str | None = None  # summary.csv's first cause (causes.py); None: not recorded there

    @property
    def failed_ids(self) -> list[str]:
        return [check.id for check in self.checks if check.status != PASSED]


@dataclass
class ClassRecord:
    out: Path
    submissions: list[Submission]
    grading: dict[str, Any]  # grading.json ({} when the folder has none)
    summary_found: bool
    mismatches: list[str] = field(default_factory=list)  # names whose file and summary disagree


class NoResults(Exception):
    """The folder holds nothing `lab grade` writes. `reason` is "missing" or "empty"."""

    def __init__(self, reason: str, path: Path) -> None:
        super().__init__(f"{reason}: {path}")
        self.reason, self.path = reason, path


# ---------------------------------------------------------------- explain() text, read back

LABELS = {key: [MESSAGES[lang][f"grade.{key}"].split("{")[0] for lang in ("fr", "en")]
          for key in ("expected", "actual", "hint", "output")}


def parse_explanation(text: str) -> dict[str, str]:
    """formats.explain() in either language, back to message / expected / actual / hint."""
    parts: dict[str, list[str]] = {"message": []}
    current = "message"
    for line in (text or "").split("\n"):
        label = next(((key, prefix) for key, prefixes in LABELS.items() for prefix in prefixes
                      if line.startswith(prefix.rstrip("\n"))), None)
        if label is not None and label[0] not in parts and current != "output":
            current = label[0]
            parts[current] = [line[len(label[1].rstrip("\n")):]]
        else:
            parts.setdefault(current, []).append(line)
    return {key: "\n".join(lines).strip("\n") for key, lines in parts.items()}


def summary_line(text: str) -> bool:
    """Is this the "Note : 3/10" / "Score: 3/10" line that ends a Gradescope output?"""
    for lang in ("fr", "en"):
        template = MESSAGES[lang]["grade.summary"]
        pattern = re.escape(template).replace(re.escape("{score}"), r"-?\d+").replace(re.escape("{max}"), r"-?\d+")
        if re.fullmatch(pattern, text.strip()):
            return True
    return False


# ---------------------------------------------------------------- one student's file


def as_int(value: Any) -> int:
    try:
        return int(float(value))
    except (TypeError, ValueError):
        return 0


def as_float(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if number >= 0 else None


def check_from_text(check_id: str, task: str, points: int, status: str, title: str, explanation: str) -> CheckResult:
    parts = parse_explanation(explanation)
    return CheckResult(id=check_id, task=task, points=points, status=status, title=title,
                       hint=parts.get("hint", ""), expected=parts.get("expected", ""),
                       actual=parts.get("actual", ""), message=parts.get("message", ""))


def id_and_title(name: str) -> tuple[str, str]:
    """Gradescope's test name: "title (id)", or the id alone."""
    match = re.fullmatch(r"(.*) \(([^()\s]+)\)", name, flags=re.S)
    return (match.group(2), match.group(1)) if match else (name, "")


KIT_ERROR_STATUSES = {"kiterror", "kit", "erreurdukit", "erreurkit"}


def is_kit_error_status(value: Any) -> bool:
    return isinstance(value, str) and re.sub(r"[\s_-]", "", value.lower()) in KIT_ERROR_STATUSES


def read_gradescope(data: dict, submission: Submission) -> None:
    for test in data.get("tests") or []:
        check_id, title = id_and_title(str(test.get("name", "")))
        tags = test.get("tags") or []
        status = PASSED if test.get("status") == "passed" else FAILED
        if test.get("status") not in (None, "passed", "failed"):
            status = str(test.get("status"))
        submission.checks.append(check_from_text(check_id, str(tags[0]) if tags else "",
                                                 as_int(test.get("max_score")), status, title,
                                                 str(test.get("output") or "")))
    submission.score = as_int(data.get("score"))
    submission.max_score = sum(check.points for check in submission.checks)
    lines = str(data.get("output") or "").rstrip("\n").split("\n")
    if lines and summary_line(lines[-1]):
        lines = lines[:-1]
    submission.error = "\n".join(lines).strip()
    submission.duration = as_float(data.get("execution_time"))
    extra = data.get("extra_data")
    submission.kit_error = isinstance(extra, dict) and is_kit_error_status(extra.get("status"))


EXERCISM_STATUSES = {"pass": PASSED, "fail": FAILED, "error": ERROR}


CHECK_ID = re.compile(r"[\w.-]+")
# formats.classroom() writes a check of N points as N tests: "title", "title · 2/N", ...
CLASSROOM_POINT = re.compile(re.escape(formats.CLASSROOM_POINT).replace(re.escape("{name}"), "(.*)")
                             .replace(re.escape("{point}"), r"\d+").replace(re.escape("{points}"), r"\d+"), re.S)


def read_exercism(data: dict, submission: Submission, tasks: dict[str, str], ids: dict[str, str]) -> None:
    """Exercism v3, or its GitHub Classroom shape, where a failed test's `test_code` holds the
    explanation instead of the check id: the id is then found by the test's title."""
    for test in data.get("tests") or []:
        code, title = str(test.get("test_code") or ""), str(test.get("name") or "")
        point = CLASSROOM_POINT.fullmatch(title)
        if point and submission.checks and submission.checks[-1].title == point.group(1):
            submission.checks[-1].points += as_int(test.get("max_score"))  # the same check's next point
            continue
        check_id = code if CHECK_ID.fullmatch(code) else ids.get(title, title)
        explanation = str(test.get("message") or "") or ("" if CHECK_ID.fullmatch(code) else code)
        status = EXERCISM_STATUSES.get(test.get("status"), str(test.get("status")))
        task = tasks.get(check_id) or f"#{test.get('task_id', '?')}"
        submission.checks.append(check_from_text(check_id, task, as_int(test.get("max_score")), status,
                                                 title, explanation))
    submission.score = as_int(data.get("score"))
    submission.max_score = as_int(data.get("max_score"))
    if data.get("status") == "error" or is_kit_error_status(data.get("status")):
        submission.error = str(data.get("message") or "")
    submission.kit_error = is_kit_error_status(data.get("status"))


# Characters XML 1.0 forbids: a results.xml written with one in a student's output is read anyway.
XML_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
JUNIT_STATUSES = {"failure": FAILED, "error": ERROR, "skipped": SKIPPED}


def read_junit(root: ET.Element, submission: Submission, points: dict[str, int]) -> None:
    suite = root.find("testsuite") if root.tag == "testsuites" else root
    if suite is None:
        raise ValueError("no testsuite")
    prefix = (suite.get("name") or "") + "."
    for case in suite.findall("testcase"):
        check_id, _, title = (case.get("name") or "").partition(": ")
        classname = case.get("classname") or ""
        task = classname[len(prefix):] if classname.startswith(prefix) else classname.rpartition(".")[2]
        status, explanation = PASSED, ""
        for child in case:
            if child.tag in JUNIT_STATUSES:
                status = JUNIT_STATUSES[child.tag]
                explanation = child.text or child.get("message") or ""
        submission.checks.append(check_from_text(check_id, task, points.get(check_id, 0), status, title, explanation))
    properties = {item.get("name"): item.get("value") for item in suite.iter("property")}
    submission.score = as_int(properties.get("score"))
    submission.max_score = as_int(properties.get("max_score"))
    submission.error = (suite.findtext("system-err") or "").strip()
    submission.kit_error = is_kit_error_status(properties.get("status"))
    submission.duration = as_float(suite.get("time"))


def read_checks_csv(text: str, submission: Submission) -> None:
    for row in csv.DictReader(io.StringIO(text, newline="")):
        status = unquoted(row.get("status") or "")
        check = check_from_text(unquoted(row.get("id") or ""), unquoted(row.get("task") or ""),
                                as_int(unquoted(row.get("points") or "")), status,
                                unquoted(row.get("title") or ""), unquoted(row.get("message") or ""))
        submission.checks.append(check)
    submission.score = sum(check.points for check in submission.checks if check.status == PASSED)
    submission.max_score = sum(check.points for check in submission.checks)
    submission.kit_error = bool(submission.checks) and all(is_kit_error_status(c.status) for c in submission.checks)
    if submission.checks and all(c.status == ERROR or is_kit_error_status(c.status) for c in submission.checks):
        reasons = {check.message for check in submission.checks}
        submission.error = reasons.pop() if len(reasons) == 1 else ""


def unquoted(cell: str) -> str:
    """A CSV cell as written before a spreadsheet guard: "'=SUM(1)" was "=SUM(1)"."""
    return cell[1:] if len(cell) > 1 and cell[0] == "'" and cell[1] in "=+-@\t\r" else cell


def read_full_record(folder: Path, submission: Submission) -> bool:
    """The whole Report, when the grader kept one beside the results file (FULL_RECORD_NAME)."""
    try:
        data = json.loads((folder / FULL_RECORD_NAME).read_text(encoding="utf-8"))
        report = data["report"]
        checks = [CheckResult(**{name: item[name] for name in CHECK_FIELDS if name in item})
                  for item in report["results"]]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    submission.checks = checks
    submission.score = sum(check.points for check in checks if check.status == PASSED)
    submission.max_score = sum(check.points for check in checks)
    submission.error = str(report.get("error") or "")
    submission.reason = str(report.get("reason") or "")
    submission.fields = dict(report.get("fields") or {}) if isinstance(report.get("fields"), dict) else {}
    submission.duration = as_float(report.get("duration"))
    submission.kit_error = report.get("kit_error") is True
    return True


def read_results_file(folder: Path, submission: Submission, preferred: str, catalogue: Known) -> None:
    """Fill `submission` from the grader's full record if there is one, else from the first
    results file found in `folder`."""
    names = sorted(RESULT_FILES, key=lambda name: name != formats.FILE_NAMES.get(preferred, ""))
    path = next((folder / name for name in names if (folder / name).is_file()), None)
    if path is None:
        submission.unreadable = "missing"
        return
    submission.feedback = f"{folder.name}/{path.name}"
    if read_full_record(folder, submission):
        return
    try:
        content = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".json":
            data = json.loads(content)
            if not isinstance(data, dict):
                raise ValueError("not an object")
            if "version" in data or any("test_code" in test for test in data.get("tests") or []):
                read_exercism(data, submission, catalogue.tasks, catalogue.ids_by_title)
            else:
                read_gradescope(data, submission)
        elif path.suffix == ".xml":
            read_junit(ET.fromstring(XML_FORBIDDEN.sub(lambda m: f"\\x{ord(m.group()):02x}", content)),
                       submission, catalogue.points)
        else:
            read_checks_csv(content, submission)
    except (ValueError, TypeError, AttributeError, ET.ParseError) as error:
        submission.checks.clear()
        submission.unreadable = f"{type(error).__name__}: {error}"


# ---------------------------------------------------------------- the folder


def read_summary(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8", errors="replace") as handle:
        return [{(key or ""): (value or "") for key, value in row.items()} for row in csv.DictReader(handle)]


def read_grading(out: Path) -> dict[str, Any]:
    try:
        data = json.loads((out / GRADING_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def result_folders(out: Path) -> list[Path]:
    return sorted((path for path in out.iterdir() if path.is_dir() and not path.is_symlink()
                   and any((path / name).is_file() for name in RESULT_FILES)), key=lambda path: path.name)


CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def escaped_forms(name: str) -> set[str]:
    """The ways a CSV writer may have written a name's control characters: escaped, shown, dropped."""
    schemes = [lambda c: "", lambda c: f"\\x{ord(c):02x}", lambda c: f"\\u{ord(c):04x}",
               lambda c: chr(0x2400 + ord(c)) if ord(c) < 32 else "\u2421" if c == "\x7f" else "?",
               lambda c: "?", lambda c: "\ufffd"]
    forms = {CONTROL.sub(lambda match, scheme=scheme: scheme(match.group()), name) for scheme in schemes}
    forms |= {json.dumps(name)[1:-1], name.encode("unicode_escape").decode("ascii")}
    return forms


def match_folders(rows: list[dict[str, str]], folders: list[Path]) -> list[tuple[dict[str, str] | None, Path | None]]:
    """Pair summary rows with folders: by name, then without a CSV guard, then by an escaped form."""
    by_name = {folder.name: folder for folder in folders}
    pairs: list[tuple[dict[str, str] | None, Path | None]] = []
    unmatched_rows: list[int] = []
    for row in rows:
        cell = row.get("submission", "")
        folder = by_name.pop(cell, None) or by_name.pop(unquoted(cell), None)
        if folder is None and cell.startswith("'"):  # a guard put on every cell, not only formulas
            folder = by_name.pop(cell[1:], None)
        if folder is None:
            unmatched_rows.append(len(pairs))
        pairs.append((row, folder))
    for index in unmatched_rows:
        cell = pairs[index][0].get("submission", "")
        candidates = [folder for folder in by_name.values()
                      if {cell, cell[1:] if cell.startswith("'") else cell} & escaped_forms(folder.name)]
        if len(candidates) == 1:
            pairs[index] = (pairs[index][0], by_name.pop(candidates[0].name))
    pairs.extend((None, folder) for folder in sorted(by_name.values(), key=lambda path: path.name))
    return pairs


@dataclass
class Known:
    """What the check registry says of each check id, for formats that leave it out."""

    tasks: dict[str, str] = field(default_factory=dict)
    points: dict[str, int] = field(default_factory=dict)
    ids_by_title: dict[str, str] = field(default_factory=dict)  # in either language


def known_checks() -> Known:
    try:
        from lab.checks import registry

        checks = registry()[0]
    except Exception:  # the report still reads what the files carry
        return Known()
    return Known({check.id: check.task for check in checks}, {check.id: check.points for check in checks},
                 {title: check.id for check in checks for title in check.title.values()})


def read_class(out: Path) -> ClassRecord:
    """Everything `lab grade` left in `out`. Raises NoResults when there is nothing to report."""
    if not out.is_dir():
        raise NoResults("missing", out)
    grading = read_grading(out)
    summary_path = out / SUMMARY_NAME
    rows = read_summary(summary_path) if summary_path.is_file() else []
    folders = result_folders(out)
    if not rows and not folders:
        raise NoResults("empty", out)
    catalogue = known_checks()
    durations = grading.get("durations") if isinstance(grading.get("durations"), dict) else {}
    record = ClassRecord(out=out, submissions=[], grading=grading, summary_found=summary_path.is_file())
    for row, folder in match_folders(rows, folders):
        name = folder.name if folder is not None else unquoted(row.get("submission", "")) if row else ""
        submission = Submission(name=name)
        if folder is not None:
            read_results_file(folder, submission, str(grading.get("format", "")), catalogue)
        else:
            submission.unreadable = "missing"
        if row is not None:
            merge_summary(submission, row, record)
        if isinstance(durations.get(name), (int, float)):
            submission.duration = float(durations[name])
        record.submissions.append(submission)
    return record


def merge_summary(submission: Submission, row: dict[str, str], record: ClassRecord) -> None:
    """summary.csv is the class's record of scores: it wins where the file disagrees or says nothing."""
    score, maximum = as_int(unquoted(row.get("score", ""))), as_int(unquoted(row.get("max", "")))
    submission.scored = unquoted(row.get("score", "")).strip() != "" or "score" not in row
    failed = unquoted(row.get("failed", "")).split()
    error_line = unquoted(row.get("error", "")).strip()
    if submission.checks and submission.scored and \
            (score, maximum, failed) != (submission.score, submission.max_score, submission.failed_ids):
        record.mismatches.append(submission.name)
    submission.score, submission.max_score = score, maximum
    if not submission.checks:  # no readable file: the failed ids are all there is
        submission.checks = [CheckResult(id=check_id, task="", points=0, status=FAILED, title="") for check_id in failed]
    if error_line and not submission.error.startswith(error_line):
        submission.error = error_line
    elif not error_line and "error" in row:
        submission.error = ""
    if is_kit_error_status(unquoted(row.get("status", ""))):
        submission.kit_error = True
    if "cause" in row:
        submission.cause = unquoted(row["cause"]).strip()
