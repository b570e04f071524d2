"""The lesson's server (solutions/server.py): over real pipes, and line by line in this process."""

from __future__ import annotations

import json
from typing import Any

import pytest

import lab
from conftest import INITIALIZED, as_lines, feed_server, initialize, request
from lab.checks import reference

server = reference.load("server")

SCENARIO = [
    {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"protocolVersion": "1999-01-01", "capabilities": {}, "clientInfo": {"name": "demo", "version": "0.1"}}},
    {"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "demo", "version": "0.1"}}},
    {"jsonrpc": "2.0", "id": 4, "method": "tools/list"},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 5, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": 6, "method": "resources/list"},
]
SERVER_INFO = {"name": "mcp-handshake-lab", "version": lab.__version__}


def exchange(lines: list[Any], lang: str = "fr") -> tuple[list[Any], int]:
    """Run the server on these lines (dicts are sent as JSON); return its replies and exit code."""
    done = feed_server(as_lines(lines), lang=lang)
    return [json.loads(line) for line in done.stdout.splitlines()], done.returncode


def test_the_lessons_seven_messages_get_exactly_six_replies() -> None:
    replies, code = exchange(SCENARIO)
    assert code == 0
    assert replies == [
        {"jsonrpc": "2.0", "id": 1, "error": {"code": -32600, "message": "Pas initialisé"}},
        {"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "Version non prise en charge",
                                               "data": {"requested": "1999-01-01", "supported": ["2025-03-26", "2024-11-05"]}}},
        {"jsonrpc": "2.0", "id": 3, "result": {"protocolVersion": "2024-11-05",
                                                "capabilities": {"tools": {"listChanged": False}},
                                                "serverInfo": SERVER_INFO}},
        {"jsonrpc": "2.0", "id": 4, "error": {"code": -32600, "message": "Pas initialisé"}},
        {"jsonrpc": "2.0", "id": 5, "result": {"tools": []}},
        {"jsonrpc": "2.0", "id": 6, "error": {"code": -32601, "message": "Méthode inconnue : resources/list"}},
    ]


def test_the_wire_messages_switch_to_english() -> None:
    replies, _ = exchange(SCENARIO, lang="en")
    assert [reply.get("error", {}).get("message") for reply in replies] == [
        "Not initialized", "Unsupported protocol version", None, "Not initialized", None,
        "Unknown method: resources/list",
    ]


def test_both_versions_are_spoken_and_echoed() -> None:
    replies, _ = exchange([initialize(1, "2025-03-26")])
    assert replies[0]["result"]["protocolVersion"] == "2025-03-26"
    assert server.VERSIONS == ["2025-03-26", "2024-11-05"]


def test_ping_is_answered_in_every_state() -> None:
    replies, _ = exchange([request("a", "ping"), initialize(1), request("b", "ping"), INITIALIZED, request("c", "ping")])
    assert replies == [
        {"jsonrpc": "2.0", "id": "a", "result": {}},
        replies[1],
        {"jsonrpc": "2.0", "id": "b", "result": {}},
        {"jsonrpc": "2.0", "id": "c", "result": {}},
    ]
    assert "result" in replies[1]


@pytest.mark.parametrize("ready", [False, True], ids=["waiting", "ready"])
def test_a_second_initialize_is_refused(ready: bool) -> None:
    lines = [initialize(1)] + ([INITIALIZED] if ready else []) + [initialize(2, "2025-03-26"), request(3, "tools/list")]
    replies, _ = exchange(lines)
    assert replies[1] == {"jsonrpc": "2.0", "id": 2, "error": {"code": -32600, "message": "Déjà initialisé"}}
    expected_list = {"result": {"tools": []}} if ready else {"error": {"code": -32600, "message": "Pas initialisé"}}
    assert replies[2] == {"jsonrpc": "2.0", "id": 3, **expected_list}


def test_a_refused_version_leaves_the_server_new() -> None:
    replies, _ = exchange([initialize(1, "1999-01-01"), initialize(2, "2024-11-05")])
    assert replies[0]["error"]["code"] == -32602
    assert replies[1]["result"]["protocolVersion"] == "2024-11-05"


