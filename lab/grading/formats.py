"""The formats instructors' platforms read, each made from a (cleaned) Report only: Gradescope's
results.json (no top-level max_score: the tests' own add up), Exercism's test-runner interface
v3 (with the scores GitHub Classroom's reporter adds up), GitHub Classroom's (see `classroom`),
JUnit XML, and CSV (a row per check; summary.csv, a row per submission).

A kit error (the kit could not finish the run) has a status of its own in every format, never a
student's zero: `error` (Exercism, Classroom), extra_data.status (Gradescope), `error` elements
of type kit-error (JUnit), kit-error and an empty score (CSV).
"""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET
from typing import Any

from lab.grading.causes import first_cause
from lab.grading.hygiene import clean_report, clean_text, csv_cell
from lab.i18n import text
from lab.results import ERROR, FAILED, PASSED, SKIPPED, CheckResult, Report

EXERCISM_OUTPUT_LIMIT = 500  # the interface's limit for a test's `output`
EXERCISM_MESSAGE_LIMIT = 65535
FORMATS = ("gradescope", "exercism", "classroom", "junit", "csv")
FILE_NAMES = {"gradescope": "results.json", "exercism": "results.json", "classroom": "results.json",
              "junit": "results.xml", "csv": "results.csv"}
# status, path and cause come last: readers of the first five columns by position keep working.
# cause: why the student first lost points (causes.py), e.g. "syntax:server.py", "rule:server.id-zero".
SUMMARY_COLUMNS = ["submission", "score", "max", "failed", "error", "status", "path", "cause"]
GRADED, KIT_ERROR = "graded", "kit-error"
# Student output lands in these fields: shown as plain text, never as HTML or Markdown.
GRADESCOPE_DISPLAY = {"output_format": "text", "test_output_format": "text", "test_name_format": "text"}
# When students see the feedback: at once (a lab is formative), unless the instructor builds
# the bundle for an exam; the autograder's own stdout is for instructors only.
VISIBILITIES = ("visible", "after_due_date", "after_published", "hidden")


def kit_error(report: Report) -> bool:
    """The kit itself could not finish this run (a hang or a crash is the student's own result)."""
    return bool(report.error and report.kit_error)


def run_status(report: Report) -> str:
    return KIT_ERROR if kit_error(report) else GRADED


def preface(report: Report) -> list[str]:
    """The lines every format puts first: how the run was graded (no sandbox), why it stopped."""
    return [*report.warnings, *([error_line(report)] if report.error else [])]


def error_line(report: Report) -> str:
    """Why the run could not finish ("" when it did); the kit's own failure says it is not a mark."""
    if kit_error(report):
        return text(report_language(report), "grade.kit_error", reason=report.error)
    return report.error


def explain(result: CheckResult, lang: str, with_output: bool = True, kit: bool = False) -> str:
    """What a person needs to fix a check: why, expected vs actual, the hint, what was printed
    (`kit`: the reason alone, no hint about the student's code)."""
    lines = [result.message] if result.message else []
    if kit:
        return "\n".join(lines)
    if result.status != PASSED:
        if result.expected or result.actual:
            lines.append(text(lang, "grade.expected", value=result.expected))
            lines.append(text(lang, "grade.actual", value=result.actual))
        if result.hint:
            lines.append(text(lang, "grade.hint", value=result.hint))
    if with_output and result.output:
        lines.append(text(lang, "grade.output", value=result.output))
    return "\n".join(lines)


def report_language(report: Report) -> str:
    return report.lang if report.lang in ("fr", "en") else "fr"


def gradescope(report: Report, visibility: str = "visible") -> dict[str, Any]:
    lang = report_language(report)
    tests = [{"name": f"{result.title} ({result.id})" if result.title else result.id, "number": str(number),
              "score": result.score, "max_score": result.points,
              "status": "passed" if result.status == PASSED else "failed",
              "output": explain(result, lang, kit=kit_error(report)), "tags": [result.task] if result.task else []}
             for number, result in enumerate(report.results, start=1)]
    summary = text(lang, "grade.summary", score=report.score, max=report.max_score)
    return {"score": report.score, "execution_time": round(report.duration),
            "output": "\n".join([*preface(report), summary]), **GRADESCOPE_DISPLAY, "visibility": visibility,
            "stdout_visibility": "hidden", "extra_data": {"status": run_status(report)}, "tests": tests}


EXERCISM_STATUS = {PASSED: "pass", FAILED: "fail", SKIPPED: "fail", ERROR: "error"}


def exercism(report: Report) -> dict[str, Any]:
    lang = report_language(report)
    tasks = dict.fromkeys(result.task for result in report.results)
    task_numbers = {task: number for number, task in enumerate(tasks, start=1)}
    # Exercism's "error": the tests could not all run, whoever is to blame (summary.csv and
    # the message say when it was the kit).
    status = "error" if report.error else "pass" if report.all_passed else "fail"
    tests = [{"name": result.title or result.id, "status": EXERCISM_STATUS.get(result.status, "error"),
              "message": explain(result, lang, with_output=False, kit=kit_error(report)) or None,
              "output": result.output[:EXERCISM_OUTPUT_LIMIT] or None, "test_code": result.id,
              "task_id": task_numbers[result.task], "score": result.score, "max_score": result.points}
             for result in report.results]
    return {"version": 3, "status": status, "message": "\n".join(preface(report))[:EXERCISM_MESSAGE_LIMIT] or None,
            "score": report.score, "max_score": report.max_score, "tests": tests}


