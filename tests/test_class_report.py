"""The class report (lab/grading/class_report.py): its figures, read from each submission's
record (.lab-report.json) whatever the format, match summary.csv and the per-student files;
student text is shown as text; `lab report` rebuilds it and says clearly when there is nothing
to report, or when another kit graded the folder."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from conftest import ROOT
from hostile import STUB_ENGINE, make_submission
from lab.checks import registry, task_title
from lab.checks.texts import say
from lab.grading import class_report, class_stats, formats
from lab.grading.catalogue import Catalogue
from lab.grading.classroom import grade_class, output_names
from lab.grading.readback import FULL_RECORD_NAME, RECORD_BYTES, ClassRecord, Submission, read_class, unquoted
from lab.grading.runner import Limits
from lab.i18n import text
from lab.results import ERROR, FAILED, PASSED, SKIPPED, CheckResult, Report
from page_tree import Node, parse
from synthetic_class import build_class, write_class

FORMATS = list(formats.FORMATS)


def first_check(task: str):
    return next(check for check in registry()[0] if check.task == task)


def result(check, status: str, lang: str = "fr", **fields: object) -> CheckResult:
    return CheckResult(id=check.id, task=check.task, points=check.points, status=status,
                       title=check.title[lang], hint=check.hint[lang], **fields)


def small_class(lang: str = "fr") -> list[tuple[str, Report]]:
    """Four students: full marks, two partial, one that hung. Exact figures below."""
    one, two = first_check("server-1"), first_check("server-2")
    answers = [check for check in registry()[0] if check.task == "answers"][-1]
    cell = "Cellule six_reponses.1 : ce n’est pas ce que répond le serveur."
    asks = "la réponse 1 de `lab run`"

    def wrong(*others: str) -> dict:
        return {"reason": "answers.cell", "fields": {"cell": "six_reponses.1", "empty_cells": [], "wrong_cells": [*others]}}
    rows = [
        ("ana", Report("ana", lang, [result(one, PASSED), result(two, PASSED), result(answers, PASSED)], duration=2.5)),
        ("ben", Report("ben", lang, [
            result(one, PASSED), result(two, FAILED, expected='{"a": 1}', actual='{"a": 2}', message="différent"),
            result(answers, FAILED, expected=asks, actual="-32601",
                   message=cell + " Autres cellules fausses : six_reponses.4.", **wrong("six_reponses.4"))], duration=3.0)),
        ("cy", Report("cy", lang, [
            result(one, FAILED, expected="x", actual="y"), result(two, SKIPPED, message=say("fr", "part.waits_for", title=one.title["fr"])),
            result(answers, FAILED, expected=asks, actual="-32601", message=cell, **wrong())], duration=4.0)),
    ]
    templates = [result(check, ERROR) for check in (one, two, answers)]
    rows.append(("dee", Catalogue(templates).stopped("dee", lang, "grade.timeout", seconds=90)))
    rows[-1][1].duration = 90.0
    return rows


def read_summary(out: Path) -> list[dict[str, str]]:
    with (out / "summary.csv").open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def summary_score(cell: str) -> int | None:
    """A score from summary.csv or the page: None where a grader leaves a kit error unscored."""
    return int(cell) if cell else None


def hung_is_scored(out: Path) -> bool:
    """Does summary.csv score the run that hit the time limit (a zero), or leave it unscored?"""
    return read_summary(out)[3]["score"] != ""


def page_of(out: Path, lang: str = "fr") -> Node:
    return parse(class_report.write_report(out, lang).read_text(encoding="utf-8"))


def student_rows(page: Node) -> list[tuple[str, int, int, str, str, str]]:
    rows = []
    for row in page.find("table", id="students").find("tbody").all("tr"):
        score = row.all("td")[0]
        rows.append((row.find("th").text, summary_score(score.attrs["data-score"]), int(score.attrs["data-max"]),
                     row.all("td")[2].attrs["data-cause"],
                     " ".join(code.text for code in row.all("td")[3].all("code")), row.all("td")[4].text))
    return rows


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_small_class_gives_exact_figures_in_every_format(tmp_path: Path, fmt: str) -> None:
    rows = small_class()
    write_class(tmp_path, rows, fmt, "fr")
    page = page_of(tmp_path)
    one, two = first_check("server-1"), first_check("server-2")
    answers = rows[0][1].results[2]

    scored = hung_is_scored(tmp_path)
    assert page.find("p", id="summary").text == (
        "4 travaux, note médiane 0,5/3, moyenne 1,0, 1 avec tous les points." if scored else
        "4 travaux, note médiane 1/3, moyenne 1,3, 1 avec tous les points.")
    bars = [(int(bar.attrs["data-low"]), int(bar.attrs["data-count"]), bar.find("text", **{"class": "count"}).text)
            for bar in page.find("svg", id="histogram").all("g")]
    assert bars == [(0, 2, "2") if scored else (0, 1, "1"), (1, 1, "1"), (2, 0, "0"), (3, 1, "1")]
    parts = [(row.find("th").text, row.find("td").text) for row in page.find("table", id="parts").find("tbody").all("tr")]
    assert parts == [(task_title("server-1", "fr"), "2/4 (50 %)"), (task_title("server-2", "fr"), "1/4 (25 %)"),
                     (task_title("answers", "fr"), "1/4 (25 %)")]
    # Over the submissions where each check could run: cy's skipped check and dee's run that
    # never finished are counted apart.
    checks = [(row.attrs["data-check"], row.all("td")[1].text, row.all("td")[2].text, row.all("td")[3].text,
               row.all("td")[4].text) for row in page.find("table", id="checks").find("tbody").all("tr")]
    assert checks == [(answers.id, "2/3 (67 %)", "0", "1", answers.hint), (two.id, "1/2 (50 %)", "0", "2", two.hint["fr"]),
                      (one.id, "1/3 (33 %)", "0", "1", one.hint["fr"])]
    cells = [(row.find("code").text, row.all("td")[0].text, row.all("td")[1].text, row.all("td")[2].text)
             for row in page.find("table", id="cells").find("tbody").all("tr")]
    assert cells == [("six_reponses.1", "la réponse 1 de `lab run`", "2", "-32601 (2)"),
                     ("six_reponses.4", "", "1", "1 sans valeur connue")]
    assert [(row.find("th").text, row.all("td")[0].text) for row in page.find("table", id="runs").find("tbody").all("tr")] \
        == [("dee", "bloqué (temps dépassé)")]
    assert page.find("p", id="times").text == \
        "Temps par travail : médian 3,5 s, le plus long 90,0 s, 100 s en tout (4 travaux)."
    assert student_rows(page) == [
        ("ana", 3, 3, "", "", "terminé"),
        ("ben", 1, 3, f"rule:{two.id}", f"{two.id} {answers.id}", "terminé"),
        ("cy", 0, 3, f"rule:{one.id}", f"{one.id} {two.id} {answers.id}", "terminé"),
        ("dee", 0 if scored else None, 3, "hung", f"{one.id} {two.id} {answers.id}", "bloqué (temps dépassé)"),
    ]
    causes = [row.all("td")[2].text for row in page.find("table", id="students").find("tbody").all("tr")]
    assert causes == ["—", f"règle : {two.title['fr']}", f"règle : {one.title['fr']}", "bloqué (temps dépassé)"]
    assert [row["cause"] for row in read_summary(tmp_path)] == ["", f"rule:{two.id}", f"rule:{one.id}", "hung"]
    stuck = [row.all("td")[1].text for row in page.find("table", id="students").find("tbody").all("tr")]
    assert stuck == ["—", task_title("server-2", "fr"), task_title("server-1", "fr"), task_title("server-1", "fr")]
    links = [link.attrs["href"] for link in page.find("table", id="students").all("a")]
    assert links == [f"{name}/{formats.FILE_NAMES[fmt]}" for name in ("ana", "ben", "cy", "dee")]


def test_the_page_speaks_english_when_asked(tmp_path: Path) -> None:
    write_class(tmp_path, small_class("en"), "exercism", "en")
    page = page_of(tmp_path, "en")
    assert page.find("html").attrs["lang"] == "en"
    assert page.find("h1").text == "Class report"
    assert [h.text for h in page.all("h2")] == [
        "Score distribution", "Lesson parts: who has full marks", "Checks, from most failed to least failed",
        "answers.toml: the most common wrong answers", "Submissions to look at: hung, crashed, out of CPU, not compiling, stopped, refused, empty",
        "Students"]
    assert page.find("p", id="summary").text == (
        "4 submissions, median score 0.5/3, mean 1.0, 1 with full marks." if hung_is_scored(tmp_path) else
        "4 submissions, median score 1/3, mean 1.3, 1 with full marks.")
    assert page.find("table", id="runs").find("td").text == "hung (time limit)"
    facts = [(dt.text, dd.text) for dt, dd in zip(page.find("dl").all("dt"), page.find("dl").all("dd"))]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", facts[0][1])
    assert facts[1:] == [("Kit version", "0.1.0"), ("Format", "exercism"), (
        "Grading options", "bonus: no · sandbox: bubblewrap · time per submission: 90 s · CPU per process: 90 s · "
        "memory per process: 2048 MiB · output kept: 4 MiB · file size: 64 MiB · parallel jobs: 4 · preloading: yes")]


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_class_of_forty_matches_summary_csv_and_the_result_files(tmp_path: Path, fmt: str) -> None:
    rows = build_class(tmp_path, 40, fmt=fmt)
    page = page_of(tmp_path)
    summary = read_summary(tmp_path)
    assert [row[:5] for row in student_rows(page)] == [
        (class_report.visible(unquoted(row["submission"])), summary_score(row["score"]), int(row["max"]), row["cause"],
         row["failed"]) for row in summary]
    folded = [(row.find("summary").text if row.all("summary") else None)
              for row in page.find("table", id="students").find("tbody").all("tr")]
    assert folded == [f"{len(row['failed'].split())} vérifications" if len(row["failed"].split()) > 6 else None
                      for row in summary]
    assert any(folded) and not all(folded)
    counts = Counter(int(row["score"]) for row in summary if row["score"])
    assert {int(bar.attrs["data-low"]): int(bar.attrs["data-count"]) for bar in page.find("svg", id="histogram").all("g")} \
        == {score: counts.get(score, 0) for score in range(max(int(row["max"]) for row in summary) + 1)}
    # Against the reports themselves: full marks per part, failures per check.
    for row in page.find("table", id="parts").find("tbody").all("tr"):
        task = row.attrs["data-task"]
        full = sum(all(r.status == PASSED for r in report.results if r.task == task) for _, report in rows)
        assert (int(row.find("td").attrs["data-full"]), int(row.find("td").attrs["data-total"])) == (full, 40)
    # Failure rates over the runs that finished (the five that did not are counted apart).
    cells_of = [row.find("td", **{"class": "num"}).attrs for row in page.find("table", id="checks").find("tbody").all("tr")]
    failures = [(row.attrs["data-check"], int(attrs["data-failed"]), int(attrs["data-total"]))
                for row, attrs in zip(page.find("table", id="checks").find("tbody").all("tr"), cells_of)]
    # A failure whose cause is work not there yet (missing, unwritten) or a program that never
    # ran is counted apart: "failed" counts the rules broken.
    from lab.grading.causes import check_cause

    finished = [report for _, report in rows if not report.error]
    kinds_of = {listed.id: Counter(check_cause(check).split(":")[0] for report in finished for check in report.results
                                   if check.id == listed.id and check.status != PASSED) for listed in rows[0][1].results}
    expected = {check_id: (kinds["rule"], len(finished) - sum(kinds.values()) + kinds["rule"])
                for check_id, kinds in kinds_of.items()}
    assert {check_id: (failed, total) for check_id, failed, total in failures} == expected
    assert len(finished) == 35 and sum(failed for _, failed, _ in failures) > 0
    assert [failed for _, failed, _ in failures] == sorted((failed for _, failed, _ in failures), reverse=True)
    kinds = {item.attrs["data-kind"]: int(item.attrs["data-count"]) for item in page.find("ul", id="run-kinds").all("li")}
    assert kinds == {"hung": 1, "cpu": 1, "crashed": 1, "stopped": 1, "kit_error": 1}
    # The wrong values are what the students wrote, as the answers checks reported them.
    written: dict[str, Counter[str]] = {}
    for _, report in rows:
        for r in report.results:
            if r.task == "answers" and r.status == FAILED:
                written.setdefault(r.message.split(" : ")[0].removeprefix("Cellule "), Counter())[r.actual] += 1
    cell_rows = {row.find("code").text: row for row in page.find("table", id="cells").find("tbody").all("tr")}
    # Empty cells are counted apart from the wrong values, in a column of their own.
    assert {cell: [item.text for item in cell_rows[cell].all("li") if "sans valeur" not in item.text]
            for cell in written} == {
        cell: [f"{value} ({count})" for value, count in
               sorted(((v, c) for v, c in values.items() if v != "—"), key=lambda item: (-item[1], item[0]))[:3]]
        for cell, values in written.items()}
    assert {cell: cell_rows[cell].all("td")[3].text for cell in written} == \
        {cell: str(values["—"]) for cell, values in written.items()}
    assert any(values["—"] for values in written.values())


def test_hostile_text_is_shown_as_text(tmp_path: Path) -> None:
    name = "<script>alert(1)</script>\x1b[2J\u202e"
    check = first_check("answers")
    submission = Submission(name=name, score=0, max_score=1, feedback=f"{name}/results.json", error="boom\x07",
                            checks=[CheckResult(check.id, "answers", 1, FAILED, "t", expected="q",
                                                actual='"></td><img src=x onerror=alert(2)>',
                                                message="Cellule <b>x</b> : non.")])
    page = class_report.render(ClassRecord([submission], {"date": "<i>now</i>"}), "fr")
    assert page.count("<script") == 1  # the page's own
    assert "<img" not in page and "<b>x" not in page and "<i>now" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;\\x1b[2J\\u202e" in page
    assert "&quot;&gt;&lt;/td&gt;&lt;img src=x onerror=alert(2)&gt;" in page
    assert 'href="%3Cscript%3Ealert%281%29%3C%2Fscript%3E%1B%5B2J%E2%80%AE/results.json"' in page
    assert not any(ord(char) < 32 and char != "\n" for char in page)
    tree = parse(page)
    assert tree.find("table", id="students").find("th", scope="row").text == "<script>alert(1)</script>\\x1b[2J\\u202e"
    assert tree.find("table", id="runs").all("td")[2].text == "boom\\x07"


def test_a_forged_csv_guard_and_unknown_columns_and_statuses_are_read(tmp_path: Path) -> None:
    rows = small_class()
    write_class(tmp_path, rows, "csv", "fr")
    summary = (tmp_path / "summary.csv").read_text(encoding="utf-8").splitlines()
    # Columns are read by name: one added after them is left alone.
    lines = [summary[0] + ",status,path"] + [line + ",,/class/x" for line in summary[1:]]
    lines[3] = lines[3].rsplit(",", 2)[0] + ",kit-error,/class/cy"
    (tmp_path / "summary.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    data = json.loads((tmp_path / "ana" / FULL_RECORD_NAME).read_text(encoding="utf-8"))
    data["report"]["results"][0]["status"] = "weird"
    (tmp_path / "ana" / FULL_RECORD_NAME).write_text(json.dumps(data), encoding="utf-8")
    record = read_class(tmp_path)
    assert [s.name for s in record.submissions] == ["ana", "ben", "cy", "dee"]
    assert [class_stats.run_kind(s) for s in record.submissions] == [None, None, "kit_error", "hung"]
    assert record.submissions[0].checks[0].status == "weird"
    assert record.mismatches == ["ana"]  # its record now fails a check that summary.csv says passed
    page = class_report.render(record, "fr")
    assert "Attention : pour ana, le fichier de résultats et summary.csv ne disent pas la même chose" in page


def test_a_missing_or_malformed_record_costs_that_students_row_only(tmp_path: Path) -> None:
    write_class(tmp_path, small_class(), "gradescope", "fr")
    (tmp_path / "ben" / "results.json").unlink()
    (tmp_path / "ben" / FULL_RECORD_NAME).unlink()
    (tmp_path / "ben").rmdir()
    (tmp_path / "cy" / FULL_RECORD_NAME).write_text("{not json", encoding="utf-8")
    record = read_class(tmp_path)
    by_name = {s.name: s for s in record.submissions}
    assert (by_name["ben"].score, by_name["ben"].feedback, by_name["ben"].unreadable) == (1, "", "missing")
    assert by_name["ben"].failed_ids == rows_failed(tmp_path, "ben")
    assert by_name["cy"].unreadable.startswith("JSONDecodeError") and by_name["cy"].feedback == "cy/results.json"
    page = parse(class_report.render(record, "fr"))
    assert [row[:3] for row in student_rows(page)] == [
        ("ana", 3, 3), ("ben", 1, 3), ("cy", 0, 3), ("dee", 0 if hung_is_scored(tmp_path) else None, 3)]
    assert page.find("table", id="students").all("tr")[2].all("td")[-1].text == "pas de fichier"


def test_hostile_records_cost_their_students_rows_only(tmp_path: Path) -> None:
    """A record too long, nested too deep, of the wrong types or with unknown keys: that row only."""
    rows = small_class()
    write_class(tmp_path, rows, "gradescope", "fr")
    kit = json.loads((tmp_path / "ana" / FULL_RECORD_NAME).read_text(encoding="utf-8"))["kit"]

    def forge(name: str, report: object) -> None:
        record = {"kit": kit, "format": "gradescope", "bonus": False, "report": report}
        (tmp_path / name / FULL_RECORD_NAME).write_text(json.dumps(record), encoding="utf-8")

    ben = rows[1][1].to_dict()
    ben["results"][0]["points"] = "1000"
    forge("ben", ben)
    deep = rows[2][1].to_dict()
    deep["fields"] = json.loads("[" * 500 + "]" * 500)
    forge("cy", deep)
    dee = rows[3][1].to_dict()
    dee["results"][0]["verdict"] = "passed"
    forge("dee", dee)
    long = rows[0][1].to_dict()
    long["warnings"] = ["x" * RECORD_BYTES]
    forge("ana", long)
    (tmp_path / "grading.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")  # past json's recursion
    record = read_class(tmp_path)
    assert record.grading == {}  # the options then read "not recorded"
    assert [s.unreadable.split(":")[0] for s in record.submissions] == ["ValueError", "TypeError", "ValueError", "KeyError"]
    assert [(s.score, s.max_score, s.feedback) for s in record.submissions] == [
        (score, 3, f"{name}/results.json") for name, score in (("ana", 3), ("ben", 1), ("cy", 0), ("dee", 0))]
    assert [row[:3] for row in student_rows(parse(class_report.render(record, "fr")))][:3] == [
        ("ana", 3, 3), ("ben", 1, 3), ("cy", 0, 3)]
    # A link in place of a record is not followed (a classmate's, or any file of the machine).
    (tmp_path / "ben" / FULL_RECORD_NAME).unlink()
    (tmp_path / "ben" / FULL_RECORD_NAME).symlink_to(tmp_path / "ana" / FULL_RECORD_NAME)
    assert read_class(tmp_path).submissions[1].unreadable == "ValueError: not a file"


def rows_failed(out: Path, name: str) -> list[str]:
    return next(row["failed"].split() for row in read_summary(out) if row["submission"] == name)


def test_without_summary_csv_the_folders_are_read(tmp_path: Path) -> None:
    write_class(tmp_path, small_class(), "junit", "fr")
    (tmp_path / "summary.csv").unlink()
    (tmp_path / "grading.json").unlink()
    record = read_class(tmp_path)
    assert [(s.name, s.score, s.max_score, s.duration) for s in record.submissions] == [
        ("ana", 3, 3, 2.5), ("ben", 1, 3, 3.0), ("cy", 0, 3, 4.0), ("dee", 0, 3, 90.0)]
    assert class_stats.run_kind(record.submissions[3]) == "hung"
    assert "non enregistré" in class_report.render(record, "fr")


def test_run_kinds_come_from_the_graders_message_keys() -> None:
    def kind(reason: str = "", error: str = "", kit_error: bool = False, **fields: object) -> str | None:
        return class_stats.run_kind(Submission("x", error=error or reason, reason=reason, fields=fields,
                                               kit_error=kit_error))

    assert kind("grade.timeout", seconds=2.5) == "hung"
    assert kind("grade.crashed", code=-24, stderr="") == "cpu"
    assert kind("grade.crashed", code=-9, stderr="Killed") == "stopped"
    assert kind("grade.crashed", code=1, stderr="Traceback") == "crashed"
    assert kind("grade.too_much_output", limit=4) == "stopped"
    assert kind("grade.not_a_folder", path="/x") == "unreadable"
    assert kind("grade.timeout", kit_error=True, seconds=2.5) == "hung"  # the key decides, whatever the status
    # The grader's sentence without its key is an error the grader has no message for.
    assert kind(error=text("en", "grade.timeout", seconds=2.5)) == "kit_error"
    assert kind(error="RuntimeError: can't start new thread") == "kit_error"
    assert kind() is None and kind(kit_error=True) == "kit_error"
    assert unquoted("'=1+2") == "=1+2" and unquoted("'ana") == "'ana" and unquoted("'") == "'"


def test_grading_json_keeps_the_times_of_earlier_runs(tmp_path: Path) -> None:
    first = [("a", Report("a", "fr", duration=1.5)), ("b", Report("b", "fr", duration=2.0))]
    class_report.record_grading(tmp_path, first, {"bonus": True})
    class_report.record_grading(tmp_path, [("b", Report("b", "fr", duration=7.25))], {"bonus": False})
    data = json.loads((tmp_path / "grading.json").read_text(encoding="utf-8"))
    assert data["durations"] == {"a": 1.5, "b": 7.25}
    assert data["bonus"] is False and data["kit_version"] == "0.1.0" and data["date"].endswith("+00:00")


def test_no_submission_folder_can_take_the_name_of_the_class_files(tmp_path: Path) -> None:
    names = output_names([tmp_path / "report.html", tmp_path / "GRADING.json", tmp_path / "ana"])
    assert names == ["report.html-2", "GRADING.json-2", "ana"]


def lab(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lab", *args], capture_output=True, text=True, timeout=60, cwd=ROOT)


def test_lab_grade_writes_the_report_and_lab_report_rebuilds_it_the_same(tmp_path: Path, catalogue: Catalogue) -> None:
    submissions = [make_submission(tmp_path / "class", name, kind, server_only=True)
                   for name, kind in (("ada", "full"), ("bo", "partial"), ("cy", "exits"))]
    out = tmp_path / "out"
    grade_class(submissions, out, fmt="exercism", lang="en", jobs=2, limits=Limits(timeout=5.0),
                target=str(STUB_ENGINE), catalogue=catalogue)
    assert sorted(path.name for path in out.iterdir()) == ["ada", "bo", "cy", "grading.json", "report.html", "summary.csv"]
    written = (out / "report.html").read_text(encoding="utf-8")
    grading = json.loads((out / "grading.json").read_text(encoding="utf-8"))
    assert (grading["format"], grading["lang"], grading["bonus"], grading["limits"]["timeout"], grading["jobs"]) == \
        ("exercism", "en", False, 5.0, 2)
    assert sorted(grading["durations"]) == ["ada", "bo", "cy"]
    page = parse(written)
    crashed = summary_score(read_summary(out)[2]["score"])  # 0, or None where a crash is left unscored
    assert [row[:5] for row in student_rows(page)] == [
        ("ada", 10, 10, "", ""), ("bo", 2, 10, "rule:stub.two", "stub.two stub.three"),
        ("cy", crashed, 10, "crashed", "stub.one stub.two stub.three")]
    assert crashed in (0, None)
    assert page.find("table", id="runs").find("td").text == "crashed"
    (out / "report.html").unlink()
    done = lab("--lang", "en", "report", str(out))
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == f"Class report written: {out / 'report.html'}\n"
    assert (out / "report.html").read_text(encoding="utf-8") == written


@pytest.mark.parametrize("fmt", FORMATS)
def test_lab_report_reads_each_format(tmp_path: Path, fmt: str) -> None:
    write_class(tmp_path, small_class(), fmt, "fr")
    done = lab("report", str(tmp_path))
    assert (done.returncode, done.stdout) == (0, f"Rapport de classe écrit : {tmp_path / 'report.html'}\n")
    assert student_rows(parse((tmp_path / "report.html").read_text(encoding="utf-8")))[1][:3] == ("ben", 1, 3)


def click_error(stderr: str) -> str:
    """The message of click's one-line error, without its "Error: " word (translated or not)."""
    match = re.fullmatch(r"(?:Error|Erreur) ?: (.*)\n", stderr, flags=re.S)
    assert match, stderr
    return match.group(1)


