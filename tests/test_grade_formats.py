"""The machine formats, made from hand-built Reports and checked against their documented shape."""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET

import pytest

from lab.grading import formats
from lab.results import CheckResult, Report

GRADESCOPE_TOP = {"score", "execution_time", "output", "tests", "output_format", "test_output_format",
                  "test_name_format", "visibility", "stdout_visibility", "extra_data"}  # documented keys used
GRADESCOPE_TEST = {"name", "number", "score", "max_score", "status", "output", "tags"}
EXERCISM_TOP = {"version", "status", "message", "tests", "score", "max_score"}
EXERCISM_TEST = {"name", "status", "message", "output", "test_code", "task_id", "score", "max_score"}


def mixed_report(lang: str = "fr") -> Report:
    return Report(
        target="alice", lang=lang, duration=1.6,
        results=[
            CheckResult(id="server.starts", task="server-1", points=2, status="passed",
                        title="Le serveur démarre", duration=0.1),
            CheckResult(id="server.version", task="server-2", points=3, status="failed",
                        title="Refuse 1999-01-01", hint="Regarde VERSIONS.", expected="-32602",
                        actual="-32600", message="Mauvais code.", output="x" * 900, duration=0.2),
            CheckResult(id="server.ready", task="server-2", points=4, status="skipped",
                        title="Prêt après initialized", message="Ignorée : server.version a échoué."),
            CheckResult(id="client.sends", task="client-1", points=1, status="error",
                        title="Le client envoie sept messages", message="Le client a planté."),
        ],
    )


def crashed_report(kit_error: bool = True) -> Report:
    """A run that could not finish: by the kit's failure (a kit error), or by the submission's."""
    reason = "Les vérifications n’ont pas fini en 5 s."
    return Report(target="bob", lang="fr", error=reason, kit_error=kit_error, results=[
        CheckResult(id="server.starts", task="server-1", points=2, status="error", title="T1", message=reason),
        CheckResult(id="client.sends", task="client-1", points=1, status="error", title="T2", message=reason),
    ])


def test_gradescope_has_its_documented_fields_and_statuses() -> None:
    data = formats.gradescope(mixed_report())
    assert set(data) == GRADESCOPE_TOP
    assert data["score"] == 2
    assert data["execution_time"] == 2
    assert data["output"] == "Note : 2/10"
    assert (data["output_format"], data["test_output_format"], data["test_name_format"]) == ("text",) * 3
    assert (data["visibility"], data["stdout_visibility"]) == ("visible", "hidden")
    assert data["extra_data"] == {"status": "graded"}
    assert [set(test) for test in data["tests"]] == [GRADESCOPE_TEST] * 4
    assert [test["status"] for test in data["tests"]] == ["passed", "failed", "failed", "failed"]
    assert [(test["score"], test["max_score"]) for test in data["tests"]] == [(2, 2), (0, 3), (0, 4), (0, 1)]
    assert [test["number"] for test in data["tests"]] == ["1", "2", "3", "4"]
    assert data["tests"][0]["name"] == "Le serveur démarre (server.starts)"
    assert data["tests"][1]["tags"] == ["server-2"]
    assert data["tests"][1]["output"].splitlines()[:4] == [
        "Mauvais code.", "Attendu : -32602", "Obtenu : -32600", "Piste : Regarde VERSIONS.",
    ]
    # The sum of the tests is the score Gradescope shows.
    assert sum(test["score"] for test in data["tests"]) == data["score"]


def test_gradescope_puts_the_reason_of_a_crash_at_the_top_in_english_too() -> None:
    report = crashed_report()
    report.lang = "en"
    data = formats.gradescope(report)
    assert data["score"] == 0
    assert data["output"] == "Kit error, not a mark: Les vérifications n’ont pas fini en 5 s.\nScore: 0/3"
    assert data["extra_data"] == {"status": "kit-error"}
    assert [test["output"] for test in data["tests"]] == ["Les vérifications n’ont pas fini en 5 s."] * 2


