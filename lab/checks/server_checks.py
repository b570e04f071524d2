"""The server's checks, judged over stdin/stdout only (see server_session.py): most are
`replies_agree(...)`, a reply agreeing with the reference server's on some fields."""

from __future__ import annotations

import ast
import difflib
import json
import re
from collections import Counter
from functools import partial
from typing import Any, Callable

from lab.checks import check_title, parts
from lab.checks.engine import (WAITS_FOR, Check, Context, Failed, Probe, Skipped, Waiting, printed_besides,
                               unwritten_task)
from lab.checks.reference import parse_python, reference_replies, scenario_messages
from lab.checks.server_session import (
    MISSING, NOT_READ, PROBE_LIMIT, REPLY_LIMIT, SERVER_CPU, SERVER_LIMIT, SESSION_CAP, Transcript, agrees, as_field, expect_reply, misspelt_key,
    field_of, find, initialize, one_session, owes_reply, parse, ping, python_value, rules_messages, same, stopped_before)
from lab.checks.server_session import PROBES as SESSIONS
from lab.checks.texts import in_each_language, say
from lab.i18n import decimal
from lab.process.student import child_env, read_student_file, read_student_text
from lab.process.talk import converse
from lab import time_limits

# The lesson's kinds of bad line, each followed by a ping: the first ping left unanswered by a
# server that stopped names the line it stopped on. The lesson's server (serveur2.js) survives
# every one of them. They go in one session (the initialize lines while the server is new, so
# last); a server that stops on one kind is given the kinds after it in another session, so that
# its death costs that kind's check only.
NOTIFIED_NEW, FUTURE_VERSION = "server.notified-new", "server.future-version"
INVALID_REQUEST = {"jsonrpc": "2.0", "id": 25}  # an id and no method: serveur2.js answers it -32600 with msg.id
BAD_LINES: dict[str, list[Any]] = {  # numbers for ids: a student reads them in either language
    "server.blank-line": [ping(11), b"", ping(12), b" \t", ping(13)],
    "server.not-a-request": [[1, 2], ping(21), 42, ping(22), {}, ping(23),
                             {"jsonrpc": "2.0", "method": "ping"}, ping(24),  # a notification, by its missing id
                             INVALID_REQUEST, ping(26)],  # a request with no method: its reply is invalid-request-id's
    "server.initialize-without-params": [
        {"jsonrpc": "2.0", "id": 31, "method": "initialize"}, ping(32),
        {"jsonrpc": "2.0", "id": 33, "method": "initialize", "params": None}, ping(34)],
    # Two kinds that need a new server, so last; not bad lines, but what the lesson's rules refuse.
    # A version newer than any in VERSIONS: refused too (versions are names, not dates to compare).
    FUTURE_VERSION: [initialize("init-future", "2099-01-01"), ping(51)],
    # notifications/initialized moves a server from waiting to ready, never from new (serveur2.js
    # tests `etat === "attente"`). Each of the two is judged only if the server is still new.
    NOTIFIED_NEW: [{"jsonrpc": "2.0", "method": "notifications/initialized"},
                   {"jsonrpc": "2.0", "id": "list-notified-new", "method": "tools/list"}, ping(41)],
}
BURST = 400  # pings sent at once: their replies overflow an unflushed stdout buffer (8 KB) long before the input closes


def stopped_on(transcript: Transcript) -> int | None:
    """The index of the line a server stopped on, its input open: the one before the first ping
    left unanswered (None when it did not stop, or on no line of ours)."""
    if transcript.run is None or transcript.stopped_at is None:
        return None
    for index, message in enumerate(transcript.sent):
        is_ping = isinstance(message, dict) and message.get("method") == "ping" and "id" in message
        if is_ping and find(transcript.replies, message["id"]) is MISSING:
            return index - 1
    return None


def bad_lines(context: Context) -> dict[str, tuple[Transcript, int, int]]:
    """Each kind of BAD_LINES, with the session that judges it and where its lines are: [start, end)."""
    found: dict[str, tuple[Transcript, int, int]] = {}
    kinds = list(BAD_LINES)
    while kinds:
        messages, spans = [], {}
        for kind in kinds:
            spans[kind] = (len(messages), len(messages) + len(BAD_LINES[kind]))
            messages += BAD_LINES[kind]
        # One run each: only a stop is judged here, and a stop is no timing verdict to confirm.
        transcript = one_session(context, messages, "server.py", reference_replies)
        killer = stopped_on(transcript)
        done = [kind for kind in kinds if killer is None or killer < 0 or spans[kind][0] <= killer]
        found.update({kind: (transcript, *spans[kind]) for kind in done})
        kinds = kinds[len(done):]
    return found


def burst(context: Context) -> str:
    """Why replies came only once the input closed: BURST pings at once, the input left open.
    "buffered": some came before the end (they wait in stdout's buffer until it fills); "at_end":
    none (it reads all its input first); "" when it answered nothing."""
    script = context.folder / "server.py"
    if not script.is_file():
        return ""
    talk = converse(context.launch, script.resolve(), cwd=context.folder, env=child_env(context.launch, context.lang),
                    cpu_seconds=SERVER_CPU)
    for number in range(BURST):
        if not talk.send(json.dumps(ping(number)).encode() + b"\n"):
            break
    early = talk.read_line(REPLY_LIMIT)  # a line, or None: none came (or it ended)
    talk.finish(REPLY_LIMIT)
    if early is not None:
        return "buffered"
    return "at_end" if talk.remaining_lines() else ""


# The two stdio sessions, the bad lines' sessions, the direct calls of the written parts (see
# parts.py), the burst that tells a server that never flushes from one that reads all first, and
# the two sessions again with part 1 lent, read when part 1's mistake spoils the whole server's output.
S_LENT, R_LENT = "server.scenario.lent", "server.rules.lent"
S_LENT2, R_LENT2 = "server.scenario.lent-initialize", "server.rules.lent-initialize"
PROBES = {**SESSIONS, "server.parts": Probe(parts.run_parts, parts.PARTS_LIMIT + time_limits.PROBE_ROOM, ("bonus_server.py", "answers.toml")),
          "server.bad-lines": Probe(bad_lines, len(BAD_LINES) * SESSION_CAP + time_limits.PROBE_ROOM, NOT_READ),
          "server.burst": Probe(burst, 3 * REPLY_LIMIT + time_limits.PROBE_ROOM, NOT_READ),
          S_LENT: Probe(lambda context: parts.lent_session(context, scenario_messages()), PROBE_LIMIT, NOT_READ),
          R_LENT: Probe(lambda context: parts.lent_session(context, rules_messages()), PROBE_LIMIT, NOT_READ),
          S_LENT2: Probe(lambda context: parts.lent_session(context, scenario_messages(), parts.PART_TWO), PROBE_LIMIT, NOT_READ),
          R_LENT2: Probe(lambda context: parts.lent_session(context, rules_messages(), parts.PART_TWO), PROBE_LIMIT, NOT_READ)}

STARTS = "server.json-rpc-replies"
S, R = "server.scenario", "server.rules"
BOTH = (S, R)
# Read by by_part only when the whole server does not run: the parts' direct calls, and for
# parts 2 and 3 the sessions with part 1 lent, for part 3 those with part 2 lent.
LATER = ("server.parts", S_LENT, R_LENT, S_LENT2, R_LENT2)


def json_rpc_replies(context: Context) -> None:
    transcript: Transcript = context.probe("server.scenario")
    if transcript.run is None:
        raise Failed("server.py", "—", reason="file.missing", fields={"file": "server.py"})
    require_json_rpc_lines(transcript)


def require_json_rpc_lines(transcript: Transcript, who: str = "server") -> None:
    """Every line the server wrote is a JSON-RPC 2.0 reply; `who` names it ("server", "bonus":
    a word of lab/checks/texts.py)."""
    run = transcript.run
    assert run is not None
    if not transcript.lines:
        if on_stderr(run.stderr):
            raise Failed(transcript.reference[0], "—", reason="server.replies_on_stderr", output=transcript.traceback())
        if run.timed_out:
            reason, fields = "run.silent", {"seconds": SERVER_LIMIT}
        elif run.cpu_exhausted:
            reason, fields = "run.spun", {"cpu": SERVER_CPU}
        else:
            reason, fields = "run.stopped_silent", {"code": run.code}
        raise Failed(transcript.reference[0], "—", reason=reason, fields={"who": who, **fields},
                     output=transcript.traceback())
    for number, (line, reply) in enumerate(zip(transcript.lines, transcript.replies), start=1):
        if isinstance(reply, str):  # not JSON: named by the likeliest mistake, else a print meant for a person
            reason = next(reason for reason, made in NOT_JSON if made(line))
            raise Failed('{"jsonrpc": "2.0", "id": …, …}', line, reason=reason, fields={"number": number},
                         output=transcript.traceback())
        problem = shape_problem(reply)
        if problem:
            raise Failed('{"jsonrpc": "2.0", "id": …, "result": …}  |  {"jsonrpc": "2.0", "id": …, "error": {"code": …, "message": …}}',
                         line, reason="server.malformed", fields={"problem": {"reason": problem}},
                         output=transcript.traceback())


def quoted_reply(line: str) -> bool:
    """Is the line a text between quotes whose text is a JSON object (repr or json.dumps of to_json's result)?"""
    text = python_value(line)
    text = text if isinstance(text, str) else parse(line)
    return isinstance(text, str) and text != line and isinstance(parse(text), dict)


NOT_JSON: tuple[tuple[str, Callable[[str], bool]], ...] = (
    ("server.escaped_newline", lambda line: "}\\n{" in line or line.endswith("}\\n")),  # + r"\n": two characters
    ("server.replies_glued", lambda line: glued(line)),  # replies written without their newline
    ("server.reply_split", lambda line: line.strip() in ("{", "[")),  # json.dumps(..., indent=2)
    ("server.printed_python", lambda line: isinstance(python_value(line), dict)),  # str(dict), or print(dict)
    ("server.reply_quoted", quoted_reply),  # repr() or json.dumps() of the JSON text
    ("server.not_json", lambda line: True))


def on_stderr(stderr: bytes) -> bool:
    """Some line of stderr is a JSON-RPC reply: the replies went to the wrong stream."""
    for line in stderr.decode("utf-8", errors="replace").splitlines()[:50]:
        try:
            reply = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(reply, dict) and "jsonrpc" in reply and ("result" in reply or "error" in reply):
            return True
    return False


def glued(line: str) -> bool:
    try:
        _, end = json.JSONDecoder().raw_decode(line)
    except (ValueError, RecursionError):
        return False
    return line[end:].lstrip().startswith("{")


