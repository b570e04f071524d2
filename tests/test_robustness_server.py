"""Hostile input never breaks the lesson's server (solutions/server.py).

Every case drives the real `python solutions/server.py` process over pipes. The
invariants: the server exits 0 only at the end of its input, writes nothing but
JSON lines, answers every request exactly once, and its state is right afterwards.
The table below is the one in docs/bad-input.md, which names the cases that test each row.
"""

from __future__ import annotations

import json
import re
import resource
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import INITIALIZED, feed_server, initialize, request

VERSIONS = ["2025-03-26", "2024-11-05"]
SERVER_INFO = {"name": "mcp-handshake-lab", "version": "0.1.0"}


def not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")


STRICT_JSON = json.JSONDecoder(parse_constant=not_json)  # a NaN on stdout would be no JSON line


def run_server(data: bytes, lang: str = "en", timeout: float = 10) -> list[Any]:
    """Feed these bytes to a real server process; check the invariants; return its replies."""
    done = feed_server(data, lang=lang, timeout=timeout)
    assert (done.returncode, done.stderr) == (0, b"")  # exit 0 at end of input, no traceback
    assert done.stdout == b"" or done.stdout.endswith(b"\n")
    replies = []
    for line in done.stdout.split(b"\n")[:-1]:
        reply = STRICT_JSON.decode(line.decode())  # strict UTF-8, strict JSON
        assert isinstance(reply, (dict, list))
        replies.append(reply)
    return replies


def dumps(message: Any) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode()


PREFIX = {"new": [], "waiting": [initialize("setup")], "ready": [initialize("setup"), INITIALIZED]}
PROBE = request("probe", "ping")


def result(request_id: Any, value: dict) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "result": value}


def error(request_id: Any, code: int, message: str, data: Any = None) -> dict:
    body = {"code": code, "message": message} if data is None else {"code": code, "message": message, "data": data}
    return {"jsonrpc": "2.0", "id": request_id, "error": body}


def initialized_result(request_id: Any, version: str = "2024-11-05") -> dict:
    return result(request_id, {"protocolVersion": version, "capabilities": {"tools": {"listChanged": False}},
                               "serverInfo": SERVER_INFO})


PARSE = error(None, -32700, "Parse error")
INVALID = error(None, -32600, "Invalid request")


def invalid(request_id: Any) -> dict:
    return error(request_id, -32600, "Invalid request")


PING_1 = dumps(request(1, "ping"))
MEGABYTE = "x" * (1 << 20)
DEEP = 100_000

