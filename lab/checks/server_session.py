"""The server probes: two real sessions with the student's server.py, over stdin/stdout only
(the lesson's seven messages; then the other rules: ping in every state, a second initialize,
2025-03-26, id 0, notifications, a line that is not JSON, the gate), each beside what the
reference server answers to the same lines.

A session is driven as a client drives a server: a line, then its reply (STARTUP_LIMIT for the
first, REPLY_LIMIT after) before the next, nothing in the environment to flush for it. A reply
not in time ends the waiting: the rest is sent at once and the input closed, so that what came
only at the end is still judged. A timing verdict (late: that reply came once the input closed,
every earlier one on time; or still running after its input closed) is run once more, and
stands only if the second run says the same: the clock is never the host's doing.
"""

from __future__ import annotations

import ast
import difflib
import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from lab.checks import check_title, declared
from lab.checks.engine import WAITS_FOR, Context, Failed, Probe, Skipped
from lab.checks.reference import encode_lines, parse_python, reference_replies, scenario_messages
from lab.process.capped import parse_json
from lab.process.student import child_env
from lab.process.talk import Run, converse
from lab.checks.texts import say
from lab.checks.tracebacks import trimmed
from lab import time_limits

# Why each limit is what it is: lab/time_limits.py.
SERVER_CPU = time_limits.SERVER_CPU
REPLY_LIMIT = time_limits.SERVER_REPLY
STARTUP_LIMIT = time_limits.SERVER_STARTUP
FINISH_LIMIT = time_limits.SERVER_FINISH
SERVER_LIMIT = STARTUP_LIMIT + FINISH_LIMIT  # a server that writes nothing is stopped after this
SESSION_CAP = time_limits.SERVER_SESSION
PROBE_LIMIT = 2 * SESSION_CAP  # a session and, for a timing verdict, its confirmation
MISSING = object()  # a field the reply does not have (distinct from null)


def initialize(request_id: Any, version: str) -> dict:
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "lab-check", "version": "1"}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params}


def ping(request_id: Any) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "method": "ping"}


def rules_messages() -> list[Any]:
    return [
        {"jsonrpc": "2.0", "id": "unknown-new", "method": "resources/list"},  # the gate comes before the name
        ping("ping-new"),
        initialize("init-2025", "2025-03-26"),
        ping("ping-waiting"),
        initialize("init-again-waiting", "2024-11-05"),
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 98}},  # not "initialized"
        {"jsonrpc": "2.0", "id": "list-waiting", "method": "tools/list"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        ping("ping-ready"),
        {"jsonrpc": "2.0", "id": "list-ready", "method": "tools/list"},  # a session that surely got ready
        {"jsonrpc": "2.0", "id": "unknown-ready", "method": "resources/list"},
        initialize("init-again-ready", "2024-11-05"),
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}},
        ping(0),
        b'{"jsonrpc": "2.0", "id": 7, "method": ',  # not JSON: cut in the middle
        ping("after-bad-json"),
    ]


@dataclass
class Transcript:
    sent: list[Any]
    reference: list[dict]
    run: Run | None = None  # None when there is no server.py
    lines: list[str] = field(default_factory=list)
    replies: list[Any] = field(default_factory=list)  # each line parsed, or the raw text
    late: int | None = None  # the message whose reply did not come in time, input still open
    lines_in_time: int = 0  # lines that came while its input was still open
    stopped_at: int | None = None  # the first line it did not answer before it exited, input still open
    script: str = "server.py"  # its file name, to trim its tracebacks
    lang: str = ""  # the run's language, to explain its tracebacks

    def message_text(self, index: int) -> str:
        message = self.sent[index]
        raw = message if isinstance(message, bytes) else json.dumps(message, ensure_ascii=False).encode()
        return raw.decode("utf-8", errors="replace")

    def traceback(self) -> str:
        if self.run is None:
            return ""
        return trimmed(self.run.stderr.decode("utf-8", errors="replace"), (self.script,), self.lang)

    def request(self, request_id: Any) -> str:
        """The request as a check names it: a word id (the rules session's) as what that message
        is, in the run's language; a number id as its method and id, as the lesson shows them."""
        if isinstance(request_id, str) and f"sent.{request_id}" in REASONS["en"]:
            return say(self.lang, f"sent.{request_id}")
        for message in self.sent:
            if isinstance(message, dict) and same(message.get("id", MISSING), request_id):
                return f"{message.get('method')} (id {json.dumps(request_id)})"
        return f"id {json.dumps(request_id)}"