def keeps_running(context: Context) -> None:
    if walked := loops_over_one_text(context):
        raise Failed("for line in sys.stdin:", walked["code"], reason="server.loops_over_one_text", fields=walked)
    for probe in BOTH:
        transcript: Transcript = context.probe(probe)
        at = transcript.stopped_at  # a stop on the line that is not JSON is parse-error's to name
        if at is not None and transcript.run is not None and not isinstance(transcript.sent[at], bytes):
            stopped(context, transcript, transcript.message_text(at), "server.stopped_early")


def stopped(context: Context, transcript: Transcript, shown: str, reason: str, **fields: Any) -> None:
    """The server stopped on the line `shown`, its input still open."""
    code = "?" if transcript.run is None or transcript.run.code is None else transcript.run.code
    raise Failed(say(context.lang, "server.reads_to_the_end"), shown, reason=reason, fields={"code": code, **fields},
                 output=transcript.traceback())


def flushes_each_reply(context: Context) -> None:
    for probe in (S, R):
        transcript: Transcript = context.probe(probe)
        if transcript.late is None or transcript.stopped_at is not None:
            continue
        message = transcript.sent[transcript.late]  # a line that is not JSON is answered with id null
        if find(transcript.replies, message.get("id") if isinstance(message, dict) else None) is MISSING:
            continue  # its reply never came, even at the end of input: not a flush problem
        if len(transcript.lines) > transcript.lines_in_time:  # it did answer, once its input closed
            line = transcript.message_text(transcript.late)
            if context.probe("server.burst") == "at_end":  # flushed or not, it answers only at the end
                raise Failed(f"< {REPLY_LIMIT:g} s", line, reason="server.answers_at_end",
                             fields={"seconds": REPLY_LIMIT}, hint=in_each_language("server.answers_at_end.hint"))
            raise Failed(f"< {REPLY_LIMIT:g} s", line, reason="server.not_flushed", fields={"seconds": REPLY_LIMIT})


def shape_problem(reply: Any) -> str | None:
    """What makes a line no JSON-RPC reply: a key of `REASONS` below ("shape.…"), or None."""
    if not isinstance(reply, dict):
        return "shape.not_an_object"
    if reply.get("jsonrpc") != "2.0":
        return "shape.no_jsonrpc" if "jsonrpc" not in reply else "shape.wrong_jsonrpc"
    if "id" not in reply:
        return "shape.no_id"
    if type(reply["id"]) not in (str, int, float, type(None)):  # JSON-RPC's ids: a text, a number or null
        return "shape.id_type"
    if ("result" in reply) == ("error" in reply):
        if "result" in reply:
            return "shape.result_and_error"
        return "shape.misspelt_result" if difflib.get_close_matches("result", [str(k) for k in reply], 1, 0.8) \
            or difflib.get_close_matches("error", [str(k) for k in reply], 1, 0.8) else "shape.result_or_error"
    error = reply.get("error", {})
    if "error" in reply and not (isinstance(error, dict) and type(error.get("code")) is int
                                 and isinstance(error.get("message"), str)):
        return "shape.error_fields"
    if isinstance(reply.get("result"), dict) and list(reply["result"]) == ["result"]:  # {"result": {"result": …}}
        return "shape.result_in_result"
    return None


def is_parse_error(reply: Any) -> bool:
    return field_of(reply, "error.code") == -32700


def as_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def one_reply_each(transcript: Transcript) -> None:
    """No request gets two replies (a `return` missing after an error); a -32700 is not one."""
    for expected in transcript.reference:
        request_id = expected.get("id")
        if request_id is None:
            continue
        replies = [reply for reply in transcript.replies if isinstance(reply, dict)
                   and same(reply.get("id", MISSING), request_id) and not is_parse_error(reply)]
        if len(replies) > 1:
            # The second right after a -32700: the loop went on with the request before the bad line.
            second = next(i for i, reply in enumerate(transcript.replies) if reply is replies[1])
            again = second > 0 and is_parse_error(transcript.replies[second - 1])
            raise Failed(as_json(expected), "\n".join(as_json(reply) for reply in replies),
                         reason="server.handled_again" if again else "server.two_replies",
                         fields={"what": transcript.request(request_id), "count": len(replies)},
                         hint=in_each_language("server.two_replies.hint"))


def reply_ids(context: Context) -> None:
    """The ids that come back are the requests' own, unchanged, in order, one reply each (a reply
    missing is its own rule's check's)."""
    for probe in BOTH:
        transcript: Transcript = context.probe(probe)
        one_reply_each(transcript)
        owed = transcript.reference  # the replies owed before it stopped (the rest is keeps-running's)
        if transcript.stopped_at is not None:
            owed = owed[:sum(owes_reply(message) for message in transcript.sent[:transcript.stopped_at])]
        want = [reply["id"] for reply in owed]
        got = [reply.get("id") for reply in transcript.replies if isinstance(reply, dict)]
        for request_id in want:
            if request_id is None or any(same(one, request_id) for one in got):
                continue
            changed = [one for one in got if str(one) == str(request_id) and not any(same(one, w) for w in want)]
            if changed:
                raise Failed(as_json(request_id), as_json(changed[0]), reason="server.id_changed",
                             fields={"what": transcript.request(request_id), "id": json.dumps(changed[0])})
            # A reply of its kind that lost its request's id: only a line that is not JSON gets id null.
            kind = "error" if "error" in find(transcript.reference, request_id) else "result"
            lost = [reply for reply in transcript.replies if isinstance(reply, dict) and reply.get("id", 0) is None
                    and kind in reply and not is_parse_error(reply)]
            if lost:
                code = as_json(field_of(lost[0], "error.code")) if kind == "error" else ""
                raise Failed(as_json(request_id), as_json(lost[0]), reason=f"server.{kind}_id_null",
                             fields={"what": transcript.request(request_id), "code": code})
        if probe == S:  # the lesson's scenario: its replies in the requests' order
            kept = [one for one in got if any(same(one, w) for w in want)]
            order = [w for w in want if any(same(w, one) for one in kept)]
            if not same(kept[:len(order)], order):
                raise Failed(want, got, reason="server.ids_out_of_order")


def notifications_unanswered(context: Context) -> None:
    """Replies that answer no request: the notifications' (a second reply, an id lost, a -32700
    with a request's id are other checks' mistakes)."""
    transcripts: list[Transcript] = [context.probe(probe) for probe in BOTH]
    if not any(isinstance(message, dict) and "id" not in message  # read: the messages before a stop
               for transcript in transcripts for message in transcript.sent[:transcript.stopped_at]):
        raise Skipped(WAITS_FOR, title=check_title("server.keeps-running", context.lang))  # it never read one
    for transcript in transcripts:
        owed = Counter(repr(reply.get("id")) for reply in transcript.reference)  # repr: 1 and true differ
        requests = {repr(message["id"]) for message in transcript.sent if isinstance(message, dict) and "id" in message}
        extra, lost_ids = [], []
        for reply in transcript.replies:
            key = repr(reply.get("id")) if isinstance(reply, dict) else ""
            if owed[key] > 0:
                owed[key] -= 1
            elif key not in requests and not is_parse_error(reply):
                # id null: a request's id lost (reply-ids says it), or a notification answered
                (lost_ids if key == "None" else extra).append(reply)
        unanswered = sum(count for key, count in owed.items() if key != "None")
        extra += lost_ids[unanswered:]
        if extra:
            raise Failed("—", "\n".join(as_json(reply) for reply in extra),
                         reason="server.answers_notifications",
                         fields={"count": len(extra), "example": as_json(extra[0])})


def parse_error(context: Context) -> None:
    transcript: Transcript = context.probe(R)
    index = next(index for index, message in enumerate(transcript.sent) if isinstance(message, bytes))
    if transcript.stopped_at == index and transcript.run is not None:
        stopped(context, transcript, transcript.message_text(index), "server.stopped_on_not_json")
    errors = [reply for reply in transcript.replies if is_parse_error(reply)]
    expected = find(transcript.reference, None)
    wrong = [reply for reply in errors if reply.get("id") is not None]
    if wrong and find(transcript.replies, None) is MISSING:
        raise Failed(as_json(expected), as_json(wrong[0]), reason="server.parse_error_id",
                     fields={"id": as_json(wrong[0]["id"])})
    if not any(reply.get("id", MISSING) is None for reply in errors):
        without_id = [reply for reply in errors if "id" not in reply]
        if without_id:
            raise Failed(as_json(expected), as_json(without_id[0]), reason="server.parse_error_no_id")
        if not errors and find(transcript.replies, None) is MISSING and not stopped_before(transcript, None):
            raise Failed(as_json(expected), "—", reason="server.parse_error_unanswered",
                         fields={"line": transcript.message_text(index)})
        expect_reply(context, "server.rules", None, ("error.code", "id"))  # (a notification's reply comes first)
    expect_reply(context, "server.rules", "after-bad-json", ())  # still there: any reply will do


def answers_not_a_request(transcript: Transcript, start: int) -> None:
    """What a server writes, its input open, for JSON lines that are no request: no -32700 beyond
    one per line that is not JSON, and an error's code -32600 (an answer is optional: the lesson's
    server gives none)."""
    early = transcript.replies[:transcript.lines_in_time]
    wrong = [reply for reply in early if is_parse_error(reply)][sum(isinstance(m, bytes) for m in transcript.sent):]
    if wrong:
        raise Failed("—", as_json(wrong[0]), reason="server.parse_error_for_json",
                     fields={"line": transcript.message_text(start)})
    codes = [field_of(reply, "error.code") for reply in early if field_of(reply, "id") is None]
    # A code written as text is the replies' shape's mistake.
    coded = [code for code in codes if type(code) is int and code not in (-32600, -32700)]
    if coded:
        raise Failed("error.code = -32600", f"error.code = {as_json(coded[0])}", reason="server.not_a_request_code",
                     fields={"code": as_json(coded[0]), "line": transcript.message_text(start)})


def survives(check_id: str, reason: str) -> Callable[[Context], None]:
    """The server did not stop on one of its bad lines (BAD_LINES[check_id])."""

    def judged(context: Context) -> None:
        transcript, start, end = context.probe("server.bad-lines")[check_id]
        if check_id == "server.not-a-request":
            answers_not_a_request(transcript, start)
        killer = stopped_on(transcript)
        if killer is None or killer >= end or killer < start and not read_nothing(context):
            return  # an unanswered first ping, from a server that answers lines: the benefit of the doubt
        if killer < start or same_stop(context, transcript):
            raise Skipped(WAITS_FOR, title=check_title("server.keeps-running", context.lang))  # not this kind's stop
        line = transcript.message_text(killer)
        line = line if line.strip() else as_json(line)  # a blank line, shown as the text it is
        stopped(context, transcript, line, reason, line=line)

    return judged


