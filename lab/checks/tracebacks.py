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


FRAME_WORDS = {"fr": {"line": "ligne", "in": "dans"}, "en": {"line": "line", "in": "in"}}


def short_frame(line: str, lang: str) -> str:
    """`  File "/somewhere/server.py", line 33, in main` as `server.py, ligne 33, dans main`:
    no path of the machine (a student's files are all in their folder), in the run's language."""
    frame = FRAME.match(line)
    if not frame:
        return line
    words = FRAME_WORDS[lang]
    where = f", {words['in']} {frame['where']}" if frame["where"] and frame["where"] != "<module>" else ""
    name = re.split(r"[\\/]", frame["path"])[-1]
    return f"{name}, {words['line']} {frame['line']}{where}"


# Python's error line: its type (json.decoder.JSONDecodeError), then its own English words.
ERROR_LINE = re.compile(r"^(?:\w+\.)*(?P<type>\w*(?:Error|Exception|Exit|Iteration|Interrupt))(?::\s?(?P<text>.*))?$")
NAMED = re.compile(r"'(?P<name>[^']+)'")  # the name Python quotes: 'outils', 'id', 'dict'
PATH = re.compile(r"(?<![^\s'\"(])(?:[A-Za-z]:)?[\\/](?:[^\s'\"]*[\\/])?(?P<name>[\w.-]+\.py)\b")  # /tmp/lab-x/server.py

# What Python's error means, said first in the student's language; Python's own line follows.
PYTHON_ERRORS = {
    "fr": {
        "NameError": "Python ne connaît pas le nom « {name} » : une faute de frappe, ou un nom défini plus bas "
                     "ou dans une autre fonction ?",
        "UnboundLocalError": "« {name} » est ici une variable locale, lue avant d’avoir reçu une valeur : pour "
                             "changer une variable du module (comme state), écrivez global {name} au début de la "
                             "fonction.",
        "KeyError": "La clé « {name} » n’est pas dans ce dictionnaire : lisez-la avec .get(), ou vérifiez d’abord "
                    "qu’elle y est (une notification n’a pas d’id).",
        "AttributeError": "Cette valeur n’a pas d’attribut « {name} » : vérifiez son type et l’orthographe.",
        "TypeError": "Une opération a reçu une valeur du mauvais type, ou une fonction le mauvais nombre "
                     "d’arguments.",
        "IndexError": "Un indice dépasse la longueur de la liste (le premier est 0).",
        "ValueError": "Une fonction a reçu une valeur qu’elle ne sait pas traiter.",
        "JSONDecodeError": "Ce texte n’est pas du JSON : json.loads l’a refusé.",
        "ZeroDivisionError": "Une division par zéro.",
        "RecursionError": "Une fonction s’appelle elle-même sans fin : Python s’est arrêté à sa limite de "
                          "profondeur.",
        "AssertionError": "Un assert de votre code a échoué.",
        "FileNotFoundError": "Un fichier ou un programme introuvable : vérifiez son nom et le dossier où il est "
                             "cherché.",
        "BrokenPipeError": "L’autre programme a fermé le tube pendant que celui-ci y écrivait.",
        "UnicodeDecodeError": "Des octets qui ne sont pas du texte UTF-8.",
        "UnicodeEncodeError": "Un caractère que cette sortie ne sait pas écrire.",
        "SyntaxError": "Python ne peut pas lire ce fichier : cette ligne est mal écrite.",
        "NotUtf8": "Python ne peut pas lire ce fichier : il n’est pas enregistré en UTF-8.",
        "IndentationError": "Python ne peut pas lire ce fichier : l’indentation de cette ligne ne va pas.",
        "TabError": "Python ne peut pas lire ce fichier : il mélange tabulations et espaces.",
        "ModuleNotFoundError": "Un module introuvable : vérifiez son nom, et que son fichier est à côté.",
        "ImportError": "Un nom introuvable dans le module importé : vérifiez son orthographe.",
        "other": "Votre code a levé l’exception {type}.",
    },
    "en": {
        "NameError": "Python does not know the name “{name}”: a typo, or a name defined further down or in "
                     "another function?",
        "UnboundLocalError": "“{name}” is a local variable here, read before it got a value: to change a variable "
                             "of the module (such as state), write global {name} at the start of the function.",
        "KeyError": "The key “{name}” is not in this dictionary: read it with .get(), or check first that it is "
                    "there (a notification has no id).",
        "AttributeError": "This value has no attribute “{name}”: check its type and the spelling.",
        "TypeError": "An operation got a value of the wrong type, or a function the wrong number of arguments.",
        "IndexError": "An index goes past the end of the list (the first one is 0).",
        "ValueError": "A function got a value it cannot handle.",
        "JSONDecodeError": "This text is not JSON: json.loads refused it.",
        "ZeroDivisionError": "A division by zero.",
        "RecursionError": "A function calls itself without end: Python stopped at its depth limit.",
        "AssertionError": "An assert in your code failed.",
        "FileNotFoundError": "A file or a program that cannot be found: check its name and the folder it is "
                             "looked for in.",
        "BrokenPipeError": "The other program closed the pipe while this one was writing to it.",
        "UnicodeDecodeError": "Bytes that are not UTF-8 text.",
        "UnicodeEncodeError": "A character this output cannot write.",
        "SyntaxError": "Python cannot read this file: this line is malformed.",
        "NotUtf8": "Python cannot read this file: it is not saved as UTF-8.",
        "IndentationError": "Python cannot read this file: this line's indentation is wrong.",
        "TabError": "Python cannot read this file: it mixes tabs and spaces.",
        "ModuleNotFoundError": "A module that cannot be found: check its name, and that its file is beside it.",
        "ImportError": "A name that cannot be found in the imported module: check its spelling.",
        "other": "Your code raised the exception {type}.",
    },
}


def explained(lines: list[str], lang: str) -> list[str]:
    """`lines`, with a sentence saying what it means before a last line that is Python's error."""
    error = ERROR_LINE.match(lines[-1]) if lines else None
    if error is None or error["type"] == "NotImplementedError":  # a part still to write says so itself
        return lines
    texts, text = PYTHON_ERRORS[lang], error["text"] or ""
    named = NAMED.search(text)
    name = named["name"] if named else text.strip()  # KeyError: 0 quotes nothing
    kind = "NotUtf8" if text.startswith("Non-UTF-8 code") else error["type"]
    template = texts.get(kind, texts["other"])
    if "{name}" in template and not name:
        template = texts["other"]
    original = PATH.sub(r"\g<name>", lines[-1])  # a student's file by its name in their folder
    return lines[:-1] + [template.format(name=name, type=error["type"]), original]


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