def same(a: Any, b: Any) -> bool:
    """JSON equality: true is not 1, and 1.0 is not 1."""
    if a is MISSING or b is MISSING:
        return a is b
    if type(a) is type(b) and type(a) in (str, int, bool, type(None)):
        return a == b  # the common case (ids, codes, texts), without writing JSON
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


LINE_CAP = 1 << 20  # characters of one line parsed (a pipe keeps 1 MiB: lab/process/talk.py)


def parse(line: str) -> Any:
    """A line a student's program wrote, as JSON the kit reads (capped: lab/process/capped.py), else the line."""
    try:
        return parse_json(line, LINE_CAP)
    except ValueError:
        return line


def python_value(text: str) -> Any:
    """What Python's own print of a dict reads as ({'id': 1, 'x': None}), or MISSING."""
    if len(text) > 4000 or "'" not in text and "None" not in text and "True" not in text and "False" not in text:
        return MISSING
    try:
        return ast.literal_eval(parse_python(text.strip(), "eval"))
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return MISSING


def owes_reply(message: Any) -> bool:
    """A request (it has an id) or a line that is not JSON (answered with id null); a blank
    line is no message at all, and owes nothing."""
    return (isinstance(message, bytes) and bool(message.strip())) or (isinstance(message, dict) and "id" in message)


def session(context: Context, messages: list[Any], script_name: str = "server.py",
            reference: Callable[[bytes, str], list[dict]] = reference_replies) -> Transcript:
    """A session with `script_name` and its `reference`, run again on a timing verdict."""
    first = one_session(context, messages, script_name, reference)
    if not timing_verdict(first):
        return first
    second = one_session(context, messages, script_name, reference)
    return second if not timing_verdict(second) else first


# What moves a server's state: a rules session cannot go on without them in their place.
MOVES_STATE = ("initialize", "notifications/initialized")


def rules_session(context: Context, tries: int = 5) -> Transcript:
    """The rules session; a server that stopped on a message that moves no state (a crash on a
    ping) is given them again without it, the later replies added: its stop costs that
    message's check and keeps-running only."""
    sent = rules_messages()
    first = transcript = session(context, sent)
    for _ in range(tries):
        run = transcript.run
        if run is None or transcript.stopped_at is None or not transcript.lines or run.timed_out or run.cpu_exhausted:
            break  # no stop on a line, or none to go on from: it never wrote (it does not run, or not yet)
        # The line it stopped on: the first after its last reply that was owed one (not a notification).
        at = next((k for k in range(transcript.stopped_at, len(sent)) if owes_reply(sent[k])), None)
        if at is None or not isinstance(sent[at], dict) or sent[at].get("method") in MOVES_STATE:
            break
        sent = sent[:at] + sent[at + 1:]
        transcript = one_session(context, sent, "server.py", reference_replies)
        for line, reply in zip(transcript.lines, transcript.replies):
            if isinstance(reply, dict) and "id" in reply and find(first.replies, reply["id"]) is MISSING:
                first.lines.append(line)
                first.replies.append(reply)
    return first


def find(replies: list[Any], request_id: Any) -> Any:
    """The first reply carrying this id (for null: an id that is null or absent)."""
    return next((reply for reply in replies if isinstance(reply, dict) and same(reply.get("id"), request_id)), MISSING)


def timing_verdict(transcript: Transcript) -> bool:
    run = transcript.run
    return run is not None and (transcript.late is not None or (run.timed_out and bool(transcript.lines)))


def one_session(context: Context, messages: list[Any], script_name: str,
                reference: Callable[[bytes, str], list[dict]]) -> Transcript:
    data = encode_lines(messages)
    transcript = Transcript(sent=messages, reference=reference(data, context.lang), script=script_name,
                            lang=context.lang)
    script = context.folder / script_name
    if not script.is_file():
        return transcript
    started = time.monotonic()
    talk = converse(context.launch, script.resolve(), cwd=context.folder, env=child_env(context.launch, context.lang),
                    cpu_seconds=SERVER_CPU)
    received: list[bytes] = []
    owed = 0
    answered = -1  # the last message whose reply came: a crash came from a line after it
    for index, line in enumerate(data.split(b"\n")[:-1]):
        if not talk.send(line + b"\n"):
            transcript.stopped_at = min(answered + 1, index - 1) if index else 0
            break
        if transcript.late is not None or not owes_reply(messages[index]):
            continue
        limit = STARTUP_LIMIT if owed == 0 else REPLY_LIMIT
        owed += 1
        until = min(time.monotonic() + limit, started + SESSION_CAP - FINISH_LIMIT)
        # Any line counts as the reply: matching ids is the checks' job, not the driver's.
        while len(received) < owed and not talk.ended:
            got = talk.read_line(until - time.monotonic())
            if got is None:
                break
            received.append(got)
        if talk.ended:
            transcript.stopped_at = min(answered + 1, index)
            break
        if len(received) < owed:
            transcript.late = index  # from here on: everything at once, then the end of input
        else:
            answered = index
    transcript.run = talk.finish(FINISH_LIMIT)
    received += talk.remaining_lines()
    transcript.lines_in_time = talk.lines_before_close
    text = [raw.decode("utf-8", errors="replace").rstrip("\r") for raw in received]
    transcript.lines = [line for line in text if line.strip()]
    transcript.replies = [parse(line) for line in transcript.lines]
    if transcript.late is not None and not answered_after_close(transcript, transcript.late):
        transcript.late = None  # never answered at all: a dropped request, not a late one
    return transcript