# (name, state before, the line as bytes (no newline), the replies it gets)
TABLE: list[tuple[str, str, bytes, list[Any]]] = [
    ("not-json", "new", b"hello", [PARSE]),
    ("truncated-object", "new", PING_1[:-1], [PARSE]),
    ("truncated-string", "new", b'{"jsonrpc":"2.0","id":"ab', [PARSE]),
    ("trailing-garbage", "new", PING_1 + b"x", [PARSE]),
    ("two-objects-on-one-line", "new", PING_1 + PING_1, [PARSE]),
    ("nan-is-not-json", "new", b'{"jsonrpc":"2.0","id":NaN,"method":"ping"}', [PARSE]),
    ("infinity-is-not-json", "new", b"Infinity", [PARSE]),
    ("single-quotes", "new", b"{'jsonrpc':'2.0','id':1,'method':'ping'}", [PARSE]),
    ("empty-object", "new", b"{}", [INVALID]),
    ("empty-batch", "new", b"[]", [INVALID]),
    # One message per line: the lesson's server answers a batch (an array) as it answers any
    # JSON that is not a request object. The bonus server answers batches (tests/test_bonus.py).
    ("batch-of-two", "ready", b"[" + PING_1 + b"," + dumps(request(2, "tools/list")) + b"]", [INVALID]),
    ("batch-of-notifications", "ready", b"[" + dumps(INITIALIZED) + b"," + dumps(INITIALIZED) + b"]", [INVALID]),
    ("initialize-in-a-batch", "new", b"[" + dumps(initialize(1)) + b"]", [INVALID]),
    ("number", "new", b"42", [INVALID]),
    ("string", "new", b'"ping"', [INVALID]),
    ("true", "new", b"true", [INVALID]),
    ("null", "new", b"null", [INVALID]),
    ("jsonrpc-missing", "ready", b'{"id":1,"method":"ping"}', [invalid(1)]),
    ("jsonrpc-1.0", "ready", b'{"jsonrpc":"1.0","id":1,"method":"ping"}', [invalid(1)]),
    ("jsonrpc-number", "ready", b'{"jsonrpc":2.0,"id":1,"method":"ping"}', [invalid(1)]),
    ("method-missing", "ready", b'{"jsonrpc":"2.0","id":1}', [invalid(1)]),
    ("method-number", "ready", b'{"jsonrpc":"2.0","id":1,"method":5}', [invalid(1)]),
    ("method-null", "ready", b'{"jsonrpc":"2.0","id":1,"method":null}', [invalid(1)]),
    ("method-missing-no-id", "ready", b'{"jsonrpc":"2.0"}', [INVALID]),
    ("params-array", "ready", dumps(request(1, "ping", [])), [invalid(1)]),
    ("params-string", "ready", dumps(request(1, "ping", "x")), [invalid(1)]),
    ("params-null", "ready", b'{"jsonrpc":"2.0","id":1,"method":"ping","params":null}', [invalid(1)]),
    ("params-array-in-a-notification", "ready", b'{"jsonrpc":"2.0","method":"notifications/x","params":[]}',
     [INVALID]),
    ("id-null", "ready", dumps(request(None, "ping")), [INVALID]),
    ("id-float", "ready", dumps(request(1.5, "ping")), [INVALID]),
    ("id-whole-float", "ready", b'{"jsonrpc":"2.0","id":1.0,"method":"ping"}', [INVALID]),
    ("id-object", "ready", dumps(request({"a": 1}, "ping")), [INVALID]),
    ("id-array", "ready", dumps(request([1], "ping")), [INVALID]),
    ("id-true", "ready", dumps(request(True, "ping")), [INVALID]),
    ("id-huge-integer", "ready", dumps(request(10**30, "ping")), [result(10**30, {})]),
    ("id-overflowing-float", "ready", b'{"jsonrpc":"2.0","id":1e400,"method":"ping"}', [PARSE]),
    ("id-of-5000-digits", "ready", b'{"jsonrpc":"2.0","id":' + b"1" * 5000 + b',"method":"ping"}', [PARSE]),
    ("id-lone-surrogate", "ready", b'{"jsonrpc":"2.0","id":"\\udc80","method":"ping"}', [result("\udc80", {})]),
    ("one-megabyte-request", "ready", dumps(request(1, "ping", {"pad": MEGABYTE})), [result(1, {})]),
    ("one-megabyte-method", "ready", dumps(request(1, MEGABYTE)), [error(1, -32601, "Unknown method: " + MEGABYTE)]),
    ("one-megabyte-garbage", "new", MEGABYTE.encode(), [PARSE]),
    ("deep-array", "new", b"[" * DEEP + b"]" * DEEP, [PARSE]),
    ("deep-params", "ready", b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":' + b"[" * DEEP, [PARSE]),
    ("deep-version", "new", dumps(initialize(1, json.loads("[" * 400 + "]" * 400))),
     [error(1, -32602, "Unsupported protocol version",
            {"requested": json.loads("[" * 400 + "]" * 400), "supported": VERSIONS})]),
    ("deeper-than-500", "new", dumps(initialize(1, json.loads("[" * 600 + "]" * 600))), [PARSE]),
    # Python reads it, but a reply could not write it back: refused as well, never a crash.
    ("just-under-what-python-reads", "new", b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":'
     b'{"protocolVersion":' + b"[" * 985 + b"]" * 985 + b"}}", [PARSE]),
    ("version-number", "new", dumps(initialize(1, 20241105)),
     [error(1, -32602, "Unsupported protocol version", {"requested": 20241105, "supported": VERSIONS})]),
    ("version-huge-number", "new", b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1e400}}',
     [PARSE]),
    # Bytes that are not UTF-8 read as U+FFFD, as Node's readline reads them: the line goes on.
    ("invalid-utf8", "new", b'{"jsonrpc":"2.0","id":1,"method":"\xff"}', [error(1, -32600, "Not initialized")]),
    ("invalid-utf8-once-ready", "ready", b'{"jsonrpc":"2.0","id":1,"method":"a\xff"}',
     [error(1, -32601, "Unknown method: a\ufffd")]),
    ("utf8-encoded-surrogate", "new", b'{"jsonrpc":"2.0","id":"\xed\xa0\x80","method":"ping"}',
     [result("\ufffd\ufffd\ufffd", {})]),
    ("invalid-utf8-outside-a-string", "new", b'\xff{"jsonrpc":"2.0","id":1,"method":"ping"}', [PARSE]),
    ("utf8-bom", "new", b"\xef\xbb\xbf" + PING_1, [PARSE]),
    ("nul-byte", "new", b"\x00", [PARSE]),
    ("nul-in-a-string", "new", b'{"jsonrpc":"2.0","id":"a\x00b","method":"ping"}', [PARSE]),
    ("nul-after-a-request", "new", PING_1 + b"\x00", [PARSE]),
    ("crlf", "new", PING_1 + b"\r", [result(1, {})]),
    ("blank", "new", b"", []),
    ("spaces-and-tabs", "new", b" \t ", []),
    ("lone-cr", "new", b"\r", []),
    ("reply-shaped-result", "ready", b'{"jsonrpc":"2.0","id":1,"result":{}}', []),
    ("reply-shaped-error", "ready", b'{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"x"}}', []),
    ("reply-shaped-with-a-null-id", "ready", b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}',
     []),
    ("unknown-notification", "ready", b'{"jsonrpc":"2.0","method":"notifications/whatever"}', []),
    ("non-notification-name-without-id", "ready", b'{"jsonrpc":"2.0","method":"tools/list"}', []),
    ("unknown-request", "ready", dumps(request(1, "foo/bar")), [error(1, -32601, "Unknown method: foo/bar")]),
    ("duplicate-keys-last-wins", "ready", b'{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}', [result(2, {})]),
]


