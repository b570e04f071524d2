"""The given helper (solutions/plumbing.py) is for a student to read, and the student files'
texts all have one shape.

What these pin: the helper uses the standard library's public API only (no private names,
no CPython internals such as json.encoder.c_make_encoder or a decoder's scan_once); the
client, not the helper, starts the server (client2.js's first line); every student file's
texts are `{"fr": {key: text}, "en": {key: text}}`, with the same keys in both languages.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from checks_helpers import ROOT
from lab.checks import reference

SOLUTIONS = ROOT / "solutions"
HELPER = SOLUTIONS / "plumbing.py"


def helper_tree() -> ast.Module:
    return ast.parse(HELPER.read_text(encoding="utf-8"))


def test_the_helper_names_nothing_private() -> None:
    def private(name: str) -> bool:  # _name is private; __name__, __cause__ (dunders) are public
        return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))

    names = {node.attr for node in ast.walk(helper_tree()) if isinstance(node, ast.Attribute)}
    names |= {alias.name for node in ast.walk(helper_tree()) if isinstance(node, ast.ImportFrom) for alias in node.names}
    names |= {node.id for node in ast.walk(helper_tree()) if isinstance(node, ast.Name)}
    assert sorted(filter(private, names)) == []
    text = HELPER.read_text(encoding="utf-8")
    for internal in ("c_make_encoder", "scan_once", "encode_basestring", "py_scanstring"):
        assert internal not in text


def test_the_helper_imports_the_standard_library_and_python_dotenv_only() -> None:
    imported = {alias.name.split(".")[0] for node in ast.walk(helper_tree()) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(helper_tree())
                 if isinstance(node, ast.ImportFrom) and node.module}
    assert sorted(imported - set(sys.stdlib_module_names)) == ["dotenv"]


def test_the_client_starts_its_server_and_the_helper_does_not() -> None:
    def popen_calls(path: Path) -> int:
        return sum(1 for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                   if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "Popen")

    assert popen_calls(HELPER) == 0
    assert popen_calls(SOLUTIONS / "client.py") == 1
    # a given line, the same in the exercise: the student sees it before writing part 2
    assert "subprocess.Popen([sys.executable" in (ROOT / "exercises" / "client.py").read_text(encoding="utf-8")


@pytest.mark.parametrize("module, table", [("server", "TEXTS"), ("client", "TEXTS"), ("model", "TEXTS"),
                                           ("plumbing", "CLIENT_TEXTS"), ("plumbing", "REASONS"),
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
    done = subprocess.run([sys.executable, str(SOLUTIONS / "server.py")], input=lines, capture_output=True,
                          timeout=10, env={"LAB_LANG": "fr"})
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout.decode("utf-8").splitlines()[1] == (
        '{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Méthode inconnue : caf\ufffd"}}')


def test_numbers_json_has_not_are_not_read_and_a_tiny_one_reads_as_zero() -> None:
    # One reader (json_number) for NaN, ±Infinity and ±1e400: none can be written back as JSON.
    # 1e-400 is a JSON number Python reads as 0.0: the -32602 error echoes it as 0.0.
    lines = b"".join(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%s}}\n' % number
                     for number in (b"NaN", b"-Infinity", b"-1e400", b"1e-400"))
    done = subprocess.run([sys.executable, str(SOLUTIONS / "server.py")], input=lines, capture_output=True,
                          timeout=10, env={"LAB_LANG": "en"})
    assert (done.returncode, done.stderr) == (0, b"")
    replies = [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]
    assert [reply["error"]["code"] for reply in replies] == [-32700, -32700, -32700, -32602]
    assert [reply["id"] for reply in replies] == [None, None, None, 1]
    assert replies[3]["error"]["data"]["requested"] == 0.0
