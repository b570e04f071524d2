"""The graded checks: `run_checks(folder, lang)` checks a student's folder and returns a Report.

A checks module is any module here that defines `CHECKS` (its `Check` declarations, listed in
docs/checks.md by `python -m lab.checks.doc`), with the `PROBES` they read, any new `TASKS`, and
the `REASONS` its checks fail with (lab/checks/texts.py `say`): adding checks is writing such a
module, nothing else to register. Reports list the tasks in TASKS order, then the new ones in
module order, each task's checks as declared.
"""

from __future__ import annotations

import importlib
import pkgutil
import time
from functools import lru_cache
from pathlib import Path
from types import ModuleType

from lab.checks.engine import Check, Probe, ProbeMemo, run
from lab.process.launch import HERE, Launch
from lab.results import Report

# The lesson's parts, in the report's order, and their names.
TASKS: dict[str, dict[str, str]] = {
    **{f"{program}-{part}": {"fr": f"{program_fr}, partie {part}", "en": f"{program}, part {part}"}
       for program, program_fr in (("server", "serveur"), ("client", "client")) for part in (1, 2, 3)},
    "model": {"fr": "assistant du modèle", "en": "model helper"},
    "answers": {"fr": "réponses de la leçon", "en": "the lesson's answers"},
}


@lru_cache(maxsize=1)
def modules() -> list[ModuleType]:
    """Every module of lab/checks, by name (lab/checks/scripts holds programs run in child processes)."""
    return [importlib.import_module(f"{__name__}.{info.name}")
            for info in sorted(pkgutil.iter_modules(__path__), key=lambda info: info.name) if not info.ispkg]


@lru_cache(maxsize=1)
def registry() -> tuple[list[Check], dict[str, Probe], dict[str, dict[str, str]]]:
    checks: list[Check] = []
    probes: dict[str, Probe] = {}
    tasks = dict(TASKS)
    for module in modules():
        if hasattr(module, "CHECKS"):
            checks.extend(module.CHECKS)
            probes.update(getattr(module, "PROBES", {}))
            tasks.update(getattr(module, "TASKS", {}))
    order = list(tasks)
    checks.sort(key=lambda check: order.index(check.task) if check.task in order else len(order))
    return checks, probes, tasks


@lru_cache(maxsize=1)
def reasons() -> dict[str, dict[str, str]]:
    """Every module's `REASONS` in one table by language; a key said by two modules is a kit bug."""
    table: dict[str, dict[str, str]] = {"fr": {}, "en": {}}
    for module in modules():
        for lang, said in getattr(module, "REASONS", {}).items():
            if twice := set(said) & set(table[lang]):
                raise ValueError(f"{module.__name__} says again {sorted(twice)}")
            table[lang].update(said)
    return table


def task_title(task: str, lang: str) -> str:
    return registry()[2].get(task, {}).get(lang, task)


def declared(check_id: str) -> Check | None:
    return next((check for check in registry()[0] if check.id == check_id), None)


def check_title(check_id: str, lang: str) -> str:
    """A check's title, named by its id (a prerequisite's, in "must pass first")."""
    return check.title[lang] if (check := declared(check_id)) else check_id


def is_cause(check_id: str) -> bool:
    """Declared as a root cause (see Check.cause): shown first among its part's failures."""
    return bool((check := declared(check_id)) and check.cause)


# Checked only with `--bonus`: real MCP clients take seconds of CPU each.
OPT_IN_TASKS = frozenset({"bonus"})


def selected_checks(bonus: bool = False) -> list[Check]:
    """The checks of a run: every lesson check, and the opt-in tasks' only with `bonus`."""
    return [check for check in registry()[0] if bonus or check.task not in OPT_IN_TASKS]


def probes_time(bonus: bool = False, in_turn: bool = False) -> float:
    """The longest a run's probes may take: the longest of them, their sum when run in turn."""
    probes = registry()[1]
    limits = [probes[name].limit for name in {n for check in selected_checks(bonus)
                                             for n in (*check.probes, *check.lazy_probes)}]
    return sum(limits) if in_turn else max(limits)


def run_checks(folder: Path, lang: str, bonus: bool = False, memo: ProbeMemo | None = None,
               launch: Launch = HERE) -> Report:
    """Check a folder; never raises: the student's problems become results, a kit bug an error.
    `memo`: --watch's kept probes; `launch`: how student processes start (lab/process/launch.py)."""
    started = time.monotonic()
    try:
        return run(Path(folder), lang, selected_checks(bonus), registry()[1], memo, launch)
    except Exception as error:  # a kit bug: still a report, saying what happened
        return Report(target=str(folder), lang=lang, error=f"{type(error).__name__}: {error}",
                      duration=round(time.monotonic() - started, 3), kit_error=True)


def warm_up() -> None:
    """Do once, in `lab grade`'s preloader, what every check run does first: import the checks
    and load the reference solutions they compare with."""
    from lab.checks import reference

    registry()
    for name in ("server", "client"):  # the given modules come with them
        reference.load(name)
    for helper in reference.HELPERS:
        reference.helper_bytecode(helper)
