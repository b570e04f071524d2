"""The client's checks: the student's client.py, in a fresh folder, starts the server.py beside
it (a spy answering as the reference server) and imports the model.py beside it (a spy model);
it is judged by what the spies saw and what it printed."""

from __future__ import annotations

import contextlib
import json
import queue
import re
import secrets
import socket
import tempfile
import threading
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from lab.checks import parts, reference
from lab.checks.engine import Check, Context, Failed, Probe, unwritten_task
from lab.checks.reference import new_session, scenario_messages
from lab.checks.server_session import LINE_CAP, MISSING, field_of, misspelt, parse, python_value, same
from lab.checks.texts import own_words, say
from lab.checks.tracebacks import load_hint, trimmed
from lab.process.capped import parse_json
from lab.process.student import child_env, copy_student_file, read_student_file, read_student_text
from lab.process.talk import Run, run_python
from lab import time_limits

CLIENT_LIMIT, CLIENT_CPU = time_limits.CLIENT, time_limits.CLIENT_CPU  # why: lab/time_limits.py
SCRIPTS = Path(__file__).resolve().parent / "scripts"
LAST_REPLY = 6  # the client closes the server's input after this many replies
CLOSED_AT_STOP = 1.0  # seconds: an input closed this near the end of a client stopped at its limit was closed by the stop
HOLD_LAST = time_limits.CLIENT_HOLD_LAST  # reply 6 waits this long
SERVER_PORT, MODEL_PORT = "LAB_SPY_SERVER_PORT", "LAB_SPY_MODEL_PORT"  # the spies' ports, in the client's network


@dataclass
class StudentClientRun:
    run: Run | None = None  # None when there is no client.py
    received: list[Any] = field(default_factory=list)  # what the spy server read, parsed
    replies: list[dict] = field(default_factory=list)  # what it answered
    eof: bool = False  # its input was closed
    closed_after: int = -1  # how many replies it had been sent when its input closed
    closed_by_stop: bool = False  # its input closed only as the client was stopped at its limit
    asks: list[dict] = field(default_factory=list)  # the spy model's calls
    unended: int = 0  # characters of a line the server received and never saw the end of
    answer: str = ""  # what the spy model answered this run (a fresh nonce in it: it cannot be printed ahead)

    def messages(self) -> list[Any]:
        """What the server received, without the blank lines it skips."""
        return [message for message in self.received if message != ""]

    def printed(self, prefix: str) -> list[Any]:
        lines = self.run.stdout_lines() if self.run else []
        return [parse(line[len(prefix):]) for line in lines if line.startswith(prefix)]


class Spies:
    """The spies, served here (outside the client's sandbox): only what reached them counts."""

    def __init__(self, listeners: dict[str, socket.socket], lang: str, answer: str) -> None:
        self.lang, self.answer = lang, answer
        self.closed = False
        self.lock = threading.Lock()
        self.log: list[tuple[str, Any]] = []  # ("in", line) ("out", reply) ("eof", replies sent) ("ask", call)
        self.listeners = listeners
        self.threads = [threading.Thread(target=self.accept, args=(listeners[name], serve), daemon=True)
                        for name, serve in ((SERVER_PORT, self.serve_server), (MODEL_PORT, self.serve_model))]
        self.serving: list[threading.Thread] = []  # one per connection
        for thread in self.threads:
            thread.start()

    def record(self, kind: str, value: Any) -> None:
        with self.lock:
            self.log.append((kind, value))

    def accept(self, listener: socket.socket, serve) -> None:
        listener.settimeout(0.1)
        while not self.closed:
            try:
                connection, _ = listener.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            # Never before the client's own limit: a spy giving up first would look like an exit.
            connection.settimeout(CLIENT_LIMIT + time_limits.PROBE_ROOM)
            self.serving.append(threading.Thread(target=serve, args=(connection,), daemon=True))
            self.serving[-1].start()

    def serve_server(self, connection: socket.socket) -> None:
        frames: queue.Queue = queue.Queue()
        threading.Thread(target=self.read_frames, args=(connection, frames), daemon=True).start()
        try:
            self.answer_frames(connection, frames)
        finally:  # shutdown, not only close: the reader's file keeps the socket open
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
            connection.close()

    def answer_frames(self, connection: socket.socket, frames: queue.Queue) -> None:
        session = new_session(self.lang)
        sent = 0
        held: list[bytes | None] = []  # a frame read while reply 6 was held back, handled after it
        while True:
            frame = held.pop() if held else frames.get()
            if frame is None:  # the connection's end
                return
            try:
                raw = unframe(frame)
            except (ValueError, AttributeError, KeyError, TypeError, UnicodeError):
                return  # not the relay's frames (the client rewrote server.py): nothing more counts
            if raw is END:
                self.record("eof", (sent, time.monotonic()))
                return
            if isinstance(raw, int):  # a line begun, not ended yet
                self.record("unended", raw)
                continue
            self.record("in", raw.decode("utf-8", errors="replace").rstrip("\r\n"))
            self.record("unended", 0 if raw.endswith(b"\n") else len(raw))  # a last line without its end
            reply = session.handle_line(lenient(raw))
            for one in (reply if isinstance(reply, list) else [] if reply is None else [reply]):
                if sent == LAST_REPLY - 1:
                    # Reply 6 held back a moment: a client closing the input after five is seen.
                    with contextlib.suppress(queue.Empty):
                        early = frames.get(timeout=HOLD_LAST)
                        if early is not None and is_end(early):
                            self.record("eof", (sent, time.monotonic()))
                            early = None  # the input is closed: nothing more comes
                        held.append(early)
                try:
                    connection.sendall(json.dumps(one, ensure_ascii=False).encode("utf-8", "backslashreplace")
                                       + b"\n")
                except OSError:  # the client is gone: the lines it sent before still count, as they reached here
                    continue
                self.record("out", one)
                sent += 1

    @staticmethod
    def read_frames(connection: socket.socket, frames: queue.Queue) -> None:
        with contextlib.suppress(OSError, ValueError), connection.makefile("rb") as lines:
            for frame in lines:  # {"line": TEXT}, then {"end": true} (spy_server.py)
                frames.put(frame)
        frames.put(None)

    def serve_model(self, connection: socket.socket) -> None:
        with connection, connection.makefile("rb") as lines, contextlib.suppress(OSError):
            line = lines.readline(1 << 20)
            try:
                self.record("ask", parse_json(line, LINE_CAP))
            except ValueError:
                self.record("ask", {"raw": line.decode("utf-8", errors="replace")})
            connection.sendall(json.dumps(self.answer).encode() + b"\n")

    def close(self) -> None:
        """Once the client has ended: what reached a spy is written down before the log is read
        (a client that crashes at once leaves lines the spy has received and not handled yet)."""
        self.closed = True
        for listener in self.listeners.values():
            listener.close()
        for thread in self.threads:
            thread.join(timeout=1.0)
        deadline = time.monotonic() + time_limits.CLIENT_SPY_DRAIN
        for thread in self.serving:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))


END = object()  # the relay's end of input


def unframe(frame: bytes) -> bytes | int | object:
    """A relay frame's line (spy_server.py), a line's size not ended yet, or END; else ValueError,
    KeyError or TypeError."""
    message = parse_json(frame, 2 * LINE_CAP)
    if message.get("end") is True:
        return END
    if "unended" in message:
        size = message["unended"]
        if type(size) is not int:
            raise TypeError("unended")
        return size
    return message["line"].encode("utf-8", "surrogateescape")


def is_end(frame: bytes) -> bool:
    try:
        return unframe(frame) is END
    except (ValueError, AttributeError, KeyError, TypeError, UnicodeError):
        return False


def lenient(raw: bytes) -> bytes:
    """A message without "jsonrpc" answered as if it had it: leaving it out costs its own check only."""
    try:
        message = parse_json(raw, LINE_CAP)
    except ValueError:
        return raw
    if isinstance(message, dict) and "jsonrpc" not in message:
        return json.dumps({"jsonrpc": "2.0", **message}, ensure_ascii=False).encode()
    return raw