def answered_after_close(transcript: Transcript, index: int) -> bool:
    """Did the reply to message `index` come once the input closed (any line, for a line that is not JSON)?"""
    message = transcript.sent[index]
    late_replies = transcript.replies[transcript.lines_in_time:]
    if not late_replies or not isinstance(message, dict):
        return bool(late_replies)
    return any(not isinstance(reply, dict) or "id" not in reply or same(reply.get("id"), message.get("id"))
               for reply in late_replies)


# What the server never reads (for --watch: see ProbeMemo).
NOT_READ = ("client.py", "model.py", "bonus_server.py", "answers.toml")

PROBES = {
    "server.scenario": Probe(lambda context: session(context, scenario_messages()), PROBE_LIMIT, NOT_READ),
    "server.rules": Probe(rules_session, 6 * PROBE_LIMIT, NOT_READ),
}


def field_of(reply: Any, path: str) -> Any:
    """`error.code` of a reply; `#keys` gives the sorted keys, `#type` the JSON type's name."""
    path, _, view = path.partition("#")
    value = reply
    for name in path.split("."):
        if not isinstance(value, dict) or name not in value:
            return MISSING
        value = value[name]
    if view == "keys":
        return sorted(value) if isinstance(value, dict) else MISSING
    if view == "type":
        return {str: "string", bool: "boolean", int: "number", float: "number", dict: "object",
                list: "array", type(None): "null"}.get(type(value), "?")
    return value


def as_field(value: Any) -> str | None:
    return None if value is MISSING else json.dumps(value, ensure_ascii=False)


def stopped_before(transcript: Transcript, request_id: Any) -> bool:
    """Did the lesson's server (not a direct call's transcript) stop before this request?"""
    stop = transcript.stopped_at
    if transcript.run is None or stop is None or transcript.script != "server.py":
        return False
    return any(same(message.get("id", MISSING), request_id) if isinstance(message, dict)
               else request_id is None for message in transcript.sent[stop:])  # a line that is not JSON: id null


def expect_reply(context: Context, probe: str, request_id: Any, paths: tuple[str, ...]) -> None:
    """The student's reply to `request_id`, in the session `probe`, agrees with the reference's on
    every path; one the server stopped before waits for keeps-running (or parse-error)."""
    transcript: Transcript = context.probe(probe)
    if find(transcript.replies, request_id) is MISSING and stopped_before(transcript, request_id):
        on_bad_line = isinstance(transcript.sent[transcript.stopped_at or 0], bytes)
        cause = "server.parse-error" if on_bad_line else "server.keeps-running"
        raise Skipped(WAITS_FOR, title=check_title(cause, context.lang))
    agrees(context, transcript, request_id, paths)