def read_nothing(context: Context) -> bool:
    """Did the server answer no line of the lesson's (its part 3 stops on the first)?"""
    return not any(context.probe(probe).lines for probe in BOTH)


def same_stop(context: Context, transcript: Transcript) -> bool:
    """Did the server stop on a bad line with the error it also stopped with on a lesson's line
    (keeps-running's: one mistake, one cost)?"""
    said = last_words(transcript)
    return bool(said) and any(said == last_words(context.probe(probe)) for probe in BOTH)


def last_words(transcript: Transcript) -> str:
    """The last line a stopped server wrote on stderr (its error), or ""."""
    if transcript.run is None or transcript.stopped_at is None:
        return ""
    return next((line for line in reversed(transcript.run.err.splitlines()) if line.strip()), "")


def invalid_request_id(context: Context) -> None:
    """INVALID_REQUEST (an id, no method) gets its reply with that id, as any request does. Only
    its id is judged here (one mistake, one cost): its code is the gate's or not-a-request's, a
    stop on it not-a-request's, and an id the server's other -32600 errors lose as well is the
    mistake of the checks that read them."""
    if isinstance(context, parts.PartView):
        return  # part 1 lent: the bad-lines session's replies are still written by the student's part 1
    transcript, start, end = context.probe("server.bad-lines")["server.not-a-request"]
    at = transcript.sent.index(INVALID_REQUEST, start, end)
    killer = stopped_on(transcript)
    if killer is not None and killer < start and read_nothing(context):
        raise Skipped(WAITS_FOR, title=check_title("server.keeps-running", context.lang))  # it never read this line
    if find(transcript.replies, INVALID_REQUEST["id"]) is not MISSING or (killer is not None and killer <= at) \
            or not other_errors_keep_their_ids(context):
        return
    before, after = (find(transcript.replies, transcript.sent[at + step]["id"]) for step in (-1, 1))  # its pings
    if before is MISSING or after is MISSING:
        return  # its pings unanswered: where its reply would be cannot be told, and ping-every-state says why
    first, last = (next(i for i, reply in enumerate(transcript.replies) if reply is one) for one in (before, after))
    answers = transcript.replies[first + 1:last]
    expected, line = as_json(find(transcript.reference, INVALID_REQUEST["id"])), as_json(INVALID_REQUEST)
    if not answers:
        raise Failed(expected, "—", reason="server.invalid_request_unanswered", fields={"line": line})
    if field_of(answers[0], "error.code") not in (-32600, MISSING) \
            and failure_of(survives("server.not-a-request", "server.stopped_on_not_a_request"), context) is not None:
        return  # a code that is not for a line that is no request (-32700, say): not-a-request's, and its id with it
    shown = answers[0] if isinstance(answers[0], str) else as_json(answers[0])
    raise Failed(expected, shown, reason="server.invalid_request_id",
                 fields={"line": line, "reply": shown, "id": as_json(INVALID_REQUEST["id"])})


def other_errors_keep_their_ids(context: Context) -> bool:
    """Does every request the reference refuses with -32600 in the two stdio sessions get a reply
    with its id (a request the server stopped before aside)?"""
    refused = [(transcript, expected.get("id")) for transcript in map(context.probe, BOTH)
               for expected in transcript.reference if field_of(expected, "error.code") == -32600]
    return all(find(transcript.replies, request_id) is not MISSING or stopped_before(transcript, request_id)
               for transcript, request_id in refused)


def exits_at_eof(context: Context) -> None:
    transcript: Transcript = context.probe("server.scenario")
    run = transcript.run
    assert run is not None  # needs STARTS
    if run.timed_out:
        raise Failed("code 0", f"{run.duration:g} s", reason="server.runs_on")
    stopped = run.cpu_exhausted or (run.code is not None and run.code < 0)
    if stopped and len(transcript.lines) > len(transcript.reference):
        # A loop that reads the end of input as a line, and answers it: whichever of its CPU or its
        # output's cap stopped it first (the host's load decides), what it wrote says it.
        extra = len(transcript.lines) - len(transcript.reference)
        raise Failed("code 0", transcript.lines[-1][:200], reason="server.writes_on_at_eof", fields={"count": extra},
                     output=transcript.traceback())
    if run.cpu_exhausted:
        raise Failed("code 0", f"{decimal(SERVER_CPU, context.lang)} s CPU",
                     reason="server.spins_at_eof", fields={"cpu": SERVER_CPU}, output=transcript.traceback())
    if run.code != 0 and b"EOFError" in run.stderr:  # input() at the end of input
        raise Failed(0, run.code, reason="server.eof_error", fields={"code": run.code}, output=transcript.traceback())
    if run.code != 0 and transcript.stopped_at is not None:  # it never saw its input end: keeps-running's stop
        raise Skipped(WAITS_FOR, title=check_title("server.keeps-running", context.lang))
    if run.code != 0:
        raise Failed(0, run.code, reason="server.exit_code", fields={"code": run.code}, output=transcript.traceback())


# One mistake, one penalty: a check of what a successful initialize says, or of a ready
# server, reads a session where initialize did succeed, so that a version mistake costs the
# version checks only.
def is_result(transcript: Transcript, request_id: Any) -> bool:
    reply = find(transcript.replies, request_id)
    return isinstance(reply, dict) and "result" in reply


def first_accepted(context: Context) -> tuple[str, Any]:
    """(probe, id) of the lesson's reply 3, or of another initialize that succeeded. When none did,
    accepts-known-version says why once: what a result announces waits."""
    for probe, request_id in ((S, 3), (R, "init-2025"), (S, 2)):
        if is_result(context.probe(probe), request_id):
            return probe, request_id
    raise Skipped(WAITS_FOR, title=check_title("server.accepts-known-version", context.lang))


def accepts_known_version(context: Context) -> None:
    for probe, request_id in ((S, 3), (R, "init-2025")):  # refused: is the version misspelt in the list?
        transcript: Transcript = context.probe(probe)
        asked = field_of(find(transcript.sent, request_id), "params.protocolVersion")
        listed = field_of(find(transcript.replies, request_id), "error.data.supported")
        near = difflib.get_close_matches(asked, listed, 1, 0.8) if isinstance(asked, str) and isinstance(listed, list) \
            and all(isinstance(v, str) for v in listed) and asked not in listed else []
        if near:
            raise Failed(as_json(asked), as_json(listed), reason="server.version_misspelt",
                         fields={"asked": asked, "listed": near[0]})
    expect_reply(context, R, "init-2025", ("result.protocolVersion",))
    # Reply 2 accepted (even as a second reply, after an error): reply 3's refusal is its consequence.
    if not any(isinstance(reply, dict) and "result" in reply and same(reply.get("id"), 2) for reply in context.probe(S).replies):
        expect_reply(context, S, 3, ("result.protocolVersion",))


LIST_CHANGED = "result.capabilities.tools.listChanged"


def list_changed_false(context: Context) -> None:
    probe, request_id = first_accepted(context)
    transcript: Transcript = context.probe(probe)
    if "result" not in find(transcript.reference, request_id):  # accepted, though the lesson refuses it
        got = field_of(find(transcript.replies, request_id), LIST_CHANGED)
        if got is not False:  # what it announces is judged all the same, against reply 3's
            raise Failed(False, as_field(got), reason="reply.differs", fields={
                "what": transcript.request(request_id), "path": LIST_CHANGED, "got": as_field(got), "want": "false"})
        return
    expect_reply(context, probe, request_id, (LIST_CHANGED,))


def when_ready(lesson: tuple[str, Any], ready: tuple[str, Any], paths: tuple[str, ...]) -> Callable[[Context], None]:
    """The lesson's reply when its initialize (reply 3) succeeded, else the rules session's."""

    def judged(context: Context) -> None:
        probe, request_id = lesson if is_result(context.probe(S), 3) else ready
        transcript: Transcript = context.probe(probe)
        reply, what = find(transcript.replies, request_id), transcript.request(request_id)
        listed = find(transcript.replies, 5 if probe == S else "list-ready")  # tools/list once ready

        def wrong(reason: str, **fields: Any) -> Failed:
            return Failed(as_json(find(transcript.reference, request_id)), as_json(reply), reason=reason, fields=fields)

        if field_of(reply, "error.code") == -32600 and field_of(listed, "error.code") == -32600:
            if reply is not listed:  # one cause, said once: by tools/list's check
                raise Skipped(WAITS_FOR, title=check_title("server.tools-list-when-ready", context.lang))
            if slip := comparison_slip(context):
                raise wrong(slip[0], what=what, **slip[1])
            if initialize_routed_away(context):
                raise wrong("server.initialize_routed_away", what=what)
            stayed_new = is_result(context.probe(R), "init-again-waiting")  # initialize accepted twice
            if (near := notification_misnamed(context)) and not stayed_new:
                raise wrong("server.notification_misnamed", what=what, near=near)
            if (typo := state_typo(server_source(context))) and not stayed_new:
                raise wrong("server.state_typo_ready", what=what, typo=typo[0], word=typo[1])
            raise wrong("server.stayed_new" if stayed_new else "server.never_ready", what=what)
        if field_of(listed, "error.code") == -32601 and request_id in (5, "list-ready"):
            raise wrong("server.unknown_tools_list", what=what)
        expect_reply(context, probe, request_id, paths)
        method = field_of(find(transcript.sent, request_id), "method")
        # The lesson's -32601 says which method is unknown: « Méthode inconnue : » + msg.method.
        if "error.code" in paths and field_of(reply, "error.code") == -32601 and isinstance(method, str) \
                and not (isinstance(message := field_of(reply, "error.message"), str) and method in message):
            raise wrong("server.unknown_method_unnamed", method=method)

    return judged


LESSON_KEYS = {"demandee": "requested", "acceptees": "supported"}  # the lesson's French names for the spec's keys


