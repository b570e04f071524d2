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
from lab.results import ERROR, FAILED, PASSED, SKIPPED, CheckResult
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
    # Each check's rule was reached by ana alone: ben's server.py is missing and eve's is still
    # to write (not written yet), cy's does not compile and dee's hangs (not run).
    checks = {row.attrs["data-check"]: (row.all("td")[1].text, row.all("td")[2].text, row.all("td")[3].text)
              for row in page.find("table", id="checks").find("tbody").all("tr")}
    assert checks["server.capabilities-only-tools"] == ("0/1 (0 %)", "2", "2")
    assert checks["server.json-rpc-replies"] == ("0/1 (0 %)", "2", "2")
    # eve's answers.toml is not TOML: no cell is hers, she is counted apart.
    assert page.find("p", id="cells-unreadable").attrs["data-count"] == "1"
    assert page.all("table", id="cells") == []  # the others' answers are right


def check(status: str, message: str = "", output: str = "", check_id: str = "server.id-zero",
          task: str = "server-3", reason: str = "", **fields: object) -> CheckResult:
    return CheckResult(id=check_id, task=task, points=1, status=status, title="t", message=message, output=output,
                       reason=reason, fields=dict(fields))


def test_each_cause_is_read_from_the_reason_key_whatever_the_message_says() -> None:
    # The message is left empty: only the key and its fields decide.
    assert check_cause(check(FAILED, reason="file.missing", file="client.py")) == "missing:client.py"
    assert check_cause(check(FAILED, reason="grade.bonus_not_attempted", file="bonus_server.py")) \
        == "missing:bonus_server.py"
    assert check_cause(check(FAILED, reason="run.silent", who="server", seconds=5.0)) == "hang:server.py"
    assert check_cause(check(FAILED, reason="run.spun", who="server", cpu=2.0)) == "cpu:server.py"
    assert check_cause(check(FAILED, reason="client.nothing_reached", check_id="client.seven-messages",
                             seconds=8.0)) == "hang:client.py"
    assert check_cause(check(FAILED, reason="run.spun", check_id="client.seven-messages", who="client",
                             cpu=2)) == "cpu:client.py"
    assert check_cause(check(FAILED, reason="model.load_hangs", check_id="model.request", seconds=15.0)) \
        == "hang:model.py"
    assert check_cause(check(FAILED, "", "  File \"server.py\"\nIndentationError: unexpected indent",
                             reason="run.stopped_silent", who="server", code=1)) == "syntax:server.py"
    assert check_cause(check(FAILED, "", "KeyError: 'x'", reason="run.stopped_silent", code=1)) == "crash:server.py"
    assert check_cause(check(FAILED, reason="part.unwritten", task="client-2")) == "unwritten:client-2"
    assert check_cause(check(FAILED, reason="bonus.client_failed")) == "rule:server.id-zero"
    assert check_cause(check(FAILED, "id 0 is a valid id")) == "rule:server.id-zero"


def test_the_first_cause_is_the_first_check_that_failed_on_its_own() -> None:
    first = registry()[0][0]
    waiting = check(SKIPPED, reason="part.waits_for", title=first.title["en"], check_id="server.reply-ids")
    assert not could_run(waiting) and not could_run(check(ERROR, "x"))
    assert first_cause([check(PASSED), waiting, check(FAILED, "no", check_id="server.b")]) \
        == "rule:server.b"
    assert first_cause([check(PASSED)]) == ""
    assert first_cause([check(FAILED, "no")], error="boom") == "kit-error"


def test_the_graded_record_keeps_each_reason_key_and_its_fields(graded: tuple[Path, list[dict[str, str]]]) -> None:
    import json

    out, _ = graded
    first = {name: json.loads((out / name / ".lab-report.json").read_text(encoding="utf-8"))["report"]["results"][0]
             for name in ("ben", "dee", "eve")}
    assert (first["ben"]["reason"], first["ben"]["fields"]) == ("file.missing", {"file": "server.py"})
    from lab.checks.server_session import SERVER_LIMIT

    assert (first["dee"]["reason"], first["dee"]["fields"]) == ("run.silent", {"who": "server", "seconds": SERVER_LIMIT})
    assert first["dee"]["message"] == f"Le serveur n’a rien écrit en {SERVER_LIMIT:g} s."
    assert first["eve"]["reason"] in ("part.unwritten", "part.not_yet") and first["eve"]["fields"] == {"task": "server-1"}


def test_python_errors_name_the_students_file_not_the_private_copy(graded: tuple[Path, list[dict[str, str]]]) -> None:
    import json

    out, _ = graded
    record = json.loads((out / "cy" / ".lab-report.json").read_text(encoding="utf-8"))["report"]
    first = record["results"][0]
    assert first["message"] == "Le serveur s’est arrêté (code 1) sans rien écrire."  # French first
    # The file and line, as the student knows them: the line after `import sys`, where `def (` went.
    line = 2 + (ROOT / "solutions" / "server.py").read_text(encoding="utf-8").splitlines().index("import sys")
    assert first["output"].startswith(f"server.py, ligne {line}\n")
    assert "SyntaxError" in first["output"] and "lab-grade-" not in json.dumps(record)


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_client_or_model_that_does_not_run_and_an_untouched_table_are_named(lang: str) -> None:
    """From the reason keys and fields (the sentence is the language's own, and unread)."""
    from lab.checks.texts import say

    def failed(reason: str, output: str = "", actual: str = "", check_id: str = "client.seven-messages",
               task: str = "client-1", **fields: object) -> CheckResult:
        result = check(FAILED, say(lang, reason, **fields), output, check_id, task)
        result.actual = actual
        result.reason, result.fields = reason, dict(fields)
        return result

    traceback = "client.py, line 13\n    undefined_name\nNameError: name 'undefined_name' is not defined"
    assert check_cause(failed("client.sent_nothing", traceback)) == "crash:client.py"
    assert check_cause(failed("client.sent_nothing", "client.py, line 13\nIndentationError: unexpected indent")) \
        == "syntax:client.py"
    assert check_cause(failed("client.sent_nothing", "it printed this and stopped")) == "rule:client.seven-messages"
    assert check_cause(failed("client.crashed_before_sending", "Pas de serveur pour moi", code=1)) == "crash:client.py"
    assert check_cause(failed("file.does_not_load", "", "SyntaxError: invalid syntax (model.py, line 10)",
                              "model.request", "model", file="model.py")) == "syntax:model.py"
    assert check_cause(failed("file.does_not_load", "", "NameError: name 'x' is not defined", "model.request", "model",
                              file="model.py")) == "crash:model.py"
    empty = {"reason": "answers.why_empty"}
    untouched = failed("answers.cell", "", "—", "answers.keywords", "answers", cell="mots_cles.poignee_de_main",
                       why=empty, empty_cells=["mots_cles.etat"], wrong_cells=[])
    assert check_cause(untouched) == "unwritten:answers"
    one_wrong = failed("answers.cell", "", "—", "answers.keywords", "answers", cell="mots_cles.poignee_de_main",
                       why=empty, empty_cells=[], wrong_cells=["mots_cles.etat"])
    assert check_cause(one_wrong) == "rule:answers.keywords"
    written_wrong = failed("answers.cell", "", "ping", "answers.keywords", "answers", cell="mots_cles.poignee_de_main",
                           why={"reason": "answers.why_not_the_opening"}, empty_cells=[], wrong_cells=[])
    assert check_cause(written_wrong) == "rule:answers.keywords"
