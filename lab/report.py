"""The student's terminal view of a Report: each lesson part's score, its first root cause (or
first failure) with expected and actual where they differ and the hint, the others named on one
line, and the score.
"""

from __future__ import annotations

import json
from itertools import groupby
from typing import Any

import click

from lab.checks import is_cause, task_title
from lab.grading.hygiene import clean_report, clean_text
from lab.i18n import text
from lab.process.capped import parse_json
from lab.results import FAILED, PASSED, SKIPPED, CheckResult, Report

MAX_DIFFERENCES = 6  # paths shown; more means the values have little in common
MISSING = object()
MARKS = {PASSED: ("✓", "green"), FAILED: ("✗", "red"), SKIPPED: ("–", "yellow")}
INDENT = "      "


def part_status(results: list[CheckResult]) -> str:
    statuses = {result.status for result in results}
    return PASSED if statuses == {PASSED} else SKIPPED if statuses <= {PASSED, SKIPPED} else FAILED  # or a kit error


def indented(value: str, width: int) -> str:
    """Multi-line values line up under their label."""
    return value.replace("\n", "\n" + INDENT + " " * width)


def as_json(text: str) -> Any:
    """The dict or list a shown value holds, or None (text, or a value cut short)."""
    try:
        value = parse_json(text, 1 << 20)  # a student's line: any depth, any length
    except ValueError:
        return None
    return value if isinstance(value, (dict, list)) else None


def differences(expected: Any, actual: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    """(key path, expected, actual) wherever two JSON values differ."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        keys = list(expected) + [key for key in actual if key not in expected]
        return [found for key in keys for found in differences(
            expected.get(key, MISSING), actual.get(key, MISSING), f"{path}.{key}" if path else key)]
    if isinstance(expected, list) and isinstance(actual, list):
        return [found for index in range(max(len(expected), len(actual))) for found in differences(
            expected[index] if index < len(expected) else MISSING,
            actual[index] if index < len(actual) else MISSING, f"{path}[{index}]")]
    if json.dumps(expected, sort_keys=True, default=str) == json.dumps(actual, sort_keys=True, default=str):
        return []
    return [(path, expected, actual)]


def said(value: Any, lang: str) -> str:
    return text(lang, "check.absent") if value is MISSING else json.dumps(value, ensure_ascii=False)


def compared(problem: CheckResult, lang: str) -> list[tuple[str, str]]:
    """(label key, value) pairs: only the differing paths of two JSON values, else both whole."""
    wanted, got = as_json(problem.expected), as_json(problem.actual)
    if wanted is not None and got is not None and type(wanted) is type(got):
        found = differences(wanted, got)
        # What the check judged, and a reply's own keys (result instead of error): not the
        # wording of a message the check does not grade.
        judged = [d for d in found if any(related(d[0], f) for f in problem.focus) or "." not in d[0]]
        found = judged or found
        if 0 < len(found) <= MAX_DIFFERENCES and all(path for path, _, _ in found):
            # Read back from clean texts: their escapes (\ud800) are made clean again.
            return [(key, clean_text(f"{path} = {said(value, lang)}")) for path, want, have in found
                    for key, value in (("check.expected", want), ("check.actual", have))]
    return [("check.expected", problem.expected), ("check.actual", problem.actual)]


def related(path: str, judged: str) -> bool:
    """`error.code` and `error`, or `result` and `result.protocolVersion`: one inside the other."""
    inner, outer = (path, judged) if len(path) >= len(judged) else (judged, path)
    return inner == outer or inner.startswith((outer + ".", outer + "["))


def shown_problem(results: list[CheckResult]) -> CheckResult | None:
    failures = [r for r in results if r.status not in (PASSED, SKIPPED)]
    # A cause that says what the first failure says (both found no client output, say) adds nothing.
    causes = [r for r in failures if is_cause(r.id) and r.message != failures[0].message]
    return (causes or failures or [None])[0]


def first_problem(results: list[CheckResult], lang: str) -> list[str]:
    problem = shown_problem(results)
    if problem is None:  # only skipped checks: say why once
        skipped = next(r for r in results if r.status == SKIPPED)
        return [INDENT + skipped.message]
    lines = [f"    {click.style('✗', fg='red')} {problem.title}"]  # the title in the run's language; the id is for the formats
    if problem.message:
        lines.append(INDENT + indented(problem.message, 0))
    for key, value in (*compared(problem, lang), ("check.output", problem.output), ("check.hint", problem.hint)):
        if value:
            label = text(lang, key)
            lines.append(INDENT + label + indented(value, len(label)))
    # Titles, not ids: a student reads what the other failing checks are about. Those that fail
    # for the reason just given (a part still to write, a server that stops) add nothing.
    others = [r.title for r in results if r.status not in (PASSED, SKIPPED) and r is not problem
              and not (problem.message and r.message == problem.message)]
    if others:
        quote = "« {} »" if lang == "fr" else "“{}”"
        lines.append(INDENT + text(lang, "check.also_failing", ids=", ".join(quote.format(t) for t in others)))
    return lines


def render(report: Report, watching: bool = False) -> str:
    """The whole view as text (colours only show on a terminal); `watching`: under --watch.
    What a student's program wrote is shown clean (lab/grading/hygiene.py), on any terminal."""
    report, lang = clean_report(report), report.lang
    lines = [text(lang, "check.heading", target=report.target), ""]
    for task, grouped in groupby(report.results, key=lambda result: result.task):
        results = list(grouped)
        status = part_status(results)
        mark, colour = MARKS[status]
        score = sum(result.score for result in results)
        points = sum(result.points for result in results)
        lines.append(f"{click.style(mark, fg=colour)} {task_title(task, lang):<28} {score}/{points}")
        if status != PASSED:
            lines.extend(first_problem(results, lang))
    if report.error:
        lines += ["", click.style(text(lang, "check.error", error=report.error), fg="red")]
    summary = text(lang, "check.score", score=report.score, max=report.max_score, seconds=report.duration)
    keep_going = "check.keep_going_watch" if watching else "check.keep_going"
    lines += ["", click.style(summary, bold=True), text(lang, "check.all_passed" if report.all_passed else keep_going)]
    return "\n".join(lines)