def error_data(context: Context) -> None:
    """Reply 2's error.data: the spec's {requested, supported}; the lesson's translated keys are said so."""
    transcript: Transcript = context.probe(S)
    reply, expected = find(transcript.replies, 2), find(transcript.reference, 2)
    data = field_of(reply, "error.data")
    if isinstance(data, dict) and set(data) & set(LESSON_KEYS):
        renamed = {LESSON_KEYS.get(key, key): value for key, value in data.items()}
        raise Failed(field_of(expected, "error.data"), data,
                     reason="server.lesson_keys", fields={"renamed": as_json(renamed)})
    if data is MISSING and isinstance(reply, dict) and "data" in reply:
        raise Failed(as_json(expected), as_json(reply), reason="server.data_beside_error")
    if not isinstance(data, dict):
        expect_reply(context, S, 2, ("error.data",))
    if data.get("requested", MISSING) is None:  # the version was sent: the server did not read it where it is
        raise Failed(field_of(expected, "error.data"), data, reason="server.version_not_read")
    expect_reply(context, S, 2, ("error.data.requested",))
    supported = field_of(data, "supported")
    accepted = [field_of(find(context.probe(probe).replies, request_id), "result.protocolVersion")
                for probe, request_id in ((S, 3), (R, "init-2025")) if is_result(context.probe(probe), request_id)]
    # The list is the server's own VERSIONS: a wrong list is the version checks' failure; here it
    # must be a list of versions that names each version the server accepted.
    if not (isinstance(supported, list) and all(isinstance(v, str) for v in supported)
            and all(version in supported for version in accepted)) or set(data) != set(LESSON_KEYS.values()):
        expect_reply(context, S, 2, ("error.data",))


def capabilities_only_tools(context: Context) -> None:
    """Reply 3 announces tools and nothing else, and serverInfo has a name and a version (texts)."""
    probe, request_id = first_accepted(context)
    expect_reply(context, probe, request_id, ())
    transcript: Transcript = context.probe(probe)
    reply, expected = find(transcript.replies, request_id), find(transcript.reference, request_id)
    announced = field_of(reply, "result.capabilities")
    if not isinstance(announced, dict) or sorted(announced) != ["tools"]:
        if isinstance(announced, str) and isinstance(parse(announced), dict):  # to_json(capabilities) inside the reply
            raise Failed(expected, reply, focus=("result.capabilities",), reason="server.capabilities_as_text")
        misspelt_key(transcript, request_id, "result.capabilities")  # when it is missing
        shown = "—" if announced is MISSING else json.dumps(
            sorted(announced) if isinstance(announced, dict) else announced, ensure_ascii=False)
        raise Failed(expected, reply, focus=("result.capabilities",),
                     reason="server.no_capabilities" if announced == {} else "server.capabilities",
                     fields={"announced": shown})
    info = field_of(reply, "result.serverInfo")
    if not (isinstance(info, dict) and isinstance(info.get("name"), str) and isinstance(info.get("version"), str)):
        misspelt_key(transcript, request_id, "result.serverInfo")
        raise Failed(expected, reply, focus=("result.serverInfo",), reason="server.server_info")
    result = field_of(reply, "result")
    nulls = sorted(key for key, value in result.items() if value is None) if isinstance(result, dict) else []
    if nulls:  # "instructions": null, a Python None left in: the spec's optional keys are left out, never null
        raise Failed(expected, reply, focus=(f"result.{nulls[0]}",), reason="server.null_in_result",
                     fields={"what": transcript.request(request_id), "name": nulls[0]})


def replies_agree(*rows: tuple[str, Any, tuple[str, ...]]) -> Callable[[Context], None]:
    """A check that the replies to these (probe, request id, fields) agree with the reference's."""

    def agree(context: Context) -> None:
        for probe, request_id, paths in rows:
            expect_reply(context, probe, request_id, paths)

    return agree


def in_bad_lines(kind: str, request_id: str, path: str) -> Callable[[Context], None]:
    """The reply to `request_id` of BAD_LINES[kind] agrees with the reference's on `path`."""

    def judged(context: Context) -> None:
        if isinstance(context, parts.PartView):
            return  # part 1 lent: the bad-lines session's replies are still written by the student's part 1
        transcript, start, end = context.probe("server.bad-lines")[kind]
        killer = stopped_on(transcript)
        if killer is not None and (killer < start or killer < end and same_stop(context, transcript)):
            return  # a stop on an earlier line is that line's check's, one on any line keeps-running's
        if any(is_result(transcript, message["id"]) for message in transcript.sent[:start]
               if isinstance(message, dict) and message.get("method") == "initialize"):
            return  # an earlier initialize was accepted: the server is no longer new, that line's check's
        agrees(context, transcript, request_id, (path,))

    return judged


STATE_NAMES = ("nouveau", "attente", "pret", "prêt")  # the lesson's, as the skeleton gives them
ONE_TEXT_IN_PARENTHESES = re.compile(r"""\bin\s*\(\s*("[^"]*"|'[^']*')\s*\)""")  # in ("nouveau"): a text, no tuple


def server_source(context: Context) -> str:
    """The student's server.py as text ("" when there is none, or the part is lent)."""
    if isinstance(context, parts.PartView):
        return ""
    return read_student_text(context.folder / "server.py")


def loops_over_one_text(context: Context) -> dict[str, Any]:
    """A `for` over sys.stdin.readline() or sys.stdin.read(): it walks the characters of one text,
    not the input's lines, and ends with it (its line, code and call; {} when there is none)."""
    try:
        tree = parse_python(server_source(context))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    for node in ast.walk(tree):
        call = node.iter if isinstance(node, ast.For) else None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in ("readline", "read") \
                and ast.unparse(call.func.value).endswith("stdin"):
            return {"line": node.lineno, "code": f"for {ast.unparse(node.target)} in {ast.unparse(call)}:",
                    "call": f"{call.func.attr}()"}
    return {}


def notification_misnamed(context: Context) -> str:
    """A text close to "notifications/initialized" ("initialized") in a source that never writes it, or ""."""
    source = server_source(context)
    if not source or "notifications/initialized" in source:
        return ""
    texts = set(re.findall(r"""["']([\w/]+)["']""", source))
    near = difflib.get_close_matches("notifications/initialized", texts, 1, 0.6)
    return near[0] if near else next((text for text in texts if text.endswith("initialized")), "")


def comparison_slip(context: Context) -> tuple[str, dict[str, Any]] | None:
    """A comparison in server.py that keeps the state from moving, with its line and code: a text
    compared by `is` (never true of a text read), or `etat == "attente"` alone, meant as `=`."""
    source = server_source(context)
    try:
        tree = parse_python(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # a tree deeper than ast builds, yet runnable
        return None
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        code = ast.get_source_segment(source, node) or ast.unparse(node)
        texts = [c.value for c in (node.left, *node.comparators) if isinstance(c, ast.Constant) and isinstance(c.value, str)]
        if any(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops) and texts:
            return "server.text_compared_by_is", {"line": node.lineno, "code": code,
                                                  "fixed": code.replace(" is not ", " != ").replace(" is ", " == ")}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Compare)
                and isinstance(node.value.ops[0], ast.Eq) and isinstance(node.value.left, ast.Name)
                and any(isinstance(c, ast.Constant) and c.value in STATE_NAMES for c in node.value.comparators)):
            code = ast.get_source_segment(source, node) or ast.unparse(node)
            return "server.state_compared", {"line": node.lineno, "code": code, "fixed": code.replace("==", "=", 1)}
    return None


def gate_while_waiting(context: Context) -> None:
    """tools/list while waiting gets -32600; else the source may show why: `in ("nouveau")`, a
    text, or a state's name spelt otherwise once ("atente")."""
    try:
        replies_agree((S, 4, ("error.code",)), (R, "list-waiting", ("error.code",)))(context)
    except Failed as failed:
        source = server_source(context)
        if not source:
            raise
        if one := ONE_TEXT_IN_PARENTHESES.search(source):
            raise Failed(failed.expected, failed.actual, focus=failed.focus, reason="server.in_a_text",
                         fields={"code": one[0]}) from None
        if typo := state_typo(source):
            raise Failed(failed.expected, failed.actual, focus=failed.focus, reason="server.state_typo",
                         fields={"typo": typo[0], "word": typo[1]}) from None
        raise


def state_typo(source: str) -> tuple[str, str] | None:
    """A state's name spelt otherwise once ("atente"), or "prêt" beside the lesson's "pret": (typo, name)."""
    words = Counter(re.findall(r"""["'](\w+)["']""", source))
    if words["pret"] and words["prêt"]:  # the rarer is the typo; as often, the lesson's spelling is kept
        return ("pret", "prêt") if words["pret"] < words["prêt"] else ("prêt", "pret")
    states = [word for word in STATE_NAMES if word in words]  # only a state's name: "initialize" is no typo of "not_initialized"
    for once in (word for word, count in words.items() if count == 1 and word not in STATE_NAMES):
        if near := difflib.get_close_matches(once, states, 1, 0.8):
            return once, near[0]
    return None


def failure_of(judge: Callable[..., Any], *arguments: Any) -> Failed | None:
    """The verdict `judge(*arguments)` fails with, or None when it passes."""
    try:
        judge(*arguments)
    except Failed as failure:
        return failure
    return None


def all_of(*judges: Callable[[Context], None]) -> Callable[[Context], None]:
    def judged(context: Context) -> None:
        for judge in judges:
            judge(context)

    return judged


def by_part(check: Check, context: Context) -> None:
    """The server checks' `rule`: the check's run on the stdio sessions when the whole server runs;
    when it stopped on a part still to write, parts 1 and 2 by their own calls; part 3 waits."""
    part, whole = check.task, context.probe(S).traceback()  # what `python server.py` wrote
    if part == "server-3" and check.id != "server.keeps-running" and loops_over_one_text(context):
        try:  # a loop over one text ends early: what it got right still counts, the rest follows from it
            return check.run(context)
        except Failed:
            raise Skipped(WAITS_FOR, title=check_title("server.keeps-running", context.lang)) from None
    missing = unwritten_task(whole)  # the part it said it still misses, or ""
    printed = whole if missing else ""
    if part != "server-1" and part_one_unwritten(context, missing):
        raise Waiting("server-1", printed)  # not checkable yet: a part to write is not lent
    if not missing and (part == "server-3" or not stopped_early(context)):
        try:
            return check.run(context if part == "server-1" else lent_if_needed(context, part))
        except (Failed, Skipped):
            if part != "server-2" or not on_skeleton(context) or not initialize_routed_away(context):
                raise
            # Part 3 answered initialize itself (its gate, or no route to it): the mistake is
            # part 3's, and costs part 3's checks; part 2 is judged by its own calls.
            return (check.direct or check.run)(direct_view(context, part))
    if part not in ("server-1", "server-2"):
        raise Waiting(missing, printed)
    try:
        (check.direct or check.run)(direct_view(context, part))
    except Failed as failure:
        waits = unwritten_task(failure.output)
        if waits:
            raise Waiting(waits, printed) from None
        raise


def initialize_routed_away(context: Context) -> bool:
    """Did the lesson's first initialize (reply 2, the server still new) get part 3's gate or
    routing error (-32600, -32601) instead of reaching part 2?"""
    return field_of(find(context.probe(S).replies, 2), "error.code") in (-32600, -32601)


