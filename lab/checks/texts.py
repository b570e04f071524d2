"""The checks' student-facing reasons: a key and its fields, rendered once, at the edge.

A check (or a probe, or a real MCP client) says why it failed as a key of a `REASONS` table and
plain fields (numbers, file names, task ids): what a result carries (`CheckResult.reason` and
`.fields`, kept in --json and report.json) and what lab/grading/causes.py reads.
`say(lang, key, **fields)` writes the sentence in the run's language; nothing else translates.
Each checks module keeps its own `REASONS` beside its checks; this one holds those every module
says. `lab.checks.reasons()` gathers them all, as the registry gathers the checks.

A field named in `WORDS` is itself written in the language (a task id as its title, `who` as
"who.<value>", seconds as the language writes a decimal, JSON's None as "missing"); a field
whose value is a reason, {"reason": key, "fields": {...}} (a real client's, inside a check's),
as that sentence. Every key exists in French and English with the same fields
(tests/test_texts.py). A check's title and hint are written with `fill` (lab/checks/engine.py
`Check`). To add a reason: a key in its module's `REASONS` in both languages, then
`Failed(expected, actual, reason="the.key", fields={...})` in the check.
"""

from __future__ import annotations

import string
from typing import Any, Callable

# The registry and its gathered reasons, read only when a sentence is written: lab.checks imports
# every checks module, which imports this one.
import lab.checks as checks
from lab.i18n import decimal, text

