"""The graded checks' engine: a check is a pure function of a `Context`, reading the results
of *probes* (the runs of the student's programs), each run once per folder in a thread of its
own and never raising: it returns what it saw.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path
from typing import Any, Callable

from lab.checks.texts import fill, say
from lab.checks.tracebacks import load_hint
from lab.process.launch import HERE, Launch
from lab.results import ERROR, FAILED, PASSED, SKIPPED, CheckResult, Report, capped_fields, cut
from lab.time_limits import PROBE_GRACE  # a check waits this beyond a probe's own limit


class Failed(Exception):
    """A check's verdict: what was expected, what happened, and why: a `reason` key (a
    module's `REASONS`) with its `fields`, written in each language by `say`."""

    def __init__(self, expected: Any = "", actual: Any = "", *, reason: str, fields: dict[str, Any] | None = None,
                 output: str = "", focus: tuple[str, ...] = (), hint: dict[str, str] | None = None,
                 title: dict[str, str] | None = None) -> None:
        super().__init__(reason)
        self.expected, self.actual = expected, actual
        # Fields may hold what a student's program wrote: cut before they are written into a sentence.
        self.reason, self.fields = reason, capped_fields(fields or {})
        self.message = {lang: say(lang, reason, **self.fields) for lang in ("fr", "en")}
        self.output = output
        self.focus = focus  # the key paths judged, when expected and actual are whole replies
        # What to do next when the check's own hint would point elsewhere (a file that does not load).
        self.hint = hint if hint is not None else load_hint(output)
        self.title = title  # what failed, when it is not what the check's title says (a file that does not read)


class Waiting(Exception):
    """The program stopped because a lesson part (`task`) is still to write: a failure of the
    check when it is the check's own part, "not checkable yet" for any other part's check."""

    def __init__(self, task: str, output: str = "") -> None:
        super().__init__(task)
        self.task = task
        self.output = output  # what the program printed (its todo line is left out when shown)


class Skipped(Exception):
    """A check that cannot be judged here (a tool is missing): skipped with a reason key and its fields."""

    def __init__(self, reason: str, **fields: Any) -> None:
        super().__init__(reason)
        self.reason, self.fields = reason, fields


@dataclass(frozen=True, kw_only=True)
class Check:
    """One graded check, declared whole in its module: `fr` and `en` are its (title, hint), what it
    judges and what to do next (never the answer), templates whose fields are `words`. A module
    gives its repeated keywords once (a `functools.partial` of Check)."""

    id: str  # stable, e.g. "server.ping-every-state"
    task: str  # the lesson part, e.g. "server-3"
    fr: tuple[str, str]
    en: tuple[str, str]
    words: dict[str, Any] = field(default_factory=dict)
    points: int = 1
    needs: tuple[str, ...] = ()  # check ids that must pass first, else this one is skipped
    probes: tuple[str, ...] = ()  # the probes it reads (started early, in parallel)
    lazy_probes: tuple[str, ...] = ()  # probes it may read, started only when it does
    run: Callable[["Context"], None]  # returns when passed, raises Failed otherwise
    # How it is judged: its run, or its module's way while a part may still be to write
    # (server_checks.by_part); `direct`, the judge of a part's own calls when not `run`.
    rule: Callable[["Check", "Context"], None] = lambda check, context: check.run(context)
    direct: Callable[["Context"], None] | None = None
    applies_when: str = ""  # a file name: checked only when the folder has this file
    # A root cause (a crash, output not JSON, nothing flushed): shown before its part's other failures.
    cause: bool = False
    title: dict[str, str] = field(init=False)  # {"fr": …, "en": …}, written from fr and en
    hint: dict[str, str] = field(init=False)

    def __post_init__(self) -> None:
        for part, index in (("title", 0), ("hint", 1)):
            object.__setattr__(self, part, {lang: fill(lang, pair[index], **self.words)
                                            for lang, pair in (("fr", self.fr), ("en", self.en))})


@dataclass(frozen=True)
class Probe:
    run: Callable[["Context"], Any]
    limit: float  # seconds; the probe enforces it itself (it kills what it started)
    # Name patterns of the files it never reads: under --watch, their saves keep its result.
    ignores: tuple[str, ...] = ()


SKIPPED_FOLDERS = ("__pycache__", ".pytest_cache", ".git")  # never a student's files


def folder_files(folder: Path) -> list[Path]:
    return [path for path in folder.rglob("*") if path.is_file()
            and not any(part in SKIPPED_FOLDERS for part in path.relative_to(folder).parts)]


