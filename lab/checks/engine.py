"""The graded checks' engine: what a check is, how it fails, and how a folder is checked.

A check is a small pure function of a `Context`. The expensive work (running the
student's server, client or model helper) happens in *probes*: functions that run
once per folder, in parallel threads, and whose results many checks read. A probe
never raises; it returns whatever it saw (a transcript, an exit code, a problem).
"""

from __future__ import annotations

import hashlib
import json
import time
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path
from typing import Any, Callable

from lab.process.launch import HERE, Launch
from lab.results import ERROR, FAILED, PASSED, SKIPPED, CheckResult, Report

PROBE_GRACE = 5.0  # seconds a check waits beyond a probe's own limit before giving up on it
MAX_SHOWN = 2000  # characters of expected/actual/output kept in a result


class Failed(Exception):
    """A check's verdict: what was expected, what happened, and why it matters (fr and en)."""

    def __init__(self, expected: Any = "", actual: Any = "", fr: str = "", en: str = "", output: str = "",
                 focus: tuple[str, ...] = ()) -> None:
        super().__init__(en or fr)
        self.expected = expected
        self.actual = actual
        self.message = {"fr": fr, "en": en or fr}
        self.output = output
        self.focus = focus  # the key paths judged, when expected and actual are whole replies


class Skipped(Exception):
    """A check that cannot be judged here (a tool is missing): skipped with the reason, fr and en."""

    def __init__(self, fr: str, en: str = "") -> None:
        super().__init__(en or fr)
        self.message = {"fr": fr, "en": en or fr}


@dataclass(frozen=True, kw_only=True)
class Check:
    """One graded check, declared whole in one place (see docs/checks.md for the list).

    Every checks module declares its checks as `Check(...)` literals with these keywords,
    in the order of the report; nothing else describes a check.
    """

    id: str  # stable, e.g. "server.ping-every-state"
    task: str  # the lesson part, e.g. "server-3"
    points: int = 1
    title: dict[str, str]  # {"fr": ..., "en": ...}
    hint: dict[str, str]  # {"fr": ..., "en": ...}: what to do next, never the answer itself
    needs: tuple[str, ...] = ()  # check ids that must pass first, else this one is skipped
    probes: tuple[str, ...] = ()  # the probes it reads (started early, in parallel)
    run: Callable[["Context"], None]  # returns when passed, raises Failed otherwise
    applies_when: str = ""  # a file name: checked only when the folder has this file
    # A root cause (the process crashed, its output is not JSON, a notification was
    # answered, nothing was flushed): when it fails, the report shows it before the
    # other failures of its part, which it most likely explains.
    cause: bool = False


@dataclass(frozen=True)
class Probe:
    run: Callable[["Context"], Any]
    limit: float  # seconds; the probe enforces it itself (it kills what it started)
    # Files of the folder (name patterns) it never reads: under --watch, a save of one of
    # them keeps its last result instead of running it again (see ProbeMemo).
    ignores: tuple[str, ...] = ()


class ProbeMemo:
    """Probe results kept between runs on one folder (`lab check --watch`): a probe runs
    again only when a file it may read changed, so a save is judged in the time of the
    probes it concerns (editing server.py does not run the model helper's cases again)."""

    SKIPPED_FOLDERS = ("__pycache__", ".pytest_cache", ".git")

    def __init__(self) -> None:
        self.kept: dict[str, tuple[tuple, Any]] = {}

    def fingerprint(self, folder: Path, ignores: tuple[str, ...]) -> tuple:
        """(name, content digest) of every file of the folder the probe may read."""
        found = []
        for path in sorted(folder.rglob("*")):
            relative = path.relative_to(folder)
            if any(part in self.SKIPPED_FOLDERS for part in relative.parts) or not path.is_file():
                continue
            if any(fnmatch(relative.name, pattern) for pattern in ignores):
                continue
            try:
                found.append((str(relative), hashlib.sha1(path.read_bytes()).hexdigest()))
            except OSError:
                found.append((str(relative), "unreadable"))
        return tuple(found)


@dataclass
class Context:
    """What checks see: the folder, the language, and the probes' results."""

    folder: Path
    lang: str
    probes: dict[str, Probe]
    futures: dict[str, Future] = field(default_factory=dict)
    launch: Launch = HERE  # how student processes start (lab/process/launch.py)

    def probe(self, name: str) -> Any:
        limit = self.probes[name].limit + PROBE_GRACE
        try:
            return self.futures[name].result(timeout=limit)
        except FutureTimeout:
            raise ProbeTimeout(name, limit) from None


class ProbeTimeout(Exception):
    """A probe that outlived its own limit: a kit bug, said in the report's language."""

    def __init__(self, name: str, limit: float) -> None:
        super().__init__(f"the probe {name!r} did not finish within {limit:g} s")
        self.message = {"fr": f"la sonde {name!r} n’a pas fini en {limit:g} s",
                        "en": f"the probe {name!r} did not finish within {limit:g} s"}


