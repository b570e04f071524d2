"""A student's traceback trimmed to their own files: file and line, the code, the error."""

from __future__ import annotations

import shutil

import pytest

from conftest import ROOT
from lab.checks import run_checks
from lab.checks.tracebacks import trimmed

CHAINED = '''\
Traceback (most recent call last):
  File "/tmp/x/server.py", line 12, in lire
    return json.loads(ligne)
           ^^^^^^^^^^^^^^^^^
  File "/usr/lib/python3.11/json/__init__.py", line 346, in loads
    return _default_decoder.decode(s)
json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/tmp/x/server.py", line 30, in <module>
    traiter(lire(ligne))
  File "/tmp/x/server.py", line 14, in lire
    raise ValueError("pas du JSON")
ValueError: pas du JSON
'''


def test_only_the_last_traceback_and_the_students_frames_are_kept():
    assert trimmed(CHAINED, ("server.py",), "en").splitlines() == [
        "server.py, line 30", "    traiter(lire(ligne))",
        "server.py, line 14, in lire", '    raise ValueError("pas du JSON")',
        "A function got a value it cannot handle.",
        "ValueError: pas du JSON"]


def test_in_french_the_frames_and_the_sentence_are_french_and_pythons_line_follows():
    assert trimmed(CHAINED, ("server.py",), "fr").splitlines() == [
        "server.py, ligne 30", "    traiter(lire(ligne))",
        "server.py, ligne 14, dans lire", '    raise ValueError("pas du JSON")',
        "Une fonction a reçu une valeur qu’elle ne sait pas traiter.",
        "ValueError: pas du JSON"]


def error_at_line_3(error_line: str) -> str:
    return f'Traceback (most recent call last):\n  File "/x/server.py", line 3, in handle\n    go()\n{error_line}\n'


