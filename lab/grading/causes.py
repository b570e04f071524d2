"""Why a submission lost its first points: what an instructor re-teaches, one word per student.

`first_cause(checks, error, kit_error)` reads a run as graded (a Report's results, or the same
read back from a results file) and answers with a code written into summary.csv and shown by
the class report:

- the run itself did not finish: `hung`, `cpu`, `crashed`, `stopped` (a signal, too much
  output), `unreadable` (not a folder), `refused` (an upload over the copy's caps: a stray
  virtual environment), `empty` (every student file blank) or `kit-error` (the kit's fault,
  not the student's);
- else the first check, in the catalogue's order, that failed on its own (a skipped check only
  follows an earlier failure): `missing:FILE`, `syntax:FILE`, `hang:FILE`, `cpu:FILE`,
  `crash:FILE`, `unwritten:TASK` (the program says a part is still to write), or
  `rule:CHECK-ID` (the first rule broken). A file Python cannot compile or that raises as
  it loads is `syntax:FILE` or `crash:FILE` whichever check met it (a client that sent
  nothing because it crashed, a model.py that does not load); an answers table left
  untouched (every cell of it empty) is `unwritten:answers`;
- "" when every check passed.

A check's cause is read from its reason key (`CheckResult.reason`, lab/checks/texts.py), the
same whatever language the class was graded in. How the run ended is read from the grader's
own messages (lab/i18n.py, both languages). A result written before reasons were kept has
its message read back into a key of the same tables (reason_of), so an older --out folder
gets the same causes.
"""

from __future__ import annotations

import re

from lab.checks.texts import TEXTS, recognise
from lab.i18n import MESSAGES
from lab.results import ERROR, FAILED, PASSED, CheckResult

HUNG, CPU, CRASHED, STOPPED, UNREADABLE, KIT_ERROR = "hung", "cpu", "crashed", "stopped", "unreadable", "kit_error"
REFUSED, EMPTY = "refused", "empty"  # the upload itself: over the copy's caps, or every student file blank
RUN_KINDS = (HUNG, CPU, CRASHED, STOPPED, UNREADABLE, REFUSED, EMPTY, KIT_ERROR)
SIGXCPU = 24  # the signal RLIMIT_CPU sends when a process has used up its CPU time
# Check-level causes, in the order the report explains them.
MISSING, SYNTAX, HANG, SPIN, CRASH, UNWRITTEN, RULE = "missing", "syntax", "hang", "cpu", "crash", "unwritten", "rule"
CHECK_KINDS = (MISSING, SYNTAX, HANG, SPIN, CRASH, UNWRITTEN, RULE)
FILES = {"server": "server.py", "client": "client.py", "model": "model.py", "answers": "answers.toml",
         "bonus": "bonus_server.py"}  # a check id's first word: the student file it runs


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


PATTERNS = {key: message_pattern(f"grade.{key}") for key in ("timeout", "crashed", "too_much_output", "not_a_folder",
                                                              "copy_files", "copy_bytes", "copy_time", "copy_depth",
                                                              "many_folders", "empty")}


def kit_error_prefix() -> re.Pattern[str] | None:
    """The grader's "kit error: {reason}" wrapper, in either language, if it has one."""
    regexes = []
    for lang in ("fr", "en"):
        template = MESSAGES[lang].get("grade.kit_error", "")
        if template.count("{") == 1 and template.endswith("}"):
            regexes.append(re.escape(template[:template.index("{")]))
    return re.compile("|".join(regexes)) if regexes else None


KIT_ERROR_PREFIX = kit_error_prefix()


RUN_REASONS = {"grade.timeout": HUNG, "grade.too_much_output": STOPPED, "grade.not_a_folder": UNREADABLE,
               "grade.copy_files": REFUSED, "grade.copy_bytes": REFUSED, "grade.copy_time": REFUSED,
               "grade.copy_depth": REFUSED, "grade.many_folders": REFUSED, "grade.empty": EMPTY}


def run_kind(error: str, kit_error: bool, reason: str = "", fields: dict | None = None) -> str | None:
    """hung, cpu, crashed, stopped, unreadable or kit_error; None for a run that finished.

    The grader's message key (`reason`, Report.reason) decides, whatever status came with it
    (a grader may call every run it could not finish a kit error); without one (a results
    file read back, an older record) the error's first line is read back into one of the same
    messages; an error the grader has no message for is its own failure.
    """
    if reason in RUN_REASONS:
        return RUN_REASONS[reason]
    if reason == "grade.crashed":
        return crash_kind(str((fields or {}).get("code", "")))
    first = error.split("\n")[0].strip()
    if KIT_ERROR_PREFIX is not None and (prefix := KIT_ERROR_PREFIX.match(first)):
        first = first[prefix.end():]
    for key, kind in RUN_REASONS.items():
        if PATTERNS[key.removeprefix("grade.")].fullmatch(first):
            return kind
    crashed = PATTERNS["crashed"].fullmatch(first)
    if crashed:
        return crash_kind(next((value for name, value in crashed.groupdict().items() if name.startswith("code") and value), ""))
    return KIT_ERROR if error or kit_error else None