def direct_view(context: Context, part: str) -> parts.PartView:
    """The context a part's check reads when it is judged by its own calls (parts.py)."""
    return parts.PartView(context, {name: partial(parts.direct_transcript, context.probe("server.parts"), name, part,
                                                  context.probe(name).reference) for name in BOTH})


def on_skeleton(context: Context) -> bool:
    source = read_student_file(context.folder / "server.py") or b""  # parts 1 and 2's functions there?
    return all(re.search(rb"^def %s\(" % name, source, re.MULTILINE) for name in (b"send", b"reply", b"fail", b"initialize"))


PART_THREE_FRAME = re.compile(r'File "[^"\n]*server\.py", line \d+, in (?:handle|on_line|main)\n')  # the skeleton's


def stopped_early(context: Context) -> bool:
    """Did a server written on the skeleton stop early, on a line the lesson's server answers (a
    crash, an exit), after a reply or in part 3's functions, or loop over one text (it ends with
    it)? Then parts 1 and 2 are judged by their own calls."""
    return on_skeleton(context) and (bool(loops_over_one_text(context)) or any(
        (seen := context.probe(name)).run is not None and seen.stopped_at is not None
        and (bool(seen.lines) or PART_THREE_FRAME.search(seen.run.err) is not None)
        and not isinstance(seen.sent[seen.stopped_at], bytes) for name in BOTH))


def part_one_unwritten(context: Context, missing: str) -> bool:
    """Is server part 1 still to write (said by `python server.py`, or by part 1's own calls)?"""
    if missing in ("", "server-1"):
        return missing == "server-1"
    failure = failure_of(parts.direct_transcript, context.probe("server.parts"), S, "server-1",
                         context.probe(S).reference)
    return failure is not None and unwritten_task(failure.output) == "server-1"


def lent_if_needed(context: Context, part: str) -> Context:
    """The context a check of part 2 or 3 reads, so that part 1's mistake costs its own checks:
    the whole server's sessions; when they break part 1's rule (STARTS), the sessions with part
    1 lent; when those break it too, part 2 by its direct calls; when only an error's fields are
    wrong in readable replies, the whole server's still. Else it waits for STARTS. Part 3 reads
    the sessions with part 2 lent when the server stopped on an initialize part 2 raises on."""
    try:
        json_rpc_replies(context)
        return initialize_lent(context) if part == "server-3" else context
    except Failed as failure:
        if part == "server-3" and failure.reason == "run.stopped_silent" and stopped_early(context) \
                and failure_of(direct_json_rpc_replies, direct_view(context, "server-1")) is None:
            # Part 3 stopped it on its first line (keeps-running says where), and part 1's own calls pass.
            return initialize_lent(context)
        readable = failure.reason == "server.malformed" and failure.fields.get("problem") == {"reason": "shape.error_fields"}
    run = context.probe(S).run
    if run is not None and not run.timed_out and not run.cpu_exhausted:  # a hang is no part 1 mistake
        lent = parts.PartView(context, {S: lambda: context.probe(S_LENT), R: lambda: context.probe(R_LENT)})
        if failure_of(json_rpc_replies, lent) is None:
            return lent
        if readable:
            return context
        if part == "server-2" and on_skeleton(context) \
                and context.probe("server.parts").calls.get(("server-2", S), [("", {})])[0][1].get("loaded"):
            # It loads: its crash is a later line's. Part 2 as before the loop exists.
            return direct_view(context, part)
    raise Skipped(WAITS_FOR, title=check_title(STARTS, context.lang))


def initialize_lent(context: Context) -> Context:
    """The sessions with part 2 lent, when they run to their end, for a server on the skeleton
    that stopped early, its initialize raising in part 2's own calls, or whose initialize accepts
    what the lesson refuses or the reverse (part 2's version rule); else the whole server's."""
    if stopped_early(context):
        found: parts.PartsRun = context.probe("server.parts")
        calls = found.calls.get(("server-2", S), []) + found.calls.get(("server-2", R), [])
        if not any("error" in facts and not unwritten_task(facts["error"]) for name, facts in calls
                   if name.startswith("initialize(")):
            return context
    elif not (on_skeleton(context) and versions_answered_otherwise(context)):
        return context
    lent = parts.PartView(context, {S: lambda: context.probe(S_LENT2), R: lambda: context.probe(R_LENT2)})
    return context if stopped_early(lent) else lent


def versions_answered_otherwise(context: Context) -> bool:
    """Did the lesson's initialize 1999-01-01 or 2024-11-05 get a result where the lesson's server
    gives an error, or the reverse, other than part 3's gate or routing (initialize_routed_away)?"""
    transcript: Transcript = context.probe(S)
    return not initialize_routed_away(context) and any(
        isinstance(reply := find(transcript.replies, request_id), dict)
        and ("result" in reply) != ("result" in find(transcript.reference, request_id)) for request_id in (2, 3))


def direct_json_rpc_replies(context: parts.PartView) -> None:
    """What `python server.py` wrote before it stopped on a part to write is judged too (a
    print at import breaks part 1's rule, loop or not)."""
    whole: Transcript = context.whole(S)
    if whole.lines:
        try:
            require_json_rpc_lines(whole)
        except Failed as failure:  # its own failure, not the later part's: that one is not the cause
            failure.output = printed_besides(failure.output)
            raise
    json_rpc_replies(context)


def direct_flushes(context: Context) -> None:
    """send leaves nothing in stdout's buffer, called directly (no loop to time it yet)."""
    for probe in BOTH:
        transcript: parts.DirectTranscript = context.probe(probe)
        for name, call in zip(transcript.described, transcript.calls):
            if call.get("unflushed"):
                raise Failed("flush()", call.get("out", ""),
                             reason="server.call_unflushed", fields={"call": name})


# Each check is judged on the two stdio sessions, through by_part (the parts still to write).
server_check = partial(Check, probes=BOTH, lazy_probes=LATER, rule=by_part)
BAD = ("server.bad-lines",) + BOTH