def shown(value: Any) -> str:
    """A value as a student reads it: JSON-like, truncated."""
    if isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError):
            text = repr(value)
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + " …"


def run_probe(context: Context, name: str) -> Any:
    try:
        return context.probes[name].run(context)
    except Exception as error:  # a kit bug must not stop the other checks
        return ProbeCrash(f"{type(error).__name__}: {error}")


@dataclass(frozen=True)
class ProbeCrash:
    reason: str


# When a program stops because a part is still to write, that is what the student needs to
# hear first: the part it names, not the symptom the check saw (no reply, nothing sent).
UNWRITTEN = {
    "fr": "Le programme ne tourne pas encore : il dit qu’il lui manque « {part} ». Écrivez cette "
          "partie d’abord : sans elle, celle-ci ne peut pas être vérifiée.",
    "en": "The program does not run yet: it says it still needs “{part}”. Write that part "
          "first: without it, this one cannot be checked.",
}


def unwritten_part(output: str, lang: str) -> str:
    """The lesson part a student's program said it still misses (the given todo_line), or "",
    in `lang` when it is named in both ("serveur, partie 3 / server, part 3")."""
    from lab.checks.reference import todo_line

    for said_in in ("fr", "en"):
        before, _, after = todo_line(said_in).partition("{part}")
        for line in output.splitlines():
            if line.startswith(before) and line.endswith(after):
                names = line[len(before):len(line) - len(after)].split(" / ")
                return names[1] if lang == "en" and len(names) == 2 else names[0]
    return ""


def judge(check: Check, context: Context, passed: set[str], titles: dict[str, dict[str, str]]) -> CheckResult:
    lang = context.lang
    result = CheckResult(id=check.id, task=check.task, points=check.points, status=PASSED,
                         title=check.title[lang], hint=check.hint[lang])
    missing = [need for need in check.needs if need not in passed]
    if missing:
        result.status = SKIPPED
        first = titles.get(missing[0], {}).get(lang, missing[0])
        result.message = {"fr": "ignoré : « {} » n’a pas réussi", "en": "skipped: “{}” did not pass"}[lang].format(first)
        return result
    started = time.monotonic()
    try:
        crashes = [c for c in (context.probe(name) for name in check.probes) if isinstance(c, ProbeCrash)]
        if crashes:
            raise RuntimeError(crashes[0].reason)
        check.run(context)
    except Skipped as skip:
        result.status = SKIPPED
        result.message = skip.message[lang]
    except Failed as failure:
        result.status = FAILED
        result.expected, result.actual = shown(failure.expected), shown(failure.actual)
        part = unwritten_part(failure.output, lang)
        result.message = UNWRITTEN[lang].format(part=part) if part else failure.message[lang]
        result.output = shown(failure.output)
        result.focus = list(failure.focus)
    except Exception as error:  # a kit bug or a probe that outlived its limit
        result.status = ERROR
        what = error.message[lang] if isinstance(error, ProbeTimeout) else f"{type(error).__name__}: {error}"
        result.message = {"fr": "Erreur du kit, pas de votre code : ", "en": "Kit error, not your code's: "}[lang] + what
    result.duration = round(time.monotonic() - started, 3)
    return result


def run(folder: Path, lang: str, checks: list[Check], probes: dict[str, Probe],
        memo: ProbeMemo | None = None, launch: Launch = HERE) -> Report:
    started = time.monotonic()
    applicable = [c for c in checks if not c.applies_when or (folder / c.applies_when).is_file()]
    context = Context(folder=folder, lang=lang, probes=probes, launch=launch)
    wanted = list(dict.fromkeys(name for check in applicable for name in check.probes))
    titles = {check.id: check.title for check in applicable}
    report = Report(target=str(folder), lang=lang)
    prints = {name: memo.fingerprint(folder, probes[name].ignores) + (lang,) for name in wanted} if memo else {}
    # Probes mostly wait on child processes and sockets: threads overlap them well.
    with ThreadPoolExecutor(max_workers=max(1, len(wanted))) as pool:
        for name in wanted:
            kept = memo.kept.get(name) if memo else None
            if kept is not None and kept[0] == prints[name]:
                context.futures[name] = done = Future()
                done.set_result(kept[1])
            else:
                context.futures[name] = pool.submit(run_probe, context, name)
        passed: set[str] = set()
        for check in applicable:
            result = judge(check, context, passed, titles)
            if result.status == PASSED:
                passed.add(check.id)
            report.results.append(result)
    if memo is not None:
        for name, future in context.futures.items():
            if future.done() and not isinstance(future.result(), ProbeCrash):
                memo.kept[name] = (prints[name], future.result())
    report.duration = round(time.monotonic() - started, 3)
    return report
