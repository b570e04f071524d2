"""The graded checks: `run_checks(folder, lang)` checks a student's folder and returns a Report.

How checks are found: every module of this package that defines `CHECKS` (a list of
`lab.checks.engine.Check(...)` declarations, each whole: id, task, points, title and hint in
French and English, prerequisites, probes and the function that judges; listed in
docs/checks.md by `python -m lab.checks.doc`) is a checks module; it may also define `PROBES`
(name -> `Probe`: the runs its checks read) and `TASKS` (task id -> its name in each
language, for a new lesson part). To add checks, write `lab/checks/<name>.py` with those
names; nothing else to register. A check with `applies_when="bonus_server.py"` is checked only
in folders that have that file (so a folder without the bonus is not marked down), and
a task in OPT_IN_TASKS only when asked (`lab check --bonus`).

Reports list the tasks in TASKS order, then any new task in the order the modules
were found (alphabetical), each task's checks in the order they are declared.
"""

from __future__ import annotations

import importlib
import pkgutil
import time
from functools import lru_cache
from pathlib import Path

from lab.checks.engine import Check, Probe, ProbeMemo, run
from lab.process.launch import HERE, Launch
from lab.results import Report

# The lesson's parts, in the report's order, and their names.
TASKS: dict[str, dict[str, str]] = {
    "server-1": {"fr": "serveur, partie 1", "en": "server, part 1"},
    "server-2": {"fr": "serveur, partie 2", "en": "server, part 2"},
    "server-3": {"fr": "serveur, partie 3", "en": "server, part 3"},
    "client-1": {"fr": "client, partie 1", "en": "client, part 1"},
    "client-2": {"fr": "client, partie 2", "en": "client, part 2"},
    "client-3": {"fr": "client, partie 3", "en": "client, part 3"},
    "model": {"fr": "assistant du modèle", "en": "model helper"},
    "answers": {"fr": "réponses de la leçon", "en": "the lesson's answers"},
}


@lru_cache(maxsize=1)
def registry() -> tuple[list[Check], dict[str, Probe], dict[str, dict[str, str]]]:
    checks: list[Check] = []
    probes: dict[str, Probe] = {}
    tasks = dict(TASKS)
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda info: info.name):
        if info.ispkg:
            continue  # lab/checks/scripts: programs run in child processes, not checks
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, "CHECKS"):
            checks.extend(module.CHECKS)
            probes.update(getattr(module, "PROBES", {}))
            tasks.update(getattr(module, "TASKS", {}))
    order = list(tasks)
    checks.sort(key=lambda check: order.index(check.task) if check.task in order else len(order))
    return checks, probes, tasks


def task_title(task: str, lang: str) -> str:
    return registry()[2].get(task, {}).get(lang, task)


def check_title(check_id: str, lang: str) -> str:
    """A check's title, named by its id (a prerequisite's, in "must pass first")."""
    return next((check.title[lang] for check in registry()[0] if check.id == check_id), check_id)


def check_hint(check_id: str) -> dict[str, str]:
    """A check's hint in each language, for a failure that is that check's mistake seen elsewhere."""
    return next(check.hint for check in registry()[0] if check.id == check_id)


def is_cause(check_id: str) -> bool:
    """Declared as a root cause (see Check.cause): shown first among its part's failures."""
    return any(check.id == check_id and check.cause for check in registry()[0])


# Tasks checked only on request (`--bonus`): the bonus step's real MCP clients take
# seconds of CPU each, too much for every `lab check` and every graded submission.
OPT_IN_TASKS = frozenset({"bonus"})


def selected_checks(bonus: bool = False) -> list[Check]:
    """The checks of a run: every lesson check, and the opt-in tasks' only with `bonus`."""
    return [check for check in registry()[0] if bonus or check.task not in OPT_IN_TASKS]


def probes_time(bonus: bool = False, in_turn: bool = False) -> float:
    """The longest a run's probes may take, each held to its limit: the longest of them when
    they run all at once, their sum when they run in turn (Launch.probes_in_turn)."""
    probes = registry()[1]
    limits = [probes[name].limit for name in {n for check in selected_checks(bonus)
                                             for n in (*check.probes, *check.lazy_probes)}]
    return sum(limits) if in_turn else max(limits)


def run_checks(folder: Path, lang: str, bonus: bool = False, memo: ProbeMemo | None = None,
               launch: Launch = HERE) -> Report:
    """Check a folder. Never raises because of the student's code: problems become results.
    `memo` (under --watch) keeps the probes' results whose files did not change; `launch`
    says how student processes start (lab/process/launch.py: `lab grade` passes its own)."""
    started = time.monotonic()
    try:
        return run(Path(folder), lang, selected_checks(bonus), registry()[1], memo, launch)
    except Exception as error:  # a kit bug: still a report, saying what happened
        return Report(target=str(folder), lang=lang, error=f"{type(error).__name__}: {error}",
                      duration=round(time.monotonic() - started, 3), kit_error=True)


def warm_up() -> None:
    """Do once, in `lab grade`'s preloader, what every check run would do first: find the
    checks (importing each checks module and all they import) and load the reference
    solutions they compare with (lab/grading/classroom.py names this for the preloader)."""
    from lab.checks import reference

    registry()
    for name in ("server", "client"):  # the given modules come with them
        reference.load(name)
    for helper in reference.HELPERS:
        reference.helper_bytecode(helper)
