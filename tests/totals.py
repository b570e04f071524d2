"""The lesson's totals, computed from the checks' registry (lab/checks): a test that needs
"the full score" or "full minus the points of check X" asks here, never types a number."""

from __future__ import annotations

from lab.checks import OPT_IN_TASKS, registry, selected_checks

_POINTS = {check.id: check.points for check in registry()[0]}


def points(*check_ids: str) -> int:
    """The points of these checks (each must exist: a renamed check fails the test)."""
    return sum(_POINTS[check_id] for check_id in check_ids)


def task_points(*tasks: str) -> int:
    """The points of these parts of the lesson (e.g. "answers", "bonus")."""
    assert set(tasks) <= set(registry()[2]), tasks
    return sum(check.points for check in registry()[0] if check.task in tasks)


def checks_of(*tasks: str) -> list[str]:
    """The ids of these parts' checks, in the report's order."""
    return [check.id for check in registry()[0] if check.task in tasks]


FULL = sum(check.points for check in selected_checks())  # every lesson check: the reference's score
BONUS = task_points(*OPT_IN_TASKS)  # the opt-in bonus checks (`lab check --bonus`)
LESSON_CHECKS = len(selected_checks())  # how many lesson checks a report lists