def run_student_client(context: Context, lent: int = 0) -> StudentClientRun:
    """The student's client beside the spies, with client parts 1 to `lent` the lesson's."""
    client = context.folder / "client.py"
    outcome = StudentClientRun(answer=f"{say(context.lang, 'client.data.answer')} #{secrets.token_hex(4)}")
    spliced = with_lesson_part_two(read_student_text(client)) if lent == 2 else None
    if not client.is_file() or (lent == 2 and spliced is None):
        return outcome
    spies: list[Spies] = []
    with tempfile.TemporaryDirectory(prefix="lab-client-") as temp:
        work = Path(temp)
        for source in context.folder.glob("*.py"):  # the client with any helper module of its own
            if source.name not in ("server.py", "model.py"):
                copy_student_file(source, work / source.name)
        if spliced is not None:
            reference.write_for_student(work / "client.py", spliced.encode())
        copy_student_file(context.folder / "model.py", work / "student_model.py")
        if not (work / "model_setup.py").is_file():  # model.py's given module, for facts: the kit's copy, as for model.py
            reference.copy_for_student(reference.helper_module("model_setup.py"), work / "model_setup.py")
        reference.copy_for_student(SCRIPTS / "spy_server.py", work / "server.py")
        reference.copy_for_student(SCRIPTS / "spy_model.py", work / "model.py")
        reference.give_helper_bytecode(work)
        if lent:
            reference.write_for_student(work / "lab_lent_scenario.json", json.dumps(reference.load("client").scenario()).encode())
            reference.copy_for_student(SCRIPTS / "lent_client.py", work / "lab_lent_client.py")
        env = child_env(context.launch, context.lang, AI_URL="http://127.0.0.1:9")
        started = time.monotonic()
        try:
            outcome.run = run_python(context.launch, work / ("lab_lent_client.py" if lent else "client.py"),
                                     limit=CLIENT_LIMIT, cwd=work, env=env,
                                     cpu_seconds=CLIENT_CPU, listen=(SERVER_PORT, MODEL_PORT),
                                     serve=lambda listeners: spies.append(Spies(listeners, context.lang, outcome.answer)))
        finally:
            for spy in spies:
                spy.close()
    listed = {"in": outcome.received, "out": outcome.replies, "ask": outcome.asks}
    for kind, value in spies[0].log if spies else []:
        if kind in listed:
            listed[kind].append(parse(value) if kind == "in" else value)
        elif kind == "eof":
            outcome.eof, (outcome.closed_after, closed_at) = True, value
            outcome.closed_by_stop = outcome.run.timed_out and closed_at - started >= outcome.run.duration - CLOSED_AT_STOP
        elif kind == "unended":
            outcome.unended = value
    return outcome


NOT_READ = ("server.py", "bonus_server.py", "answers.toml")
PROBES = {name: Probe(partial(run_student_client, lent=lent), CLIENT_LIMIT + time_limits.PROBE_ROOM, ignores=NOT_READ)
          for name, lent in (("client.run", 0), ("client.run.lent", 1), ("client.run.lent2", 2))}
PART_HEAD = re.compile(r"^(?P<indent>\s*)# -+ client, partie (?P<part>\d) / part (?P=part)\s*$")


def with_lesson_part_two(text: str) -> str | None:
    """client.py with its part 2 (under its header, up to wait_for_exit(server) or part 3's header)
    replaced by a call to the lesson's, defined at the end so that the other lines keep their
    numbers; None without the exercise's two headers."""
    lines = text.splitlines(keepends=True)
    heads = {match["part"]: (number, match["indent"]) for number, line in enumerate(lines)
             if (match := PART_HEAD.match(line)) and match["part"] in "23"}
    if len(heads) != 2 or heads["2"][0] > heads["3"][0]:
        return None
    start, stop = heads["2"][0] + 1, heads["3"][0]
    stop = max((n for n in range(start, stop) if lines[n].strip() == "wait_for_exit(server)"), default=stop)
    call = [f"{heads['2'][1]}replies = lab_lesson_part_two(server)\n"] + ["\n"] * (stop - start - 1)
    lent = ["\n\ndef lab_lesson_part_two(server):  # the lesson's client part 2, lent by the kit\n",
            *lesson_block("client-2"), "    return replies\n"]
    return "".join(lines[:start] + call + lines[stop:] + ["\n"] * (not text.endswith("\n")) + lent)


def lesson_block(task: str) -> list[str]:
    from lab.exercises import BEGIN, END, NOTE  # lab.exercises reads the checks' registry
    lines = (reference.SOLUTIONS / "client.py").read_text(encoding="utf-8").splitlines(keepends=True)
    start = next(n for n, line in enumerate(lines) if (begin := BEGIN.match(line)) and begin["task"] == task)
    stop = next(n for n in range(start, len(lines)) if END.match(lines[n]))
    return [line for line in lines[start + 1:stop] if not NOTE.match(line)]


def client_run(context: Context) -> StudentClientRun:
    outcome: StudentClientRun = context.probe("client.run")
    if outcome.run is None:
        raise Failed("client.py", "—", reason="file.missing", fields={"file": "client.py"})
    if outcome.unended and not any(isinstance(message, dict) for message in outcome.received):
        # The messages left without their newline: the server saw one line begun, never ended.
        shown = "\n".join(str(message) for message in outcome.received) or "—"
        raise Failed(scenario_messages()[0], shown, reason="client.line_never_ended", fields={"size": outcome.unended},
                     output=client_trace(outcome, context.lang), hint=TRANSPORT_HINT)
    if not outcome.received:
        trace = client_trace(outcome, context.lang)
        # Stopped at its limit: a hang (or a loop) the report names as such, not a missing message.
        if outcome.run.cpu_exhausted:
            reason, fields, hint = "run.spun", {"who": "client", "cpu": CLIENT_CPU}, None
        elif outcome.run.timed_out:  # not one byte reached the server: unflushed, or never written
            reason, fields, hint = "client.nothing_reached", {"seconds": CLIENT_LIMIT}, TRANSPORT_HINT
        elif outcome.run.code not in (0, None) and not waited_for_silence(outcome):
            # Its own error (write() given a dict), shown below, says why: no hint about the messages
            reason, fields = "client.crashed_before_sending", {"code": outcome.run.code}
            hint = load_hint(trace) or dict.fromkeys(REASONS, "")
        elif any(line.startswith("-> ") for line in outcome.run.stdout_lines()):  # it believes it sent them
            reason, fields, hint = "client.printed_not_sent", {}, TRANSPORT_HINT
        elif outcome.run.code not in (0, None):  # it waited for a reply before it wrote a thing
            reason, fields, hint = "client.waited_before_sending", {}, TRANSPORT_HINT
        else:
            reason, fields, hint = "client.sent_nothing", {}, None
        raise Failed(scenario_messages()[0], "—", reason=reason, fields=fields, output=trace, hint=hint)
    return outcome


def split_message(received: list[Any]) -> int:
    """How many lines the first message took when more than one (JSON written with indent), else 0."""
    if any(isinstance(message, dict) for message in received):
        return 0
    text = ""
    for count, line in enumerate(received[:200], start=1):
        text += line if isinstance(line, str) else json.dumps(line)
        if len(text) > 100_000:  # far more than a message of the lesson: not one split over lines
            return 0
        try:
            whole = json.loads(text)
        except (ValueError, RecursionError):
            continue
        return count if count > 1 and isinstance(whole, dict) else 0
    return 0