@dataclass
class ProbeMemo:
    """Probe results kept between runs on one folder (`lab check --watch`): a probe runs
    again only when a file it may read changed."""

    kept: dict[str, tuple[tuple, Any]] = field(default_factory=dict)

    def fingerprint(self, folder: Path, ignores: tuple[str, ...]) -> tuple:
        """(name, content digest) of every file of the folder the probe may read."""
        return tuple((str(path.relative_to(folder)), digest(path)) for path in sorted(folder_files(folder))
                     if not any(fnmatch(path.name, pattern) for pattern in ignores))


def digest(path: Path) -> str:
    try:
        return hashlib.sha1(path.read_bytes()).hexdigest()
    except OSError:
        return "unreadable"


@dataclass
class Context:
    """What checks see: the folder, the language, and the probes' results."""

    folder: Path
    lang: str
    probes: dict[str, Probe]
    futures: dict[str, Future] = field(default_factory=dict)
    launch: Launch = HERE  # how student processes start (lab/process/launch.py)
    start: Callable[[str], Future] | None = None  # starts a lazy probe the first time it is read
    begun: dict[str, threading.Event] = field(default_factory=dict)  # set when a probe starts running

    def probe(self, name: str) -> Any:
        if name not in self.futures and self.start is not None:
            self.futures[name] = self.start(name)
        # A limit counts from when the probe runs: in turn, it first waits for those before it.
        begun = self.begun.get(name)
        if begun is not None and not begun.is_set():
            queued = sum(probe.limit + PROBE_GRACE for probe in self.probes.values())
            if not begun.wait(queued):
                raise ProbeTimeout(name, queued)
        limit = self.probes[name].limit + PROBE_GRACE
        try:
            return self.futures[name].result(timeout=limit)
        except FutureTimeout:
            raise ProbeTimeout(name, limit) from None


class ProbeTimeout(Exception):
    """A probe that outlived its own limit: a kit bug, said in the report's language."""

    def __init__(self, name: str, limit: float) -> None:
        super().__init__(f"the probe {name!r} did not finish within {limit:g} s")
        self.fields = {"name": name, "limit": limit}