def test_exercism_v3_fields_statuses_and_task_numbers() -> None:
    data = formats.exercism(mixed_report("en"))
    assert set(data) == EXERCISM_TOP
    assert (data["version"], data["status"], data["message"]) == (3, "fail", None)
    assert (data["score"], data["max_score"]) == (2, 10)
    assert [set(test) for test in data["tests"]] == [EXERCISM_TEST] * 4
    assert [test["status"] for test in data["tests"]] == ["pass", "fail", "fail", "error"]
    assert [test["task_id"] for test in data["tests"]] == [1, 2, 2, 3]
    assert [test["test_code"] for test in data["tests"]] == [
        "server.starts", "server.version", "server.ready", "client.sends"]
    assert data["tests"][0]["message"] is None and data["tests"][0]["output"] is None
    assert data["tests"][1]["message"] == (
        "Mauvais code.\nExpected: -32602\nActual: -32600\nHint: Regarde VERSIONS.")
    assert len(data["tests"][1]["output"]) == formats.EXERCISM_OUTPUT_LIMIT == 500
    assert data["tests"][2]["message"] == "Ignorée : server.version a échoué."


def test_exercism_status_pass_and_error() -> None:
    passing = Report(target="c", lang="fr", results=[
        CheckResult(id="a", task="t", points=1, status="passed", title="A")])
    assert formats.exercism(passing)["status"] == "pass"
    crashed = formats.exercism(crashed_report())
    assert crashed["status"] == "error"
    assert crashed["message"] == "Erreur du kit, pas une note : Les vérifications n’ont pas fini en 5 s."
    assert [test["status"] for test in crashed["tests"]] == ["error", "error"]


def classroom_reporter_total(results: dict) -> tuple[int, int]:
    """What GitHub Classroom's autograding reporter adds up: the tests' scores, max_score."""
    return sum(test["score"] for test in results["tests"]), results["max_score"]


def test_github_classroom_reporter_reads_the_score() -> None:
    assert classroom_reporter_total(formats.exercism(mixed_report())) == (2, 10)
    assert classroom_reporter_total(formats.exercism(crashed_report())) == (0, 3)


def test_junit_parses_back_with_consistent_counts() -> None:
    root = ET.fromstring(formats.junit(mixed_report(), "alice"))
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    expected = {"name": "alice", "tests": "4", "failures": "1", "errors": "1", "skipped": "1", "time": "1.600"}
    assert {key: suite.get(key) for key in expected} == expected
    assert {key: root.get(key) for key in ("tests", "failures", "errors", "skipped")} == {
        "tests": "4", "failures": "1", "errors": "1", "skipped": "1"}
    cases = suite.findall("testcase")
    assert [case.get("name") for case in cases] == [
        "server.starts: Le serveur démarre", "server.version: Refuse 1999-01-01",
        "server.ready: Prêt après initialized", "client.sends: Le client envoie sept messages"]
    assert [case.get("classname") for case in cases] == [
        "alice.server-1", "alice.server-2", "alice.server-2", "alice.client-1"]
    assert [[child.tag for child in case] for case in cases] == [[], ["failure"], ["skipped"], ["error"]]
    failure = cases[1].find("failure")
    assert failure.get("message") == "Mauvais code."
    assert failure.text.startswith("Mauvais code.\nAttendu : -32602\nObtenu : -32600")
    assert cases[2].find("skipped").get("message") == "Ignorée : server.version a échoué."
    properties = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert properties == {"score": "2", "max_score": "10", "status": "graded"}
    # failures + errors + skipped + passed == tests
    assert sum(1 for case in cases if not list(case)) + 3 == int(suite.get("tests"))


def test_junit_of_a_crash_keeps_the_reason() -> None:
    suite = ET.fromstring(formats.junit(crashed_report(), "bob")).find("testsuite")
    assert suite.get("errors") == "2" and suite.get("failures") == "0"
    assert suite.find("system-err").text == "Erreur du kit, pas une note : Les vérifications n’ont pas fini en 5 s."
    assert [case.find("error").get("type") for case in suite.findall("testcase")] == ["kit-error"] * 2
    properties = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert properties["status"] == "kit-error"