REASONS: dict[str, dict[str, str]] = {
    "fr": {
        # The engine's own (lab/checks/engine.py).
        "part.unwritten": "Cette partie est encore à écrire (« {task} »).",
        "part.not_yet": "pas encore vérifiable : il faut d’abord écrire « {task} »",
        "part.waits_for": "pas encore vérifiable : il faut d’abord que « {title} » réussisse",
        "kit.error": "Erreur du kit, pas de votre code : {what}",
        "kit.probe_late": "Erreur du kit, pas de votre code : la sonde {name!r} n’a pas fini en {limit:g} s",
        # A student file, or its program, that gives nothing to judge.
        "file.missing": "Il n’y a pas de fichier {file}.",
        "file.does_not_load": "{file} ne se charge pas.",
        "part.raises": "{call} lève une exception au lieu d’écrire sa réponse.",
        # A direct call that gave nothing back (lab/checks/parts.py), or an answer that is not the kit's.
        "part.hangs": "{call} ne rend pas la main : rien n’est revenu en {seconds:g} s.",
        "part.spins": "{call} tourne sans fin : il a utilisé tout son temps de calcul ({cpu} s de CPU).",
        "part.stopped": "Le programme s’est arrêté pendant {call} (os._exit, un signal ?) : l’appel n’a rien rendu.",
        "part.bad_answer": "La réponse à {call} n’est pas celle du kit : quelque chose dans votre code a écrit à sa "
                           "place (sur la vraie sortie du programme, ou en changeant les fonctions du kit).",
        "who.server": "Le serveur",
        "who.bonus": "Le serveur bonus",
        "who.client": "Le client",
        "run.silent": "{who} n’a rien écrit en {seconds:g} s.",
        "run.spun": "{who} a utilisé tout son temps de calcul ({cpu} s de CPU) sans rien écrire, une boucle sans fin "
                    "sans doute.",
        "run.stopped_silent": "{who} s’est arrêté (code {code}) sans rien écrire.",
        # Python's own errors (lab/checks/tracebacks.py): a frame, what an error means (python.<its type>),
        # and the hint for a file that does not load.
        "trace.frame": "{file}, ligne {line}",
        "trace.frame_in": "{file}, ligne {line}, dans {where}",
        "python.NameError": "Python ne connaît pas le nom « {name} » : une faute de frappe, ou un nom défini plus bas "
                            "ou dans une autre fonction ?",
        "python.UnboundLocalError": "« {name} » est ici une variable de la fonction (une affectation ou un import de "
                                    "{name} dans la fonction la rend locale), lue avant d’avoir reçu sa valeur. Pour "
                                    "changer une variable du module (comme state), déclarez-la global au début de la "
                                    "fonction ; pour un import, faites-le avant de lire le nom.",
        "python.KeyError.table": "Cette table de votre fichier n’a pas de clé « {name} » : regardez les clés qu’elle a, "
                                 "une faute de frappe peut-être.",
        "python.KeyError": "La clé « {name} » n’est pas dans ce dictionnaire : vérifiez d’abord qu’elle y est ; "
                           "les messages n’ont pas tous les mêmes clés.",
        "python.KeyError.id": "La clé « id » n’est pas dans ce dictionnaire : vérifiez d’abord qu’elle y est (une "
                              "notification n’a pas d’id, et ne reçoit jamais de réponse).",
        "python.KeyError.near": "La clé « {name} » n’est pas dans ce dictionnaire : une faute de frappe pour « {near} », "
                                "une clé des messages de la leçon ?",
        "python.JsName": "« {name} » s’écrit ainsi en JavaScript (et en JSON) ; en Python, c’est {python}, avec sa "
                         "majuscule. json.loads et json.dumps traduisent l’un dans l’autre.",
        "python.JsOperator": "&&, || et === s’écrivent ainsi en JavaScript ; en Python, ce sont and, or et ==.",
        "python.Concatenate": "Le signe + ne colle un texte (str) qu’à un autre texte : un dict ou une liste devient du "
                              "texte JSON avec json.dumps(valeur), un nombre du texte avec str(valeur).",
        "python.ConcatenateAnswer": "ask renvoie un Answer, pas un texte : la phrase du modèle est dans son champ "
                                    "text (answer.text).",
        "python.AttributeError": "Cette valeur n’a pas d’attribut « {name} » : vérifiez son type et l’orthographe.",
        "python.FunctionNotCalled": "Cette valeur est une fonction, pas son résultat : une fonction nommée sans ses "
                                    "parenthèses (scenario au lieu de scenario()) n’est pas appelée.",
        "python.MethodAttribute": "Cette valeur est une fonction, pas son résultat : une fonction ou une méthode "
                                  "nommée sans ses parenthèses (line.strip au lieu de line.strip()) n’est pas appelée, "
                                  "et n’a pas d’attribut « {name} ».",
        "python.DictAttribute": "Un dictionnaire (dict) n’a pas d’attribut « {name} » : un message JSON lu par Python "
                                "est un dict, et ses clés se lisent entre crochets, message[\"{name}\"], pas avec un "
                                "point comme en JavaScript.",
        "python.NoneAttribute": "Cette valeur est None (rien) : elle n’a pas d’attribut « {name} ». None vient souvent d’une "
                                "clé absente lue avec .get(), ou d’une fonction sans return.",
        "python.StrAttribute": "Cette valeur est un texte (str), sans attribut « {name} » : une ligne reçue est du "
                               "texte, et ne devient un dict qu’une fois lue comme JSON.",
        "python.NoneSubscript": "Cette valeur est None (rien) : elle n’a pas de clés à lire. None vient souvent "
                                "d’une clé absente lue avec .get(), ou d’une fonction sans return.",
        "python.StrSubscript": "Ce texte (str) est lu comme un dict : une ligne reçue est du texte, et ne devient un "
                               "dict qu’une fois lue comme JSON.",
        "python.TypeError": "Une opération a reçu une valeur du mauvais type, ou une fonction le mauvais nombre "
                            "d’arguments.",
        "python.IndexError": "Un indice dépasse la longueur de la liste (le premier est 0).",
        "python.FormatIndex": "Ce texte a plus de {{}} que .format ne reçoit de valeurs : chaque {{}} prend la valeur "
                              "suivante. Donnez-en autant, ou nommez-les, comme {{reason}} avec .format(reason=…).",
        "python.ValueError": "Une fonction a reçu une valeur qu’elle ne sait pas traiter.",
        "python.JSONDecodeError": "Ce texte n’est pas du JSON : json.loads l’a refusé.",
        "python.ZeroDivisionError": "Une division par zéro.",
        "python.RecursionError": "Une fonction s’appelle elle-même sans fin : Python s’est arrêté à sa limite de "
                                 "profondeur.",
        "python.AssertionError": "Un assert de votre code a échoué.",
        "python.FileNotFoundError": "Un fichier ou un programme introuvable : vérifiez son nom et le dossier où il "
                                    "est cherché.",
        "python.BrokenPipeError": "L’autre programme s’est arrêté (ou a fermé son entrée) pendant que celui-ci lui "
                                  "écrivait.",
        "python.UnicodeDecodeError": "Des octets qui ne sont pas du texte UTF-8.",
        "python.UnicodeEncodeError": "Un caractère que cette sortie ne sait pas écrire.",
        "python.SyntaxError": "Python ne peut pas lire ce fichier : cette ligne est mal écrite.",
        "python.DateUnquoted": "Python ne peut pas lire ce fichier : un nombre ne commence pas par 0. Une date comme "
                               "2024-11-05 est un texte, entre guillemets : \"2024-11-05\".",
        "python.NotUtf8": "Python ne peut pas lire ce fichier : il n’est pas enregistré en UTF-8.",
        "python.IndentationError": "Python ne peut pas lire ce fichier : l’indentation de cette ligne ne va pas.",
        "python.TabError": "Python ne peut pas lire ce fichier : il mélange tabulations et espaces.",
        "python.ModuleNotFoundError": "Un module introuvable : vérifiez son nom, et que son fichier est à côté.",
        "python.ImportError": "Un nom introuvable dans le module importé : vérifiez son orthographe.",
        "python.other": "Votre code a levé l’exception {type}.",
        "load.syntax": "Python ne peut pas lire {file} : la ligne {line} (ou celle juste avant) est mal écrite — "
                       "parenthèse, deux-points, guillemet ou indentation. Rien d’autre ne peut être vérifié avant.",
        "load.encoding": "Python ne peut pas lire {file} : sa ligne {line} a un caractère qui n’est pas en UTF-8 (un "
                         "fichier enregistré en Latin-1 ou Windows-1252 ?). Enregistrez-le en UTF-8 ; rien d’autre ne "
                         "peut être vérifié avant.",
        "load.import": "{file}, ligne {line}, importe un module introuvable : vérifiez son nom, et que le fichier est "
                       "bien à côté ({beside}).",
    },
    "en": {
        "part.unwritten": "This part is still to write (“{task}”).",
        "part.not_yet": "not checkable yet: “{task}” must be written first",
        "part.waits_for": "not checkable yet: “{title}” must pass first",
        "kit.error": "Kit error, not your code's: {what}",
        "kit.probe_late": "Kit error, not your code's: the probe {name!r} did not finish within {limit:g} s",
        "file.missing": "There is no {file} file.",
        "file.does_not_load": "{file} does not load.",
        "part.raises": "{call} raises an exception instead of writing its reply.",
        "part.hangs": "{call} does not return: nothing came back within {seconds:g} s.",
        "part.spins": "{call} loops forever: it used up its CPU time ({cpu} s).",
        "part.stopped": "The program stopped during {call} (os._exit, a signal?): the call gave nothing back.",
        "part.bad_answer": "The answer to {call} is not the kit's: something in your code wrote in its place (on "
                           "the program's real output, or by changing the kit's functions).",
        "who.server": "The server",
        "who.bonus": "The bonus server",
        "who.client": "The client",
        "run.silent": "{who} wrote nothing in {seconds:g} s.",
        "run.spun": "{who} used up its CPU time ({cpu} s) without writing, an endless loop most likely.",
        "run.stopped_silent": "{who} stopped (code {code}) without writing.",
        "trace.frame": "{file}, line {line}",
        "trace.frame_in": "{file}, line {line}, in {where}",
        "python.NameError": "Python does not know the name “{name}”: a typo, or a name defined further down or in "
                            "another function?",
        "python.UnboundLocalError": "“{name}” is a variable of the function here (an assignment or an import of "
                                    "{name} in the function makes it local), read before it got its value. To change a "
                                    "variable of the module (such as state), declare it global at the start of the "
                                    "function; for an import, do it before reading the name.",
        "python.KeyError.table": "This table of your file has no key “{name}”: look at the keys it has; a typo, maybe.",
        "python.KeyError": "The key “{name}” is not in this dictionary: check first that it is there; messages do "
                           "not all have the same keys.",
        "python.KeyError.id": "The key “id” is not in this dictionary: check first that it is there (a "
                              "notification has no id, and never gets a reply).",
        "python.KeyError.near": "The key “{name}” is not in this dictionary: a typo for “{near}”, a key of the "
                                "lesson's messages?",
        "python.JsName": "“{name}” is written so in JavaScript (and JSON); in Python it is {python}, with its capital. "
                         "json.loads and json.dumps translate one into the other.",
        "python.JsOperator": "&&, || and === are written so in JavaScript; in Python they are and, or and ==.",
        "python.Concatenate": "The + sign joins a text (str) only to another text: a dict or a list becomes JSON text "
                              "with json.dumps(value), a number becomes text with str(value).",
        "python.ConcatenateAnswer": "ask returns an Answer, not a text: the model's sentence is in its field text "
                                    "(answer.text).",
        "python.AttributeError": "This value has no attribute “{name}”: check its type and the spelling.",
        "python.FunctionNotCalled": "This value is a function, not its result: a function named without its "
                                    "parentheses (scenario instead of scenario()) is not called.",
        "python.MethodAttribute": "This value is a function, not its result: a function or a method named without "
                                  "its parentheses (line.strip instead of line.strip()) is not called, and has no "
                                  "attribute “{name}”.",
        "python.DictAttribute": "A dictionary (dict) has no attribute “{name}”: a JSON message read by Python is a "
                                "dict, and its keys are read in brackets, message[\"{name}\"], not with a dot as in "
                                "JavaScript.",
        "python.NoneAttribute": "This value is None (nothing): it has no attribute “{name}”. None often comes from "
                                "a missing key read with .get(), or a function without return.",
        "python.StrAttribute": "This value is a text (str), with no attribute “{name}”: a line received is text, and "
                               "becomes a dict only once read as JSON.",
        "python.NoneSubscript": "This value is None (nothing): it has no keys to read. None often comes from "
                                "a missing key read with .get(), or a function without return.",
        "python.StrSubscript": "This text (str) is read as a dict: a line received is text, and becomes a dict only "
                               "once read as JSON.",
        "python.TypeError": "An operation got a value of the wrong type, or a function the wrong number of arguments.",
        "python.IndexError": "An index goes past the end of the list (the first one is 0).",
        "python.FormatIndex": "This text has more {{}} than .format gets values: each {{}} takes the next value. Give "
                              "as many, or name them, as {{reason}} with .format(reason=…).",
        "python.ValueError": "A function got a value it cannot handle.",
        "python.JSONDecodeError": "This text is not JSON: json.loads refused it.",
        "python.ZeroDivisionError": "A division by zero.",
        "python.RecursionError": "A function calls itself without end: Python stopped at its depth limit.",
        "python.AssertionError": "An assert in your code failed.",
        "python.FileNotFoundError": "A file or a program that cannot be found: check its name and the folder it is "
                                    "looked for in.",
        "python.BrokenPipeError": "The other program stopped (or closed its input) while this one was writing to "
                                  "it.",
        "python.UnicodeDecodeError": "Bytes that are not UTF-8 text.",
        "python.UnicodeEncodeError": "A character this output cannot write.",
        "python.SyntaxError": "Python cannot read this file: this line is malformed.",
        "python.DateUnquoted": "Python cannot read this file: a number does not start with 0. A date such as "
                               "2024-11-05 is a text, in quotes: \"2024-11-05\".",
        "python.NotUtf8": "Python cannot read this file: it is not saved as UTF-8.",
        "python.IndentationError": "Python cannot read this file: this line's indentation is wrong.",
        "python.TabError": "Python cannot read this file: it mixes tabs and spaces.",
        "python.ModuleNotFoundError": "A module that cannot be found: check its name, and that its file is beside it.",
        "python.ImportError": "A name that cannot be found in the imported module: check its spelling.",
        "python.other": "Your code raised the exception {type}.",
        "load.syntax": "Python cannot read {file}: line {line} (or the one just before) is malformed — a bracket, a "
                       "colon, a quote or the indentation. Nothing else can be checked before that.",
        "load.encoding": "Python cannot read {file}: its line {line} has a character that is not UTF-8 (a file saved "
                         "as Latin-1 or Windows-1252?). Save it as UTF-8; nothing else can be checked before that.",
        "load.import": "{file}, line {line}, imports a module that cannot be found: check its name, and that the file "
                       "is beside it ({beside}).",
    },
}