@pytest.mark.parametrize(("lang", "missing", "empty"), ids=["fr", "en"], argvalues=[
    ("fr", "Dossier introuvable : {path}. Donnez le dossier --out de `lab grade`.",
     "Aucun résultat de notation dans {path} (ni summary.csv ni fichier de résultats). "
     "Lancez d’abord `lab grade ... --out {path}`."),
    ("en", "Folder not found: {path}. Give the --out folder of `lab grade`.",
     "No grading results in {path} (no summary.csv, no results file). Run `lab grade ... --out {path}` first."),
])
def test_lab_report_on_a_missing_or_empty_folder_says_so(tmp_path: Path, lang: str, missing: str, empty: str) -> None:
    absent = tmp_path / "absent"
    done = lab("--lang", lang, "report", str(absent))
    assert (done.returncode, done.stdout, click_error(done.stderr)) == (1, "", missing.format(path=absent))
    (tmp_path / "empty" / "stray").mkdir(parents=True)
    (tmp_path / "empty" / "summary.csv").write_text(",".join(formats.SUMMARY_COLUMNS) + "\n", encoding="utf-8")
    done = lab("--lang", lang, "report", str(tmp_path / "empty"))
    assert (done.returncode, click_error(done.stderr)) == (1, empty.format(path=tmp_path / "empty"))
    assert sorted(path.name for path in (tmp_path / "empty").iterdir()) == ["stray", "summary.csv"]