def part_one(check: Check, context: Context) -> None:
    """The client checks' `rule`: the check's run on what the spy server received; when the client
    sent nothing, a part 1 check on what scenario() returns, called directly (parts.py)."""
    outcome: StudentClientRun = context.probe("client.run")
    if check.task == "client-2":
        return check.run(scenario_lent(context))
    if check.task == "client-3":
        return part_two_lent(check, scenario_lent(context))
    if outcome.run is not None and sent_short(outcome.messages()) and lists_lesson(context):
        return None  # fewer than seven, or lines that are no message: part 2 sent the lesson's scenario() wrong
    if outcome.run is None or outcome.received:
        return check.run(context)
    try:
        listed = parts.scenario_list(context.probe("server.parts"))
    except Failed:
        if unwritten_task(client_trace(outcome, context.lang)):
            raise
        return check.run(context)  # no scenario() to call (a client written otherwise): what the run saw
    check.run(parts.PartView(context, {"client.run": lambda: StudentClientRun(run=outcome.run, received=listed)}))


def sent_short(received: list[Any]) -> bool:
    """The server got the lesson's messages in order as far as they go, but fewer than seven or with
    lines that are no message among them (a client that waits, or writes its messages wrong)."""
    lesson = scenario_messages()
    fits = all(not isinstance(got, dict) or same({"jsonrpc": "2.0", **got}, want) for got, want in zip(received, lesson))
    return fits and len(received) <= len(lesson) and (len(received) < len(lesson)
                                                      or not all(isinstance(got, dict) for got in received))


def scenario_lent(context: Context) -> Context:
    """The client's run, or the run with the lesson's scenario() lent when the student's is not it."""
    if same(context.probe("client.run").received, scenario_messages()) or lists_lesson(context) is not False:
        return context  # the lesson's messages reached the server, or no scenario() to call (part 1's checks say so)
    return parts.PartView(context, {"client.run": lambda: context.probe("client.run.lent")})


def lists_lesson(context: Context) -> bool | None:
    """Does scenario(), called directly, list the lesson's messages? None when it cannot be called."""
    try:
        return same(parts.scenario_list(context.probe("server.parts")), reference.load("client").scenario())
    except Failed:
        return None


def part_two_lent(check: Check, context: Context) -> None:
    """A part 3 check on the client's run, or on the run with the lesson's part 2 lent when part
    2's checks fail there."""
    try:
        return check.run(context)
    except Failed:
        outcome: StudentClientRun = context.probe("client.run")
        if outcome.run is None or unwritten_task(client_trace(outcome, context.lang)) == "client-2" \
                or all(passes(other, context) for other in CHECKS if other.task == "client-2") \
                or (lent := context.probe("client.run.lent2")).run is None:
            raise  # part 2 still to write (part 3 waits, as the server's do), part 3's own mistake, or none to lend
    check.run(parts.PartView(context, {"client.run": lambda: lent}))


def passes(check: Check, context: Context) -> bool:
    try:
        check.run(context)
    except Failed:
        return False
    return True


def seven_messages(context: Context) -> None:
    outcome = client_run(context)
    expected = scenario_messages()
    split = split_message(outcome.received)
    if split:  # the server got lines, none a message: said here, the other checks judge what they can
        raise Failed(expected[0], "\n".join(str(line) for line in outcome.received[:split]),
                     reason="client.message_split", fields={"count": split}, hint=TRANSPORT_HINT)
    received = outcome.messages()
    for number, want in enumerate(expected, start=1):
        got = received[number - 1] if number <= len(received) else MISSING
        if isinstance(got, dict) and "jsonrpc" not in got:  # added when sending (part 2), and judged there
            want = {key: value for key, value in want.items() if key != "jsonrpc"}
        if got is MISSING:
            raise Failed(want, "—", reason="client.message_not_sent",
                         fields={"number": number, "method": want["method"], "count": len(received)})
        if not isinstance(got, dict):
            kind = "null" if got is None else "list" if isinstance(got, list) else "text"
            # A line the server got as Python's str(dict): the sending's mistake, said as the sending check says it.
            reason = "client.sent_python" if isinstance(python_value(str(got)), dict) else f"client.message_is_{kind}"
            raise Failed(want, got, reason=reason, fields={"number": number})
        moved = [other for other, message in enumerate(expected, start=1) if other != number
                 and all(same(field_of(message, path), field_of(got, path)) for path in ("method", "id", "params"))]
        if moved and not same(field_of(want, "method"), field_of(got, "method")):  # a message left out, or moved
            raise Failed(want, got, reason="client.message_out_of_place",
                         fields={"number": number, "other": moved[0], "want": want["method"], "got": got["method"]})
        for path in ("method", "id", "params.protocolVersion"):
            if not same(field_of(want, path), field_of(got, path)):
                near = misspelt(got, path) if field_of(got, path) is MISSING else ""  # "param" for params
                if path == "id" and isinstance(got, dict) and "id" in got and "id" not in want:
                    raise Failed(want, got, reason="client.notification_id", fields={"number": number, "got": json.dumps(got["id"])})
                if path == "id" and isinstance(got, dict) and "id" in got:  # "1", 0-based, null: the id said as sent
                    raise Failed(want, got, reason="client.id_null" if got["id"] is None else "client.id_differs",
                                 fields={"number": number, "got": json.dumps(got["id"]), "want": json.dumps(want["id"])})
                raise Failed(want, got,
                             reason="client.message_misspelt" if near else "client.message_differs",
                             fields={"number": number, "near": near,  # params, not params.protocolVersion
                                     "path": ".".join(path.split(".")[:near.count(".") + 1]) if near else path})
    if len(received) > len(expected):
        raise Failed(len(expected), len(received), reason="client.too_many_messages")


def initialize_params(context: Context) -> None:
    outcome = client_run(context)
    for message in outcome.received:
        if isinstance(message, dict) and message.get("method") == "initialize":
            params = message.get("params")
            info = field_of(message, "params.clientInfo")
            for key, value in info.items() if isinstance(info, dict) else ():
                if key in ("name", "version") and not isinstance(value, str):  # "version": 0.1, a number
                    raise Failed(f'clientInfo.{key} = "…"', f"clientInfo.{key} = {shown_value(value)}",
                                 reason="client.info_not_text", fields={"name": key, "got": shown_value(value)})
            if not (isinstance(params, dict) and params.get("capabilities") == {} and isinstance(info, dict)
                    and isinstance(info.get("name"), str) and isinstance(info.get("version"), str)):
                version = params.get("protocolVersion", "…") if isinstance(params, dict) else "…"
                wrong = () if not isinstance(params, dict) else \
                    ("capabilities",) if params.get("capabilities") != {} else ("clientInfo",)
                raise Failed({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "demo", "version": "0.1"}},
                             params if params is not None else "—", reason="client.initialize_params", focus=wrong)


def jsonrpc_everywhere(context: Context) -> None:
    outcome = client_run(context)
    for number, message in enumerate(outcome.messages(), start=1):
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            # A line that is no JSON object (str(dict), the whole list), or "jsonrpc" with another value: said as such.
            reason = "client.no_jsonrpc" if isinstance(message, dict) and "jsonrpc" not in message \
                else "client.jsonrpc_value" if isinstance(message, dict) \
                else "client.sent_python" if isinstance(python_value(str(message)), dict) else "client.sent_not_a_message"
            raise Failed('{"jsonrpc": "2.0", …}', message, reason=reason,
                         hint=None if isinstance(message, dict) else TRANSPORT_HINT,
                         fields={"number": number, "got": json.dumps(message.get("jsonrpc")) if isinstance(message, dict) else ""})


