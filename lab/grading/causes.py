"""Why a submission lost its first points, one code per student (summary.csv's cause column,
the class report's first cause):
- the run did not finish: `hung`, `cpu`, `crashed`, `stopped` (a signal, too much output),
  `unreadable` (not a folder), `refused` (over the copy's caps), `empty` or `kit-error`;
- else the first check, in the catalogue's order, that failed on its own: `missing:FILE`,
  `syntax:FILE`, `hang:FILE`, `cpu:FILE`, `crash:FILE`, `unwritten:TASK` (a part still to
  write, or an answers table left empty) or `rule:CHECK-ID`;
- "" when every check passed.
Read from reason keys and fields (CheckResult.reason, Report.reason), never from a sentence:
the same whatever language the class was graded in.
"""

from __future__ import annotations

import re

from lab.results import ERROR, FAILED, PASSED, CheckResult

HUNG, CPU, CRASHED, STOPPED, UNREADABLE, KIT_ERROR = "hung", "cpu", "crashed", "stopped", "unreadable", "kit_error"
REFUSED, EMPTY = "refused", "empty"  # the upload itself: over the copy's caps, or every student file blank
RUN_KINDS = (HUNG, CPU, CRASHED, STOPPED, UNREADABLE, REFUSED, EMPTY, KIT_ERROR)
SIGXCPU = 24  # the signal RLIMIT_CPU sends when a process has used up its CPU time
# Check-level causes, in the order the report explains them.
MISSING, SYNTAX, HANG, SPIN, CRASH, UNWRITTEN, RULE = "missing", "syntax", "hang", "cpu", "crash", "unwritten", "rule"
FILES = {"server": "server.py", "client": "client.py", "model": "model.py", "answers": "answers.toml",
         "bonus": "bonus_server.py"}  # a check id's first word: the student file it runs


RUN_REASONS = {"grade.timeout": HUNG, "grade.too_much_output": STOPPED, "grade.not_a_folder": UNREADABLE,
               "grade.copy_files": REFUSED, "grade.copy_bytes": REFUSED, "grade.copy_time": REFUSED,
               "grade.copy_depth": REFUSED, "grade.many_folders": REFUSED, "grade.empty": EMPTY}


def run_kind(error: str, kit_error: bool, reason: str = "", fields: dict | None = None) -> str | None:
    """How a run that did not finish ended (None if it did), from the grader's message key
    whatever the status; an error it has no key for is its own failure."""
    if reason in RUN_REASONS:
        return RUN_REASONS[reason]
    if reason == "grade.crashed":
        return crash_kind(str((fields or {}).get("code", "")))
    return KIT_ERROR if error or kit_error else None


def crash_kind(code: str) -> str:
    """A check run that ended with exit code `code` and no report: out of CPU, killed or crashed."""
    try:
        number = int(code)
    except ValueError:
        return CRASHED
    if number in (-SIGXCPU, 128 + SIGXCPU):
        return CPU
    return STOPPED if number < 0 else CRASHED


# A check's reason (a key of lab.checks.reasons()) → the cause it names; the rest is "the first rule broken".
REASON_CAUSES = {"file.missing": MISSING, "grade.bonus_not_attempted": MISSING, "part.unwritten": UNWRITTEN,
                 "run.silent": HANG, "run.spun": SPIN, "run.stopped_silent": CRASH,
                 "client.nothing_reached": HANG, "model.load_hangs": HANG,
                 "file.does_not_load": CRASH, "model.stopped_before": CRASH, "client.crashed_before_sending": CRASH}
COMPILE_ERRORS = re.compile(r"^(?:SyntaxError|IndentationError|TabError)\b", re.M)  # Python's own, in the output
# The error line Python ends a traceback with ("NameError: name 'x' is not defined"), as the
# student's trimmed output shows it (lab/checks/tracebacks.py): a client that sent nothing
# because it raised crashed; one that sent nothing without raising broke the rule.
PYTHON_ERROR = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit)\b(?::|$)", re.M)
ANSWERS_TASK = "answers"
CELL = "answers.cell"  # an answers check's wrong cell, with the others named (answers_checks.grade)
EMPTY_CELL = "—"  # what an answers check writes as the "actual" of an empty cell


def file_of(check: CheckResult) -> str:
    return FILES.get(check.id.split(".")[0], check.id.split(".")[0])


def check_cause(check: CheckResult) -> str:
    """The cause code a failed check names, from its reason key."""
    reason, fields = check.reason, check.fields
    kind = REASON_CAUSES.get(reason)
    if reason == "client.sent_nothing" and PYTHON_ERROR.search(check.output):
        kind = CRASH
    if reason == CELL and check.actual in ("", EMPTY_CELL) and not fields.get("wrong_cells"):
        # its first wrong cell is empty and no other is wrong: an answers table still to write
        return f"{UNWRITTEN}:{check.task or ANSWERS_TASK}"
    if kind == MISSING:
        return f"{MISSING}:{fields.get('file', file_of(check))}"
    if kind == UNWRITTEN:
        return f"{UNWRITTEN}:{fields.get('task') or check.task}"
    if kind == CRASH:
        compiled = COMPILE_ERRORS.search(check.output) or COMPILE_ERRORS.search(check.actual)
        return f"{SYNTAX if compiled else CRASH}:{fields.get('file') or file_of(check)}"
    if kind is not None:
        return f"{kind}:{file_of(check)}"
    return f"{RULE}:{check.id}"


def could_run(check: CheckResult) -> bool:
    """Did this check judge the student's work (not skipped, not the kit's error)?"""
    return check.status in (PASSED, FAILED)


def first_cause(checks: list[CheckResult], error: str = "", kit_error: bool = False, reason: str = "",
                fields: dict | None = None) -> str:
    kind = run_kind(error, kit_error, reason, fields)
    if kind is not None:
        return kind.replace("_", "-")
    for check in checks:
        if check.status == PASSED:
            continue
        if check.status == ERROR:
            return KIT_ERROR.replace("_", "-")
        if could_run(check):
            return check_cause(check)
    return ""


def split(code: str) -> tuple[str, str]:
    """A cause code as (kind, subject): "missing:server.py" → ("missing", "server.py")."""
    kind, _, subject = code.partition(":")
    return kind.replace("-", "_"), subject
