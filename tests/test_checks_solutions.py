"""The whole suite: the solutions score full marks, the untouched exercises score nothing,
and `lab check --json` prints the result model that Report.from_dict reads back."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT
from lab.results import PASSED, Report
from totals import LESSON_CHECKS

TASKS = ["server-1", "server-2", "server-3", "client-1", "client-2", "client-3", "model", "answers"]


def lab_check(folder: str, *options: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lab", "check", folder, *options], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)


def test_the_solutions_score_full_marks_and_exit_0(tmp_path):
    # The lesson's files only: the bonus checks (real MCP clients) have their own tests.
    lesson = tmp_path / "solutions"
    shutil.copytree(ROOT / "solutions", lesson, ignore=shutil.ignore_patterns("bonus_*", "__pycache__"))
    result = lab_check(str(lesson), "--json", "--lang", "en")
    assert result.returncode == 0, result.stdout[-3000:]
    report = Report.from_dict(json.loads(result.stdout))
    assert report.to_dict() == json.loads(result.stdout)
    assert report.lang == "en" and report.error == ""
    checks = report.results
    assert len(checks) == LESSON_CHECKS
    assert [task for task in TASKS if any(r.task == task for r in checks)] == TASKS
    assert [(r.id, r.status) for r in checks if r.status != PASSED] == []
    assert report.score == report.max_score
    assert all(r.title and r.hint for r in checks)
    assert len({r.id for r in report.results}) == len(report.results)


def test_the_untouched_exercises_fail_every_check_and_exit_1():
    result = lab_check("exercises", "--json")
    assert result.returncode == 1
    report = Report.from_dict(json.loads(result.stdout))
    assert report.lang == "fr"
    checks = [r for r in report.results if r.task != "bonus"]
    assert len(checks) == LESSON_CHECKS
    assert [r.id for r in checks if r.status == PASSED] == []
    assert {r.status for r in checks} == {"failed", "skipped"}
    skipped = {r.id for r in checks if r.status == "skipped"}
    # Each part still to write fails; the parts that need an earlier one first are not checkable yet.
    assert skipped == {r.id for r in checks if r.task in ("server-2", "server-3", "client-3")}


def test_the_terminal_view_of_the_exercises_guides_to_the_first_fix():
    result = lab_check("exercises", "--lang", "en")
    assert result.returncode == 1
    out = result.stdout
    assert "✗ server, part 1" in out and "– server, part 2" in out
    assert "This part is still to write (“server, part 1”)." in out
    assert "not checkable yet: “server, part 1” must be written first" in out
    assert "This part is still to write (“client, part 2”)." in out
    assert "This part is still to write (“model helper”)." in out
    assert "serveur" not in out and "NotImplementedError" not in out  # one language, no kit words
    assert "Cell mots_cles.poignee_de_main (keywords: handshake): it is empty." in out
    assert "Score: 0/" in out


def test_a_missing_folder_is_a_usage_error_but_json_still_reports(tmp_path):
    missing = str(tmp_path / "nowhere")
    assert lab_check(missing).returncode == 2
    result = lab_check(missing, "--json")
    assert result.returncode == 1
    assert Report.from_dict(json.loads(result.stdout)).score == 0


@pytest.mark.parametrize(("lang", "said"), [
    ("fr", "{folder} n’a aucun des fichiers de l’exercice (server.py, client.py, model.py) : est-ce le bon dossier ? "
           "`lab exercises` les écrit dans exercises/."),
    ("en", "{folder} has none of the exercise's files (server.py, client.py, model.py): is it the right folder? "
           "`lab exercises` writes them into exercises/."),
])
def test_a_folder_without_exercise_files_is_named_as_the_likely_mistake_first(tmp_path, lang, said):
    """A mistyped folder would read as nine parts of missing files: the first line says what is likely."""
    result = lab_check(str(tmp_path), "--lang", lang)
    assert result.returncode == 1 and result.stderr.splitlines()[0] == said.format(folder=tmp_path)
    assert lab_check(str(ROOT / "solutions"), "--lang", lang).stderr == ""  # a real folder: nothing said


@pytest.mark.parametrize(("lang", "server_line", "client_line"), [
    ("fr", "Cette partie est encore à écrire (« serveur, partie 1 »).",
     "Cette partie est encore à écrire (« client, partie 1 »)."),
    ("en", "This part is still to write (“server, part 1”).", "This part is still to write (“client, part 1”)."),
])
def test_a_part_still_to_write_is_named_before_its_symptom(lang, server_line, client_line):
    """Server part 3 (the loop) runs first and client part 2 calls part 1, but each part is
    judged by calling its own functions: the first ✗ names the part itself, in one language."""
    report = Report.from_dict(json.loads(lab_check("exercises", "--json", "--lang", lang).stdout))
    messages = {r.id: r.message for r in report.results}
    assert messages["server.json-rpc-replies"] == server_line
    assert messages["client.seven-messages"] == client_line


@pytest.mark.parametrize("module, function", [("jsonrpc_lines", "to_json"), ("server_replies", "next_line"),
                                              ("model_setup", "seconds")])
def test_the_given_helpers_bytecode_serves_an_unedited_copy_and_never_an_edited_one(tmp_path, module, function):
    from lab.checks.reference import HELPERS, give_helper_bytecode

    for helper in HELPERS:  # all three: server_replies imports jsonrpc_lines
        shutil.copyfile(ROOT / "solutions" / helper, tmp_path / helper)
    give_helper_bytecode(tmp_path)
    env = {"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"}  # as student processes run
    source = tmp_path / f"{module}.py"

    def imported(code: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-I", "-v", "-c", f"import sys; sys.path.insert(0, '.'); {code}"],
                              capture_output=True, text=True, cwd=tmp_path, env=env, timeout=30)

    unedited = imported(f"import {module}; print({module}.{function}.__code__.co_filename)")
    cached = tmp_path / "__pycache__" / f"{module}.{sys.implementation.cache_tag}.pyc"
    assert f"# {cached} matches {source}" in unedited.stderr
    assert unedited.stdout == f"{source}\n"  # tracebacks name the student's copy

    with open(source, "a", encoding="utf-8") as helper:
        helper.write("EDITED = 'yes'\n")
    edited = imported(f"import {module}; print({module}.EDITED)")
    assert edited.stdout == "yes\n"
    assert f"# {cached} matches" not in edited.stderr
    assert f"# code object from {source}" in edited.stderr  # compiled from its source