def cell_word(lang: str, cell: str) -> str:
    from lab.checks.answers_checks import cell_name  # the cells' English labels live with the cells

    return cell_name(cell, lang)


def cells_sentence(key: str) -> Callable[[str, list[str]], str]:
    """The other cells, as the sentence `key` naming them, or nothing when there are none."""
    return lambda lang, cells: say(lang, key, cells=cells) if cells else ""


def json_word(lang: str, value: Any) -> str:
    return text(lang, "check.absent") if value is None else value  # the word the terminal report says


WORDS: dict[str, Callable[[str, Any], str]] = {
    "task": lambda lang, task: checks.task_title(task, lang),
    "got": json_word,
    "want": json_word,
    "who": lambda lang, value: REASONS[lang][f"who.{value}"],
    "cpu": lambda lang, value: decimal(float(value), lang),
    "load_seconds": lambda lang, value: decimal(float(value), lang),
    "cell": cell_word,
    "cells": lambda lang, cells: ", ".join(cell_word(lang, cell) for cell in cells),
    "empty_cells": cells_sentence("answers.still_empty"),
    "wrong_cells": cells_sentence("answers.also_wrong"),
}


def say(lang: str, key: str, **fields: Any) -> str:
    """The sentence for `key` in `lang` (fr when the language is unknown), its fields filled in."""
    lang = lang if lang in REASONS else "fr"
    return fill(lang, checks.reasons()[lang][key], **fields)


