"""The machine formats, made from hand-built Reports and checked against their documented shape."""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET

from lab.grading import formats
from lab.results import CheckResult, Report

GRADESCOPE_TOP = {"score", "execution_time", "output", "tests"}  # documented top-level keys used
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


def crashed_report() -> Report:
    reason = "Les vérifications n’ont pas fini en 5 s."
    return Report(target="bob", lang="fr", error=reason, results=[
        CheckResult(id="server.starts", task="server-1", points=2, status="error", title="T1", message=reason),
        CheckResult(id="client.sends", task="client-1", points=1, status="error", title="T2", message=reason),
    ])


def test_gradescope_has_its_documented_fields_and_statuses() -> None:
    data = formats.gradescope(mixed_report())
    assert set(data) == GRADESCOPE_TOP
    assert data["score"] == 2
    assert data["execution_time"] == 2
    assert data["output"] == "Note : 2/10"
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
    assert data["output"] == "Les vérifications n’ont pas fini en 5 s.\nScore: 0/3"
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
    assert crashed["message"] == "Les vérifications n’ont pas fini en 5 s."
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
    assert properties == {"score": "2", "max_score": "10"}
    # failures + errors + skipped + passed == tests
    assert sum(1 for case in cases if not list(case)) + 3 == int(suite.get("tests"))


def test_junit_of_a_crash_keeps_the_reason() -> None:
    suite = ET.fromstring(formats.junit(crashed_report(), "bob")).find("testsuite")
    assert suite.get("errors") == "2" and suite.get("failures") == "0"
    assert suite.find("system-err").text == "Les vérifications n’ont pas fini en 5 s."


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
        ["submission", "score", "max", "failed", "error"],
        ["alice", "2", "10", "server.version server.ready client.sends", ""],
        ["bob", "0", "3", "server.starts client.sends", "Les vérifications n’ont pas fini en 5 s."],
    ]


def test_render_writes_json_that_reads_back() -> None:
    assert json.loads(formats.render(mixed_report(), "gradescope", "alice")) == formats.gradescope(mixed_report())
    assert json.loads(formats.render(mixed_report(), "exercism", "alice")) == formats.exercism(mixed_report())