def shown(value: Any) -> str:
    """A value as a student reads it: JSON-like, truncated."""
    try:
        return cut(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
    except (TypeError, ValueError):
        return cut(repr(value))


def run_probe(context: Context, name: str) -> Any:
    if (begun := context.begun.get(name)) is not None:
        begun.set()
    try:
        return context.probes[name].run(context)
    except Exception as error:  # a kit bug must not stop the other checks
        return ProbeCrash(f"{type(error).__name__}: {error}")


@dataclass(frozen=True)
class ProbeCrash:
    reason: str


# Keys of lab/checks/texts.py: a part still to write (the check's own, or another's), a
# prerequisite that did not pass.
UNWRITTEN, NOT_YET, WAITS_FOR = "part.unwritten", "part.not_yet", "part.waits_for"
NOT_WRITTEN_ERROR = "NotImplementedError: "  # how a part still to write stops, caught by a runner


def unwritten_task(output: str) -> str:
    """The lesson part (its task id) a program said it still misses, or "": the given todo_line
    ("À écrire : serveur, partie 3 / server, part 3"), or a runner's NotImplementedError."""
    from lab.checks import registry
    from lab.checks.reference import todo_line

    shapes = [todo_line(lang).partition("{part}")[::2] for lang in ("fr", "en")] + [(NOT_WRITTEN_ERROR, "")]
    names = {name: task for task, title in registry()[2].items() for name in title.values()}
    for line in output.splitlines():
        for before, after in shapes:
            if line.startswith(before) and line.endswith(after):
                said = line[len(before):len(line) - len(after)].split(" / ")
                if said[0] in names:
                    return names[said[0]]
    return ""


def printed_besides(output: str) -> str:
    """What a program printed, without its todo line (the message says it), nothing of a runner's NotImplementedError."""
    if NOT_WRITTEN_ERROR in output:
        return ""
    return "\n".join(line for line in output.splitlines() if not unwritten_task(line)).strip()


def part_named(stop: Waiting | Failed) -> str:
    """The lesson part a check's stop says is still to write, or "": a Waiting's, or the todo
    line in a failure's output or in its reply's error (the bonus server answers so)."""
    if isinstance(stop, Waiting):
        return stop.task
    error = stop.actual.get("error") if isinstance(stop.actual, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    return unwritten_task(stop.output) or (unwritten_task(message) if isinstance(message, str) else "")


def said(result: CheckResult, lang: str, reason: str, **fields: Any) -> None:
    result.reason, result.fields = reason, capped_fields(fields)
    result.message = say(lang, reason, **result.fields)


def to_write(result: CheckResult, task: str, unwritten: dict[str, str], lang: str) -> None:
    """The part rule, decided here only from the check's task: stopped by a part still to write,
    a check fails when it is its own part (something to write), else is not checkable yet;
    a check that needs it waits for that part, said by its name."""
    own = task == result.task
    result.status = FAILED if own else SKIPPED
    unwritten[result.id] = task
    said(result, lang, UNWRITTEN if own else NOT_YET, task=task)


def judge(check: Check, context: Context, passed: set[str], titles: dict[str, dict[str, str]],
          unwritten: dict[str, str] | None = None) -> CheckResult:
    """One check's result; `unwritten` (check id -> task): the checks stopped on a part to write."""
    unwritten = {} if unwritten is None else unwritten
    lang = context.lang
    result = CheckResult(id=check.id, task=check.task, points=check.points, status=PASSED,
                         title=check.title[lang], hint=check.hint[lang])
    if missing := [need for need in check.needs if need not in passed]:
        if missing[0] in unwritten:
            to_write(result, unwritten[missing[0]], unwritten, lang)
        else:
            result.status = SKIPPED
            said(result, lang, WAITS_FOR, title=titles.get(missing[0], {}).get(lang, missing[0]))
        return result
    started = time.monotonic()
    try:
        crashes = [c for c in (context.probe(name) for name in check.probes) if isinstance(c, ProbeCrash)]
        if crashes:
            raise RuntimeError(crashes[0].reason)
        check.rule(check, context)
    except Skipped as skip:
        result.status = SKIPPED
        said(result, lang, skip.reason, **skip.fields)
    except (Waiting, Failed) as stop:
        result.status = FAILED
        if task := part_named(stop):  # a part still to write is what to say first, not the symptom seen
            to_write(result, task, unwritten, lang)
            result.output = shown(printed_besides(stop.output))
        elif isinstance(stop, Failed):
            result.expected, result.actual = shown(stop.expected), shown(stop.actual)
            result.message = stop.message[lang]
            result.reason, result.fields = stop.reason, stop.fields
            result.output = shown(stop.output)
            result.focus = list(stop.focus)
            if stop.hint:
                result.hint = stop.hint[lang]
            if stop.title:
                result.title = stop.title[lang]
    except Exception as error:  # a kit bug or a probe that outlived its limit
        result.status = ERROR
        if isinstance(error, ProbeTimeout):
            said(result, lang, "kit.probe_late", **error.fields)
        else:
            said(result, lang, "kit.error", what=f"{type(error).__name__}: {error}")
    result.duration = round(time.monotonic() - started, 3)
    return result.capped()


def run(folder: Path, lang: str, checks: list[Check], probes: dict[str, Probe],
        memo: ProbeMemo | None = None, launch: Launch = HERE) -> Report:
    started = time.monotonic()
    applicable = [c for c in checks if not c.applies_when or (folder / c.applies_when).is_file()]
    wanted = list(dict.fromkeys(name for check in applicable for name in check.probes))
    lazy = [name for name in dict.fromkeys(n for check in applicable for n in check.lazy_probes) if name not in wanted]
    titles = {check.id: check.title for check in applicable}
    report = Report(target=str(folder), lang=lang)
    prints = {name: memo.fingerprint(folder, probes[name].ignores) + (lang,) for name in wanted + lazy} if memo else {}
    # Probes mostly wait on child processes and sockets: threads overlap them well.
    width = 1 if launch.probes_in_turn else max(1, len(wanted) + len(lazy))
    with ThreadPoolExecutor(max_workers=width) as pool:
        def start(name: str) -> Future:
            kept = memo.kept.get(name) if memo else None
            if kept is not None and kept[0] == prints[name]:
                done: Future = Future()
                done.set_result(kept[1])
                return done
            context.begun[name] = threading.Event()
            return pool.submit(run_probe, context, name)

        context = Context(folder=folder, lang=lang, probes=probes, launch=launch, start=start)
        for name in wanted:
            context.futures[name] = start(name)
        passed: set[str] = set()
        unwritten: dict[str, str] = {}
        for check in applicable:
            result = judge(check, context, passed, titles, unwritten)
            if result.status == PASSED:
                passed.add(check.id)
            report.results.append(result)
    if memo is not None:
        for name, future in context.futures.items():
            if future.done() and not isinstance(future.result(), ProbeCrash):
                memo.kept[name] = (prints[name], future.result())
    report.duration = round(time.monotonic() - started, 3)
    return report
