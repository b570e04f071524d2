"""A student's traceback, trimmed to their own files: where it broke in their code, and why.

Python prints every frame, the standard library's included (json/decoder.py, ...). A
student needs the frames of their own files (file name and line, with the line's
code) and the error line; the rest is noise under a check.
"""

from __future__ import annotations

import difflib
import re

from lab.checks import texts
from lab.checks.texts import in_each_language, say
from lab.layout import HELPERS

FRAME = re.compile(r'^\s*File "(?P<path>[^"]+)", line (?P<line>\d+)(?:, in (?P<where>.+))?$')
HEADER = "Traceback (most recent call last):"


def is_marker(line: str) -> bool:
    return bool(line.strip()) and set(line.strip()) <= set("^~")


def trimmed(stderr: str, files: tuple[str, ...], lang: str, tail: int = 8) -> str:
    """The last traceback in `stderr` with only the frames of `files` (base names, e.g.
    "server.py"), and its error line after a sentence that says it in `lang`; without a
    traceback, the last `tail` lines."""
    lines = stderr.splitlines()
    starts = [index for index, line in enumerate(lines) if line.startswith(HEADER)]
    if not starts:  # a SyntaxError at start-up has no header: its file named as in a traceback
        return "\n".join(explained([short_frame(line, lang) for line in lines[-tail:]], lang))
    block = lines[starts[-1] + 1:]
    kept: list[str] = []
    error: list[str] = []
    index = 0
    while index < len(block):
        line = block[index]
        frame = FRAME.match(line)
        if frame:
            code = block[index + 1].strip() if index + 1 < len(block) and not FRAME.match(block[index + 1]) else ""
            if re.split(r"[\\/]", frame["path"])[-1] in files:
                kept.append(short_frame(line, lang))
                if code:
                    kept.append(f"    {code}")
            index += 2 if code else 1
            while index < len(block) and is_marker(block[index]):
                index += 1  # the ^^^^ under the code
            continue
        if line and not line.startswith(" "):
            error = [line]  # the last unindented line is the error (earlier ones: chained notes)
        index += 1
    return "\n".join(explained(kept + error, lang)) if kept or error else "\n".join(lines[-tail:])


def short_frame(line: str, lang: str) -> str:
    """`  File "/somewhere/server.py", line 33, in main` as `server.py, ligne 33, dans main`:
    no path of the machine (a student's files are all in their folder), in the run's language."""
    frame = FRAME.match(line)
    if not frame:
        return line
    name = re.split(r"[\\/]", frame["path"])[-1]
    if frame["where"] and frame["where"] != "<module>":
        return say(lang, "trace.frame_in", file=name, line=frame["line"], where=frame["where"])
    return say(lang, "trace.frame", file=name, line=frame["line"])


# Python's error line: its type (json.decoder.JSONDecodeError), then its own English words.
ERROR_LINE = re.compile(r"^(?:\w+\.)*(?P<type>\w*(?:Error|Exception|Exit|Iteration|Interrupt))(?::\s?(?P<text>.*))?$")
NAMED = re.compile(r"'(?P<name>[^']+)'")  # the name Python quotes: 'outils', 'id'
ATTRIBUTE = re.compile(r"has no attribute '(?P<name>[^']+)'")  # the attribute, not the type quoted before it
OBJECT = re.compile(r"'(?P<type>\w+)' object has no attribute")
# The values a student's message handling meets, said by what they are in the lesson (a message, a line).
VALUE_KINDS = {"dict": "python.DictAttribute", "NoneType": "python.NoneAttribute", "str": "python.StrAttribute",
               **dict.fromkeys(("builtin_function_or_method", "method", "function"), "python.MethodAttribute")}
TYPE_ERRORS = {"'NoneType' object is not subscriptable": "python.NoneSubscript", "string indices": "python.StrSubscript",
               "can only concatenate str": "python.Concatenate",
               **dict.fromkeys(("'function' object is not", "'method' object is not",
                                "'builtin_function_or_method' object is not"), "python.FunctionNotCalled")}  # "+ " + message: JavaScript turns it into text
# JavaScript's habits, said the Python way: its constants (JSON's too), and its operators.
JS_NAMES = {"true": "True", "false": "False", "null": "None", "undefined": "None"}
JS_OPERATORS = ("&&", "||", "===", "!==")
# The keys of the lesson's messages: a KeyError on a name close to one of them is a typo for it.
LESSON_KEYS = ("jsonrpc", "id", "method", "params", "result", "error", "code", "message", "data", "protocolVersion",
               "capabilities", "clientInfo", "serverInfo", "name", "version", "tools", "listChanged", "requested",
               "supported", "role", "content", "choices")
