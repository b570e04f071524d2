"""The class report says what to re-teach: each student's first cause, read from a real class
graded by the real checks (no server.py, a syntax error, a hang, a part still to write, a rule
broken), "Travaux à regarder" listing the programs that never ran, failure rates over the
submissions where a check could run, and the answers table counting students."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

from conftest import ROOT
from lab.checks import registry
from lab.grading import class_report
from lab.grading.causes import check_cause, could_run, first_cause
from lab.grading.classroom import grade_class
from lab.grading.runner import Limits
from lab.results import FAILED, PASSED, SKIPPED, CheckResult
from page_tree import parse


def student(root: Path, name: str, server: str | None, answers: str | None = None) -> Path:
    """A copy of the solutions with server.py replaced (None: removed) and answers.toml too."""
    folder = root / name
    shutil.copytree(ROOT / "solutions", folder)
    if server is None:
        (folder / "server.py").unlink()
    elif server:
        (folder / "server.py").write_text(server, encoding="utf-8")
    if answers is not None:
        (folder / "answers.toml").write_text(answers, encoding="utf-8")
    return folder


def server_with(old: str, new: str) -> str:
    source = (ROOT / "solutions" / "server.py").read_text(encoding="utf-8")
    assert old in source
    return source.replace(old, new, 1)


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, str]]]:
    root = tmp_path_factory.mktemp("class")
    exercise_server = (ROOT / "exercises" / "server.py").read_text(encoding="utf-8")
    submissions = [
        student(root, "ana", ""),
        student(root, "ben", None),
        student(root, "cy", server_with("import sys", "import sys\ndef (")),
        student(root, "dee", server_with("import sys", "import sys, time\ntime.sleep(600)")),
        student(root, "eve", exercise_server, answers="[six_reponses\n"),
    ]
    out = root / "out"
    grade_class(submissions, out, fmt="gradescope", lang="fr", jobs=2, limits=Limits(timeout=60.0))
    with (out / "summary.csv").open(newline="", encoding="utf-8") as handle:
        return out, list(csv.DictReader(handle))


def test_summary_csv_names_each_students_first_cause(graded: tuple[Path, list[dict[str, str]]]) -> None:
    _, summary = graded
    assert [(row["submission"], row["cause"]) for row in summary] == [
        ("ana", ""), ("ben", "missing:server.py"), ("cy", "syntax:server.py"), ("dee", "hang:server.py"),
        ("eve", "unwritten:server-1")]


def test_the_page_shows_the_cause_the_part_missing_and_who_to_look_at(graded: tuple[Path, list[dict[str, str]]]) -> None:
    out, _ = graded
    page = parse(class_report.write_report(out, "fr").read_text(encoding="utf-8"))
    rows = [(row.find("th").text, row.all("td")[1].text, row.all("td")[2].text)
            for row in page.find("table", id="students").find("tbody").all("tr")]
    assert rows == [("ana", "—", "—"),
                    ("ben", "serveur, partie 1", "pas de server.py"),
                    ("cy", "serveur, partie 1", "erreur de syntaxe dans server.py"),
                    ("dee", "serveur, partie 1", "server.py bloqué (rien écrit)"),
                    ("eve", "serveur, partie 1", "serveur, partie 1 encore à écrire")]
    looked_at = [(row.find("th").text, row.all("td")[0].text)
                 for row in page.find("table", id="runs").find("tbody").all("tr")]
    assert looked_at == [("cy", "ne compile pas"), ("dee", "bloqué (temps dépassé)")]
    # capabilities-only-tools ran for ana alone (the other servers never answered): 0 of 1.
    checks = {row.attrs["data-check"]: (row.all("td")[1].text, row.all("td")[2].text)
              for row in page.find("table", id="checks").find("tbody").all("tr")}
    assert checks["server.capabilities-only-tools"] == ("0/1 (0 %)", "4")
    assert checks["server.json-rpc-replies"] == ("4/5 (80 %)", "0")
    # eve's answers.toml is not TOML: no cell is hers, she is counted apart.
    assert page.find("p", id="cells-unreadable").attrs["data-count"] == "1"
    assert page.all("table", id="cells") == []  # the others' answers are right


def check(status: str, message: str = "", output: str = "", check_id: str = "server.id-zero",
          task: str = "server-3") -> CheckResult:
    return CheckResult(id=check_id, task=task, points=1, status=status, title="t", message=message, output=output)


def test_each_cause_in_either_language() -> None:
    assert check_cause(check(FAILED, "There is no client.py file.")) == "missing:client.py"
    assert check_cause(check(FAILED, "The server wrote nothing in 5 s.")) == "hang:server.py"
    assert check_cause(check(FAILED, "Le serveur a utilisé tout son temps de calcul (2 s de CPU) sans rien écrire.")) \
        == "cpu:server.py"
    assert check_cause(check(FAILED, "The server stopped (code 1) without writing.", "  File \"server.py\"\n"
                             "IndentationError: unexpected indent")) == "syntax:server.py"
    assert check_cause(check(FAILED, "The server stopped (code 1) without writing.", "KeyError: 'x'")) == "crash:server.py"
    assert check_cause(check(FAILED, "This part is still to write (“client, part 2”).")) == "unwritten:client-2"
    assert check_cause(check(FAILED, "Cette partie est encore à écrire (« serveur, partie 1 »).")) == "unwritten:server-1"
    assert check_cause(check(FAILED, "ask is still to be written.", check_id="model.answers", task="model")) \
        == "unwritten:model"
    assert check_cause(check(FAILED, "id 0 is a valid id")) == "rule:server.id-zero"


def test_the_first_cause_is_the_first_check_that_failed_on_its_own() -> None:
    first = registry()[0][0]
    skipped_as_failed = check(FAILED, f"skipped: “{first.title['en']}” did not pass", check_id="server.reply-ids")
    assert not could_run(skipped_as_failed) and not could_run(check(SKIPPED, "x"))
    assert first_cause([check(PASSED), skipped_as_failed, check(FAILED, "no", check_id="server.b")]) == "rule:server.b"
    assert first_cause([check(PASSED)]) == ""
    assert first_cause([check(FAILED, "no")], error="boom") == "kit-error"


def test_python_errors_name_the_students_file_not_the_private_copy(graded: tuple[Path, list[dict[str, str]]]) -> None:
    import json

    out, _ = graded
    record = json.loads((out / "cy" / ".lab-report.json").read_text(encoding="utf-8"))["report"]
    first = record["results"][0]
    assert first["message"] == "Le serveur s’est arrêté (code 1) sans rien écrire."  # French first
    assert first["output"].startswith("server.py, ligne 10\n")  # the file and line, as the student knows them
    assert "SyntaxError" in first["output"] and "lab-grade-" not in json.dumps(record)
