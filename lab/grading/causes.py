"""Why a submission lost its first points: what an instructor re-teaches, one word per student.

`first_cause(checks, error, kit_error)` reads a run as graded (a Report's results, or the same
read back from a results file) and answers with a code written into summary.csv and shown by
the class report:

- the run itself did not finish: `hung`, `cpu`, `crashed`, `stopped` (a signal, too much
  output), `unreadable` (not a folder) or `kit-error` (the kit's fault, not the student's);
- else the first check, in the catalogue's order, that failed on its own (a skipped check only
  follows an earlier failure): `missing:FILE`, `syntax:FILE`, `hang:FILE`, `cpu:FILE`,
  `crash:FILE`, `unwritten:TASK` (the program says a part is still to write), or
  `rule:CHECK-ID` (the first rule broken);
- "" when every check passed.

The texts matched are the grader's own (lab/i18n.py) and the checks' own (lab/checks), in
both languages, so a cause is found whatever language the class was graded in.
"""

from __future__ import annotations

import re

from lab.checks.engine import NOT_YET as NOT_YET_TEXT
from lab.checks.engine import UNWRITTEN as UNWRITTEN_TEXT
from lab.i18n import MESSAGES
from lab.results import ERROR, FAILED, PASSED, CheckResult

HUNG, CPU, CRASHED, STOPPED, UNREADABLE, KIT_ERROR = "hung", "cpu", "crashed", "stopped", "unreadable", "kit_error"
RUN_KINDS = (HUNG, CPU, CRASHED, STOPPED, UNREADABLE, KIT_ERROR)
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


def run_kind(error: str, kit_error: bool) -> str | None:
    """hung, cpu, crashed, stopped, unreadable or kit_error; None for a run that finished.

    The error's text decides, whatever status came with it (a grader may call every run it
    could not finish a kit error); an error the grader has no message for is its own failure.
    """
    first = error.split("\n")[0].strip()
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
    return KIT_ERROR if error or kit_error else None


# The checks' own first sentences (server_checks.require_json_rpc_lines, the *_checks "no file"
# texts, engine.UNWRITTEN, model_checks' unwritten ask), in French and English.
NO_FILE = re.compile(r"^(?:Bonus non tenté : il n’y a pas de fichier (?P<bfr>\S+?)\.(?:\s|$)"
                     r"|Bonus not attempted: there is no (?P<ben>\S+?) file\."
                     r"|Il n’y a pas de fichier (?P<fr>\S+?)\.(?:\s|$)|There is no (?P<en>\S+?) file\.)")
SILENT = re.compile(r"(?:n’a rien écrit en |wrote nothing in )")
SPUN = re.compile(r"(?:a utilisé tout son temps de calcul|used up its CPU time)")
STOPPED_SILENT = re.compile(r"(?:s’est arrêté \(code -?\d+\) sans rien écrire|stopped \(code -?\d+\) without writing)")
# The engine's own sentences that name a part still to write (engine.UNWRITTEN, engine.NOT_YET),
# in both languages, the part's name captured: a new wording there is read here with no copy.
PART_NAMED = [re.compile(f"^{re.escape(template[lang]).replace(re.escape('{part}'), '(?P<part>.+?)', 1)}$")
              for template in (UNWRITTEN_TEXT, NOT_YET_TEXT) for lang in ("fr", "en")]
ASK_UNWRITTEN = re.compile(r"^(?:ask est encore à écrire|ask is still to be written)\.")
COMPILE_ERRORS = re.compile(r"^(?:SyntaxError|IndentationError|TabError)\b", re.M)
SKIPPED_TEXT = re.compile(r"^(?:ignoré : «|skipped: “)")  # engine.judge(): an earlier check failed


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


def check_cause(check: CheckResult) -> str:
    """The cause a failed check names, as a code (module docstring)."""
    message = check.message.strip()
    if match := NO_FILE.match(message):
        return f"{MISSING}:{next(name for name in match.groups() if name)}"
    if match := next(filter(None, (pattern.match(message) for pattern in PART_NAMED)), None):
        return f"{UNWRITTEN}:{task_of_part(match.group('part'))}"
    if ASK_UNWRITTEN.match(message):
        return f"{UNWRITTEN}:{check.task}"
    if SILENT.search(message):
        return f"{HANG}:{file_of(check)}"
    if SPUN.search(message):
        return f"{SPIN}:{file_of(check)}"
    if STOPPED_SILENT.search(message):
        compiled = COMPILE_ERRORS.search(check.output) or COMPILE_ERRORS.search(check.actual)
        return f"{SYNTAX if compiled else CRASH}:{file_of(check)}"
    return f"{RULE}:{check.id}"


def could_run(check: CheckResult) -> bool:
    """Did this check judge the student's work (passed or failed on its own), rather than
    being skipped after an earlier failure or stopped by the kit? Formats without a skipped
    status write a skip as a failure with the engine's "skipped" sentence: read that too."""
    if check.status == PASSED:
        return True
    return check.status == FAILED and not SKIPPED_TEXT.match(check.message.strip())


def first_cause(checks: list[CheckResult], error: str = "", kit_error: bool = False) -> str:
    kind = run_kind(error, kit_error)
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
