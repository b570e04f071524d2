"""The given modules in a student's folder: a missing one is said, by the file that imports it;
an edited one is the one the checks run (the student's copy, never the kit's in its place)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import SOLUTIONS
from lab.checks import reference, run_checks
from lab.checks.tracebacks import load_hint
from totals import FULL



def solved_folder(folder: Path, without: str = "") -> Path:
    """The lesson's files from solutions/ (no bonus), and every given module but `without`."""
    folder.mkdir()
    for name in ("server.py", "client.py", "model.py", "answers.toml", *reference.HELPERS):
        if name != without:
            shutil.copy(SOLUTIONS / name, folder / name)
    return folder


def line_of(file: str, text: str) -> int:
    lines = (SOLUTIONS / file).read_text(encoding="utf-8").splitlines()
    return next(number for number, line in enumerate(lines, 1) if line.startswith(text))


def failing_tasks(report) -> set[str]:
    return {result.task for result in report.results if result.status != "passed"}


@pytest.mark.parametrize("missing, failing", [
    ("jsonrpc_lines.py", {"server-1", "server-2", "server-3", "client-1", "client-2", "client-3"}),
    ("server_replies.py", {"client-1", "client-2", "client-3"}),
])
def test_a_missing_given_module_fails_the_files_that_import_it_and_the_hint_names_it(tmp_path, missing, failing):
    report = run_checks(solved_folder(tmp_path / "work", without=missing), "fr")
    assert failing_tasks(report) == failing
    client_line = line_of("client.py", f"from {missing.removesuffix('.py')} import")
    hints = {result.hint for result in report.results if result.status == "failed"}
    expected = {f"client.py, ligne {client_line}, importe un module introuvable : vérifiez son nom, et que le "
                "fichier est bien à côté (jsonrpc_lines.py, server_replies.py, model.py)."}
    if missing == "jsonrpc_lines.py":
        expected.add(f"server.py, ligne {line_of('server.py', 'from jsonrpc_lines import')}, importe un module "
                     "introuvable : vérifiez son nom, et que le fichier est bien à côté (jsonrpc_lines.py).")
    assert hints == expected


def test_model_py_without_its_given_module_is_judged_with_the_kits_copy(tmp_path):
    # As the model checks always did: model.py alone is judged on its own (tests/test_checks_models.py).
    report = run_checks(solved_folder(tmp_path / "work", without="model_setup.py"), "en")
    assert failing_tasks(report) == set() and report.score == FULL


def test_an_edited_model_setup_is_the_one_the_model_checks_run(tmp_path):
    folder = solved_folder(tmp_path / "work")
    given = folder / "model_setup.py"
    source = given.read_text(encoding="utf-8")
    old = 'raw_url, raw_timeout = get("AI_URL", "http://ai:4000"), get("AI_TIMEOUT", "30")'
    assert source.count(old) == 1
    given.write_text(source.replace(old, 'raw_url, raw_timeout = "http://127.0.0.1:9", get("AI_TIMEOUT", "30")'),
                     encoding="utf-8")
    report = run_checks(folder, "en")
    assert failing_tasks(report) == {"model"}
    assert [result.id for result in report.results if result.status == "failed"][0] == "model.request"


@pytest.mark.parametrize("file, beside", [
    ("server.py", "jsonrpc_lines.py"), ("bonus_server.py", "jsonrpc_lines.py, server.py"),
    ("client.py", "jsonrpc_lines.py, server_replies.py, model.py"), ("model.py", "model_setup.py"),
    ("mine.py", "jsonrpc_lines.py, server_replies.py, model_setup.py, model.py"),
])
def test_an_import_error_names_the_files_that_student_file_imports_from_beside_it(file, beside):
    output = f"{file}, line 4\n    from x import y\nModuleNotFoundError: No module named 'x'\n"
    assert load_hint(output) == {
        "fr": f"{file}, ligne 4, importe un module introuvable : vérifiez son nom, et que le fichier est bien à "
              f"côté ({beside}).",
        "en": f"{file}, line 4, imports a module that cannot be found: check its name, and that the file is beside "
              f"it ({beside})."}