CLASSROOM_POINT = "{name} · {point}/{points}"  # the name of a check's second, third... point


def classroom(report: Report) -> dict[str, Any]:
    """The Exercism file as GitHub Classroom's reporter prints it: `line_no` 0 (else "line
    undefined"), a failed check's reasons in `test_code` (it prints `message` only for an error),
    one test per point ("name · 2/3": the total it prints, passed/tests × max_score, is then the
    sum it sends), and a kit error as one test in error with max_score 0 (no points sent).
    """
    lang = report_language(report)
    if kit_error(report):
        reason = error_line(report)
        return {"version": 3, "status": "error", "message": reason[:EXERCISM_MESSAGE_LIMIT], "score": 0,
                "max_score": 0, "tests": [{"name": text(lang, "grade.classroom_kit_error"), "status": "error",
                                           "message": reason, "output": None, "test_code": "", "task_id": 1,
                                           "score": 0, "max_score": 0, "line_no": 0}]}
    data = exercism(report)
    tests = []
    for test, result in zip(data["tests"], report.results):
        test["line_no"] = 0
        test["test_code"] = "" if result.status == PASSED else explain(result, lang, with_output=False)
        points = max(result.points, 1)
        test["score"], test["max_score"] = int(result.status == PASSED) * min(result.points, 1), min(result.points, 1)
        tests.append(test)
        for point in range(2, points + 1):
            tests.append({**test, "name": CLASSROOM_POINT.format(name=test["name"], point=point, points=points),
                          "message": None, "output": None, "test_code": "", "score": test["score"], "max_score": 1})
    data["tests"] = tests
    return data


def junit(report: Report, suite_name: str) -> str:
    counts = {status: sum(r.status == status for r in report.results) for status in (FAILED, ERROR, SKIPPED)}
    numbers = {"tests": str(len(report.results)), "failures": str(counts[FAILED]), "errors": str(counts[ERROR]),
               "skipped": str(counts[SKIPPED]), "time": f"{report.duration:.3f}"}
    root = ET.Element("testsuites", name="lab", **numbers)
    suite = ET.SubElement(root, "testsuite", name=suite_name, **numbers)
    properties = ET.SubElement(suite, "properties")
    for name, value in (("score", report.score), ("max_score", report.max_score), ("status", run_status(report))):
        ET.SubElement(properties, "property", name=name, value=str(value))
    lang = report_language(report)
    for result in report.results:
        case = ET.SubElement(suite, "testcase", classname=f"{suite_name}.{result.task or 'lab'}",
                             name=f"{result.id}: {result.title}" if result.title else result.id,
                             time=f"{result.duration:.3f}")
        tag = {FAILED: "failure", ERROR: "error", SKIPPED: "skipped"}.get(result.status)
        if tag:
            element = ET.SubElement(case, tag, message=(result.message or result.status)[:500])
            if tag != "skipped":
                element.set("type", KIT_ERROR if kit_error(report) else result.status)
                element.text = explain(result, lang, kit=kit_error(report))
    if preface(report):
        ET.SubElement(suite, "system-err").text = "\n".join(preface(report))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def csv_text(header: list[str], rows: list[list[str]]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows([header, *rows])
    return buffer.getvalue()


def checks_csv(report: Report) -> str:
    lang, kit = report_language(report), kit_error(report)
    rows = ([result.id, result.task, KIT_ERROR if kit else result.status, result.score, result.points, result.title,
             explain(result, lang, with_output=False, kit=kit)] for result in report.results)
    return csv_text(["id", "task", "status", "score", "points", "title", "message"],
                    [[csv_cell(cell) for cell in row] for row in rows])


def summary_row(name: str, report: Report, path: str = "") -> list[str]:
    """One submission's summary: a kit error has no score (it is not the student's zero)."""
    report = clean_report(report)
    cells = [name, "" if kit_error(report) else report.score, report.max_score, " ".join(report.failed_ids),
             report.error.splitlines()[0] if report.error else "", run_status(report), path,
             first_cause(report.results, report.error, report.kit_error, report.reason, report.fields)]
    return [csv_cell(cell) for cell in cells]


def summary_csv(rows: list[tuple[str, Report]], paths: list[str] | None = None) -> str:
    """The class summary; `paths`: each submission's original path, in the order of `rows`."""
    return csv_text(SUMMARY_COLUMNS, [summary_row(name, report, paths[index] if paths else "")
                                      for index, (name, report) in enumerate(rows)])


def render(report: Report, fmt: str, name: str) -> str:
    """The per-submission file's content in format `fmt`, from the cleaned report."""
    report = clean_report(report)
    if fmt == "junit":
        return junit(report, clean_text(name))
    if fmt == "csv":
        return checks_csv(report)
    made = {"classroom": classroom, "gradescope": gradescope, "exercism": exercism}[fmt](report)
    return json.dumps(made, ensure_ascii=False, indent=2) + "\n"
