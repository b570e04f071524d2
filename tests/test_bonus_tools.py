"""tools/call on the bonus server, as the spec's tools page says, and on the lesson's server.

The bonus server announces `tools`, so `tools/call` is a method it has: a call to a tool it
does not have (it has none) is an error of the call, -32602 naming the tool, in the lesson's
language. The lesson's server keeps the lesson's rule: -32601 for anything it does not list.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import pytest
from mcp import StdioServerParameters
from mcp.client.client import Client
from mcp.shared.exceptions import MCPError

from conftest import INITIALIZED, initialize
from lab.checks import real_clients
from test_bonus import BONUS, CLIENT_LIMIT, LESSON, LATEST, exchange


def call(request_id: int, params: dict) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


UNKNOWN_TOOL = {"fr": "Outil inconnu : ", "en": "Unknown tool: "}


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_an_unknown_tool_gets_32602_naming_it_in_the_lessons_language(lang: str) -> None:
    replies = exchange(BONUS, [initialize(1, LATEST), INITIALIZED, call(2, {"name": "météo", "arguments": {}}),
                               call(3, {"arguments": {}}), call(4, {"name": ["a", 1]})], lang)
    assert replies[1:] == [
        {"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": UNKNOWN_TOOL[lang] + "météo"}},
        # no name, or not a string: still an unknown tool, shown as JSON
        {"jsonrpc": "2.0", "id": 3, "error": {"code": -32602, "message": UNKNOWN_TOOL[lang] + "null"}},
        {"jsonrpc": "2.0", "id": 4, "error": {"code": -32602, "message": UNKNOWN_TOOL[lang] + '["a", 1]'}},
    ]


def test_tools_call_passes_the_state_gate_first() -> None:
    replies = exchange(BONUS, [call(1, {"name": "x"}), initialize(2, LATEST), call(3, {"name": "x"})])
    assert [reply["error"] for reply in (replies[0], replies[2])] == [
        {"code": -32600, "message": "Pas initialisé"}, {"code": -32600, "message": "Pas initialisé"}]


def test_the_lessons_server_keeps_32601_for_tools_call() -> None:
    replies = exchange(LESSON, [initialize(1, "2024-11-05"), INITIALIZED, call(2, {"name": "x"})])
    assert replies[1] == {"jsonrpc": "2.0", "id": 2,
                          "error": {"code": -32601, "message": "Méthode inconnue : tools/call"}}


async def call_unknown_then_list(lang: str) -> tuple[MCPError, list]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LAB_LANG": lang}
    params = StdioServerParameters(command=sys.executable, args=[str(BONUS)], env=env)
    with anyio.fail_after(CLIENT_LIMIT):
        async with Client(params, mode="legacy") as client:
            try:
                await client.call_tool("météo", {"ville": "Lyon"})
            except BaseException as problem:  # noqa: B036 - anyio may wrap it in exception groups
                refusal = real_clients.find_exception(problem, MCPError)
                assert refusal is not None, repr(problem)
            else:
                raise AssertionError("call_tool on an unknown tool returned a result")
            listed = await client.list_tools()  # the session survived the error
            return refusal, listed.tools


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_the_sdk_clients_call_tool_sees_the_error_and_the_session_goes_on(lang: str) -> None:
    refusal, tools = anyio.run(call_unknown_then_list, lang)
    assert (refusal.error.code, refusal.error.message, refusal.error.data) == (
        -32602, UNKNOWN_TOOL[lang] + "météo", None)
    assert tools == []


def test_bonus_md_says_why_the_two_servers_differ() -> None:
    text = (Path(BONUS).parent / "BONUS.md").read_text(encoding="utf-8")
    for words in ("`tools/call`", "-32602", "-32601", "Unknown tool: "):
        assert words in text