def prints_exchange(context: Context) -> None:
    outcome = client_run(context)
    lines = outcome.run.stdout_lines() if outcome.run else []
    for prefix, seen, what in (("-> ", outcome.received, "sent"), ("<- ", outcome.replies, "received")):
        printed = outcome.printed(prefix)
        # The lesson's messages printed, though sent otherwise, or the replies printed until the client
        # stopped on its own error: the sending, or the stop, is said by the check it belongs to.
        stopped = outcome.run is not None and outcome.run.code not in (0, None) and printed and what == "received"
        if same(printed, seen) or (what == "sent" and same(printed, scenario_messages())) \
                or (stopped and same(printed, seen[:len(printed)])):
            continue
        expected = [prefix + json.dumps(m, ensure_ascii=False) for m in seen]
        joined = [line for line in lines if line.count(prefix) > 1]  # print(..., end=""): no newline between them
        if joined:
            raise Failed(expected[0], joined[0][:300], reason="client.printed_on_one_line", fields={"prefix": prefix})
        bare = [line for line in lines if seen and same(parse(line), seen[0])]
        glued = [line for line in lines if seen and line.startswith(prefix.strip())
                 and same(parse(line[len(prefix.strip()):]), seen[0])]
        python = [line for line in lines if seen and line.startswith(prefix.strip())
                  and python_value(line[len(prefix.strip()):]) == seen[0]]
        if python:
            raise Failed(expected[0], python[0], reason="client.printed_python", fields={"prefix": prefix})
        if glued and not printed:
            raise Failed(expected[0], glued[0], reason="client.prefix_without_space", fields={"prefix": prefix})
        if bare and not printed:
            raise Failed(expected[0], bare[0], reason=f"client.no_prefix_{what}", fields={"prefix": prefix})
        errors = outcome.run.err.splitlines() if outcome.run else []
        if not printed and any(line.startswith(prefix) for line in errors):  # print(..., file=sys.stderr)
            raise Failed(expected[0], "—", reason="client.printed_on_stderr", fields={"prefix": prefix})
        raise Failed(expected, [prefix + json.dumps(m, ensure_ascii=False) for m in printed],
                     reason=f"client.wrong_lines_{what}", fields={"prefix": prefix})


def closes_input(context: Context) -> None:
    outcome = client_run(context)
    run = outcome.run
    assert run is not None
    end, trace = say(context.lang, "client.input_end"), client_trace(outcome, context.lang)
    source = read_student_text(context.folder / "client.py")
    if (not outcome.eof or run.timed_out) and "watch(server)" in source and re.search(r"\bserver\.stdout\b", source):
        raise Failed(end, "—", reason="client.reads_beside_watch", output=trace)
    received = outcome.messages()
    requests = [message for message in received if isinstance(message, dict) and "id" in message]
    if not outcome.eof and len(received) < LAST_REPLY + 1 and len(outcome.replies) == len(requests) \
            and (run.timed_out or waited_for_silence(outcome)):
        # Each message it sent was answered, and it waits on: for a reply to one it never sent (or never
        # ended with its newline), or to the notification.
        if outcome.unended:
            raise Failed(end, "—", reason="client.line_never_ended", fields={"size": outcome.unended}, output=trace,
                         hint=TRANSPORT_HINT)
        raise Failed(end, "—", reason="client.waits_unsent", fields={"count": len(received)}, output=trace)
    if not outcome.eof and not run.timed_out and run.code not in (0, None) and len(outcome.printed("<- ")) < LAST_REPLY:
        # It stopped before it had read six replies (a client that waits for a seventh has printed six);
        # on a reply to a message the server could not read, that message is the cause, said as such.
        if any(isinstance(reply, dict) and reply.get("id") is None for reply in outcome.replies):
            jsonrpc_everywhere(context)
        raise Failed(end, "—", reason="client.crashed_before_closing", fields={"code": run.code}, output=trace)
    if not outcome.eof:
        # Every reply written and read, and still it waits: for a reply to the notification, which gets none.
        waited = "client.waits_for_seventh" if len(outcome.replies) == LAST_REPLY else "client.input_open"
        raise Failed(end, "—", reason=waited, fields={"seconds": CLIENT_LIMIT}, output=trace)
    if outcome.closed_after < LAST_REPLY:
        raise Failed(say(context.lang, "client.close_after_six"),
                     say(context.lang, "client.closed_after", replies=outcome.closed_after),
                     reason="client.closed_early", fields={"replies": outcome.closed_after})
    if run.timed_out:
        # Closed only by the stop: it waited for the server's end before closing its input (each waits for the other).
        raise Failed(f"< {CLIENT_LIMIT:g} s", f"{run.duration:g} s",
                     reason="client.waits_before_closing" if outcome.closed_by_stop else "client.did_not_end",
                     output=trace)


def waited_for_silence(outcome: StudentClientRun) -> bool:
    """The client stopped on next_line's "no reply in time" (server_replies.py, given), in either language."""
    texts = reference.load("server_replies").CLIENT_TEXTS
    said = outcome.run.err if outcome.run else ""
    return any(texts[lang]["problem"].format(what=texts[lang]["silent"].split("{")[0]) in said for lang in texts)


def client_trace(outcome: StudentClientRun, lang: str) -> str:
    return trimmed(outcome.run.err, ("client.py", "student_model.py"), lang) if outcome.run else ""


def stopped_reading(outcome: StudentClientRun) -> str:
    """Why the client stopped before ask, when a reply was read as what it is not: a line of text
    read as a dict (.get, ["result"]) in its own code or in announced_capabilities (given), after
    part 2 kept the lines it printed ("client.replies_not_read"), or that function handed one
    reply, whose keys it went through, in place of the list ("client.capabilities_of_one_reply")."""
    trace = outcome.run.err.strip() if outcome.run else ""
    after_client = trace.rsplit('client.py", ', 1)[-1]  # the client's last line, and the frames below it
    in_reading = all(name.endswith("server_replies.py") for name in re.findall(r'File "([^"]+)"', after_client))
    error = trace.splitlines()[-1] if trace else ""
    if not (in_reading and re.match(r"AttributeError: 'str' object has no attribute 'get'|TypeError: string indices",
                                    error)):
        return ""
    source = after_client.splitlines()[1] if after_client.count("\n") else ""  # the line as Python shows it
    return ("client.capabilities_of_one_reply" if re.search(r"announced_capabilities\([^)]*\[", source)
            else "client.replies_not_read")


ANSWER_TOKENS = 60  # the lesson's client asks for at most 60 tokens: one sentence