def crash_kind(code: str) -> str:
    """A check run that ended with exit code `code` and no report: out of CPU, killed, or crashed."""
    try:
        number = int(code)
    except ValueError:
        return CRASHED
    if number in (-SIGXCPU, 128 + SIGXCPU):
        return CPU
    return STOPPED if number < 0 else CRASHED


# A check's reason (lab/checks/texts.py) → the cause it names; the rest is "the first rule broken".
REASON_CAUSES = {"file.missing": MISSING, "grade.bonus_not_attempted": MISSING, "part.unwritten": UNWRITTEN,
                 "part.not_yet": UNWRITTEN, "run.silent": HANG, "run.spun": SPIN, "run.stopped_silent": CRASH,
                 "client.hangs_silent": HANG, "client.nothing_reached": HANG, "model.load_hangs": HANG,
                 "file.does_not_load": CRASH, "model.stopped_before": CRASH}
COMPILE_ERRORS = re.compile(r"^(?:SyntaxError|IndentationError|TabError)\b", re.M)  # Python's own, in the output
# The error line Python ends a traceback with ("NameError: name 'x' is not defined"), as the
# student's trimmed output shows it (lab/checks/tracebacks.py): a client that sent nothing
# because it raised crashed; one that sent nothing without raising broke the rule.
PYTHON_ERROR = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit)\b(?::|$)", re.M)
ANSWERS_TASK = "answers"


def task_of_part(name: str) -> str:
    """The task id whose title is `name` ("serveur, partie 3" → "server-3"), or `name`."""
    try:
        from lab.checks import registry

        tasks = registry()[2]
    except Exception:
        return name
    return next((task for task, titles in tasks.items() if name in titles.values()), name)


def file_of(check: CheckResult) -> str:
    return FILES.get(check.id.split(".")[0], check.id.split(".")[0])


def reason_of(check: CheckResult) -> tuple[str, dict]:
    """The check's reason key and fields. A result without one (an --out folder written before
    results kept their reasons, or a results file read back without the kit's record) has its
    message read back into a key of the same table, in either language (texts.recognise)."""
    if check.reason:
        return check.reason, check.fields
    found = recognise(check.message, READ_BACK)
    if found is None:
        return "", {}
    key, fields = found
    if "task" in fields:  # written as the part's title: its task id
        fields = {**fields, "task": task_of_part(fields["task"])}
    return key, fields


READ_BACK = ("file.missing", "part.unwritten", "part.not_yet", "part.waits_for", "run.silent", "run.spun",
             "run.stopped_silent", "file.does_not_load", "model.stopped_before", "client.sent_nothing", "answers.cell")


def check_cause(check: CheckResult) -> str:
    """The cause a failed check names, as a code (module docstring), read from its reason key."""
    reason, fields = reason_of(check)
    kind = REASON_CAUSES.get(reason)
    if reason == "client.sent_nothing" and PYTHON_ERROR.search(check.output):
        kind = CRASH
    if reason == "answers.cell" and untouched_table(check, fields):
        return f"{UNWRITTEN}:{check.task or ANSWERS_TASK}"
    if kind is None and reason == "" and (bonus := recognise_bonus(check.message)):
        return f"{MISSING}:{bonus}"
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


def untouched_table(check: CheckResult, fields: dict) -> bool:
    """An answers check's first wrong cell is empty (written as "—") and no other it names is
    wrong: the table is still to write, not a rule broken. A result without its fields (read
    back) names the wrong cells in a sentence of its own (answers.also_wrong)."""
    if check.actual not in ("", "—"):
        return False
    if check.reason:
        return not fields.get("wrong_cells")
    return not any(TEXTS[lang]["answers.also_wrong"].partition("{cells}")[0] in check.message for lang in TEXTS)


def recognise_bonus(message: str) -> str:
    """The file an older record's "bonus not attempted" names (the grader's sentence, lab/i18n.py), or ""."""
    pattern = message_pattern("grade.bonus_not_attempted")
    found = pattern.fullmatch(message.strip().split("\n")[0])
    return next((value for value in found.groupdict().values() if value), "") if found else ""


def could_run(check: CheckResult) -> bool:
    """Did this check judge the student's work (passed or failed on its own), rather than
    waiting for an earlier check or stopped by the kit? Formats without a skipped status
    write a skip as a failure with the engine's reason: read that too."""
    if check.status == PASSED:
        return True
    return check.status == FAILED and reason_of(check)[0] not in ("part.not_yet", "part.waits_for")


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
