"""Each written part judged before the whole program runs: the parts probe and its views.

`python server.py` stops at once until server part 3 (the loop) is written, and the client
sends nothing until client part 2 is: a stdio session cannot judge parts 1 and 2 then. The
parts probe (scripts/parts_runner.py, in the same sandbox as every student process) imports
the student's files and calls the written parts' functions directly. `view(context)` gives
the checks of a part the stdio transcripts when the whole program ran, and transcripts built
from those calls when it stopped because a *later* part is still to write: the same check
functions judge either.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from lab.checks.engine import Context, Failed
from lab.checks.reference import copy_for_student, copy_with_given_modules, encode_lines, reference_replies, scenario_messages
from lab.checks.server_session import Transcript, parse, rules_messages
from lab.checks.tracebacks import trimmed
from lab.process.student import child_env
from lab.process.talk import Run, run_python

RUNNER = Path(__file__).resolve().parent / "scripts" / "parts_runner.py"
STUDENT_FILES = ("server.py", "client.py", "model.py")  # the frames a traceback keeps
RUNNER_COPY = "lab_parts_runner.py"  # beside the student's files: the kit itself is out of a sandbox's sight
PARTS_LIMIT = 10.0  # seconds: far more than the runner needs (importing openai, if model.py does, included)
PARTS_CPU = 3  # seconds of CPU: an endless loop in a part is stopped here
S, R = "server.scenario", "server.rules"


@dataclass
class PartsRun:
    run: Run | None = None  # None when there is neither server.py nor client.py
    result: dict = field(default_factory=dict)  # the runner's line
    cases: dict = field(default_factory=dict)  # what it was asked
    lang: str = ""  # the run's language, to explain tracebacks


def cases(lang: str) -> dict:
    """The calls to make: part 1 writes each reply the reference server gives in the two
    sessions; part 2 answers the sessions' initialize messages, in their order."""
    sessions = {S: scenario_messages(), R: rules_messages()}
    return {
        "replies": {name: reference_replies(encode_lines(messages), lang) for name, messages in sessions.items()},
        "initialize": {name: [m for m in messages if isinstance(m, dict) and m.get("method") == "initialize"][:2]
                       for name, messages in sessions.items()},
    }


def run_parts(context: Context) -> PartsRun:
    present = [name for name in ("server.py", "client.py") if (context.folder / name).is_file()]
    if not present:
        return PartsRun()
    asked = cases(context.lang)
    asked["initialize"][R] = asked["initialize"][R][:1]  # init-2025 alone, on a new module
    with tempfile.TemporaryDirectory(prefix="lab-parts-") as temp:
        work = Path(temp)
        copy_with_given_modules(context.folder, work)
        copy_for_student(RUNNER, work / RUNNER_COPY)
        run = run_python(context.launch, work / RUNNER_COPY, data=json.dumps(asked).encode(), limit=PARTS_LIMIT,
                         cwd=work, env=child_env(context.launch, context.lang), cpu_seconds=PARTS_CPU)
    lines = run.stdout_lines()
    try:
        result = json.loads(lines[-1]) if lines else {}
    except ValueError:
        result = {}
    return PartsRun(run, result if isinstance(result, dict) else {}, asked, context.lang)


@dataclass
class DirectTranscript(Transcript):
    """A Transcript built from direct calls: `calls` says what each call did."""

    calls: list[dict] = field(default_factory=list)
    described: list[str] = field(default_factory=list)  # each call as the student would type it


def described(function: str, arguments: list[Any]) -> str:
    return f"{function}({', '.join(json.dumps(a, ensure_ascii=False) for a in arguments)})"


def direct_transcript(parts: PartsRun, probe: str, part: str, reference: list[dict]) -> DirectTranscript:
    """What the part's calls wrote, as a transcript the stdio checks can read."""
    server = parts.result.get("server", {})
    if "import" in server:
        problem = server["import"]
        raise Failed("import server", problem["error"], reason="file.does_not_load", fields={"file": "server.py"},
                     output=student_trace(parts, problem))
    calls = server.get("part1" if part == "server-1" else "part2", {}).get(probe, [])
    if part == "server-1":
        names = [described(*call_of(reply)) for reply in parts.cases["replies"][probe]]
    else:
        names = [described("initialize", [m]) for m in parts.cases["initialize"][probe]]
    lines = [line for call in calls for line in call.get("out", "").splitlines() if line.strip()]
    transcript = DirectTranscript(sent=[name.encode() for name in names], reference=reference,
                                  run=Run(b"", b"", 0, 0.0), lines=lines, replies=[parse(line) for line in lines],
                                  calls=calls, described=names, lang=parts.lang)
    for name, call in zip(names, calls):
        if "error" in call:
            raise Failed(name, call["error"], reason="part.raises", fields={"call": name},
                         output=student_trace(parts, call))
    return transcript


def student_trace(parts: PartsRun, outcome: dict) -> str:
    """The traceback of a call that raised, trimmed to the student's files and explained."""
    return trimmed(outcome.get("trace") or outcome["error"], STUDENT_FILES, parts.lang)


def call_of(reply: dict) -> tuple[str, list[Any]]:
    if "result" in reply:
        return "reply", [reply.get("id"), reply["result"]]
    error = reply.get("error", {})
    data = [error["data"]] if "data" in error else []
    return "fail", [reply.get("id"), error.get("code"), error.get("message"), *data]


class PartView(Context):
    """The context a part's check reads: the direct transcripts in place of the stdio ones."""

    def __init__(self, context: Context, replaced: dict[str, Callable[[], Any]]) -> None:
        super().__init__(folder=context.folder, lang=context.lang, probes=context.probes, futures=context.futures,
                         start=context.start, begun=context.begun)
        self.replaced = replaced  # name -> how to build it, when a check first reads it
        self.built: dict[str, Any] = {}

    def probe(self, name: str) -> Any:
        if name in self.replaced:
            if name not in self.built:
                self.built[name] = self.replaced[name]()
            return self.built[name]
        return super().probe(name)

    def whole(self, name: str) -> Any:
        """The probe's own result (the stdio session of the whole program), not the direct one."""
        return super().probe(name)