def test_checks_csv_has_one_row_per_check() -> None:
    rows = list(csv.reader(io.StringIO(formats.checks_csv(mixed_report()))))
    assert rows[0] == ["id", "task", "status", "score", "points", "title", "message"]
    assert [row[:5] for row in rows[1:]] == [
        ["server.starts", "server-1", "passed", "2", "2"],
        ["server.version", "server-2", "failed", "0", "3"],
        ["server.ready", "server-2", "skipped", "0", "4"],
        ["client.sends", "client-1", "error", "0", "1"],
    ]


def test_summary_csv_lists_score_max_failed_ids_and_error() -> None:
    text = formats.summary_csv([("alice", mixed_report()), ("bob", crashed_report())])
    rows = list(csv.reader(io.StringIO(text)))
    assert rows == [
        ["submission", "score", "max", "failed", "error", "status", "path", "cause"],
        ["alice", "2", "10", "server.version server.ready client.sends", "", "graded", "", "rule:server.version"],
        # A kit error has no score: it is not the student's zero.
        ["bob", "", "3", "server.starts client.sends", "Les vérifications n’ont pas fini en 5 s.",
         "kit-error", "", "kit-error"],
    ]


def test_render_writes_json_that_reads_back() -> None:
    assert json.loads(formats.render(mixed_report(), "gradescope", "alice")) == formats.gradescope(mixed_report())
    assert json.loads(formats.render(mixed_report(), "exercism", "alice")) == formats.exercism(mixed_report())


# --- hostile text: control characters, surrogates, formulas ----------------------------

HOSTILE = "\x1b[31mred\x1b[0m \x00\x01\x02\x03\x04\x05\x06\x07\x08 \x0b\x0c \ud800 \udfff \x7f\x9b \u202e"
HOSTILE_CLEAN = ("\\x1b[31mred\\x1b[0m \\x00\\x01\\x02\\x03\\x04\\x05\\x06\\x07\\x08 \\x0b\\x0c "
                 "\\ud800 \\udfff \\x7f\\x9b \\u202e")


def hostile_report() -> Report:
    """A report whose every text field holds what a student's code may print."""
    return Report(target=f"eve{HOSTILE}", lang="en", error="", results=[
        CheckResult(id=f"server.x{HOSTILE}", task=f"server-1{HOSTILE}", points=2, status="failed",
                    title=f"T{HOSTILE}", hint=f"H{HOSTILE}", expected=f"E{HOSTILE}",
                    actual=f"A{HOSTILE}", message=f"M{HOSTILE}", output=f"O{HOSTILE}\r\nnext"),
        CheckResult(id="server.y", task="server-1", points=1, status="error", title="U",
                    message=f"=HYPERLINK(\"http://x\"){HOSTILE}"),
    ])


def test_clean_text_escapes_every_unsafe_character_and_keeps_lines_and_tabs() -> None:
    from lab.grading.hygiene import clean_text

    assert clean_text(HOSTILE) == HOSTILE_CLEAN
    assert clean_text("a\tb\nc\r\nd\re") == "a\tb\nc\nd\\x0de"
    assert clean_text("déjà vu — ok ✓") == "déjà vu — ok ✓"


def test_every_format_of_a_hostile_report_is_valid_and_shows_no_control_character() -> None:
    import re

    forbidden = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u202e]")
    for fmt in formats.FORMATS:
        content = formats.render(hostile_report(), fmt, f"eve{HOSTILE}")
        assert not forbidden.search(content), fmt
        content.encode("utf-8")  # no lone surrogate left: it encodes
        assert "\\x1b[31mred" in content, fmt
        if fmt == "junit":
            root = ET.fromstring(content.encode("utf-8"))
            failure = root.find("testsuite/testcase/failure")
            assert failure.get("message") == f"M{HOSTILE_CLEAN}"
            assert root.find("testsuite").get("name") == f"eve{HOSTILE_CLEAN}"
        elif fmt == "csv":
            rows = list(csv.reader(io.StringIO(content)))
            assert rows[1][0] == f"server.x{HOSTILE_CLEAN}"
        else:
            json.loads(content)


