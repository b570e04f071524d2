"""What a student can cause is the student's failure, never a kit error (docs/isolation.md, "Kit
errors"): whatever a submission writes, in any shape, size or depth, is judged or refused with
a line of its own. The attacks graded by `lab grade` are in tests/test_attacks_verdicts.py;
here, the same rule on each place that reads what a sandbox wrote.
"""

from __future__ import annotations

import json

import pytest

from checks_helpers import run_some
from lab.checks.engine import Check, Context, Failed, judge
from lab.grading.runner import parse_report
from lab.results import FIELD_CHARS, SHOWN_CHARS, CheckResult, Report

PASSING = {"id": "a", "task": "t", "points": 1, "status": "passed", "title": "A"}


def report_line(results: list, **extra) -> bytes:
    return json.dumps({"target": "t", "lang": "en", "results": results, **extra}).encode()


@pytest.mark.parametrize("stdout", [
    b"[" * 200_000 + b"]" * 200_000,  # once a RecursionError in the grader
    report_line([{**PASSING, "fields": {"x": "[" * 50 + "]" * 50}}]).replace(b'"[', b"[").replace(b']"', b"]"),
    report_line([{**PASSING, "unknown": 1}]),
    report_line([{**PASSING, "points": "1"}]),
    report_line([{**PASSING, "id": ["a"]}]),
    report_line([[1, 2]]),
    report_line([PASSING]) + b"x",
    b"\xff\xfe" + report_line([PASSING])[:-1],
], ids=["deep", "deep-fields", "unknown-key", "points-text", "id-list", "result-list", "trailing", "not-utf8"])
def test_a_report_of_the_wrong_shape_size_or_depth_is_no_report(stdout: bytes) -> None:
    assert parse_report(stdout) is None


def test_a_report_is_read_with_every_text_cut() -> None:
    huge = "é" * 100_000  # 600 KB of JSON each: the report within the run's 4 MiB
    parsed = parse_report(report_line([{**PASSING, "message": huge, "actual": huge, "fields": {
        "got": huge, "nested": {"reason": "r", "fields": {"said": huge}}, "cells": ["c" * 1000] * 50}}], error=huge))
    assert parsed is not None
    (result,) = parsed.results
    assert (len(result.message), len(result.actual), len(parsed.error)) == (SHOWN_CHARS + 2,) * 3
    assert len(result.fields["got"]) == len(result.fields["nested"]["fields"]["said"]) == FIELD_CHARS + 2
    assert len(result.fields["cells"]) == 20
    assert len(json.dumps(parsed.to_dict())) < 100_000


def test_a_failure_whose_fields_hold_a_huge_value_is_cut_before_it_is_said() -> None:
    """A check quotes what the student's program wrote in its reason's fields: cut first, so the
    sentence, the fields and expected/actual all keep their size."""
    huge = "x" * 900_000

    def fails(context: Context) -> None:
        raise Failed(huge, huge, reason="reply.differs", fields={"what": "tools/list (id 5)", "path": "result",
                                                                 "got": huge, "want": "{}"})

    check = Check(id="server.tools-list-when-ready", task="server-3", run=fails, fr=("t", "h"), en=("t", "h"))
    result = judge(check, Context(folder=None, lang="en", probes={}), set(), {})  # type: ignore[arg-type]
    assert result.status == "failed"
    assert result.message == f"Reply to the request tools/list (id 5): result is {'x' * FIELD_CHARS} … instead of {{}}."
    assert result.fields["got"] == "x" * FIELD_CHARS + " …"
    assert len(result.expected) == len(result.actual) == SHOWN_CHARS + 2


def test_a_result_built_by_hand_is_cut_too() -> None:
    result = CheckResult(**PASSING, output="y" * 10_000, focus=["p" * 1000] * 100).capped()
    assert (len(result.output), len(result.focus), len(result.focus[0])) == (SHOWN_CHARS + 2, 20, FIELD_CHARS + 2)
    assert Report.from_dict({"target": "t", "results": [result.__dict__]}).results[0].output == result.output


# A server whose every reply is one fixed line (ID: the request's id): shapes a check reads.
ODD_SERVER = '''import json, sys
ODD = {odd!r}
for line in sys.stdin:
    try:
        message = json.loads(line)
    except ValueError:
        message = None
    sys.stdout.write(ODD.replace("ID", json.dumps(message.get("id")) if isinstance(message, dict) else "null") + "\\n")
    sys.stdout.flush()
'''
ODD_REPLIES = {
    "a list": "[1, 2]",
    "an id that is an object": '{"jsonrpc": "2.0", "id": {"a": [1]}, "result": {}}',
    "an error that is a list": '{"jsonrpc": "2.0", "id": ID, "error": []}',
    "error fields of other types": '{"jsonrpc": "2.0", "id": ID, "error": {"code": "x", "message": 5, "data": '
                                   '{"requested": [], "supported": "no"}}}',
    "NaN and Infinity": '{"jsonrpc": "2.0", "id": Infinity, "result": NaN}',
    "numbers too big": '{"jsonrpc": "2.0", "id": ID, "result": {"protocolVersion": 1e400, "capabilities": '
                       '{"tools": []}, "serverInfo": []}}',
    "25 deep": '{"jsonrpc": "2.0", "id": ID, "result": ' + "[" * 25 + "]" * 25 + "}",
    "the lesson's data keys of other types": '{"jsonrpc": "2.0", "id": ID, "error": {"code": -32602, "message": "x", '
                                             '"data": {"demandee": [], "acceptees": {"a": 1}}}}',
    "a lone surrogate": '{"jsonrpc": "2.0", "id": ID, "result": {"a": "\\ud800"}}',
    "a 5000-character key": '{"jsonrpc": "2.0", "id": ID, "result": {"' + "k" * 5000 + '": 1}}',
}


@pytest.mark.parametrize("odd", sorted(ODD_REPLIES))
def test_replies_of_any_shape_are_judged_never_a_kit_error(tmp_path, odd: str) -> None:
    (tmp_path / "server.py").write_text(ODD_SERVER.format(odd=ODD_REPLIES[odd]), encoding="utf-8")
    report = run_some(tmp_path, "server.")
    assert [(r.id, r.message) for r in report.results if r.status == "error"] == []
    assert report.score < report.max_score


def test_an_answers_file_nested_thousands_deep_is_not_toml_for_the_student() -> None:
    """tomllib reads nested arrays by recursion: once a RecursionError in the check run."""
    from lab.checks.answers_checks import read_answers
    from pathlib import Path
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "answers.toml").write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
        said = read_answers(Context(folder=Path(folder), lang="en", probes={}))
    assert said == ("answers.not_toml", {"file": "answers.toml", "said": "nested too deep"})


def test_a_reasons_fields_are_cleaned_like_every_other_text() -> None:
    """What a reason quotes (a student's reply, its keys) reaches report.json and the class page."""
    from lab.grading.hygiene import clean_report

    result = CheckResult(**PASSING, fields={"got": "\x1b[31m", "nested": {"\u202e": ["\x00"]}}, focus=["\x07"])
    cleaned = clean_report(Report(target="t", lang="en", results=[result])).results[0]
    assert (cleaned.fields, cleaned.focus) == ({"got": "\\x1b[31m", "nested": {"\\u202e": ["\\x00"]}}, ["\\x07"])