@pytest.mark.parametrize("error_line, fr, en", [
    ('TypeError: can only concatenate str (not "Answer") to str',
     "ask renvoie un Answer, pas un texte : la phrase du modèle est dans son champ text (answer.text).",
     "ask returns an Answer, not a text: the model's sentence is in its field text (answer.text)."),
    ('TypeError: can only concatenate str (not "dict") to str',
     "Le signe + ne colle un texte (str) qu’à un autre texte : un dict ou une liste devient du texte JSON avec "
     "json.dumps(valeur), un nombre du texte avec str(valeur).",
     "The + sign joins a text (str) only to another text: a dict or a list becomes JSON text with json.dumps(value), "
     "a number becomes text with str(value)."),
    ("NameError: name 'outils' is not defined",
     "Python ne connaît pas le nom « outils » : une faute de frappe, ou un nom défini plus bas ou dans une autre "
     "fonction ?",
     "Python does not know the name “outils”: a typo, or a name defined further down or in another function?"),
    ("UnboundLocalError: cannot access local variable 'state' where it is not associated with a value",
     "« state » est ici une variable de la fonction (une affectation ou un import de state dans la fonction la rend "
     "locale), lue avant d’avoir reçu sa valeur. Pour changer une variable du module (comme state), déclarez-la "
     "global au début de la fonction ; pour un import, faites-le avant de lire le nom.",
     "“state” is a variable of the function here (an assignment or an import of state in the function makes it "
     "local), read before it got its value. To change a variable of the module (such as state), declare it global "
     "at the start of the function; for an import, do it before reading the name."),
    ("AttributeError: 'builtin_function_or_method' object has no attribute 'strip'",
     "Cette valeur est une fonction, pas son résultat : une fonction ou une méthode nommée sans ses parenthèses "
     "(line.strip au lieu de line.strip()) n’est pas appelée, et n’a pas d’attribut « strip ».",
     "This value is a function, not its result: a function or a method named without its parentheses (line.strip "
     "instead of line.strip()) is not called, and has no attribute “strip”."),
    ("KeyError: 'id'",
     "La clé « id » n’est pas dans ce dictionnaire : vérifiez d’abord qu’elle y est (une notification n’a pas d’id, "
     "et ne reçoit jamais de réponse).",
     "The key “id” is not in this dictionary: check first that it is there (a notification has no id, and never "
     "gets a reply)."),
    ("KeyError: 0",  # only "id" is the lesson's own case (a notification has none)
     "La clé « 0 » n’est pas dans ce dictionnaire : vérifiez d’abord qu’elle y est ; les messages n’ont pas tous les "
     "mêmes clés.",
     "The key “0” is not in this dictionary: check first that it is there; messages do not all have the same keys."),
    ("AttributeError: 'dict' object has no attribute 'method'",
     "Un dictionnaire (dict) n’a pas d’attribut « method » : un message JSON lu par Python est un dict, et ses clés "
     "se lisent entre crochets, message[\"method\"], pas avec un point comme en JavaScript.",
     "A dictionary (dict) has no attribute “method”: a JSON message read by Python is a dict, and its keys are read "
     "in brackets, message[\"method\"], not with a dot as in JavaScript."),
    ("AttributeError: 'NoneType' object has no attribute 'get'",
     "Cette valeur est None (rien) : elle n’a pas d’attribut « get ». None vient souvent d’une clé absente lue avec .get(), ou d’une fonction sans return.",
     "This value is None (nothing): it has no attribute “get”. None often comes from a missing key read with .get(), or a function without return."),
    ("AttributeError: 'str' object has no attribute 'get'",
     "Cette valeur est un texte (str), sans attribut « get » : une ligne reçue est du texte, et ne devient un dict "
     "qu’une fois lue comme JSON.",
     "This value is a text (str), with no attribute “get”: a line received is text, and becomes a dict only once "
     "read as JSON."),
    ("TypeError: 'NoneType' object is not subscriptable",
     "Cette valeur est None (rien) : elle n’a pas de clés à lire. None vient souvent d’une clé absente lue avec .get(), ou d’une fonction sans return.",
     "This value is None (nothing): it has no keys to read. None often comes from a missing key read with .get(), or a function without return."),
    ("TypeError: string indices must be integers, not 'str'",
     "Ce texte (str) est lu comme un dict : une ligne reçue est du texte, et ne devient un dict qu’une fois lue "
     "comme JSON.",
     "This text (str) is read as a dict: a line received is text, and becomes a dict only once read as JSON."),
    ("TypeError: fail() missing 1 required positional argument: 'text'",
     "Une opération a reçu une valeur du mauvais type, ou une fonction le mauvais nombre d’arguments.",
     "An operation got a value of the wrong type, or a function the wrong number of arguments."),
    ("AttributeError: module 'sys' has no attribute 'stdot'",
     "Cette valeur n’a pas d’attribut « stdot » : vérifiez son type et l’orthographe.",
     "This value has no attribute “stdot”: check its type and the spelling."),
    ("BrokenPipeError: [Errno 32] Broken pipe",
     "L’autre programme s’est arrêté (ou a fermé son entrée) pendant que celui-ci lui écrivait.",
     "The other program stopped (or closed its input) while this one was writing to it."),
    ("json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
     "Ce texte n’est pas du JSON : json.loads l’a refusé.", "This text is not JSON: json.loads refused it."),
    ("RuntimeError: non", "Votre code a levé l’exception RuntimeError.", "Your code raised the exception RuntimeError."),
    ("KeyError", "Votre code a levé l’exception KeyError.", "Your code raised the exception KeyError."),
])
def test_pythons_error_is_said_in_the_runs_language_before_pythons_own_line(error_line, fr, en):
    for lang, sentence in (("fr", fr), ("en", en)):
        assert trimmed(error_at_line_3(error_line), ("server.py",), lang).splitlines()[-2:] == [sentence, error_line]


def test_a_missing_id_in_a_table_of_the_file_is_not_blamed_on_a_notification():
    """KeyError: 'id' on TEXT["id"] (fuzzing found it): a key missing from a table, not a message's."""
    trace = 'Traceback (most recent call last):\n  File "/x/server.py", line 9, in on_line\n' \
            '    return fail(bad.id, -32600, TEXT["id"])\nKeyError: \'id\'\n'
    assert trimmed(trace, ("server.py",), "en").splitlines()[-2:] == [
        "This table of your file has no key “id”: look at the keys it has; a typo, maybe.", "KeyError: 'id'"]
    assert trimmed(trace, ("server.py",), "fr").splitlines()[-2] == (
        "Cette table de votre fichier n’a pas de clé « id » : regardez les clés qu’elle a, une faute de frappe peut-être.")


def test_a_part_still_to_write_and_a_line_that_is_no_error_get_no_sentence():
    todo = "NotImplementedError: serveur, partie 1"
    assert trimmed(error_at_line_3(todo), ("server.py",), "fr").splitlines()[-2:] == ["    go()", todo]
    assert trimmed("À écrire : serveur, partie 3\n", ("server.py",), "fr") == "À écrire : serveur, partie 3"