def test_names_as_lab_grade_writes_them_find_their_folder(tmp_path: Path) -> None:
    rows = build_class(tmp_path, 8)
    assert [row["submission"] for row in read_summary(tmp_path)][2:4] == [
        "_x1b[31mred_x1b[0m & <b>bold", "'=HYPERLINK(\"evil.invalid\",\"x\")"]  # the second guarded in the CSV
    record = read_class(tmp_path)
    assert [s.name for s in record.submissions] == [name for name, _ in rows]
    assert [s.name for s in record.submissions][2:4] == ["_x1b[31mred_x1b[0m & <b>bold", '=HYPERLINK("evil.invalid","x")']
    assert [s.feedback for s in record.submissions] == [f"{name}/results.json" for name, _ in rows]
    assert [s.unreadable for s in record.submissions] == [""] * 8
    assert record.mismatches == []


@pytest.mark.parametrize(("lang", "line"), ids=["fr", "en"], argvalues=[
    ("fr", "{path} a été noté par une autre version du kit : notez-le de nouveau avec celle-ci "
           "(`lab grade ... --out {path}`), puis lab report."),
    ("en", "{path} was graded by another version of the kit: regrade it with this one (`lab grade ... --out {path}`), "
           "then lab report."),
])
@pytest.mark.parametrize("older", ["no record", "another kit", "no kit named"])
def test_a_folder_another_kit_graded_gets_the_regrade_line(tmp_path: Path, lang: str, line: str, older: str) -> None:
    write_class(tmp_path, small_class(), "gradescope", "fr")
    path = tmp_path / "ben" / FULL_RECORD_NAME
    if older == "no record":  # a kit that kept the results file only
        path.unlink()
    else:
        data = json.loads(path.read_text(encoding="utf-8"))
        data["kit"] = "0.0.1"
        if older == "no kit named":
            del data["kit"]
        path.write_text(json.dumps(data), encoding="utf-8")
    (tmp_path / "report.html").write_text("the older kit's page", encoding="utf-8")
    before = {path: path.read_bytes() for path in tmp_path.rglob("*") if path.is_file()}
    done = lab("--lang", lang, "report", str(tmp_path))
    assert (done.returncode, done.stdout, click_error(done.stderr)) == (1, "", line.format(path=tmp_path))
    assert {path: path.read_bytes() for path in tmp_path.rglob("*") if path.is_file()} == before  # nothing written or lost


