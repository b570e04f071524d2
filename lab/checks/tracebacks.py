"""A student's traceback, trimmed to their own files: where it broke in their code, and why.

Python prints every frame, the standard library's included (json/decoder.py, ...). A
student needs the frames of their own files (file name and line, with the line's
code) and the error line; the rest is noise under a check.
"""

from __future__ import annotations

import re

FRAME = re.compile(r'^\s*File "(?P<path>[^"]+)", line (?P<line>\d+)(?:, in (?P<where>.+))?$')
HEADER = "Traceback (most recent call last):"


def is_marker(line: str) -> bool:
    return bool(line.strip()) and set(line.strip()) <= set("^~")


def trimmed(stderr: str, files: tuple[str, ...], tail: int = 8) -> str:
    """The last traceback in `stderr` with only the frames of `files` (base names, e.g.
    "server.py"), and its error line; without a traceback, the last `tail` lines."""
    lines = stderr.splitlines()
    starts = [index for index, line in enumerate(lines) if line.startswith(HEADER)]
    if not starts:  # a SyntaxError at start-up has no header: its file named as in a traceback
        return "\n".join(short_frame(line) for line in lines[-tail:])
    block = lines[starts[-1] + 1:]
    kept: list[str] = []
    error: list[str] = []
    index = 0
    while index < len(block):
        line = block[index]
        frame = FRAME.match(line)
        if frame:
            code = block[index + 1].strip() if index + 1 < len(block) and not FRAME.match(block[index + 1]) else ""
            name = re.split(r"[\\/]", frame["path"])[-1]
            if name in files:
                where = f", in {frame['where']}" if frame["where"] and frame["where"] != "<module>" else ""
                kept.append(f"{name}, line {frame['line']}{where}")
                if code:
                    kept.append(f"    {code}")
            index += 2 if code else 1
            while index < len(block) and is_marker(block[index]):
                index += 1  # the ^^^^ under the code
            continue
        if line and not line.startswith(" "):
            error = [line]  # the last unindented line is the error (earlier ones: chained notes)
        index += 1
    return "\n".join(kept + error) if kept or error else "\n".join(lines[-tail:])


def short_frame(line: str) -> str:
    """`  File "/somewhere/server.py", line 33` as `server.py, line 33` (no path of the machine)."""
    frame = FRAME.match(line)
    if not frame:
        return line
    where = f", in {frame['where']}" if frame["where"] and frame["where"] != "<module>" else ""
    name = re.split(r"[\\/]", frame["path"])[-1]
    return f"{name}, line {frame['line']}{where}"


LOAD_ERRORS = {"SyntaxError": "syntax", "IndentationError": "syntax", "TabError": "syntax",
               "ModuleNotFoundError": "import", "ImportError": "import"}
WHERE = re.compile(r"^(?P<file>[\w.-]+\.py), line (?P<line>\d+)")


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


LOAD_HINTS = {
    "syntax": {"fr": "Python ne peut pas lire {file} : la ligne {line} (ou celle juste avant) est mal écrite — "
                     "parenthèse, deux-points, guillemet ou indentation. Rien d’autre ne peut être vérifié avant.",
               "en": "Python cannot read {file}: line {line} (or the one just before) is malformed — a bracket, a "
                     "colon, a quote or the indentation. Nothing else can be checked before that."},
    "encoding": {"fr": "Python ne peut pas lire {file} : sa ligne {line} a un caractère qui n’est pas en UTF-8 (un "
                       "fichier enregistré en Latin-1 ou Windows-1252 ?). Enregistrez-le en UTF-8 ; rien d’autre ne "
                       "peut être vérifié avant.",
                 "en": "Python cannot read {file}: its line {line} has a character that is not UTF-8 (a file saved "
                       "as Latin-1 or Windows-1252?). Save it as UTF-8; nothing else can be checked before that."},
    "import": {"fr": "{file}, ligne {line}, importe un module introuvable : vérifiez son nom, et que le fichier "
                     "est bien à côté (plumbing.py, model.py).",
               "en": "{file}, line {line}, imports a module that cannot be found: check its name, and that the "
                     "file is beside it (plumbing.py, model.py)."},
}


def load_hint(output: str) -> dict[str, str] | None:
    """The hint for a file that does not load (a SyntaxError, an import error), or None."""
    problem = load_problem(output)
    if problem is None:
        return None
    kind, file, line = problem
    return {lang: text.format(file=file, line=line) for lang, text in LOAD_HINTS[kind].items()}