def fill(lang: str, template: str, **fields: Any) -> str:
    """A template of this table's shape, its fields written in `lang` (see WORDS)."""
    return template.format(**{name: word(lang, name, value) for name, value in fields.items()})


def word(lang: str, name: str, value: Any) -> Any:
    """A field's value as the sentence shows it (see WORDS, and reasons inside reasons)."""
    if name in WORDS:
        return WORDS[name](lang, value)
    if isinstance(value, dict) and set(value) <= {"reason", "fields"} and value.get("reason") in checks.reasons()[lang]:
        return say(lang, value["reason"], **value.get("fields", {}))
    return value


def in_each_language(key: str, **fields: Any) -> dict[str, str]:
    """{"fr": …, "en": …}: a key written in both languages, for what is shown in either (a
    check's hint, a lesson part's name)."""
    return {lang: say(lang, key, **fields) for lang in REASONS}


def own_words(reasons: dict[str, dict[str, str]], key: str, **fields: Any) -> dict[str, str]:
    """`in_each_language` for a module's own key while it loads: the registry gathers its
    `REASONS` only once every checks module is loaded."""
    return {lang: fill(lang, reasons[lang][key], **fields) for lang in reasons}


def field_names(template: str) -> set[str]:
    """The {name} placeholders of a template."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}