def test_a_date_written_without_quotes_is_said_to_be_a_text():
    text = ('  File "/tmp/x/client.py", line 9\n    initialize(3, 2024-11-05),\n                          ^\n'
            "SyntaxError: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers\n")
    assert trimmed(text, ("client.py",), "fr").splitlines()[-2] == (
        "Python ne peut pas lire ce fichier : un nombre ne commence pas par 0. Une date comme 2024-11-05 est un "
        'texte, entre guillemets : "2024-11-05".')
    assert trimmed(text, ("client.py",), "en").splitlines()[-2] == (
        'Python cannot read this file: a number does not start with 0. A date such as 2024-11-05 is a text, in '
        'quotes: "2024-11-05".')


def test_a_syntax_error_without_a_header_names_its_line_in_the_runs_language():
    text = '  File "/tmp/x/server.py", line 7\n    def f(\n         ^\nSyntaxError: \'(\' was never closed\n'
    assert trimmed(text, ("server.py",), "fr").splitlines() == [
        "server.py, ligne 7", "    def f(", "         ^",
        "Python ne peut pas lire ce fichier : cette ligne est mal écrite.", "SyntaxError: '(' was never closed"]


def test_windows_paths_and_other_files_of_the_kit():
    text = ('Traceback (most recent call last):\n  File "C:\\\\work\\\\client.py", line 3, in <module>\n'
            '    import model\n  File "C:\\\\kit\\\\spy.py", line 9, in ask\n    boom()\nRuntimeError: non\n')
    assert trimmed(text, ("client.py",), "en").splitlines() == [
        "client.py, line 3", "    import model", "Your code raised the exception RuntimeError.", "RuntimeError: non"]


def test_without_a_traceback_the_last_lines_are_kept():
    assert trimmed("one\ntwo\nthree\n", ("server.py",), "fr", tail=2) == "two\nthree"


@pytest.mark.parametrize(("lang", "frame", "sentence"), [
    ("fr", "model.py, ligne {line}", "Python ne peut pas lire ce fichier : cette ligne est mal écrite."),
    ("en", "model.py, line {line}", "Python cannot read this file: this line is malformed."),
])
def test_a_model_helper_that_does_not_compile_shows_its_line_explained(tmp_path, lang, frame, sentence):
    """The helper is imported by a runner: its error reaches the check as Python printed it, and
    the check trims and explains it as it does a server's."""
    folder = tmp_path / "work"
    shutil.copytree(ROOT / "solutions", folder)
    source = (folder / "model.py").read_text(encoding="utf-8").splitlines(keepends=True)
    line = next(number for number, text in enumerate(source, start=1) if text.startswith("def ask("))
    source[line - 1] = source[line - 1].replace(":\n", "\n")
    (folder / "model.py").write_text("".join(source), encoding="utf-8")
    result = next(r for r in run_checks(folder, lang).results if r.id == "model.request")
    assert result.output.splitlines() == [frame.format(line=line), "    " + source[line - 1].strip(), sentence,
                                          "SyntaxError: expected ':'"]


@pytest.mark.parametrize(("lang", "sentence"), [
    ("fr", "Un dictionnaire (dict) n’a pas d’attribut « method » : un message JSON lu par Python est un dict, et ses "
           "clés se lisent entre crochets, message[\"method\"], pas avec un point comme en JavaScript."),
    ("en", "A dictionary (dict) has no attribute “method”: a JSON message read by Python is a dict, and its keys are "
           "read in brackets, message[\"method\"], not with a dot as in JavaScript."),
])
def test_the_javascript_habit_msg_method_is_named_in_the_servers_check(tmp_path, lang, sentence):
    folder = tmp_path / "work"
    shutil.copytree(ROOT / "solutions", folder)
    source = (folder / "server.py").read_text(encoding="utf-8")
    assert source.count('    method = message["method"]\n') == 1
    (folder / "server.py").write_text(source.replace('    method = message["method"]\n', "    method = message.method\n"),
                                      encoding="utf-8")
    # Part 3's mistake, said by part 3's check (parts 1 and 2, called directly, pass).
    result = next(r for r in run_checks(folder, lang).results if r.id == "server.keeps-running")
    assert result.output.splitlines()[-3:] == ["    method = message.method", sentence,
                                               "AttributeError: 'dict' object has no attribute 'method'"]