# What the error means is said first in the student's language (texts.py's python.<type> keys),
# then Python's own line follows.
PATH = re.compile(r"(?<![^\s'\"(])(?:[A-Za-z]:)?[\\/](?:[^\s'\"]*[\\/])?(?P<name>[\w.-]+\.py)\b")  # /tmp/lab-x/server.py

def explained(lines: list[str], lang: str) -> list[str]:
    """`lines`, with a sentence saying what it means before a last line that is Python's error."""
    error = ERROR_LINE.match(lines[-1]) if lines else None
    if error is None or error["type"] == "NotImplementedError":  # a part still to write says so itself
        return lines
    text = error["text"] or ""
    named = ATTRIBUTE.search(text) or NAMED.search(text)  # 'dict' object has no attribute 'method': method
    name = named["name"] if named else text.strip()  # KeyError: 0 quotes nothing
    key = "python." + ("NotUtf8" if text.startswith("Non-UTF-8 code") else error["type"])
    if key == "python.AttributeError" and (kind := OBJECT.match(text)) and kind["type"] in VALUE_KINDS:
        key = VALUE_KINDS[kind["type"]]
    near = difflib.get_close_matches(name.strip("'\""), LESSON_KEYS, 1, 0.75)
    constant = len(lines) > 1 and re.search(rf"\b[A-Z][A-Z0-9_]*\[['\"]{re.escape(name)}['\"]\]", lines[-2])
    if key == "python.KeyError" and constant:  # TEXT["id"]: a table of the file's, not a message
        key = "python.KeyError.table"
    elif key == "python.KeyError" and name == "id":  # the lesson's own case: a notification has none
        key = "python.KeyError.id"
    elif key == "python.KeyError" and near and near[0] != name:  # message["parms"]
        key = "python.KeyError.near"
    if key == "python.NameError" and name in JS_NAMES:
        key = "python.JsName"
    if key == "python.SyntaxError" and any(op in line for line in lines[:-1] for op in JS_OPERATORS):
        key = "python.JsOperator"
    if key == "python.SyntaxError" and text.startswith("leading zeros in decimal integer literals"):
        key = "python.DateUnquoted"  # initialize(3, 2024-11-05): the 05 stops Python
    if key == "python.TypeError":
        key = next((said for start, said in TYPE_ERRORS.items() if text.startswith(start)), key)
        key = "python.ConcatenateAnswer" if key == "python.Concatenate" and '(not "Answer")' in text else key
    if key == "python.IndexError" and text.startswith("Replacement index"):  # "({}, {})".format(one)
        key = "python.FormatIndex"
    if key not in texts.REASONS["en"] or ("{name}" in texts.REASONS["en"][key] and not name):
        key = "python.other"
    original = PATH.sub(r"\g<name>", lines[-1])  # a student's file by its name in their folder
    said = say(lang, key, name=name, type=error["type"], python=JS_NAMES.get(name, ""), near=near[0] if near else "")
    return lines[:-1] + [said, original]


LOAD_ERRORS = {"SyntaxError": "syntax", "IndentationError": "syntax", "TabError": "syntax",
               "ModuleNotFoundError": "import", "ImportError": "import"}
WHERE = re.compile(r"^(?P<file>[\w.-]+\.py), (?:line|ligne) (?P<line>\d+)")


# A file saved in another encoding stops at compile time with no frame: its place is in the text.
NOT_UTF8 = re.compile(r"^SyntaxError: Non-UTF-8 code starting with .* in file (?:.*[\\/])?(?P<file>[\w.-]+\.py) "
                      r"on line (?P<line>\d+)")


def load_problem(output: str) -> tuple[str, str, str] | None:
    """(kind, file, line) when a trimmed output ends on an error that stops a file from loading."""
    lines = [line for line in output.splitlines() if line.strip()]
    if not lines:
        return None
    if encoding := NOT_UTF8.match(lines[-1]):
        return "encoding", encoding["file"], encoding["line"]
    kind = LOAD_ERRORS.get(lines[-1].split(":", 1)[0].strip())
    places = [match for match in map(WHERE.match, lines) if match]
    if kind is None or not places:
        return None
    return kind, places[-1]["file"], places[-1]["line"]


# What each student file imports from beside it (the given modules first): for an import error
# there, the files to look for. Any other file may import any of them.
BESIDE = {"server.py": "jsonrpc_lines.py", "bonus_server.py": "jsonrpc_lines.py, server.py",
          "client.py": "jsonrpc_lines.py, server_replies.py, model.py", "model.py": "model_setup.py"}


def load_hint(output: str) -> dict[str, str] | None:
    """The hint for a file that does not load (a SyntaxError, an import error), or None."""
    problem = load_problem(output)
    if problem is None:
        return None
    kind, file, line = problem
    beside = BESIDE.get(file, ", ".join((*HELPERS, "model.py")))
    return in_each_language(f"load.{kind}", file=file, line=line, beside=beside)