def test_the_record_gives_the_kit_error_and_its_error(tmp_path: Path) -> None:
    rows = small_class()
    rows[2][1].kit_error, rows[2][1].error = True, "OSError: [Errno 24] Too many open files"
    write_class(tmp_path, rows, "junit", "fr")
    record = read_class(tmp_path)
    statuses = [[check.status for check in s.checks] for s in record.submissions]
    assert statuses == [[PASSED] * 3, [PASSED, FAILED, FAILED], [FAILED, SKIPPED, FAILED], [ERROR] * 3]
    assert [s.duration for s in record.submissions] == [2.5, 3.0, 4.0, 90.0]
    assert [class_stats.run_kind(s) for s in record.submissions] == [None, None, "kit_error", "hung"]
    assert [s.kit_error for s in record.submissions] == [False, False, True, False]
    assert [s.feedback for s in record.submissions] == [f"{n}/results.xml" for n in ("ana", "ben", "cy", "dee")]


def test_an_unscored_kit_error_in_summary_csv_is_left_out_of_the_scores(tmp_path: Path) -> None:
    write_class(tmp_path, small_class(), "csv", "fr")
    summary = read_summary(tmp_path)
    summary[3].update(score="", status="kit-error")  # dee: no score, the kit's failure
    with (tmp_path / "summary.csv").open("w", newline="", encoding="utf-8") as handle:
        columns = list(dict.fromkeys([*formats.SUMMARY_COLUMNS, "status"]))
        writer = csv.DictWriter(handle, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(summary)
    page = page_of(tmp_path)
    assert page.find("p", id="summary").text == "4 travaux, note médiane 1/3, moyenne 1,3, 1 avec tous les points."
    bars = {bar.attrs["data-low"]: bar.attrs["data-count"] for bar in page.find("svg", id="histogram").all("g")}
    assert bars == {"0": "1", "1": "1", "2": "0", "3": "1"}
    assert page.find("table", id="students").all("tr")[4].find("td").text == "—/3"