def run_rows(state: str, rows: list[tuple[str, str, bytes, list[Any]]]) -> dict[str, list[Any]]:
    """Each row's replies, from one server started in `state`. Every row is followed by
    a ping with the row's name as id: it splits the replies, and shows that the server
    is still there and still in that state."""
    prefix = PREFIX[state]
    data = b"".join(dumps(message) + b"\n" for message in prefix)
    for name, _, line, _ in rows:
        data += line + b"\n" + dumps(request(name, "ping")) + b"\n"
    replies = run_server(data)[sum("id" in message for message in prefix):]
    replies_by_row = {}
    for name, *_ in rows:
        probe_at = replies.index(result(name, {}))
        replies_by_row[name], replies = replies[:probe_at], replies[probe_at + 1:]
    assert replies == []
    return replies_by_row


@pytest.fixture(scope="module")
def table_replies() -> dict[str, list[Any]]:
    """Three processes for the whole table (one per starting state), not seventy. If
    one of them breaks, its rows are left out and each row then runs alone, so that
    the failures name the rows that cause them."""
    replies_by_row: dict[str, list[Any]] = {}
    for state in PREFIX:
        try:
            replies_by_row.update(run_rows(state, [row for row in TABLE if row[1] == state]))
        except (AssertionError, ValueError):
            pass
    return replies_by_row


