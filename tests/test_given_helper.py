"""The given modules (solutions/jsonrpc_lines.py, server_replies.py, model_setup.py) are for a
student to read, and the student files' texts all have one shape.

What these pin: each given module is short, says which student file it is for, and is
imported only by the files it names; they use the standard library's public API only (no
private names, no CPython internals such as json.encoder.c_make_encoder or a decoder's
scan_once); the client, not a given module, starts the server (client2.js's first line);
every student file's texts are `{"fr": {key: text}, "en": {key: text}}`, with the same keys
in both languages.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

import pytest

from conftest import ROOT, SOLUTIONS, feed_server
from lab.checks import reference

HELPERS = [SOLUTIONS / helper for helper in reference.HELPERS]
GIVEN = {path.stem for path in HELPERS}
STUDENT_FILES = ("server.py", "client.py", "model.py", "bonus_server.py")


def tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def imported_modules(path: Path) -> set[str]:
    """The top-level names of every module the file imports."""
    names = {alias.name.split(".")[0] for node in ast.walk(tree(path)) if isinstance(node, ast.Import)
             for alias in node.names}
    return names | {node.module.split(".")[0] for node in ast.walk(tree(path))
                    if isinstance(node, ast.ImportFrom) and node.module}


def files_named(helper: Path) -> list[str]:
    """The student files a given module's docstring says it is for, in the order it names them."""
    docstring = ast.get_docstring(tree(helper)) or ""
    return list(dict.fromkeys(re.findall(r"\b(\w+\.py)\b", docstring)))


def test_the_given_modules_are_these_three_and_the_old_single_helper_is_gone() -> None:
    assert reference.HELPERS == ("jsonrpc_lines.py", "server_replies.py", "model_setup.py")
    for folder in ("solutions", "exercises"):
        assert sorted(path.name for path in (ROOT / folder).glob("*.py")) == sorted(
            ("bonus_server.py", "client.py", "model.py", "server.py", *reference.HELPERS))


@pytest.mark.parametrize("helper", HELPERS, ids=lambda path: path.name)
def test_each_given_module_is_short_and_says_in_both_languages_that_it_is_given(helper: Path) -> None:
    lines = helper.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250
    docstring = (ast.get_docstring(tree(helper)) or "").splitlines()
    # French first (the lesson's language), then English.
    assert docstring[0].startswith("Fourni : ") and "Servez-vous-en ; ne le modifiez pas." in " ".join(docstring)
    assert "Given: " in " ".join(docstring) and "Use it; do not edit it." in " ".join(docstring)
    assert " ".join(docstring).index("Fourni : ") < " ".join(docstring).index("Given: ")


def test_each_given_module_is_for_the_student_file_it_names_first() -> None:
    assert {helper.name: files_named(helper)[0] for helper in HELPERS} == {
        "jsonrpc_lines.py": "server.py", "server_replies.py": "client.py", "model_setup.py": "model.py"}


@pytest.mark.parametrize("student", STUDENT_FILES)
def test_a_student_file_imports_only_the_given_modules_that_name_it(student: str) -> None:
    expected = {"server.py": {"jsonrpc_lines"}, "client.py": {"jsonrpc_lines", "server_replies", "model_setup"},
                "model.py": {"model_setup"}, "bonus_server.py": {"jsonrpc_lines"}}[student]
    for folder in ("solutions", "exercises"):
        uses = imported_modules(ROOT / folder / student) & GIVEN
        assert uses == expected
        assert all(student in files_named(SOLUTIONS / f"{module}.py") for module in uses)


def test_the_model_helper_needs_no_other_given_module_and_the_client_helper_only_the_server_one() -> None:
    assert {helper.stem: sorted(imported_modules(helper) & GIVEN) for helper in HELPERS} == {
        "jsonrpc_lines": [], "server_replies": ["jsonrpc_lines"], "model_setup": []}


@pytest.mark.parametrize("helper", HELPERS, ids=lambda path: path.name)
def test_the_helper_names_nothing_private(helper: Path) -> None:
    def private(name: str) -> bool:  # _name is private; __name__, __cause__ (dunders) are public
        return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))

    names = {node.attr for node in ast.walk(tree(helper)) if isinstance(node, ast.Attribute)}
    names |= {alias.name for node in ast.walk(tree(helper)) if isinstance(node, ast.ImportFrom) for alias in node.names}
    names |= {node.id for node in ast.walk(tree(helper)) if isinstance(node, ast.Name)}
    assert sorted(filter(private, names)) == []
    text = helper.read_text(encoding="utf-8")
    for internal in ("c_make_encoder", "scan_once", "encode_basestring", "py_scanstring"):
        assert internal not in text


def test_the_helpers_import_the_standard_library_python_dotenv_and_each_other_only() -> None:
    imported = set().union(*map(imported_modules, HELPERS))
    assert sorted(imported - set(sys.stdlib_module_names) - GIVEN) == ["dotenv"]
    assert "dotenv" in imported_modules(SOLUTIONS / "model_setup.py")


def test_the_client_starts_its_server_and_the_helper_does_not() -> None:
    def popen_calls(path: Path) -> int:
        return sum(1 for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                   if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "Popen")

    assert [popen_calls(helper) for helper in HELPERS] == [0, 0, 0]
    assert popen_calls(SOLUTIONS / "client.py") == 1
    # a given line, the same in the exercise: the student sees it before writing part 2
    assert "subprocess.Popen([sys.executable" in (ROOT / "exercises" / "client.py").read_text(encoding="utf-8")


@pytest.mark.parametrize("module, table", [("server", "TEXTS"), ("client", "TEXTS"), ("model", "TEXTS"),
                                           ("server_replies", "CLIENT_TEXTS"), ("model_setup", "REASONS"),
                                           ("bonus_server", "BONUS_TEXTS")])
def test_every_student_facing_table_is_language_then_key(module: str, table: str) -> None:
    texts = getattr(reference.load(module), table)
    assert sorted(texts) == ["en", "fr"]
    assert set(texts["fr"]) == set(texts["en"]) and texts["fr"]
    assert all(isinstance(text, str) and text for lang in texts.values() for text in lang.values())
    assert texts["fr"] != texts["en"]


def test_a_byte_that_is_not_utf8_reads_as_a_replacement_character_and_the_line_is_answered() -> None:
    # What Node's readline does: the lesson's server reads on, and names the method it got.
    lines = (b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05"}}\n'
             b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
             b'{"jsonrpc":"2.0","id":2,"method":"caf\xe9"}\n')
    done = feed_server(lines, lang="fr")
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout.decode("utf-8").splitlines()[1] == (
        '{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Méthode inconnue : caf\ufffd"}}')


def test_numbers_json_has_not_are_not_read_and_a_tiny_one_reads_as_zero() -> None:
    # One reader (json_number) for NaN, ±Infinity and ±1e400: none can be written back as JSON.
    # 1e-400 is a JSON number Python reads as 0.0: the -32602 error echoes it as 0.0.
    lines = b"".join(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%s}}\n' % number
                     for number in (b"NaN", b"-Infinity", b"-1e400", b"1e-400"))
    done = feed_server(lines, lang="en")
    assert (done.returncode, done.stderr) == (0, b"")
    replies = [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]
    assert [reply["error"]["code"] for reply in replies] == [-32700, -32700, -32700, -32602]
    assert [reply["id"] for reply in replies] == [None, None, None, 1]
    assert replies[3]["error"]["data"]["requested"] == 0.0
