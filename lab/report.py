"""The student's terminal view of a Report: progress per lesson part, the first failure of
each part (expected, actual, hint), and the score."""

from __future__ import annotations

from itertools import groupby

import click

from lab.checks import task_title
from lab.i18n import text
from lab.results import FAILED, PASSED, SKIPPED, CheckResult, Report

MARKS = {PASSED: ("✓", "green"), FAILED: ("✗", "red"), SKIPPED: ("–", "yellow")}
INDENT = "      "


def part_status(results: list[CheckResult]) -> str:
    statuses = {result.status for result in results}
    if statuses == {PASSED}:
        return PASSED
    if statuses <= {PASSED, SKIPPED}:
        return SKIPPED
    return FAILED  # a failure or a kit error


def indented(value: str, width: int) -> str:
    """Multi-line values line up under their label."""
    return value.replace("\n", "\n" + INDENT + " " * width)


def first_problem(results: list[CheckResult], lang: str) -> list[str]:
    problem = next((r for r in results if r.status not in (PASSED, SKIPPED)), None)
    if problem is None:  # only skipped checks: say why once
        skipped = next(r for r in results if r.status == SKIPPED)
        return [INDENT + skipped.message]
    lines = [f"    {click.style('✗', fg='red')} {problem.title}  [{problem.id}]"]
    if problem.message:
        lines.append(INDENT + indented(problem.message, 0))
    for key, value in (("check.expected", problem.expected), ("check.actual", problem.actual),
                       ("check.output", problem.output), ("check.hint", problem.hint)):
        if value:
            label = text(lang, key)
            lines.append(INDENT + label + indented(value, len(label)))
    return lines


def render(report: Report) -> str:
    """The whole view as text (colours only show on a terminal)."""
    lang = report.lang
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
    lines.append("")
    summary = text(lang, "check.score", score=report.score, max=report.max_score, seconds=report.duration)
    lines.append(click.style(summary, bold=True))
    lines.append(text(lang, "check.all_passed" if report.all_passed else "check.keep_going"))
    return "\n".join(lines)