@pytest.mark.parametrize("row", TABLE, ids=[row[0] for row in TABLE])
def test_each_bad_input_gets_its_reply_and_the_server_goes_on(
    row: tuple[str, str, bytes, list[Any]], table_replies: dict[str, list[Any]]
) -> None:
    name, state, _, expected = row
    replies = table_replies[name] if name in table_replies else run_rows(state, [row])[name]
    assert replies == expected


def test_one_bad_input_alone_in_a_fresh_server() -> None:
    # The shared servers above could hide a line that only breaks a fresh process.
    assert run_server(b"\xff\x00{\n" + dumps(PROBE) + b"\n") == [PARSE, result("probe", {})]


def test_the_table_has_no_duplicate_names() -> None:
    assert len({row[0] for row in TABLE}) == len(TABLE)


def test_a_last_line_without_newline_is_answered() -> None:
    assert run_server(PING_1) == [result(1, {})]


def test_all_the_bad_lines_at_once_then_the_lesson_still_gets_its_six_replies() -> None:
    garbage = b"".join(line + b"\n" for name, state, line, _ in TABLE if state == "new")
    replies = run_server(garbage + b"".join(dumps(message) + b"\n" for message in LESSON) + dumps(PROBE) + b"\n")
    expected_garbage = [reply for name, state, _, expected in TABLE if state == "new" for reply in expected]
    assert replies == expected_garbage + LESSON_REPLIES + [result("probe", {})]


def test_a_32_megabyte_line_is_answered_in_linear_time() -> None:
    # It arrives in 512 reads of 64 KB; gluing each to the previous ones would copy
    # 8 GB (a minute of work) before the line is even complete.
    # Counted in the server's CPU seconds, which a busy machine does not stretch.
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    replies = run_server(dumps(request(1, "ping", {"pad": MEGABYTE * 32})) + b"\n" + dumps(PROBE) + b"\n", timeout=120)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert replies == [result(1, {}), result("probe", {})]
    assert (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime) < 8


def test_the_replies_speak_french_by_default() -> None:
    replies = run_server(b"{\n{}\n" + dumps(request(1, "foo")) + b"\n", lang="fr")
    assert replies == [
        error(None, -32700, "Erreur d’analyse"),
        error(None, -32600, "Requête invalide"),
        error(1, -32600, "Pas initialisé"),
    ]


# ---------------------------------------------------------------- requests in every state

REFUSED = error("r", -32600, "Not initialized")
ALREADY = error("r", -32600, "Already initialized")
EVERY_STATE = {
    # method: (reply when new, when waiting, when ready); "r" is the request's id
    "ping": (result("r", {}),) * 3,
    "tools/list": (REFUSED, REFUSED, result("r", {"tools": []})),
    "resources/list": (REFUSED, REFUSED, error("r", -32601, "Unknown method: resources/list")),
    "server/discover": (REFUSED, REFUSED, error("r", -32601, "Unknown method: server/discover")),
    "notifications/initialized": (REFUSED, REFUSED, error("r", -32601, "Unknown method: notifications/initialized")),
    "initialize": (initialized_result("r"), ALREADY, ALREADY),
}


@pytest.mark.parametrize("state_index, state", list(enumerate(PREFIX)), ids=list(PREFIX))
def test_a_request_in_every_state_follows_the_gate(state_index: int, state: str) -> None:
    # initialize last: it is the only one of these that may move the state
    messages = [initialize("r") if method == "initialize" else request("r", method) for method in EVERY_STATE]
    replies = run_server(b"".join(dumps(line) + b"\n" for line in PREFIX[state] + messages))
    assert replies[sum("id" in line for line in PREFIX[state]):] == [
        replies_by_state[state_index] for replies_by_state in EVERY_STATE.values()
    ]


def test_an_initialize_notification_does_not_start_the_handshake() -> None:
    lines = [{"jsonrpc": "2.0", "method": "initialize", "params": {"protocolVersion": "2024-11-05"}}, initialize(1)]
    assert run_server(b"".join(dumps(line) + b"\n" for line in lines)) == [initialized_result(1)]