# Part 1 (the messages): what send, reply and fail write. The loop's own rules (it goes on
# after any line, the bad lines of BAD_LINES included, stops at the end of input, answers no
# notification) are part 3's.
CHECKS = [
    server_check(id=STARTS, task="server-1", run=json_rpc_replies, direct=direct_json_rpc_replies, cause=True,
                 fr=("Le serveur démarre et répond en JSON-RPC 2.0, un objet par ligne",
                     'Chaque réponse : {{"jsonrpc": "2.0", "id": …}} plus result, ou error {{code, message}} (partie 1).'),
                 en=("The server starts and answers in JSON-RPC 2.0, one object per line",
                     'Each reply: {{"jsonrpc": "2.0", "id": …}} plus result, or error {{code, message}} (part 1).')),
    server_check(id="server.reply-ids", task="server-1", needs=(STARTS,), run=reply_ids,
                 fr=("Chaque réponse porte l’id de sa requête",
                     'Recopiez l’id de la requête tel quel (1 reste un nombre, "a" une chaîne).'),
                 en=("Each reply carries its request's id",
                     "Copy the request's id as it is (1 stays a number, \"a\" a string).")),
    server_check(id="server.notifications-unanswered", task="server-3", run=notifications_unanswered, cause=True,
                 fr=("Les notifications ne reçoivent aucune réponse",
                     "Un message sans id est une notification : changez l’état s’il le faut, mais n’écrivez rien."),
                 en=("Notifications get no reply",
                     "A message with no id is a notification: change the state if needed, but write nothing.")),
    server_check(id="server.keeps-running", task="server-3", run=keeps_running, cause=True,
                 fr=("Le serveur lit jusqu’à la fin de son entrée, sans s’arrêter en route",
                     "Une ligne, quelle qu’elle soit, ne doit pas arrêter la boucle (ni exception qui remonte, ni sys.exit) : quand une erreur est montrée ci-dessus, elle donne la ligne de votre fichier."),
                 en=("The server reads until its input ends, without stopping on the way",
                     "No line, whatever it holds, may stop the loop (no exception escaping, no sys.exit): when an error is shown above, it gives the line of your file.")),
    server_check(id="server.flushes-each-reply", task="server-1", needs=(STARTS,), lazy_probes=LATER + ("server.burst",),
                 run=flushes_each_reply, direct=direct_flushes, cause=True,
                 fr=("Chaque réponse part aussitôt écrite (le client attend chacune)",
                     "Ce qu’un programme écrit pour un autre, Python le garde et ne l’envoie que par paquets : après chaque réponse, demandez son envoi (flush), sinon le client attend sans fin."),
                 en=("Each reply leaves as soon as it is written (the client waits for each)",
                     "What a program writes for another one, Python keeps and sends only in batches: after each reply, ask for it to be sent (flush), otherwise the client waits forever.")),
    server_check(id="server.parse-error", task="server-3", run=parse_error,
                 fr=("Une ligne qui n’est pas du JSON reçoit -32700 avec id null, et le serveur continue",
                     'Une ligne qui n’est pas du JSON : read_message lève ValueError ; répondez -32700 avec "id": null, puis lisez la ligne suivante.'),
                 en=("A line that is not JSON gets -32700 with id null, and the server goes on",
                     'A line that is not JSON: read_message raises ValueError; answer -32700 with "id": null, then read the next line.')),
    server_check(id="server.blank-line", task="server-3", probes=BAD,
                 run=survives("server.blank-line", "server.stopped_on_blank_line"),
                 fr=("Une ligne vide n’arrête pas le serveur",
                     "Seule la fin de l’entrée arrête la boucle : une ligne vide (ou d’espaces) n’est pas un message ; passez-la, ou répondez -32700 comme à toute ligne qui n’est pas du JSON."),
                 en=("An empty line does not stop the server",
                     "Only the end of input ends the loop: an empty line (or one of spaces) is no message; skip it, or answer -32700 as to any line that is not JSON.")),
    server_check(id="server.not-a-request", task="server-3", probes=BAD,
                 run=survives("server.not-a-request", "server.stopped_on_not_a_request"),
                 fr=("Une ligne JSON qui n’est pas une requête ([1, 2], 42, {{}}) n’arrête pas le serveur",
                     "Une ligne peut être du JSON sans être une requête : un tableau, un nombre, un objet sans id ni method. Vérifiez sa forme avant d’y lire id ou method (read_message, fourni, le fait), puis lisez la suite."),
                 en=("A JSON line that is not a request ([1, 2], 42, {{}}) does not stop the server",
                     "A line can be JSON without being a request: an array, a number, an object with neither id nor method. Check its shape before reading id or method in it (read_message, given, does), then read on.")),
    server_check(id="server.invalid-request-id", task="server-3", probes=BAD, run=invalid_request_id,
                 fr=("Une ligne avec un id mais sans method reçoit -32600 avec cet id, pas id null",
                     "Une ligne qui a un id est une requête, même sans method : elle reçoit une réponse, et cette "
                     "réponse reprend son id, comme toute réponse, même quand c’est l’erreur -32600 (requête "
                     "invalide). Seule une ligne qui n’est pas du JSON reçoit id null."),
                 en=("A line with an id but no method gets -32600 with that id, not id null",
                     "A line with an id is a request, even with no method: it gets a reply, and that reply carries "
                     "its id, as every reply does, even when it is the error -32600 (invalid request). Only a line "
                     "that is not JSON gets id null.")),
    server_check(id="server.initialize-without-params", task="server-3", probes=BAD,
                 run=survives("server.initialize-without-params", "server.stopped_on_initialize_without_params"),
                 fr=("Un initialize sans params (ou params null) n’arrête pas le serveur",
                     "params peut manquer ou valoir null : il n’y a alors pas de version demandée, et initialize la refuse (-32602) comme une version inconnue."),
                 en=("An initialize without params (or with params null) does not stop the server",
                     "params may be missing or null: then no version is requested, and initialize refuses it (-32602) as an unknown version.")),
    server_check(id="server.exits-at-eof", task="server-3", run=exits_at_eof,
                 fr=("Le serveur s’arrête (code 0) quand son entrée se ferme",
                     "À la fin de l’entrée, la boucle de lecture se termine et le programme aussi."),
                 en=("The server stops (code 0) when its input closes",
                     "At the end of input, the reading loop ends and so does the program.")),
    server_check(id="server.refuses-unknown-version", task="server-2", probes=BAD,
                 run=all_of(replies_agree((S, 2, ("error.code",))), in_bad_lines(FUTURE_VERSION, "init-future", "error.code")),
                 fr=("Réponse 2 : une version inconnue est refusée avec -32602",
                     "Si la version demandée n’est pas dans VERSIONS, répondez par l’erreur -32602 (partie 2), même pour une version plus récente : une version est un nom de la liste, pas une date à comparer."),
                 en=("Reply 2: an unknown version is refused with -32602",
                     "When the requested version is not in VERSIONS, answer with error -32602 (part 2), a newer one too: a version is a name from the list, not a date to compare.")),
    server_check(id="server.error-data", task="server-2", needs=("server.refuses-unknown-version",), run=error_data,
                 fr=("Réponse 2 : error.data donne la version demandée et la liste acceptée",
                     'L’erreur -32602 porte dans data la version demandée et la liste acceptée, pour que le client réessaie : {{"requested": …, "supported": …}}, les noms de la spécification MCP (la leçon les traduit demandee et acceptees).'),
                 en=("Reply 2: error.data gives the requested version and the supported list",
                     "The -32602 error carries in data the requested version and the supported list, so the client can retry: {{\"requested\": …, \"supported\": …}}, the MCP specification's names (the French lesson translates them demandee and acceptees).")),
    server_check(id="server.accepts-known-version", task="server-2", run=accepts_known_version,
                 fr=("Réponse 3 : une version connue est acceptée (2024-11-05 comme 2025-03-26)",
                     "Répondez avec la version demandée quand elle est dans VERSIONS, dans result.protocolVersion."),
                 en=("Reply 3: a known version is accepted (2024-11-05 as well as 2025-03-26)",
                     "Answer with the requested version when it is in VERSIONS, in result.protocolVersion.")),
    server_check(id="server.capabilities-only-tools", task="server-2", run=capabilities_only_tools,
                 fr=("Réponse 3 : seule la capacité tools est annoncée, avec serverInfo",
                     "Une annonce est une promesse : n’annoncez que tools, que ce serveur sait faire ; serverInfo a name et version."),
                 en=("Reply 3: only the tools capability is announced, with serverInfo",
                     "An announcement is a promise: announce only tools, which this server implements; serverInfo has name and version.")),
    server_check(id="server.list-changed-false", task="server-2", run=list_changed_false,
                 fr=("Réponse 3 : listChanged est false",
                     "Ce serveur ne prévient jamais quand sa liste change : il dit listChanged: false."),
                 en=("Reply 3: listChanged is false",
                     "This server never says when its list changes: it says listChanged: false.")),
    server_check(id="server.gate-before-initialize", task="server-3", probes=BAD,
                 run=all_of(replies_agree((S, 1, ("error.code",)), (R, "unknown-new", ("error.code",))),
                            in_bad_lines(NOTIFIED_NEW, "list-notified-new", "error.code")),
                 fr=("Avant initialize, tools/list comme une méthode inconnue reçoit -32600",
                     "Dans l’état nouveau, seules initialize et ping sont acceptées ; le reste reçoit -32600, avant même de regarder si la méthode existe. Une notification reçue dans cet état ne change rien : notifications/initialized ne compte que pendant l’attente."),
                 en=("Before initialize, tools/list as well as an unknown method gets -32600",
                     "In the new state only initialize and ping are accepted; everything else gets -32600, before even looking at whether the method exists. A notification received in this state changes nothing: notifications/initialized counts only while waiting.")),
    server_check(id="server.gate-while-waiting", task="server-3", run=gate_while_waiting,
                 fr=("Avant notifications/initialized, tools/list reçoit encore -32600",
                     "initialize mène à l’état attente, pas prêt : seule notifications/initialized mène à prêt, pas une autre notification."),
                 en=("Before notifications/initialized, tools/list still gets -32600",
                     "initialize leads to the waiting state, not ready: only notifications/initialized leads to ready, not another notification.")),
    server_check(id="server.tools-list-when-ready", task="server-3", run=when_ready((S, 5), (R, "list-ready"), ("result",)),
                 fr=("Réponse 5 : tools/list une fois prêt renvoie une liste vide",
                     "Dans l’état prêt, tools/list répond avec la liste des outils : ce serveur n’en a aucun."),
                 en=("Reply 5: tools/list once ready returns an empty list",
                     "In the ready state, tools/list answers with the list of tools: this server has none.")),
    server_check(id="server.unknown-method", task="server-3", run=when_ready((S, 6), (R, "unknown-ready"), ("error.code",)),
                 fr=("Réponse 6 : une méthode jamais annoncée reçoit -32601",
                     "Dans l’état prêt, une méthode que le serveur n’a pas (jamais annoncée) reçoit -32601 (méthode inconnue)."),
                 en=("Reply 6: a method never announced gets -32601",
                     "In the ready state, a method the server does not have (never announced) gets -32601 (method not found).")),
    server_check(id="server.ping-every-state", task="server-3",
                 run=replies_agree((R, "ping-new", ("result",)), (R, "ping-waiting", ("result",)), (R, "ping-ready", ("result",))),
                 fr=("ping reçoit {{}} dans chaque état",
                     "ping est accepté dans tous les états : nouveau, attente et prêt."),
                 en=("ping gets {{}} in every state",
                     "ping is accepted in every state: new, waiting and ready.")),
    server_check(id="server.second-initialize", task="server-3",
                 run=replies_agree((R, "init-again-waiting", ("error.code",)), (R, "init-again-ready", ("error.code",))),
                 fr=("Un second initialize reçoit -32600",
                     "initialize n’est accepté que dans l’état nouveau ; ensuite, c’est une requête invalide."),
                 en=("A second initialize gets -32600",
                     "initialize is accepted only in the new state; after that it is an invalid request.")),
    server_check(id="server.id-zero", task="server-3", run=replies_agree((R, 0, ())),  # any reply: its result is ping's rule
                 fr=("Une requête d’id 0 reçoit sa réponse",
                     "Une notification est un message sans clé id ; 0 est un id comme un autre (ne testez pas `if id:`)."),
                 en=("A request with id 0 gets its reply",
                     "A notification is a message with no id key; 0 is an id like any other (do not test `if id:`).")),
]