def asks_model(context: Context) -> None:
    outcome = client_run(context)
    capabilities = next((reply["result"]["capabilities"] for reply in outcome.replies
                         if isinstance(field_of(reply, "result.capabilities"), dict)), {})  # as announced
    spellings = tuple({json.dumps(capabilities, separators=(",", ":")), json.dumps(capabilities)})
    # The shape ask receives, as the hint says it: the given facts first, then the question ending with the capabilities.
    question = "ask([facts(…), {\"role\": \"user\", \"content\": \"… " + min(spellings, key=len) + "\"}], …)"
    if len(outcome.asks) != 1:
        trace = client_trace(outcome, context.lang)
        crashed = not outcome.asks and outcome.run is not None and outcome.run.code not in (0, None) and trace
        reason = ((stopped_reading(outcome) or "client.crashed_before_ask") if crashed else "client.ask_once")
        raise Failed(question, f"{len(outcome.asks)} × ask(…)", reason=reason,
                     fields={"code": outcome.run.code if crashed else ""}, output=trace)
    messages = outcome.asks[0].get("messages")
    if not (isinstance(messages, list) and messages):
        given = shown_value(messages)
        raise Failed(question, given, reason="client.ask_not_messages", fields={"given": given})
    for number, message in enumerate(messages, start=1):
        if not (isinstance(message, dict) and {"role", "content"} <= set(message)):
            given = shown_value(message)
            raise Failed(question, given, reason="client.message_not_a_message", fields={"given": given, "number": number})
    asking = [m for m in messages if str(m.get("content", "")).rstrip().endswith(spellings)]
    if not asking:
        swapped = str(outcome.asks[0].get("sample", "")).rstrip().endswith(spellings)
        python = any(str(m.get("content", "")).rstrip().endswith(str(capabilities)) for m in messages)  # not JSON
        raise Failed(question, outcome.asks[0], reason="client.question_as_sample" if swapped
                     else "client.question_python" if python else "client.question_lacks_capabilities")
    if asking[0].get("role") != "user":  # the facts are the system's words; the question is the user's
        raise Failed('"role": "user"', shown_value(asking[0]), reason="client.question_role",
                     fields={"role": json.dumps(asking[0].get("role"))})
    content = str(asking[0]["content"]).rstrip()
    before = content[:-len(next(spelling for spelling in spellings if content.endswith(spelling)))].strip()
    if not before or before in sample_texts(context):  # the capabilities alone, or after the sample's words
        raise Failed(question, shown_value(asking[0]),
                     reason="client.question_is_sample" if before else "client.question_without_words")
    facts = reference.load("model_setup").facts  # given: the system message the model gets first
    given = [facts(capabilities, lang) for lang in ("fr", "en") if facts(capabilities, lang) in messages]
    own = read_student_file(context.folder / "model_setup.py")
    if not given and own not in (None, reference.helper_module("model_setup.py").read_bytes()):
        # An older handout's model_setup.py: its facts() words the system message its own way.
        given = [m for m in messages if m.get("role") == "system" and isinstance(m.get("content"), str)
                 and m["content"].strip()][:1]
    if not given:
        # A system message of other facts: facts() was given something else than the announced capabilities.
        other = next((m for m in messages if m.get("role") == "system"), None)
        raise Failed(facts(capabilities, context.lang), other or outcome.asks[0],
                     reason="client.facts_of_other" if other else "client.question_lacks_facts")
    if messages.index(given[0]) > messages.index(asking[0]):
        raise Failed(facts(capabilities, context.lang), outcome.asks[0], reason="client.facts_after_question")
    cap, sample = outcome.asks[0].get("max_tokens"), outcome.asks[0].get("sample")
    if cap != ANSWER_TOKENS:
        # The sample and the cap given in each other's place, or the cap written in quotes: said as such.
        reason = "client.sample_and_cap_swapped" if isinstance(cap, str) and isinstance(sample, int) \
            else "client.max_tokens_text" if isinstance(cap, str) else "client.max_tokens"
        raise Failed(ANSWER_TOKENS, json.dumps(cap, ensure_ascii=False), reason=reason,
                     fields={"want": ANSWER_TOKENS, "got": json.dumps(cap, ensure_ascii=False)})


def gives_sample(context: Context) -> None:
    # The spy model always answers, so a client whose sample is no text works here and breaks
    # only where no model answers: model.py then returns the sample, for the client to print.
    asks = client_run(context).asks
    if len(asks) != 1 or (isinstance(asks[0].get("sample"), int) and isinstance(asks[0].get("max_tokens"), str)):
        return  # no call, several, or the sample swapped with the cap: client.asks-model's mistake, not charged twice
    sample, messages = asks[0].get("sample"), asks[0].get("messages")
    if isinstance(sample, str) and sample.strip() not in ("", *sample_texts(context)) and isinstance(messages, list) \
            and any(isinstance(m, dict) and str(m.get("content")).startswith(sample.strip()) for m in messages):
        raise Failed(reference.client_sample(context.lang), shown_value(sample), reason="client.sample_is_question")
    if not (isinstance(sample, str) and sample.strip()):
        given = shown_value(sample)
        raise Failed(reference.client_sample(context.lang), given, reason="client.sample_not_text", fields={"given": given})


def sample_texts(context: Context) -> set[str]:
    """The lesson's sample in either language, and the student's handout's own (TEXTS[lang]["sample"])."""
    texts = [table.get("sample") for table in reference.known_texts(context.folder, "client.py", "TEXTS")]
    return {text.strip() for text in texts if isinstance(text, str)}


def shown_value(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:39] + "…"


def prints_model_answer(context: Context) -> None:
    outcome = client_run(context)
    lines = outcome.run.stdout_lines() if outcome.run else []
    # Either language, the student's client.py's words (an older handout's) or this kit's; spaces
    # are counted as the arrows' are (print(a, b) adds one).
    says = [table.get("model_says") for table in reference.known_texts(context.folder, "client.py", "TEXTS")]
    wanted = [" ".join((said + outcome.answer).split()) for said in says if isinstance(said, str) and said.strip()]
    stderr = client_trace(outcome, context.lang)
    if not any(" ".join(line.replace("'", "’").split()) in wanted for line in lines):
        crashed = outcome.run is not None and outcome.run.code not in (0, None) and bool(outcome.asks)
        whole = [line for line in lines if outcome.answer in line and "recorded=" in line]  # print(…, answer)
        bare = [line for line in lines if outcome.answer in line]  # the answer without the lesson's words before it
        raise Failed(reference.model_says(context.lang) + outcome.answer, (whole or bare or lines or ["—"])[-1],
                     reason="client.crashed_after_ask" if crashed else "client.printed_answer_whole" if whole
                     else "client.answer_without_words" if bare else "client.answer_not_printed",
                     fields={"code": outcome.run.code if outcome.run else None}, output=stderr)
    if outcome.run and outcome.run.code != 0:
        raise Failed("code 0", f"code {outcome.run.code}", reason="client.exit_code", output=stderr)


PART_ONE = ("server.parts", "client.run.lent", "client.run.lent2")  # read only when a part is lent or judged alone
# Each check is judged on what the spies saw, through part_one (part 1 by scenario()).
client_check = partial(Check, probes=("client.run",), lazy_probes=PART_ONE, rule=part_one)

CHECKS = [
    client_check(id="client.seven-messages", task="client-1", run=seven_messages,
                 fr=("Le client envoie les sept messages de la leçon, dans l’ordre",
                     "Le scénario de la leçon : sept messages, dont une notification sans id, dans l’ordre du tableau."),
                 en=("The client sends the lesson's seven messages, in order",
                     "The lesson's scenario: seven messages, one of them a notification with no id, in the table's order.")),
    client_check(id="client.initialize-params", task="client-1", run=initialize_params,
                 fr=("Les initialize portent protocolVersion, capabilities et clientInfo",
                     "Les params d’initialize : la version demandée, les capacités du client (aucune) et qui il est."),
                 en=("The initialize requests carry protocolVersion, capabilities and clientInfo",
                     "initialize's params: the version asked for, the client's capabilities (none) and who it is.")),
    client_check(id="client.jsonrpc-on-every-message", task="client-2", run=jsonrpc_everywhere,
                 fr=('Chaque message envoyé porte "jsonrpc": "2.0"',
                     'Ajoutez "jsonrpc": "2.0" à chaque message au moment de l’envoyer.'),
                 en=('Every message sent carries "jsonrpc": "2.0"',
                     'Add "jsonrpc": "2.0" to each message when you send it.')),
    client_check(id="client.prints-exchange", task="client-2", run=prints_exchange,
                 fr=("Le client affiche « -> » chaque message et « <- » chaque réponse",
                     "Comme client2.js : chaque message envoyé s’affiche après « -> », en JSON, et chaque ligne reçue après « <- », telle quelle."),
                 en=('The client prints "-> " each message and "<- " each reply',
                     'As client2.js does: each message sent is printed after "-> ", as JSON, and each line received after "<- ", as it is.')),
    client_check(id="client.closes-input", task="client-2", run=closes_input, cause=True,
                 fr=("Après six réponses, le client ferme l’entrée du serveur",
                     "Fermez l’entrée du serveur après la sixième réponse : il voit la fin de son entrée et s’arrête."),
                 en=("After six replies the client closes the server's input",
                     "Close the server's input after the sixth reply: it sees the end of its input and stops.")),
    client_check(id="client.asks-model", task="client-3", run=asks_model,
                 fr=("Le client demande au modèle d’expliquer les capacités annoncées",
                     "Un seul appel à ask : d’abord facts(capacités) (fourni), puis la question avec les capacités de la réponse 3 en JSON (partie 3)."),
                 en=("The client asks the model to explain the announced capabilities",
                     "One call to ask: first facts(capabilities) (given), then the question with the capabilities of reply 3 as JSON (part 3).")),
    client_check(id="client.gives-sample", task="client-3", run=gives_sample,
                 fr=("ask reçoit un échantillon, un texte que le client peut afficher",
                     "Après les messages, donnez à ask l’échantillon TEXT[\"sample\"] : model.py le rend, marqué enregistré, quand aucun modèle ne répond."),
                 en=("ask gets a sample, a text the client can print",
                     "After the messages, give ask the sample TEXT[\"sample\"]: model.py returns it, marked recorded, when no model answers.")),
    client_check(id="client.prints-model-answer", task="client-3", run=prints_model_answer,
                 fr=("Le client affiche « le modèle dit : » et la réponse, et finit (code 0)",
                     "Affichez la phrase « le modèle dit : » de la leçon suivie du texte renvoyé par ask."),
                 en=('The client prints "the model says:" and the answer, and ends (code 0)',
                     "Print the lesson's \"the model says:\" line followed by the text ask returned.")),
]