def test_a_line_that_is_not_json_gets_a_parse_error_and_the_server_goes_on() -> None:
    replies, code = exchange(["{not json", request(7, "ping")])
    assert replies == [
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Erreur d’analyse"}},
        {"jsonrpc": "2.0", "id": 7, "result": {}},
    ]
    assert code == 0


@pytest.mark.parametrize(
    "line, expected_id",
    [
        ("42", None),
        ('"ping"', None),
        ("null", None),
        ({"jsonrpc": "2.0", "id": 9}, 9),
        ({"jsonrpc": "2.0", "id": 9, "method": 12}, 9),
        ({"jsonrpc": "2.0", "id": "x", "method": None}, "x"),
        ({}, None),
    ],
)
def test_a_message_that_is_not_a_request_gets_invalid_request(line: Any, expected_id: Any) -> None:
    replies, _ = exchange([line])
    assert replies == [{"jsonrpc": "2.0", "id": expected_id, "error": {"code": -32600, "message": "Requête invalide"}}]


def test_notifications_never_get_an_answer() -> None:
    notifications = [INITIALIZED, {"jsonrpc": "2.0", "method": "notifications/cancelled"},
                     {"jsonrpc": "2.0", "method": "tools/list"}]
    replies, code = exchange(notifications)
    assert (replies, code) == ([], 0)


def test_initialized_before_initialize_does_not_open_the_gate() -> None:
    replies, _ = exchange([INITIALIZED, request(1, "tools/list")])
    assert replies[0]["error"] == {"code": -32600, "message": "Pas initialisé"}


@pytest.mark.parametrize("request_id", [0, "0", "", "abc", -5])
def test_id_zero_and_string_ids_are_ids_like_any_other(request_id: Any) -> None:
    replies, _ = exchange([initialize(request_id), INITIALIZED, request(request_id, "tools/list")])
    assert [reply["id"] for reply in replies] == [request_id, request_id]
    assert replies[1]["result"] == {"tools": []}


def test_blank_lines_are_ignored_and_the_server_exits_0_at_end_of_input() -> None:
    replies, code = exchange(["", "   ", request(1, "ping"), ""])
    assert (replies, code) == ([{"jsonrpc": "2.0", "id": 1, "result": {}}], 0)


def test_server_info_names_the_kit_and_its_version() -> None:
    assert server.SERVER_INFO == SERVER_INFO


# ---------------------------------------------------------------- line by line, in this process


def test_a_session_walks_nouveau_attente_pret() -> None:
    session = reference.new_session()
    assert session.state == "nouveau"
    assert session.handle(initialize(1, "1999-01-01"))["error"]["code"] == -32602
    assert session.state == "nouveau"
    assert "result" in session.handle(initialize(2))
    assert session.state == "attente"
    assert session.handle(request(3, "ping")) == {"jsonrpc": "2.0", "id": 3, "result": {}}
    assert session.state == "attente"
    assert session.handle(INITIALIZED) is None
    assert session.state == "pret"
    assert session.handle(INITIALIZED) is None
    assert session.state == "pret"
    assert reference.states() == ["nouveau", "attente", "pret"]


def test_sessions_are_independent_and_speak_their_language() -> None:
    french, english = reference.new_session("fr"), reference.new_session("en")
    french.handle(initialize(1))
    assert french.state == "attente" and english.state == "nouveau"
    assert english.handle(request(2, "tools/list"))["error"]["message"] == "Not initialized"
    assert french.handle_line(b"{oops\n")["error"] == {"code": -32700, "message": "Erreur d\u2019analyse"}


def test_the_reference_replies_are_the_process_replies() -> None:
    lines = reference.encode_lines(SCENARIO) + b"not json\n" + reference.encode_lines([request(0, "ping")])
    replies, _ = exchange([line.decode() for line in lines.splitlines()])
    assert reference.reference_replies(lines, "fr") == replies