# Why a check failed, by key (lab/checks/texts.py `say`), in both languages with the same fields.
REASONS = {
    "fr": {
        "server.null_in_result": "Réponse à la requête {what} : result.{name} vaut null. Une clé facultative qui n’a rien à dire "
                                 "s’omet ; la spécification MCP n’y prévoit pas null.",
        "server.in_a_text": "La requête tools/list envoyée pendant l’attente n’est pas refusée (-32600), et votre "
                            "serveur teste {code} : des parenthèses autour d’un seul texte ne font pas un tuple, et "
                            "in y cherche un morceau du texte (un tuple d’un élément a sa virgule).",
        "server.state_typo": "La requête tools/list envoyée pendant l’attente n’est pas refusée (-32600), et votre "
                             "serveur écrit « {typo} » une fois, « {word} » ailleurs : une faute de frappe dans un nom "
                             "d’état ? Un état s’écrit pareil là où il est donné et là où il est testé.",
        "server.state_typo_ready": "La requête {what} reçoit encore -32600, et votre serveur écrit « {typo} » une "
                                   "fois, « {word} » ailleurs : une faute de frappe dans un nom d’état ? Un état "
                                   "s’écrit pareil là où il est donné et là où il est testé.",
        "server.loops_over_one_text": "Ligne {line} de votre server.py, `{code}` parcourt les caractères d’un seul "
                                      "texte : sys.stdin.{call} rend un texte, et for en prend chaque caractère, puis "
                                      "s’arrête. Pour lire l’entrée ligne par ligne jusqu’à sa fin : "
                                      "`for line in sys.stdin:`.",
        "server.not_json": "La ligne {number} de la sortie n’est pas du JSON. Sur stdout, rien que les réponses : les "
                           "messages de suivi vont sur stderr, print(..., file=sys.stderr).",
        "server.escaped_newline": "La ligne {number} de la sortie tient plusieurs réponses, séparées par les deux "
                                  "caractères \\n écrits tels quels : une réponse finit par un vrai retour à la ligne, "
                                  "\"\\n\" ; r\"\\n\" ou \"\\\\n\" en sont deux caractères.",
        "server.malformed": "Ligne mal formée : {problem}.",
        "shape.not_an_object": "ce n’est pas un objet JSON",
        "shape.no_jsonrpc": "\"jsonrpc\": \"2.0\" manque",
        "shape.wrong_jsonrpc": "\"jsonrpc\" vaut \"2.0\", le texte exact de la version de JSON-RPC",
        "shape.no_id": "pas d’id",
        "shape.id_type": "son id n’est ni un nombre, ni un texte, ni null : c’est l’id de la requête qui revient "
                         "(reply et fail le reçoivent en premier)",
        "shape.result_or_error": "il faut soit result, soit error",
        "shape.misspelt_result": "il faut soit result, soit error, et la réponse a une clé presque pareille (une faute "
                                 "de frappe)",
        "shape.result_and_error": "elle a à la fois result et error, quand une réponse a l’un ou l’autre (un dict "
                                  "qui garde les clés d’une réponse à l’autre ?)",
        "shape.error_fields": "error doit avoir code (entier) et message (texte)",
        "shape.result_in_result": "son result tient un autre result : reply envoie le result qu’il reçoit tel quel, "
                                  "{{\"id\": …, \"result\": result}}",
        "server.reads_to_the_end": "lire jusqu’à la fin de l’entrée",
        "server.stopped_early": "Le serveur s’est arrêté (code {code}) après cette ligne, avant la fin de son entrée.",
        "server.not_flushed": "Pas de réponse à cette ligne en {seconds:g} s : les réponses ne sont arrivées qu’à la "
                              "fermeture de l’entrée. Un vrai client attend chaque réponse avant d’envoyer la suite.",
        "server.id_changed": "La réponse à la requête {what} porte l’id {id} : recopiez l’id tel quel.",
        "server.ids_out_of_order": "Les ids des réponses ne sont pas ceux des requêtes, dans leur ordre.",
        "server.runs_on": "Le serveur tourne encore alors que son entrée est fermée.",
        "server.spins_at_eof": "Le serveur a utilisé tout son temps de calcul ({cpu} s de CPU) au lieu de s’arrêter : "
                               "une boucle sans fin ?",
        "server.exit_code": "Le serveur s’est arrêté avec le code {code}.",
        "server.lesson_keys": "La spécification MCP nomme ces clés requested et supported ; demandee et acceptees, "
                              "dans la leçon, en sont la traduction : la réponse garde les noms de la spécification.",
        "server.capabilities": "Les capacités annoncées sont {announced} ; la leçon n’annonce que tools.",
        "server.no_capabilities": "Aucune capacité n’est annoncée ({{}}) ; la leçon annonce tools, que ce serveur sait faire.",
        "server.server_info": "serverInfo doit donner name et version, deux textes.",
        "server.call_unflushed": "{call} écrit sa réponse sans demander son envoi (flush) : Python la garde, "
                                 "et un vrai client l’attend sans fin.",
        "server.replies_glued": "La ligne {number} de la sortie colle plusieurs réponses l’une à l’autre : chaque "
                                "réponse finit par un retour à la ligne, une réponse par ligne.",
        "server.writes_on_at_eof": "Une fois son entrée fermée, le serveur ne s’arrête pas : il a écrit {count} "
                                   "ligne(s) de plus et a été arrêté. À la fin de l’entrée, la lecture rend une "
                                   "chaîne vide (une ligne vide, elle, rend \"\\n\") : la boucle s’arrête là.",
        "server.notification_misnamed": ("La requête {what} reçoit encore -32600 : le serveur n’est jamais devenu "
                                         "prêt. Votre server.py attend la notification \"{near}\", mais le client "
                                         "envoie \"notifications/initialized\" : le nom doit être exactement celui-là."),
        "server.initialize_routed_away": "La requête {what} reçoit encore -32600 : le serveur n’est jamais devenu "
                                         "prêt, car initialize lui-même reçoit -32600 (réponse 2) : handle ne le donne "
                                         "jamais à initialize. Dans l’ordre de la leçon, initialize est traité (dans "
                                         "l’état \"nouveau\") avant le test qui répond -32600 tant que l’état n’est "
                                         "pas \"pret\".",
        "server.data_beside_error": "La réponse 2 écrit data à côté de error, en haut de la réponse, pas dans error : "
                                    "dans fail (partie 1), data va dans error, avec code et message.",
        "server.never_ready": "La requête {what} reçoit encore -32600 : le serveur n’est jamais devenu prêt, ou le test "
                              "qui répond -32600 refuse aussi l’état prêt. Vérifiez les deux : notifications/initialized "
                              "fait passer l’état de attente à pret, et seuls nouveau et attente reçoivent -32600.",
        "server.replies_on_stderr": "Le serveur a écrit ses réponses sur stderr, et rien sur stdout : le client ne "
                                    "lit que stdout ; stderr est pour les messages de suivi.",
        "server.eof_error": "Le serveur s’est arrêté avec le code {code} à la fin de son entrée : input() y lève "
                            "EOFError. La fin de l’entrée termine la boucle, sans erreur.",
        "server.printed_python": "La ligne {number} de la sortie est un dict de Python écrit tel quel (apostrophes, "
                                 "None, True), pas du JSON : le client ne lit que du JSON.",
        "server.reply_quoted": "La ligne {number} de la sortie est une réponse JSON mise entre guillemets, comme l’écrit "
                               "repr() ou json.dumps() d’un texte : écrivez le texte lui-même (ce que rend to_json).",
        "server.reply_split": "La ligne {number} de la sortie ouvre une réponse qui continue sur les lignes suivantes : "
                              "le client lit une réponse par ligne. Une réponse JSON tient sur une seule ligne (sans "
                              "indentation).",
        "server.two_replies.hint": "Une fois sa réponse écrite, une requête est finie : rien d’autre ne s’écrit "
                                   "pour elle, après une erreur non plus.",
        "server.two_replies": "La requête {what} a reçu {count} réponses : une requête en reçoit une, et une seule.",
        "server.handled_again": "La requête {what} a reçu {count} réponses, la deuxième juste après l’erreur -32700 : "
                                "après une ligne qui n’est pas du JSON, la boucle a traité encore la requête d’avant, "
                                "au lieu de passer à la ligne suivante.",
        "server.capabilities_as_text": "result.capabilities est un texte qui contient du JSON, pas un objet : le dict "
                                       "des capacités va tel quel dans la réponse, qui sera écrite en JSON une seule fois.",
        "server.version_not_read": "error.data.requested vaut null, alors que la requête demandait 1999-01-01 : le "
                                   "serveur n’a pas lu la version là où elle est, dans params.protocolVersion.",
        "server.version_misspelt": "Le serveur refuse {asked}, et sa liste de versions donne « {listed} » : une faute "
                                   "de frappe dans VERSIONS ?",
        "server.answers_notifications": "{count} réponse(s) qui ne répondent à aucune requête : ce sont des réponses "
                                        "à des notifications, qui n’en reçoivent pas. Par exemple : {example}",
        "server.result_id_null": "La requête {what} n’a pas de réponse à son id, et un result porte id null : seule "
                                 "l’erreur -32700 (une ligne qui n’est pas du JSON) a id null ; toute autre réponse "
                                 "reprend l’id de sa requête.",
        "server.error_id_null": "La requête {what} n’a pas de réponse à son id, et une erreur {code} porte id null : "
                                "seule l’erreur -32700 (une ligne qui n’est pas du JSON) a id null ; toute autre "
                                "réponse reprend l’id de sa requête.",
        "server.parse_error_unanswered": "Votre serveur n’a rien répondu à la ligne « {line} », qui n’est pas du JSON : "
                                         "elle reçoit l’erreur -32700, avec id null, avant la ligne suivante.",
        "server.parse_error_no_id": "L’erreur -32700 n’a pas de clé id : elle porte \"id\": null, car une ligne qui "
                                    "n’est pas du JSON n’a pas d’id que le serveur puisse lire.",
        "server.parse_error_id": "L’erreur -32700 porte l’id {id} au lieu de null : une ligne qui n’est pas du JSON "
                                 "n’a pas d’id que le serveur puisse lire, pas même celui de la requête d’avant.",
        "server.stopped_on_not_json": "Votre serveur s’est arrêté (code {code}) sur une ligne qui n’est pas du JSON, "
                                      "avant la fin de son entrée.",
        "server.stopped_on_blank_line": "Votre serveur s’est arrêté sur une ligne vide (code {code}), avant la fin de "
                                        "son entrée.",
        "server.parse_error_for_json": "Votre serveur répond -32700 (erreur d’analyse) à une ligne qui est du JSON, "
                                       "comme {line} : -32700 ne va qu’à une ligne qui n’est pas du JSON.",
        "server.not_a_request_code": "Votre serveur répond l’erreur {code} à une ligne JSON qui n’est pas une requête, "
                                     "comme {line} : celle qui lui va est -32600 (requête invalide), ou aucune réponse, "
                                     "comme dans la leçon.",
        "server.state_compared": "La requête {what} reçoit encore -32600 : l’état ne change jamais. Ligne {line} de "
                                 "votre server.py, `{code}` compare l’état à un nom et ne change rien : pour changer "
                                 "l’état, écrivez un seul = : `{fixed}` (== sert à tester).",
        "server.text_compared_by_is": "La requête {what} reçoit encore -32600 : le serveur n’est jamais devenu prêt. "
                                      "Ligne {line} de votre server.py, `{code}` compare avec is, qui teste si c’est "
                                      "le même objet, pas le même texte : un texte lu dans un message ne l’est jamais. "
                                      "Écrivez `{fixed}`.",
        "server.unknown_method_unnamed": "Le message de l’erreur -32601 ne dit pas quelle méthode est inconnue : comme "
                                         "dans la leçon (« Méthode inconnue : » + la méthode), il nomme « {method} ».",
        "server.stayed_new": "La requête {what} reçoit encore -32600, et un second initialize est encore accepté : "
                             "après un initialize réussi, l’état du serveur est resté « nouveau ». initialize doit "
                             "changer l’état du serveur (celui du module, pas une variable de la fonction).",
        "server.unknown_tools_list": "La requête {what} reçoit -32601 (méthode inconnue) : votre serveur ne reconnaît "
                                     "pas le nom tools/list. Comparez son orthographe à celle de la leçon.",
        "server.stopped_on_not_a_request": "Votre serveur s’est arrêté sur une ligne JSON qui n’est pas une requête : "
                                           "{line} (code {code}).",
        "server.stopped_on_initialize_without_params": "Votre serveur s’est arrêté sur un initialize sans params : "
                                                       "{line} (code {code}).",
        "server.invalid_request_id": "Votre serveur répond à {line} par {reply} : cette ligne a l’id {id}, et sa réponse "
                                     "le reprend, même quand c’est l’erreur -32600 (requête invalide) ; seule l’erreur "
                                     "-32700 (une ligne qui n’est pas du JSON) a id null.",
        "server.invalid_request_unanswered": "Votre serveur ne répond rien à {line} : cette ligne a un id, c’est donc "
                                             "une requête, même sans method, et elle reçoit une réponse avec cet id "
                                             "(l’erreur -32600, requête invalide).",
        "server.answers_at_end": "Pas de réponse à cette ligne en {seconds:g} s : votre serveur ne répond qu’une fois "
                                 "son entrée fermée, comme s’il lisait toute son entrée avant de répondre. Un vrai "
                                 "client attend chaque réponse avant d’envoyer la suite.",
        "server.answers_at_end.hint": "Répondez à chaque ligne dès qu’elle est lue, avant de lire la suivante : un "
                                      "programme qui lit d’abord toute son entrée (read(), readlines()) attend "
                                      "qu’elle se ferme.",
    },
    "en": {
        "server.null_in_result": "Reply to the request {what}: result.{name} is null. An optional key with nothing to say is left "
                                 "out; the MCP specification does not allow null there.",
        "server.in_a_text": "The request tools/list sent while waiting is not refused (-32600), and your server "
                            "tests {code}: parentheses around a single text make no tuple, and in looks there for a "
                            "piece of the text (a tuple of one item has its comma).",
        "server.state_typo": "The request tools/list sent while waiting is not refused (-32600), and your server "
                             "writes “{typo}” once, “{word}” elsewhere: a typo in a state's name? A state is spelt "
                             "the same where it is set and where it is tested.",
        "server.state_typo_ready": "The request {what} still gets -32600, and your server writes “{typo}” once, "
                                   "“{word}” elsewhere: a typo in a state's name? A state is spelt the same where it "
                                   "is set and where it is tested.",
        "server.loops_over_one_text": "Line {line} of your server.py, `{code}` walks the characters of a single "
                                      "text: sys.stdin.{call} returns a text, and for takes each of its characters, "
                                      "then stops. To read the input line by line to its end: `for line in sys.stdin:`.",
        "server.not_json": "Line {number} of the output is not JSON. On stdout, nothing but the replies: log messages "
                           "go to stderr, print(..., file=sys.stderr).",
        "server.escaped_newline": "Line {number} of the output holds several replies, separated by the two "
                                  "characters \\n written as they are: a reply ends with a real newline, \"\\n\"; "
                                  "r\"\\n\" or \"\\\\n\" are two characters.",
        "server.malformed": "Malformed line: {problem}.",
        "shape.not_an_object": "it is not a JSON object",
        "shape.no_jsonrpc": "\"jsonrpc\": \"2.0\" is missing",
        "shape.wrong_jsonrpc": "\"jsonrpc\" is \"2.0\", the exact text of JSON-RPC's version",
        "shape.no_id": "no id",
        "shape.id_type": "its id is neither a number, a text nor null: the request's id is what comes back (reply "
                         "and fail get it first)",
        "shape.result_or_error": "it needs either result or error",
        "shape.misspelt_result": "it needs either result or error, and the reply has a key nearly the same (a typo)",
        "shape.result_and_error": "it has both result and error, when a reply has one or the other (a dict that "
                                  "keeps its keys from one reply to the next?)",
        "shape.error_fields": "error needs code (an integer) and message (a string)",
        "shape.result_in_result": "its result holds another result: reply sends the result it is given as it is, "
                                  "{{\"id\": …, \"result\": result}}",
        "server.reads_to_the_end": "reading until the input ends",
        "server.stopped_early": "The server stopped (code {code}) after this line, before its input ended.",
        "server.not_flushed": "No reply to this line within {seconds:g} s: the replies came only when the input closed. "
                              "A real client waits for each reply before it sends the next line.",
        "server.id_changed": "The reply to the request {what} carries the id {id}: copy the id as it is.",
        "server.ids_out_of_order": "The replies' ids are not the requests' ids, in their order.",
        "server.runs_on": "The server still runs although its input is closed.",
        "server.spins_at_eof": "The server used up its CPU time ({cpu} s) instead of stopping: an endless loop?",
        "server.exit_code": "The server stopped with code {code}.",
        "server.lesson_keys": "The MCP specification names these keys requested and supported; the lesson's "
                              "demandee and acceptees are their French translation: the reply keeps the "
                              "specification's names.",
        "server.capabilities": "The capabilities announced are {announced}; the lesson announces only tools.",
        "server.no_capabilities": "No capability is announced ({{}}); the lesson announces tools, which this server implements.",
        "server.server_info": "serverInfo must give name and version, two strings.",
        "server.call_unflushed": "{call} writes its reply without asking for it to be sent (flush): Python keeps it, and "
                                 "a real client waits for it forever.",
        "server.replies_glued": "Line {number} of the output glues several replies together: each reply ends with "
                                "a newline, one reply per line.",
        "server.writes_on_at_eof": "Once its input closed, the server does not stop: it wrote {count} more line(s) "
                                   "and was stopped. At the end of input, reading gives an empty string (an empty "
                                   "line gives \"\\n\"): the loop ends there.",
        "server.notification_misnamed": ("The request {what} still gets -32600: the server never became ready. "
                                         "Your server.py waits for the notification \"{near}\", but the client "
                                         "sends \"notifications/initialized\": the name must be exactly that one."),
        "server.initialize_routed_away": "The request {what} still gets -32600: the server never became ready, "
                                         "because initialize itself gets -32600 (reply 2): handle never hands it to "
                                         "initialize. In the lesson's order, initialize is handled (in the state "
                                         "\"nouveau\") before the test that answers -32600 while the state is not "
                                         "\"pret\".",
        "server.data_beside_error": "Reply 2 writes data beside error, at the top of the reply, not inside error: in "
                                    "fail (part 1), data goes into error, with code and message.",
        "server.never_ready": "The request {what} still gets -32600: the server never became ready, or the test that "
                              "answers -32600 refuses the ready state too. Check both: notifications/initialized moves "
                              "the state from attente to pret, and only nouveau and attente get -32600.",
        "server.replies_on_stderr": "The server wrote its replies on stderr, and nothing on stdout: the client reads "
                                    "stdout only; stderr is for log messages.",
        "server.eof_error": "The server stopped with code {code} at the end of its input: input() raises EOFError "
                            "there. The end of input ends the loop, without an error.",
        "server.printed_python": "Line {number} of the output is a Python dict written as it is (single quotes, None, "
                                 "True), not JSON: the client reads JSON only.",
        "server.reply_quoted": "Line {number} of the output is a JSON reply put between quotes, as repr() or "
                               "json.dumps() of a text writes it: write the text itself (what to_json returns).",
        "server.reply_split": "Line {number} of the output opens a reply that goes on over the next lines: the "
                              "client reads one reply per line. A JSON reply fits on one line (no indent).",
        "server.two_replies.hint": "Once its reply is written, a request is done: nothing more is written for it, "
                                   "after an error either.",
        "server.two_replies": "The request {what} got {count} replies: a request gets one, and only one.",
        "server.handled_again": "The request {what} got {count} replies, the second right after the -32700 error: "
                                "after a line that is not JSON, the loop handled the previous request again instead "
                                "of going on to the next line.",
        "server.capabilities_as_text": "result.capabilities is a text holding JSON, not an object: the capabilities' "
                                       "dict goes into the reply as it is, and the reply is written as JSON once.",
        "server.version_not_read": "error.data.requested is null, although the request asked for 1999-01-01: the "
                                   "server did not read the version where it is, in params.protocolVersion.",
        "server.version_misspelt": "The server refuses {asked}, and its list of versions gives \"{listed}\": a typo in "
                                   "VERSIONS?",
        "server.answers_notifications": "{count} reply(ies) answering no request: replies to notifications, which get "
                                        "none. For example: {example}",
        "server.result_id_null": "The request {what} has no reply with its id, and a result carries id null: only "
                                 "the -32700 error (a line that is not JSON) has id null; any other reply takes its "
                                 "request's id.",
        "server.error_id_null": "The request {what} has no reply with its id, and an error {code} carries id null: "
                                "only the -32700 error (a line that is not JSON) has id null; any other reply takes "
                                "its request's id.",
        "server.parse_error_unanswered": "Your server answered nothing to the line “{line}”, which is not JSON: it "
                                         "gets the error -32700, with id null, before the next line.",
        "server.parse_error_no_id": "The -32700 error has no id key: it carries \"id\": null, since a line that is "
                                    "not JSON has no id the server can read.",
        "server.parse_error_id": "The -32700 error carries the id {id} instead of null: a line that is not JSON has no "
                                 "id the server can read, not even the previous request's.",
        "server.stopped_on_not_json": "Your server stopped (code {code}) on a line that is not JSON, before its input "
                                      "ended.",
        "server.stopped_on_blank_line": "Your server stopped on an empty line (code {code}), before its input ended.",
        "server.parse_error_for_json": "Your server answers -32700 (parse error) to a line that is JSON, such as "
                                       "{line}: -32700 is only for a line that is not JSON.",
        "server.not_a_request_code": "Your server answers the error {code} to a JSON line that is not a request, such "
                                     "as {line}: the one that fits is -32600 (invalid request), or no reply, as in the "
                                     "lesson.",
        "server.state_compared": "The request {what} still gets -32600: the state never changes. Line {line} of "
                                 "your server.py, `{code}` compares the state with a name and changes nothing: to "
                                 "change the state, write a single =: `{fixed}` (== is for testing).",
        "server.text_compared_by_is": "The request {what} still gets -32600: the server never became ready. Line "
                                      "{line} of your server.py, `{code}` compares with is, which tests for the same "
                                      "object, not the same text: a text read from a message never is. Write "
                                      "`{fixed}`.",
        "server.unknown_method_unnamed": "The -32601 error's message does not say which method is unknown: as in the "
                                         "lesson (\"Unknown method: \" + the method), it names \"{method}\".",
        "server.stayed_new": "The request {what} still gets -32600, and a second initialize is still accepted: after "
                             "an initialize that succeeded, the server's state stayed \"new\". initialize must change "
                             "the server's state (the module's, not a variable of the function).",
        "server.unknown_tools_list": "The request {what} gets -32601 (unknown method): your server does not recognise "
                                     "the name tools/list. Compare its spelling with the lesson's.",
        "server.stopped_on_not_a_request": "Your server stopped on a JSON line that is not a request: {line} "
                                           "(code {code}).",
        "server.stopped_on_initialize_without_params": "Your server stopped on an initialize without params: {line} "
                                                       "(code {code}).",
        "server.invalid_request_id": "Your server answers {line} with {reply}: this line has the id {id}, and its reply "
                                     "carries it, even when it is the error -32600 (invalid request); only the -32700 "
                                     "error (a line that is not JSON) has id null.",
        "server.invalid_request_unanswered": "Your server gives no reply to {line}: this line has an id, so it is a "
                                             "request, even with no method, and it gets a reply with that id (the "
                                             "error -32600, invalid request).",
        "server.answers_at_end": "No reply to this line in {seconds:g} s: your server answers only once its input has "
                                 "closed, as if it read all its input before answering. A real client waits for each "
                                 "reply before sending the next message.",
        "server.answers_at_end.hint": "Answer each line as soon as it is read, before reading the next: a program "
                                      "that first reads all its input (read(), readlines()) waits for it to close.",
    },
}