def test_junit_of_a_hostile_report_passes_lxml_strict_parser() -> None:
    import pytest

    etree = pytest.importorskip("lxml.etree")
    content = formats.render(hostile_report(), "junit", "eve")
    parser = etree.XMLParser(recover=False)
    root = etree.fromstring(content.encode("utf-8"), parser)
    assert root.find("testsuite/testcase/failure").text.startswith(f"M{HOSTILE_CLEAN}\nExpected: E")


def test_csv_cells_that_a_spreadsheet_would_run_start_with_an_apostrophe() -> None:
    from lab.grading.hygiene import csv_cell

    assert [csv_cell(value) for value in ("=1+1", "+1", "-2", "@SUM(A1)", "\tx", "\rx", "ok", "a=b", 7, "")] == [
        "'=1+1", "'+1", "'-2", "'@SUM(A1)", "'\tx", "\\x0dx", "ok", "a=b", "7", ""]
    report = Report(target="t", lang="en", results=[
        CheckResult(id="a", task="t", points=1, status="failed", title="-1 x", message="=cmd|' /C calc'!A0")])
    rows = list(csv.reader(io.StringIO(formats.checks_csv(report))))
    assert rows[1][5:] == ["'-1 x", "'=cmd|' /C calc'!A0"]
    summary = list(csv.reader(io.StringIO(formats.summary_csv([("=HYPERLINK(\"http://x\")", report)], ["/c/=x"]))))
    assert summary[1] == ["'=HYPERLINK(\"http://x\")", "0", "1", "a", "", "graded", "/c/=x", "rule:a"]


def test_every_format_has_its_file_name() -> None:
    assert set(formats.FILE_NAMES) == set(formats.FORMATS)  # lab grade offers formats.FORMATS


def test_a_run_the_submission_stopped_is_its_own_zero_with_the_reason_not_a_kit_error() -> None:
    report = crashed_report(kit_error=False)
    data = formats.gradescope(report)
    assert (data["score"], data["extra_data"]) == (0, {"status": "graded"})
    assert data["output"] == "Les vérifications n’ont pas fini en 5 s.\nNote : 0/3"
    exercism = formats.exercism(report)
    assert (exercism["status"], exercism["message"]) == ("error", "Les vérifications n’ont pas fini en 5 s.")
    row = formats.summary_csv([("bob", report)], ["/class/bob"]).splitlines()[1]
    # The message is not one of the grader's own: its cause reads as the kit's.
    assert row == "bob,0,3,server.starts client.sends,Les vérifications n’ont pas fini en 5 s.,graded,/class/bob," \
                  "kit-error"


def test_a_run_without_the_sandbox_says_so_first_in_every_format() -> None:
    warning = "WARNING: graded WITHOUT a sandbox (--no-sandbox)."
    report = mixed_report()
    report.warnings = [warning]
    assert formats.gradescope(report)["output"].splitlines()[0] == warning
    assert formats.exercism(report)["message"] == warning
    suite = ET.fromstring(formats.junit(report, "ada")).find("testsuite")
    assert suite.find("system-err").text == warning


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_kit_error_gives_each_test_the_kits_reason_and_no_hint_about_the_students_code(lang: str) -> None:
    from lab.grading import formats
    from lab.grading.catalogue import Catalogue
    from lab.i18n import text

    reason = "bwrap: setting up uid map: Permission denied"
    checks = Catalogue.from_engine(lang)
    assert checks is not None and all(check.hint for check in checks.checks)  # the hints are there to leave out
    report = checks.failed("ana", lang, reason, kit_error=True)
    hint = text(lang, "grade.hint", value="").strip()
    scope = formats.gradescope(report)
    assert {test["output"] for test in scope["tests"]} == {reason}
    assert scope["extra_data"] == {"status": "kit-error"}
    assert {test["message"] for test in formats.exercism(report)["tests"]} == {reason}
    assert hint not in formats.junit(report, "ana") and hint not in formats.checks_csv(report)
    # A run the student's code stopped keeps its hints: there the student has something to fix.
    report.kit_error = False
    assert all(hint in test["output"] for test in formats.gradescope(report)["tests"])