def agrees(context: Context, transcript: Transcript, request_id: Any, paths: tuple[str, ...]) -> None:
    expected = find(transcript.reference, request_id)
    actual = find(transcript.replies, request_id)
    what = transcript.request(request_id)
    if actual is MISSING:
        code = field_of(expected, "error.code")
        if code is not MISSING and any(field_of(reply, "error.code") == code and reply.get("id", 0) is None
                                       for reply in transcript.replies if isinstance(reply, dict)):
            # The right error, with its request's id lost: reply-ids' mistake, said here as there.
            raise Failed(expected, "\n".join(transcript.lines), reason="server.error_id_null",
                         fields={"what": what, "code": as_field(code)},
                         hint=declared("server.reply-ids").hint)  # type: ignore[union-attr]
        raise Failed(expected, "\n".join(transcript.lines) or "—",
                     reason="reply.none", fields={"what": what}, output=transcript.traceback())
    if "error" in expected and isinstance(actual.get("result"), dict) and {"code", "message"} <= set(actual["result"]):
        raise Failed(expected, actual, reason="server.error_under_result", fields={"what": what}, focus=("result",))
    if refused_then_moved(transcript, request_id):
        raise Failed(expected, actual, reason="server.refused_but_moved", fields={"what": what}, focus=("error.code",))
    if "error" in expected and isinstance(actual.get("result"), dict) and any(p.startswith("error") for p in paths):
        offered = field_of(actual, "result.protocolVersion")
        asked = next((field_of(m, "params.protocolVersion") for m in transcript.sent
                      if isinstance(m, dict) and same(m.get("id", MISSING), request_id)), MISSING)
        if field_of(expected, "error.code") == -32602 and isinstance(offered, str) and offered != asked:
            raise Failed(expected, actual, reason="server.offers_another_version", focus=("result.protocolVersion",),
                         fields={"what": what, "offered": as_field(offered)})
        raise Failed(expected, actual, reason="reply.result_not_error", focus=("result",),
                     fields={"what": what, "code": as_field(field_of(expected, "error.code"))})
    if "result" in expected and isinstance(actual.get("error"), dict) and any(p.startswith("result") for p in paths):
        error = actual["error"]
        raise Failed(expected, actual, reason="reply.error_not_result", focus=("error",),
                     fields={"what": what, "code": as_field(error.get("code")), "message": as_field(error.get("message"))})
    for path in paths:
        want, got = field_of(expected, path), field_of(actual, path)
        if not same(want, got):
            if got is MISSING and want is not MISSING:
                misspelt_key(transcript, request_id, path)
            raise Failed(expected, actual, reason="reply.missing" if got is MISSING else "reply.differs",
                         fields={"what": what, "path": path, "got": as_field(got), "want": as_field(want)},
                         focus=(path.partition("#")[0],))


def misspelt_key(transcript: Transcript, request_id: Any, path: str) -> None:
    reply = find(transcript.replies, request_id)
    if near := misspelt(reply, path):
        raise Failed(find(transcript.reference, request_id), reply, reason="reply.misspelt", focus=(path,),
                     fields={"what": transcript.request(request_id), "path": path, "near": near,
                             "name": path.rpartition(".")[2]})


def refused_then_moved(transcript: Transcript, request_id: Any) -> bool:
    """Is this an initialize answered -32600 (already initialized) that the reference accepts or
    refuses otherwise, while every initialize before it was refused: a refusal that moved the state?"""
    earlier = []
    for message in transcript.sent:
        if not (isinstance(message, dict) and message.get("method") == "initialize" and "id" in message):
            continue
        if same(message["id"], request_id):
            reply, expected = find(transcript.replies, request_id), find(transcript.reference, request_id)
            refused = [find(transcript.replies, one) for one in earlier]
            return (field_of(reply, "error.code") == -32600 and field_of(expected, "error.code") != -32600
                    and bool(refused) and all(isinstance(r, dict) and "error" in r for r in refused))
        earlier.append(message["id"])
    return False


def misspelt(reply: Any, path: str) -> str:
    """The path of a key the reply has where `path` is missing, spelt nearly the same (another
    case, a letter off): "result.protocolversion" for "result.protocolVersion"; else ""."""
    value, seen = reply, []
    for name in path.partition("#")[0].split("."):
        if not isinstance(value, dict):
            return ""
        if name not in value:
            keys = [key for key in value if isinstance(key, str)]
            near = [key for key in keys if key.lower() == name.lower()] or difflib.get_close_matches(name, keys, 1, 0.8)
            return ".".join([*seen, near[0]]) if near else ""
        seen.append(name)
        value = value[name]
    return ""

