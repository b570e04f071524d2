"""Helpers for the graded checks' tests: run some of the checks on a folder."""

from __future__ import annotations

from pathlib import Path

from lab.checks import registry
from lab.checks.engine import run
from lab.results import PASSED, Report

FIXTURES = Path(__file__).resolve().parent / "check_fixtures"


def run_some(folder: Path, prefix: str, lang: str = "en") -> Report:
    """Only the checks whose id starts with `prefix` (e.g. "server."), and their prerequisites."""
    checks, probes, _ = registry()
    chosen = {check.id for check in checks if check.id.startswith(prefix)}
    chosen |= {need for check in checks if check.id in chosen for need in check.needs}
    return run(folder, lang, [check for check in checks if check.id in chosen], probes)


def failed(report: Report) -> set[str]:
    return {result.id for result in report.results if result.status != PASSED}


def mutate(source: str, old: str, new: str) -> str:
    assert source.count(old) == 1, f"the fixture must hold exactly one {old!r}"
    return source.replace(old, new)
