"""Each written part judged before the whole program runs (until server part 3 and client part
2 exist, no stdio session can judge parts 1 and 2): the parts probe calls their functions
directly through scripts/parts_runner.py, in the student sandbox, and builds transcripts the
same checks read (`PartView`).

The verdict is made here, never in the sandbox: the runner is told one order at a time, each
with a fresh nonce, and hands back raw facts (what a call wrote, returned or raised); each
process gets only its own calls' arguments. An answer missing, malformed or given twice is the
student's failure (`part.…` reasons), never a kit error.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import secrets
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from lab.checks.engine import Context, Failed
from lab.checks.reference import (copy_for_student, encode_lines, give_helper_bytecode, reference_replies,
                                  scenario_messages, write_for_student)
from lab.checks.reference import load as reference_module
from lab.checks.server_session import Transcript, parse, rules_messages, session
from lab.checks.tracebacks import trimmed
from lab.process.capped import parse_json
from lab.process.student import child_env, copy_student_file
from lab.process.talk import Run, converse
from lab import time_limits

RUNNER = Path(__file__).resolve().parent / "scripts" / "parts_runner.py"
LENT_SERVER = Path(__file__).resolve().parent / "scripts" / "lent_server.py"
STUDENT_FILES = ("server.py", "client.py", "model.py")  # the frames a traceback keeps
RUNNER_COPY = "lab_parts_runner.py"  # beside the student's files: the kit itself is out of a sandbox's sight
LENT_COPY = "lab_lent_server.py"
LOAD_LIMIT, CALL_LIMIT, PARTS_LIMIT = time_limits.PART_LOAD, time_limits.PART_CALL, time_limits.PARTS  # why: lab/time_limits.py
PARTS_CPU = time_limits.PARTS_CPU
ANSWER_CAP = 1 << 17  # characters of one answer (the runner keeps what a call wrote or returned smaller)
S, R = "server.scenario", "server.rules"

# The facts an answer may hold (scripts/parts_runner.py): anything else is not the runner's.
FACT_TYPES: dict[str, tuple[type, ...] | None] = {
    "loaded": (bool,), "out": (str,), "unflushed": (bool,), "returned": None, "unreturnable": (str,),
    "error": (str,), "trace": (str,)}


@dataclass
class PartsRun:
    """By (part, probe): [(each call as the student would type it, its facts)], the load first."""

    calls: dict[tuple[str, str], list[tuple[str, dict]]] = field(default_factory=dict)
    lang: str = ""  # the run's language, to explain tracebacks


def call_of(reply: dict) -> tuple[str, list[Any]]:
    """The call of part 1 that should write this reference reply."""
    if "result" in reply:
        return "reply", [reply.get("id"), reply["result"]]
    error = reply.get("error", {})
    data = [error["data"]] if "data" in error else []
    return "fail", [reply.get("id"), error.get("code"), error.get("message"), *data]


def initialize_messages() -> dict[str, list[dict]]:
    """Part 2's calls: the sessions' initialize messages (the rules session's first alone)."""
    found = {name: [m for m in messages if isinstance(m, dict) and m.get("method") == "initialize"]
             for name, messages in ((S, scenario_messages()), (R, rules_messages()))}
    return {S: found[S][:2], R: found[R][:1]}


def load(name: str, **options: Any) -> tuple[str, dict]:
    return f"import {name}", {"load": name, **options}


def call(function: str, arguments: list[Any]) -> tuple[str, dict]:
    """An order to call `function`, named as the student would type the call."""
    return f"{function}({', '.join(json.dumps(a, ensure_ascii=False) for a in arguments)})", \
        {"call": function, "args": arguments}


def run_parts(context: Context) -> PartsRun:
    """The direct calls, in three processes side by side (each only its own calls)."""
    found = PartsRun(lang=context.lang)
    jobs: dict[str, list[tuple[str, dict]]] = {}
    splits: dict[str, int] = {}  # where a server part's rules calls begin, after the scenario's
    if (context.folder / "server.py").is_file():
        sessions = {S: scenario_messages(), R: rules_messages()}
        written = {name: [call(*call_of(reply)) for reply in reference_replies(encode_lines(messages), context.lang)]
                   for name, messages in sessions.items()}
        jobs["server-1"] = [load("server"), *written[S], *written[R]]  # one load for both sessions
        # Part 2 with part 1 lent (send, reply and fail the lesson's): part 1's mistake costs its own checks.
        initializes = initialize_messages()
        jobs["server-2"] = [order for name, messages in initializes.items()  # each session its own load
                            for order in (load("server", lend=True), *(call("initialize", [m]) for m in messages))]
        splits = {"server-1": 1 + len(written[S]), "server-2": 1 + len(initializes[S])}
    if (context.folder / "client.py").is_file():
        jobs["client-1"] = [load("client"), call("scenario", [])]
    if not jobs:
        return found
    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        done = {part: pool.submit(carry_out, context, orders) for part, orders in jobs.items()}
    for part, future in done.items():
        answered = list(zip([name for name, _ in jobs[part]], future.result()))
        if part not in splits:
            found.calls[(part, "")] = answered
            continue
        ended = [step for step in answered[-1:] if "lost" in step[1]]  # the rules' calls, when none came
        shared = answered[:1] if part == "server-1" else []  # its load
        found.calls[(part, S)] = answered[:splits[part]]
        found.calls[(part, R)] = shared + (answered[splits[part]:] or ended)
    return found


def carry_out(context: Context, orders: list[tuple[str, dict]]) -> list[dict]:
    """The facts of each order, up to the first that got no answer ({"lost": ...})."""
    with tempfile.TemporaryDirectory(prefix="lab-parts-") as temp:
        work = Path(temp)
        students_own(context.folder, work)
        copy_for_student(RUNNER, work / RUNNER_COPY)
        if any(order.get("lend") for _, order in orders):  # only where part 1 is lent: never beside part 1's calls
            write_lent_server(work)
        session = converse(context.launch, work / RUNNER_COPY, cwd=work, env=child_env(context.launch, context.lang),
                           cpu_seconds=PARTS_CPU)
        deadline = time.monotonic() + PARTS_LIMIT
        nonces: list[str] = []
        facts: list[dict] = []
        try:
            for index, (_, order) in enumerate(orders):
                nonces.append(secrets.token_hex(12))
                limit = min(LOAD_LIMIT if index == 0 else CALL_LIMIT, deadline - time.monotonic())
                facts.append(answer(session, {**order, "nonce": nonces[-1]}, nonces, limit, part_shape, facts))
                if any("lost" in one for one in facts):
                    break
            else:  # one more order, answered once every answer before it is written: a second
                nonces.append(secrets.token_hex(12))  # answer to the last call comes before it
                answer(session, {"end": True, "nonce": nonces[-1]}, nonces, CALL_LIMIT, part_shape, facts)
        finally:
            run = session.finish(0.5)
        answered_twice(session, nonces, facts)
        if facts and facts[-1].get("lost") == "part.stopped" and run.cpu_exhausted:
            facts[-1] = lost("part.spins", cpu=PARTS_CPU)
    return facts


def lost(reason: str, **fields: Any) -> dict:
    return {"lost": reason, "fields": fields}


def answer(session: Any, order: dict, nonces: list[str], limit: float, shape: Callable[[dict, dict], bool],
           earlier: list[dict], sent: bool = False) -> dict:
    """The facts a runner answers `order` with (nonce nonces[-1]) within `limit`, of the runner's
    `shape`; lines with no nonce are the student's output; an earlier order answered again
    makes its facts (in `earlier`) bad. `sent`: the order went already, and its answer is
    waited for once more."""
    until = time.monotonic() + max(0.0, limit)
    if not sent and not session.send(json.dumps(order, ensure_ascii=False).encode() + b"\n"):
        return lost("part.stopped")
    while True:
        line = session.read_line(until - time.monotonic())
        if line is None:
            return lost("part.stopped") if session.ended else lost("part.hangs", seconds=round(max(limit, 0.1), 1))
        said = nonce_of(line, nonces)
        if said == order["nonce"]:
            facts = parse_json(line, ANSWER_CAP)
            del facts["nonce"]
            return facts if shape(facts, order) else lost("part.bad_answer")
        if said and "lost" not in earlier[nonces.index(said)]:  # an earlier order answered again:
            earlier[nonces.index(said)] = lost("part.bad_answer")  # the student's code wrote in the runner's place
        elif said == "":  # a line made to look like an answer
            return lost("part.bad_answer")


def answered_twice(session: Any, nonces: list[str], facts: list[dict]) -> None:
    """After the runner's end: an answer that came again makes that order's answer bad."""
    for line in session.remaining_lines():
        twice = nonce_of(line, nonces[:len(facts)])
        if twice and "lost" not in facts[nonces.index(twice)]:  # a late answer is no second one
            facts[nonces.index(twice)] = lost("part.bad_answer")


def nonce_of(line: bytes, nonces: list[str]) -> str | None:
    """The nonce of a line that holds one of `nonces` (None: no answer; "": not of the runner's shape)."""
    if not any(nonce.encode() in line for nonce in nonces):
        return None
    try:
        said = parse_json(line, ANSWER_CAP)
    except ValueError:
        return ""
    return said.get("nonce") if isinstance(said, dict) and said.get("nonce") in nonces else ""


def has_types(facts: dict, types: dict[str, tuple[type, ...] | None]) -> bool:
    """Every fact named in `types` and of one of its types (None: any JSON value)."""
    return all(name in types and (types[name] is None or type(value) in types[name]) for name, value in facts.items())


def part_shape(facts: dict, order: dict) -> bool:
    """The shape parts_runner.py answers a load or a call with."""
    if not has_types(facts, FACT_TYPES):
        return False
    if "error" in facts:
        return "trace" in facts and not {"loaded", "returned", "unreturnable"} & set(facts)
    if "load" in order or "end" in order:
        return set(facts) == {"loaded"} and facts["loaded"] is True
    return {"out", "unflushed"} <= set(facts) and len({"returned", "unreturnable"} & set(facts)) == 1


@dataclass
class DirectTranscript(Transcript):
    calls: list[dict] = field(default_factory=list)
    described: list[str] = field(default_factory=list)  # each call as the student would type it


def raise_problem(parts: PartsRun, name: str, facts: dict) -> None:
    if "lost" in facts:
        raise Failed(name, "—", reason=facts["lost"], fields={"call": name, **facts["fields"]})
    if "error" in facts:
        if name.startswith("import "):
            file = name.removeprefix("import ") + ".py"
            raise Failed(name, facts["error"], reason="file.does_not_load", fields={"file": file},
                         output=student_trace(parts, facts))
        raise Failed(name, facts["error"], reason="part.raises", fields={"call": name}, output=student_trace(parts, facts))


def direct_transcript(parts: PartsRun, probe: str, part: str, reference: list[dict]) -> DirectTranscript:
    calls = parts.calls.get((part, probe), [])
    for name, facts in calls:
        raise_problem(parts, name, facts)
    steps = calls[1:]  # after the file's load
    names = [name for name, _ in steps]
    lines = [line for _, facts in steps for line in facts.get("out", "").splitlines() if line.strip()]
    return DirectTranscript(sent=[name.encode() for name in names], reference=reference,
                            run=Run(b"", b"", 0, 0.0), lines=lines, replies=[parse(line) for line in lines],
                            calls=[facts for _, facts in steps], described=names, lang=parts.lang)


def scenario_list(parts: PartsRun) -> list[Any]:
    """What client part 1's scenario() returned, called directly; Failed when it is no list."""
    calls = parts.calls.get(("client-1", ""), [])
    for index, (name, facts) in enumerate(calls):
        if index and "error" in facts:  # after the file's load (client.py that does not load says so)
            raise Failed("scenario()", facts["error"], reason="client.scenario_raises",
                         output=student_trace(parts, facts))
        raise_problem(parts, name, facts)
    facts = calls[-1][1] if len(calls) == 2 else {}
    listed = facts.get("returned", facts.get("unreturnable", "—"))
    if not isinstance(listed, list) or "unreturnable" in facts:
        raise Failed("[{…}, …]", listed, reason="client.scenario_not_a_list")
    return listed


def students_own(folder: Path, work: Path) -> None:
    """The student's .py files copied as they are (a given module missing stays missing)."""
    for source in folder.glob("*.py"):
        copy_student_file(source, work / source.name)
    give_helper_bytecode(work)


PART_ONE, PART_TWO = ("send", "reply", "fail"), ("initialize",)


def write_lent_server(work: Path, lent: tuple[str, ...] = PART_ONE) -> None:
    """scripts/lent_server.py into `work`, with the reference's functions it lends."""
    server = reference_module("server")
    functions = "".join(inspect.getsource(getattr(server, name)) + "\n\n" for name in lent)
    write_for_student(work / "lab_lent_parts.py", (f"import sys\n\nfrom jsonrpc_lines import to_json\n\n"
                                                   f"LENT = {lent!r}\n\n\n{functions}").encode())
    copy_for_student(LENT_SERVER, work / LENT_COPY)


def lent_session(context: Context, messages: list[Any], lent: tuple[str, ...] = PART_ONE) -> Transcript:
    """A stdio session of the student's server.py with a part lent: the later parts judged on
    their own when an earlier part's mistake spoils the whole output."""
    with tempfile.TemporaryDirectory(prefix="lab-lent-") as temp:
        work = Path(temp)
        students_own(context.folder, work)
        write_lent_server(work, lent)
        transcript = session(dataclasses.replace(context, folder=work), messages, LENT_COPY)
    transcript.script = "server.py"  # its tracebacks show the student's file
    return transcript


def student_trace(parts: PartsRun, outcome: dict) -> str:
    return trimmed(outcome.get("trace") or outcome["error"], STUDENT_FILES, parts.lang)


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