# Why a check failed, by key (lab/checks/texts.py `say`), in both languages with the same fields.
REASONS = {
    "fr": {
        "reply.none": "Aucune réponse à la requête {what}.",
        "reply.differs": "Réponse à la requête {what} : {path} vaut {got} au lieu de {want}.",
        "reply.missing": "Réponse à la requête {what} : {path} manque, au lieu de valoir {want}.",
        "reply.error_not_result": ("Réponse à la requête {what} : l’erreur {code} ({message}), là où la leçon "
                                   "attend un result : votre serveur refuse ce que la leçon accepte."),
        "reply.result_not_error": ("Réponse à la requête {what} : un result, là où la leçon attend l’erreur {code} : "
                                   "votre serveur accepte ce que la leçon refuse."),
        "server.offers_another_version": ("Réponse à la requête {what} : votre serveur propose la version {offered} au "
                                          "lieu de refuser. C’est la règle de la spécification MCP, celle de "
                                          "bonus_server.py ; le server.py de la leçon refuse une version qu’il ne "
                                          "parle pas : l’erreur -32602, avec requested et supported en data."),
        "reply.misspelt": "Réponse à la requête {what} : {path} manque, mais la réponse a {near} : une faute de frappe "
                          "pour {name} ?",
        "sent.ping-new": "ping envoyée avant initialize",
        "sent.unknown-new": "resources/list envoyée avant initialize",
        "sent.list-notified-new": "tools/list envoyée après notifications/initialized, avant tout initialize",
        "sent.init-future": "initialize qui demande la version 2099-01-01, plus récente que celles de VERSIONS",
        "sent.init-2025": "initialize qui demande la version 2025-03-26",
        "sent.ping-waiting": "ping envoyée pendant l’attente (après initialize, avant la notification)",
        "sent.init-again-waiting": "initialize envoyée une deuxième fois, pendant l’attente",
        "sent.list-waiting": "tools/list envoyée pendant l’attente (après initialize, avant la notification)",
        "sent.ping-ready": "ping envoyée une fois le serveur prêt",
        "sent.list-ready": "tools/list envoyée une fois le serveur prêt",
        "sent.unknown-ready": "resources/list envoyée une fois le serveur prêt",
        "sent.init-again-ready": "initialize envoyée une deuxième fois, une fois le serveur prêt",
        "sent.after-bad-json": "ping envoyée après la ligne qui n’est pas du JSON",
        "sent.init-again": "initialize envoyée une deuxième fois",
        "server.error_under_result": "Réponse à la requête {what} : l’erreur (code, message) est écrite sous result au "
                                     "lieu de error. Une erreur part sous \"error\" (fail, partie 1).",
        "server.refused_but_moved": "La requête {what} reçoit -32600 (déjà initialisé), alors qu’aucun initialize n’a "
                                    "encore été accepté : un initialize refusé a quand même changé l’état du serveur. "
                                    "L’état ne passe à attente qu’une fois la version acceptée.",
    },
    "en": {
        "reply.none": "No reply to the request {what}.",
        "reply.differs": "Reply to the request {what}: {path} is {got} instead of {want}.",
        "reply.missing": "Reply to the request {what}: {path} is missing instead of {want}.",
        "reply.error_not_result": ("Reply to the request {what}: the error {code} ({message}), where the lesson "
                                   "expects a result: your server refuses what the lesson accepts."),
        "reply.result_not_error": ("Reply to the request {what}: a result, where the lesson expects the error {code}: "
                                   "your server accepts what the lesson refuses."),
        "server.offers_another_version": ("Reply to the request {what}: your server offers the version {offered} "
                                          "instead of refusing. That is the MCP specification's rule, bonus_server.py's; "
                                          "the lesson's server.py refuses a version it does not speak: the error "
                                          "-32602, with requested and supported as data."),
        "reply.misspelt": "Reply to the request {what}: {path} is missing, but the reply has {near}: a typo for "
                          "{name}?",
        "sent.ping-new": "ping sent before initialize",
        "sent.unknown-new": "resources/list sent before initialize",
        "sent.list-notified-new": "tools/list sent after notifications/initialized, before any initialize",
        "sent.init-future": "initialize asking for version 2099-01-01, newer than those in VERSIONS",
        "sent.init-2025": "initialize asking for version 2025-03-26",
        "sent.ping-waiting": "ping sent while waiting (after initialize, before the notification)",
        "sent.init-again-waiting": "initialize sent a second time, while waiting",
        "sent.list-waiting": "tools/list sent while waiting (after initialize, before the notification)",
        "sent.ping-ready": "ping sent once the server is ready",
        "sent.list-ready": "tools/list sent once the server is ready",
        "sent.unknown-ready": "resources/list sent once the server is ready",
        "sent.init-again-ready": "initialize sent a second time, once the server is ready",
        "sent.after-bad-json": "ping sent after the line that is not JSON",
        "sent.init-again": "initialize sent a second time",
        "server.error_under_result": "Reply to the request {what}: the error (code, message) is written under result "
                                     "instead of error. An error goes under \"error\" (fail, part 1).",
        "server.refused_but_moved": "The request {what} gets -32600 (already initialized), although no initialize has "
                                    "been accepted yet: a refused initialize still changed the server's state. The state "
                                    "moves to waiting only once the version is accepted.",
    },
}