# Why a check failed, by key (lab/checks/texts.py `say`), in both languages with the same fields.
REASONS = {
    "fr": {
        "client.sent_nothing": "Le serveur n’a rien reçu du client.",
        "client.scenario_raises": "scenario() lève une exception au lieu de rendre la liste.",
        "client.scenario_not_a_list": "scenario() doit rendre une liste de messages.",
        "client.message_differs": "Le message {number} n’est pas celui de la leçon ({path}).",
        "client.id_differs": "Le message {number} a l’id {got} au lieu de {want} : recopiez les ids de la leçon tels "
                             "quels (un nombre reste un nombre).",
        "client.notification_id": ("Le message {number}, notifications/initialized, a \"id\": {got} : une "
                                   "notification n’a pas de clé id du tout, pas même null (c’est ce qui la distingue "
                                   "d’une requête)."),
        "client.id_null": "Le message {number} a \"id\": null au lieu de {want} : une requête porte un id ; null n’est "
                          "l’id que de l’erreur -32700, et une notification n’a pas de clé id du tout.",
        "client.message_misspelt": "Le message {number} n’a pas {path}, mais il a {near} : une faute de frappe ?",
        "client.too_many_messages": "Le client envoie plus de sept messages.",
        "client.message_not_sent": "Le message {number} de la leçon, {method}, manque : il n’y en a que {count} sur sept.",
        "client.message_out_of_place": "Le message {number} est le message {other} de la leçon ({got}), à la place de "
                                       "{want} : les sept messages partent dans l’ordre du tableau, sans en sauter ni "
                                       "en déplacer.",
        "client.message_is_null": "Le message {number} vaut None : une fonction sans return rend None ; initialize "
                                  "rend son dict avec return.",
        "client.message_is_list": "Le message {number} est une liste, pas un dict : une virgule après le dict, au "
                                  "return, en fait un tuple ; chaque message est un seul dict.",
        "client.message_is_text": "Le message {number} est un texte, pas un dict : chaque message du scénario est un "
                                  "dict, que to_json écrit en JSON au moment de l’envoyer (partie 2).",
        "client.info_not_text": "params.clientInfo.{name} vaut {got} au lieu d’un texte : comme dans la leçon, name et "
                                "version s’écrivent entre guillemets.",
        "client.initialize_params": "params d’initialize : protocolVersion, capabilities {{}} et clientInfo {{name, "
                                    "version}}.",
        "client.no_jsonrpc": "Le message {number} n’a pas \"jsonrpc\": \"2.0\".",
        "client.jsonrpc_value": "Le message {number} a \"jsonrpc\": {got} au lieu de \"2.0\", un texte entre guillemets.",
        "client.sent_python": "Le serveur a reçu en message {number} le dict de Python écrit par str() (apostrophes, "
                              "None, True), pas du JSON : il n’a pas pu le lire. Chaque message part écrit par to_json.",
        "client.sent_not_a_message": "Le serveur a reçu en message {number} une ligne qui n’est pas un objet JSON : "
                                     "chaque message part seul sur sa ligne, écrit par to_json.",
        "client.no_prefix_sent": "Les lignes sont affichées sans le préfixe « {prefix}» : on ne voit pas ce qui a été "
                                 "envoyé.",
        "client.no_prefix_received": "Les lignes sont affichées sans le préfixe « {prefix}» : on ne voit pas ce qui a "
                                     "été reçu.",
        "client.printed_on_stderr": "Les lignes « {prefix}» sont écrites sur stderr (la sortie des erreurs), pas "
                                    "sur la sortie du programme : affichez-les avec print(...), sans file=sys.stderr.",
        "client.wrong_lines_sent": "Les lignes « {prefix}» ne montrent pas exactement ce qui a été envoyé.",
        "client.wrong_lines_received": "Les lignes « {prefix}» ne montrent pas exactement ce qui a été reçu.",
        "client.input_end": "la fin de l’entrée du serveur",
        "client.input_open": "Le client n’a pas fermé l’entrée du serveur : le serveur attend la suite, le client "
                             "attend le serveur, et tout s’arrête au bout de {seconds:g} s.",
        "client.waits_for_seventh": "Le serveur a écrit ses six réponses, mais le client n’a pas fermé son entrée : au "
                                    "bout de {seconds:g} s, il attendait encore. Après la sixième réponse, plus rien ne "
                                    "vient (la notification n’en reçoit pas) : c’est là que le client ferme l’entrée du "
                                    "serveur.",
        "client.close_after_six": "fermer après la réponse 6",
        "client.closed_after": "fermée après la réponse {replies}",
        "client.closed_early": "Le client a fermé l’entrée du serveur quand {replies} réponse(s) sur six lui "
                               "avaient été envoyées : fermez-la une fois la sixième réponse lue, sinon les "
                               "dernières peuvent se perdre.",
        "client.did_not_end": "Le client ne s’est pas terminé.",
        "client.waits_before_closing": "Le client ne s’est pas terminé : il attend la fin du serveur avant d’avoir "
                                       "fermé son entrée, et le serveur attend la fin de son entrée. Fermez d’abord "
                                       "l’entrée du serveur, puis attendez sa fin (wait_for_exit).",
        "client.waits_unsent": "Le serveur n’a reçu que {count} message(s) sur sept, et a répondu à chaque requête ; "
                               "le client attend ensuite une réponse qui ne vient pas : à un message qu’il n’a pas "
                               "envoyé, ou à la notification, qui n’en reçoit pas. Les sept messages partent d’un "
                               "coup, puis le client lit les six réponses.",
        "client.waited_before_sending": "Le client a attendu une réponse avant d’envoyer un seul message : le serveur "
                                        "ne répond qu’à ce qu’il reçoit. Les sept messages partent d’abord, puis le "
                                        "client lit les réponses.",
        "client.reads_beside_watch": "Le client lit server.stdout lui-même, alors que watch(server) (fourni) le lit "
                                     "déjà : les deux se partagent les lignes du serveur, et chacun en perd. Lisez "
                                     "chaque réponse avec next_line(server).",
        "client.ask_once": "Le client doit appeler ask une fois.",
        "client.crashed_before_ask": "Le client s’est arrêté sur une erreur (code {code}) avant d’appeler ask : "
                                     "ce qu’il a écrit, ci-dessous, dit pourquoi.",
        "client.capabilities_of_one_reply": "Le client s’est arrêté avant d’appeler ask : announced_capabilities "
                                            "(fourni) prend la liste des réponses et y trouve elle-même l’initialize "
                                            "accepté ; elle a reçu une seule réponse.",
        "client.question_as_sample": "ask a reçu l’échantillon dans le message de l’utilisateur, et la question comme "
                                     "échantillon : comme demander dans client2.js, ask reçoit d’abord les messages "
                                     "(la question avec les capacités), puis l’échantillon, puis 60.",
        "client.replies_not_read": "Le client s’est arrêté avant d’appeler ask : les réponses gardées en partie 2 "
                                   "sont des lignes de texte, pas des réponses lues. Comme client2.js garde "
                                   "JSON.parse(ligne), chaque réponse gardée est l’objet lu sur sa ligne (read_reply, "
                                   "fourni).",
        "client.crashed_before_sending": "Le client s’est arrêté sur une erreur (code {code}) avant d’envoyer un "
                                         "message : ce qu’il a écrit, ci-dessous, dit pourquoi.",
        "client.crashed_before_closing": "Le client s’est arrêté sur une erreur (code {code}) avant de fermer l’entrée "
                                         "du serveur : ce qu’il a écrit, ci-dessous, dit pourquoi.",
        "client.question_lacks_capabilities": "La question ne finit pas par les capacités annoncées (result.capabilities de la réponse 3), en JSON.",
        "client.question_without_words": "Le message de l’utilisateur ne porte que les capacités, sans la question : "
                                         "comme client2.js, il est TEXT[\"question\"] suivi des capacités en JSON.",
        "client.question_is_sample": "Le message de l’utilisateur commence par l’échantillon au lieu de la question : "
                                     "comme client2.js, il est TEXT[\"question\"] suivi des capacités en JSON ; "
                                     "l’échantillon est le deuxième argument d’ask.",
        "client.question_lacks_facts": "Le modèle ne reçoit pas, avant la question, le message système de facts(capacités).",
        "client.facts_of_other": "Le message système n’est pas celui des capacités annoncées : facts reçoit les "
                                 "capacités (announced_capabilities), celles que la question donne en JSON.",
        "client.answer_not_printed": "Le client n’affiche pas la réponse du modèle.",
        "client.answer_without_words": "Le client affiche la réponse du modèle sans « le modèle dit : » devant : comme "
                                       "client2.js, la ligne est TEXT[\"model_says\"] suivi du texte reçu.",
        "client.question_python": "La question finit par le dict de Python (apostrophes, False) écrit par str(), au "
                                  "lieu des capacités en JSON : écrivez-les avec to_json.",
        "client.sample_and_cap_swapped": "ask reçoit l’échantillon à la place de la limite ({got}) et la limite à la "
                                         "place de l’échantillon : comme demander dans client2.js, ask reçoit les "
                                         "messages, puis l’échantillon, puis {want}.",
        "client.max_tokens_text": "ask reçoit max_tokens {got}, un texte, au lieu du nombre {want} : sans guillemets.",
        "client.sample_is_question": "ask reçoit la question comme échantillon : quand aucun modèle ne répond, le "
                                     "client afficherait la question après « le modèle dit : ». L’échantillon est la "
                                     "réponse toute prête, TEXT[\"sample\"].",
        "client.printed_answer_whole": "Le client affiche tout l’Answer rendu par ask, pas son texte : comme client2.js "
                                       "affiche r.texte, seul le texte de la réponse suit « le modèle dit : ».",
        "client.crashed_after_ask": "Le client s’est arrêté sur une erreur (code {code}) après l’appel à ask, avant "
                                    "d’afficher la réponse : ce qu’il a écrit, ci-dessous, dit pourquoi.",
        "client.exit_code": "Le client ne finit pas avec le code 0.",
        "client.data.answer": "Réponse 42 du modèle de test",
        "client.message_split": "Le serveur a reçu le premier message sur {count} lignes : il lit un message par "
                                "ligne, et aucune de ces lignes n’en est un. Un message JSON tient sur une seule "
                                "ligne (sans indentation).",
        "client.max_tokens": "ask reçoit max_tokens {got} au lieu de {want} : la leçon demande au modèle une phrase "
                             "courte, et le lui dit par le troisième argument d’ask.",
        "client.prefix_without_space": "Les lignes commencent par « {prefix}» sans l’espace qui suit la flèche.",
        "client.printed_on_one_line": "Les lignes « {prefix}» se suivent sur une seule ligne : chacune finit par un "
                                      "retour à la ligne, que print(…, end=\"\") ôte.",
        "client.printed_python": "Les lignes « {prefix}» montrent le dict de Python (apostrophes, None, True) au "
                                 "lieu du texte JSON échangé avec le serveur.",
        "client.nothing_reached": "Le serveur n’a rien reçu du client en {seconds:g} s, pas un octet, et le client ne "
                                  "s’est pas arrêté : ce qu’il écrit reste de son côté tant qu’il n’est pas vidé "
                                  "(flush), à moins qu’il n’attende le serveur avant d’envoyer.",
        "client.printed_not_sent": "Le client a affiché ses messages (« -> »), mais le serveur n’en a reçu aucun : ils "
                                   "sont restés du côté du client.",
        "client.line_never_ended": "Le serveur a reçu du client une ligne qui ne finit jamais ({size} caractères sans "
                                   "retour à la ligne) : il lit ligne par ligne, et attend encore la fin de celle-ci.",
        "client.transport.hint": "Chaque message part sur une ligne à lui : son JSON, un retour à la ligne (\\n), puis "
                                 "flush, pour qu’il parte aussitôt ; le serveur lit ligne par ligne.",
        "client.ask_not_messages": "ask reçoit {given} là où il attend une liste de messages, chacun un objet avec "
                                   "role et content.",
        "client.message_not_a_message": "Le message {number} qu’ask reçoit, {given}, n’a pas role et content : chaque "
                                        "message est un objet avec ces deux clés.",
        "client.facts_after_question": "Le message système de facts(capacités) part après la question : il vient "
                                       "d’abord, pour que le modèle lise les faits avant la question.",
        "client.question_role": "La question part avec le rôle {role} : c’est l’utilisateur qui la pose (\"user\"), "
                                "le message système ne porte que les faits.",
        "client.sample_not_text": "ask reçoit {given} comme échantillon, pas un texte : quand aucun modèle ne répond, "
                                  "model.py rend l’échantillon et le client l’affiche après « le modèle dit : ».",
    },
    "en": {
        "client.sent_nothing": "The server received nothing from the client.",
        "client.scenario_raises": "scenario() raises an exception instead of returning the list.",
        "client.scenario_not_a_list": "scenario() must return a list of messages.",
        "client.message_differs": "Message {number} is not the lesson's ({path}).",
        "client.id_differs": "Message {number} has the id {got} instead of {want}: copy the lesson's ids as they are "
                             "(a number stays a number).",
        "client.notification_id": ("Message {number}, notifications/initialized, has \"id\": {got}: a notification "
                                   "has no id key at all, not even null (that is what sets it apart from a request)."),
        "client.id_null": "Message {number} has \"id\": null instead of {want}: a request carries an id; null is the id "
                          "of the -32700 error only, and a notification has no id key at all.",
        "client.message_misspelt": "Message {number} has no {path}, but it has {near}: a typo?",
        "client.too_many_messages": "The client sends more than seven messages.",
        "client.message_not_sent": "The lesson's message {number}, {method}, is missing: there are only {count} of seven.",
        "client.message_out_of_place": "Message {number} is the lesson's message {other} ({got}), in place of {want}: "
                                       "the seven messages leave in the table's order, none left out or moved.",
        "client.message_is_null": "Message {number} is None: a function without return returns None; initialize "
                                  "returns its dict with return.",
        "client.message_is_list": "Message {number} is a list, not a dict: a comma after the dict, on the return "
                                  "line, makes it a tuple; each message is one dict.",
        "client.message_is_text": "Message {number} is a text, not a dict: each message of the scenario is a dict, "
                                  "which to_json writes as JSON when it is sent (part 2).",
        "client.info_not_text": "params.clientInfo.{name} is {got} instead of a text: as in the lesson, name and "
                                "version are written in quotes.",
        "client.initialize_params": "initialize's params: protocolVersion, capabilities {{}} and clientInfo {{name, "
                                    "version}}.",
        "client.no_jsonrpc": "Message {number} has no \"jsonrpc\": \"2.0\".",
        "client.jsonrpc_value": "Message {number} has \"jsonrpc\": {got} instead of \"2.0\", a text in quotes.",
        "client.sent_python": "The server received as message {number} Python's dict written by str() (single quotes, "
                              "None, True), not JSON: it could not read it. Each message is written by to_json.",
        "client.sent_not_a_message": "The server received as message {number} a line that is no JSON object: each "
                                     "message goes alone on its line, written by to_json.",
        "client.no_prefix_sent": "The lines are printed without the \"{prefix}\" prefix: one cannot tell what was sent.",
        "client.no_prefix_received": "The lines are printed without the \"{prefix}\" prefix: one cannot tell what was "
                                     "received.",
        "client.printed_on_stderr": "The \"{prefix}\" lines are written on stderr (the error output), not on the "
                                    "program's output: print them with print(...), without file=sys.stderr.",
        "client.wrong_lines_sent": "The \"{prefix}\" lines do not show exactly what was sent.",
        "client.wrong_lines_received": "The \"{prefix}\" lines do not show exactly what was received.",
        "client.input_end": "the end of the server's input",
        "client.input_open": "The client did not close the server's input: the server waits for more, the client "
                             "waits for the server, and everything stops after {seconds:g} s.",
        "client.waits_for_seventh": "The server wrote its six replies, but the client did not close its input: after "
                                    "{seconds:g} s, it was still waiting. After the sixth reply nothing more comes (the "
                                    "notification gets none): that is when the client closes the server's input.",
        "client.close_after_six": "close after reply 6",
        "client.closed_after": "closed after reply {replies}",
        "client.closed_early": "The client closed the server's input when {replies} reply(ies) out of six had been "
                               "sent to it: close it once the sixth reply is read, or the last ones may be lost.",
        "client.did_not_end": "The client did not end.",
        "client.waits_before_closing": "The client did not end: it waits for the server's end before it has closed "
                                       "its input, and the server waits for its input's end. Close the server's input "
                                       "first, then wait for its end (wait_for_exit).",
        "client.waits_unsent": "The server received only {count} message(s) of seven, and answered each request; "
                               "the client then waits for a reply that never comes: to a message it did not send, or "
                               "to the notification, which gets none. The seven messages leave in one go, then the "
                               "client reads the six replies.",
        "client.waited_before_sending": "The client waited for a reply before sending a single message: the server "
                                        "answers only what it receives. The seven messages leave first, then the "
                                        "client reads the replies.",
        "client.reads_beside_watch": "The client reads server.stdout itself, while watch(server) (given) already "
                                     "reads it: the two share the server's lines, and each loses some. Read each reply "
                                     "with next_line(server).",
        "client.ask_once": "The client must call ask once.",
        "client.crashed_before_ask": "The client stopped on an error (code {code}) before calling ask: what it "
                                     "wrote, below, says why.",
        "client.capabilities_of_one_reply": "The client stopped before calling ask: announced_capabilities (given) "
                                            "takes the list of replies and finds the accepted initialize in it itself; "
                                            "it was given a single reply.",
        "client.question_as_sample": "ask got the sample in the user's message, and the question as the sample: as "
                                     "demander in client2.js, ask takes the messages first (the question with the "
                                     "capabilities), then the sample, then 60.",
        "client.replies_not_read": "The client stopped before calling ask: the replies part 2 kept are lines of "
                                   "text, not read replies. As client2.js keeps JSON.parse(ligne), each kept reply is "
                                   "the object read from its line (read_reply, given).",
        "client.crashed_before_sending": "The client stopped on an error (code {code}) before sending a message: "
                                         "what it wrote, below, says why.",
        "client.crashed_before_closing": "The client stopped on an error (code {code}) before closing the server's "
                                         "input: what it wrote, below, says why.",
        "client.question_lacks_capabilities": "The question does not end with the announced capabilities (reply 3's result.capabilities), as JSON.",
        "client.question_without_words": "The user's message holds only the capabilities, without the question: as "
                                         "in client2.js, it is TEXT[\"question\"] followed by the capabilities as JSON.",
        "client.question_is_sample": "The user's message starts with the sample instead of the question: as in "
                                     "client2.js, it is TEXT[\"question\"] followed by the capabilities as JSON; the "
                                     "sample is ask's second argument.",
        "client.question_lacks_facts": "The model does not get the system message of facts(capabilities) before the question.",
        "client.facts_of_other": "The system message is not the one of the announced capabilities: facts gets the "
                                 "capabilities (announced_capabilities), those the question gives as JSON.",
        "client.answer_not_printed": "The client does not print the model's answer.",
        "client.answer_without_words": "The client prints the model's answer without \"the model says:\" before it: "
                                       "as in client2.js, the line is TEXT[\"model_says\"] followed by the text it got.",
        "client.question_python": "The question ends with Python's dict (single quotes, False) written by str(), "
                                  "instead of the capabilities as JSON: write them with to_json.",
        "client.sample_and_cap_swapped": "ask gets the sample in place of the cap ({got}) and the cap in place of the "
                                         "sample: as demander in client2.js, ask takes the messages, then the sample, "
                                         "then {want}.",
        "client.max_tokens_text": "ask gets max_tokens {got}, a text, instead of the number {want}: no quotes.",
        "client.sample_is_question": "ask gets the question as its sample: when no model answers, the client would "
                                     "print the question after \"the model says:\". The sample is the ready answer, "
                                     "TEXT[\"sample\"].",
        "client.printed_answer_whole": "The client prints the whole Answer ask returned, not its text: as client2.js "
                                       "prints r.texte, only the answer's text follows “the model says:”.",
        "client.crashed_after_ask": "The client stopped on an error (code {code}) after calling ask, before printing "
                                    "the answer: what it wrote, below, says why.",
        "client.exit_code": "The client does not end with code 0.",
        "client.data.answer": "Answer 42 of the test model",
        "client.message_split": "The server received the first message on {count} lines: it reads one message per "
                                "line, and none of these lines is one. A JSON message fits on one line (no indent).",
        "client.max_tokens": "ask gets max_tokens {got} instead of {want}: the lesson asks the model for a short "
                             "sentence, and tells it so with ask's third argument.",
        "client.prefix_without_space": "The lines start with \"{prefix}\" without the space after the arrow.",
        "client.printed_on_one_line": "The \"{prefix}\" lines follow one another on a single line: each ends with a "
                                      "newline, which print(…, end=\"\") takes away.",
        "client.printed_python": "The \"{prefix}\" lines show Python's dict (single quotes, None, True) instead of "
                                 "the JSON text exchanged with the server.",
        "client.nothing_reached": "The server received nothing from the client in {seconds:g} s, not one byte, and "
                                  "the client did not stop: what it writes stays on its side until it is flushed, "
                                  "unless it waits for the server before sending.",
        "client.printed_not_sent": "The client printed its messages (\"-> \"), but the server received none of them: "
                                   "they stayed on the client's side.",
        "client.line_never_ended": "The server received from the client one line that never ends ({size} characters "
                                   "with no newline): it reads line by line, and is still waiting for this one's end.",
        "client.transport.hint": "Each message goes on a line of its own: its JSON, a newline (\\n), then flush, so "
                                 "that it leaves at once; the server reads line by line.",
        "client.ask_not_messages": "ask gets {given} where it expects a list of messages, each an object with role "
                                   "and content.",
        "client.message_not_a_message": "Message {number} that ask gets, {given}, has no role and content: each "
                                        "message is an object with these two keys.",
        "client.facts_after_question": "The system message of facts(capabilities) goes after the question: it comes "
                                       "first, so that the model reads the facts before the question.",
        "client.question_role": "The question goes with the role {role}: the user asks it (\"user\"); the system "
                                "message holds only the facts.",
        "client.sample_not_text": "ask gets {given} as its sample, not a text: when no model answers, model.py "
                                  "returns the sample and the client prints it after \"the model says:\".",
    },
}

TRANSPORT_HINT = own_words(REASONS, "client.transport.hint")  # how a message is sent, for a sending gone wrong