def test_a_batch_is_refused_whole_and_leaves_the_server_new() -> None:
    batch = b"[" + dumps(initialize(1)) + b"," + dumps(INITIALIZED) + b"," + dumps(request(2, "tools/list")) + b"]"
    replies = run_server(batch + b"\n" + dumps(initialize(3)) + b"\n")
    assert replies == [INVALID, initialized_result(3)]


# ---------------------------------------------------------------- the property: garbage never breaks the lesson

LESSON = [
    request(1, "tools/list"),
    initialize(2, "1999-01-01"),
    initialize(3, "2024-11-05"),
    request(4, "tools/list"),
    INITIALIZED,
    request(5, "tools/list"),
    request(6, "resources/list"),
]
LESSON_REPLIES = [
    error(1, -32600, "Not initialized"),
    error(2, -32602, "Unsupported protocol version", {"requested": "1999-01-01", "supported": VERSIONS}),
    initialized_result(3),
    error(4, -32600, "Not initialized"),
    result(5, {"tools": []}),
    error(6, -32601, "Unknown method: resources/list"),
]

json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=8)
bad_ids = st.sampled_from([None, 1.5, True, False, {}, {"id": 1}, [], [1]])
stateless_methods = st.sampled_from(["ping", "tools/list", "resources/list", "server/discover", "notifications/x"])
unknown_notification_names = st.text(max_size=20).filter(lambda name: name != "notifications/initialized")

# Each garbage line is drawn with the number of reply lines it is owed (0 or 1).
# No garbage line may legitimately move the state: that is the point.
noise = st.binary(max_size=40).map(lambda raw: (b"\xff" + raw.replace(b"\n", b""), 1))  # never UTF-8
truncated = json_values.map(lambda value: dumps({"jsonrpc": "2.0", "v": value})[:-1]).map(lambda line: (line, 1))
blank = st.sampled_from([b"", b" ", b"\t", b"\r", b"  \r"]).map(lambda line: (line, 0))
scalar = json_scalars.map(lambda value: (dumps(value), 1))
no_message_keys = st.dictionaries(st.text(max_size=8).filter(lambda key: key not in {"id", "method", "result", "error"}),
                                  json_values, max_size=4).map(lambda value: (dumps(value), 1))
bad_id_request = st.tuples(bad_ids, st.sampled_from(["ping", "initialize", "tools/list"])).map(
    lambda pair: (dumps({"jsonrpc": "2.0", "id": pair[0], "method": pair[1]}), 1))
bad_shape_request = st.tuples(
    st.sampled_from([{}, {"jsonrpc": "1.0"}, {"jsonrpc": 2}, {"jsonrpc": None}]),
    st.sampled_from(["initialize", "notifications/initialized", "ping"]),
).map(lambda pair: (dumps({**pair[0], "id": 99, "method": pair[1]}), 1))
bad_params = st.tuples(st.sampled_from([[], "x", None, 1, [{"protocolVersion": "2024-11-05"}]]),
                       st.sampled_from(["initialize", "ping"])).map(
    lambda pair: (dumps({"jsonrpc": "2.0", "id": 98, "method": pair[1], "params": pair[0]}), 1))
non_string_method = st.sampled_from([None, 5, True, [], {}, ["initialize"]]).map(
    lambda method: (dumps({"jsonrpc": "2.0", "id": 97, "method": method}), 1))
reply_shaped = st.tuples(st.sampled_from(["result", "error"]), json_values, st.integers()).map(
    lambda parts: (dumps({"jsonrpc": "2.0", "id": parts[2], parts[0]: parts[1]}), 0))
notification = st.tuples(unknown_notification_names, st.sampled_from([{}, {"protocolVersion": "2024-11-05"}])).map(
    lambda parts: (dumps({"jsonrpc": "2.0", "method": parts[0], "params": parts[1]}), 0))
initialize_notification = st.just((dumps({"jsonrpc": "2.0", "method": "initialize",
                                          "params": {"protocolVersion": "2025-03-26"}}), 0))
batched_initialize = st.just((b"[" + dumps(initialize(96, "2025-03-26")) + b"]", 1))
GARBAGE = st.one_of(noise, truncated, blank, scalar, no_message_keys, bad_id_request, bad_shape_request, bad_params,
                    non_string_method, reply_shaped, notification, initialize_notification, batched_initialize)
# Good requests with fresh ids in the garbage too: each must get exactly one reply.
GOOD = stateless_methods.map(lambda method: ("good", method))


@settings(max_examples=12, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(GARBAGE | GOOD, max_size=6), min_size=len(LESSON) + 1, max_size=len(LESSON) + 1))
def test_random_lines_between_the_lessons_messages_change_nothing(gaps: list[list[Any]]) -> None:
    lines: list[bytes] = []
    owed = 0
    good_ids: list[str] = []
    for gap, message in zip(gaps, LESSON + [PROBE]):
        for item in gap:
            if item[0] != "good":
                lines.append(item[0])
                owed += item[1]
            elif item[1] == "notifications/x":
                lines.append(dumps({"jsonrpc": "2.0", "method": item[1]}))
            else:
                good_ids.append(f"good-{len(good_ids)}")
                lines.append(dumps(request(good_ids[-1], item[1])))
                owed += 1
        lines.append(dumps(message))
    replies = run_server(b"".join(line + b"\n" for line in lines), timeout=20)

    # every request answered exactly once: the lesson's, the probe, and each good one
    assert len(replies) == owed + len(LESSON_REPLIES) + 1
    answered = [reply.get("id") for reply in replies if isinstance(reply, dict)]
    for request_id in good_ids + ["probe"]:
        assert answered.count(request_id) == 1
    # the lesson still gets exactly its six replies, in order: the state never moved by garbage
    assert [reply for reply in replies if isinstance(reply, dict) and reply.get("id") in range(1, 7)
            and not isinstance(reply.get("id"), bool)] == LESSON_REPLIES
    assert replies[-1] == result("probe", {})


def test_an_early_initialized_notification_is_ignored() -> None:
    # Before initialize, notifications/initialized moves nothing: after initialize the server
    # is only waiting, and tools/list is still refused until the notification comes again.
    lines = [INITIALIZED, initialize(1), request(2, "tools/list"), INITIALIZED, request(3, "tools/list")]
    assert run_server(b"".join(dumps(line) + b"\n" for line in lines)) == [
        initialized_result(1), error(2, -32600, "Not initialized"), result(3, {"tools": []})]


# ---------------------------------------------------------------- the documentation's table

DOCS = Path(__file__).resolve().parent.parent / "docs" / "bad-input.md"


def table_rows(text: str, first_header: str) -> list[str]:
    lines = text.splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith(f"| {first_header} |"))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append(line)
    return rows


def test_the_documented_table_and_the_tested_rows_cannot_drift() -> None:
    """docs/bad-input.md names, in each row, the cases of this file that test it: every case
    is documented, every documented case exists, and the French table has the same rows."""
    text = DOCS.read_text(encoding="utf-8")
    rows = table_rows(text, "Bad input") + table_rows(text, "Request")
    cited = [name.strip() for row in rows for match in re.findall(r"<!-- tested: (.*?) -->", row)
             for name in match.split(",")]
    assert len(re.findall(r"<!-- tested:", "\n".join(rows))) == len(rows)  # every row says what tests it
    tests = {name for name, value in globals().items() if name.startswith("test_") and callable(value)}
    assert sorted(set(cited) - {name for name, *_ in TABLE} - tests) == []  # nothing cited is missing
    assert sorted({name for name, *_ in TABLE} - set(cited)) == []  # every tested row is documented
    assert len(table_rows(text, "Entrée fautive")) == len(table_rows(text, "Bad input"))
    assert len(table_rows(text, "Requête")) == len(table_rows(text, "Request"))
