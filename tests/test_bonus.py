"""The bonus step: solutions/bonus_server.py negotiates as the spec says, and real clients connect.

Real clients here: the official `mcp` SDK client (in `legacy` mode and in its default
`auto` mode, which probes `server/discover` first) and the MCP Inspector CLI (through
npx; skipped with the reason when npx cannot fetch it).
"""

from __future__ import annotations

import json
import os
import subprocess
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import StdioServerParameters
from mcp.client.client import Client
from mcp.shared.exceptions import MCPError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from conftest import (INITIALIZED, ROOT, SOLUTIONS, as_lines, feed_server, initialize, load_module, refused_url,
                      request)
from lab.checks import real_clients
from lab.checks.reference import load
from lab.process.launch import Launch
from lab.process.result import Run

BONUS = SOLUTIONS / "bonus_server.py"
LESSON = SOLUTIONS / "server.py"
LATEST = "2025-11-25"
SUPPORTED = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
CLIENT_LIMIT = 20.0  # seconds for one SDK connection (it needs a fraction of one)


def load_bonus() -> Any:
    """solutions/bonus_server.py in this process, leaving no `server` or `jsonrpc_lines` on sys.path/sys.modules."""
    saved_path = list(sys.path)
    saved = {name: sys.modules.pop(name) for name in ("server", "jsonrpc_lines") if name in sys.modules}
    try:
        return load_module(BONUS, "solution_bonus_server")
    finally:
        sys.path[:] = saved_path
        for name in ("server", "jsonrpc_lines"):
            sys.modules.pop(name, None)
        sys.modules.update(saved)


bonus = load_bonus()


def exchange(server: Path, messages: list[dict], lang: str = "fr") -> list[dict]:
    done = feed_server(as_lines(messages), server, lang)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


# ---------------------------------------------------------------- the negotiation and the server


@pytest.mark.parametrize("version", SUPPORTED)
def test_spec_negotiation_echoes_a_supported_version(version: str) -> None:
    assert bonus.spec_negotiation(version, SUPPORTED) == version


@pytest.mark.parametrize("requested", ["1999-01-01", "2026-07-28", "2025-11-26", None, 20241105, ["2024-11-05"]])
def test_spec_negotiation_answers_anything_else_with_the_latest_supported_version(requested: Any) -> None:
    assert bonus.spec_negotiation(requested, SUPPORTED) == LATEST
    assert bonus.spec_negotiation(requested, ["2024-11-05"]) == "2024-11-05"


def test_the_bonus_speaks_the_handshake_era_newest_first_as_the_sdk_knows_it() -> None:
    assert bonus.HANDSHAKE_VERSIONS == SUPPORTED
    assert bonus.HANDSHAKE_VERSIONS == sorted(HANDSHAKE_PROTOCOL_VERSIONS, reverse=True)


def test_the_bonus_server_is_a_sans_io_session_with_the_spec_negotiation() -> None:
    session = bonus.make_session("en")
    assert type(session).__name__ == "Session" and session.negotiate is bonus.spec_negotiation
    assert session.versions == SUPPORTED
    assert session.handle_line(json.dumps(initialize(1, "1999-01-01")))["result"]["protocolVersion"] == LATEST
    assert session.state == "attente"
    assert bonus.TEXTS == load("server").TEXTS  # the lesson's words


def test_error_codes_are_the_json_rpc_table() -> None:
    assert (bonus.PARSE_ERROR, bonus.INVALID_REQUEST, bonus.METHOD_NOT_FOUND, bonus.INVALID_PARAMS,
            bonus.INTERNAL_ERROR) == (-32700, -32600, -32601, -32602, -32603)


PING_1 = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
INVALID_NULL = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid request"}}


@pytest.mark.parametrize("line, expected", [
    ([PING_1, request(2, "tools/list")], [[{"jsonrpc": "2.0", "id": 1, "result": {}},
                                           {"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}]]),
    ([PING_1, INITIALIZED, 5], [[{"jsonrpc": "2.0", "id": 1, "result": {}}, INVALID_NULL]]),
    ([INITIALIZED, INITIALIZED], []),
    ([{"jsonrpc": "2.0", "id": 1, "result": {}}], []),
    ([[PING_1]], [[INVALID_NULL]]),
    ([], [INVALID_NULL]),
    ([initialize(1, "2024-11-05")], [[{"jsonrpc": "2.0", "id": 1, "error": {"code": -32600, "message": "Invalid request"}}]]),
], ids=["two-requests", "notification-and-scalar", "notifications-only", "replies-only", "batch-in-a-batch",
        "empty", "initialize-in-a-batch"])
def test_the_bonus_server_answers_batches_as_2025_03_26_allows(line: Any, expected: list) -> None:
    # Ready first (except for the initialize row), then the batch on one line.
    prefix = [] if line and line[0] == initialize(1, "2024-11-05") else [initialize("setup", "2024-11-05"), INITIALIZED]
    done = feed_server(as_lines([*prefix, line]), BONUS, "en")
    replies = [json.loads(reply) for reply in done.stdout.splitlines()][1 if prefix else 0:]
    assert (done.returncode, replies) == (0, expected)


def test_the_lessons_scenario_against_the_bonus_server() -> None:
    replies = exchange(BONUS, [
        request(1, "tools/list"), initialize(2, "1999-01-01"), initialize(3, "2024-11-05"), request(4, "tools/list"),
        INITIALIZED, request(5, "tools/list"), request(6, "resources/list"),
    ])
    assert replies == [
        {"jsonrpc": "2.0", "id": 1, "error": {"code": -32600, "message": "Pas initialisé"}},
        {"jsonrpc": "2.0", "id": 2, "result": {"protocolVersion": LATEST,
                                                "capabilities": {"tools": {"listChanged": False}},
                                                "serverInfo": {"name": "mcp-handshake-lab", "version": "0.1.0"}}},
        {"jsonrpc": "2.0", "id": 3, "error": {"code": -32600, "message": "Déjà initialisé"}},
        {"jsonrpc": "2.0", "id": 4, "error": {"code": -32600, "message": "Pas initialisé"}},
        {"jsonrpc": "2.0", "id": 5, "result": {"tools": []}},
        {"jsonrpc": "2.0", "id": 6, "error": {"code": -32601, "message": "Méthode inconnue : resources/list"}},
    ]


@pytest.mark.parametrize("version", SUPPORTED)
def test_each_handshake_version_is_echoed_over_the_pipes(version: str) -> None:
    [reply] = exchange(BONUS, [initialize(0, version)])
    assert reply["id"] == 0
    assert reply["result"]["protocolVersion"] == version


def test_server_discover_gets_an_error_in_every_state_never_silence() -> None:
    replies = exchange(BONUS, [
        request("new", "server/discover"), initialize("i", "2025-06-18"), request("waiting", "server/discover"),
        INITIALIZED, request("ready", "server/discover"),
    ], lang="en")
    assert [(reply["id"], reply.get("error", {}).get("code")) for reply in replies] == [
        ("new", -32600), ("i", None), ("waiting", -32600), ("ready", -32601),
    ]
    assert replies[-1]["error"]["message"] == "Unknown method: server/discover"


# ---------------------------------------------------------------- the mcp SDK client, in this process

RECORDER = '''
import subprocess, sys, threading
log_path, *command = sys.argv[1:]
log = open(log_path, "a", encoding="utf-8")
lock = threading.Lock()
child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)

def record(prefix, line):
    with lock:
        log.write(prefix + line.decode())
        log.flush()

def forward_replies():
    for line in child.stdout:
        record("<- ", line)
        sys.stdout.buffer.write(line)
        sys.stdout.buffer.flush()

replies = threading.Thread(target=forward_replies)
replies.start()
for line in sys.stdin.buffer:
    record("-> ", line)
    child.stdin.write(line)
    child.stdin.flush()
child.stdin.close()
code = child.wait(timeout=10)
replies.join(timeout=10)
sys.exit(code)
'''


def recorded(tmp_path: Path, server: Path) -> tuple[list[str], Path]:
    """A command that runs `server` behind a recorder of every line, both ways."""
    (tmp_path / "recorder.py").write_text(RECORDER)
    log = tmp_path / "wire.log"
    return [sys.executable, str(tmp_path / "recorder.py"), str(log), sys.executable, str(server)], log


def wire(log: Path) -> list[tuple[str, dict]]:
    return [(line[:2], json.loads(line[3:])) for line in log.read_text(encoding="utf-8").splitlines()]


async def connect(command: list[str], mode: str) -> tuple[str, list, dict]:
    with anyio.fail_after(CLIENT_LIMIT):
        async with Client(StdioServerParameters(command=command[0], args=command[1:]), mode=mode) as client:
            listed = await client.list_tools()
            capabilities = client.server_capabilities.model_dump(mode="json", by_alias=True, exclude_none=True)
            return client.protocol_version, listed.tools, capabilities


def test_the_sdk_client_in_legacy_mode_connects_with_the_initialize_handshake(tmp_path: Path) -> None:
    command, log = recorded(tmp_path, BONUS)
    version, tools, capabilities = anyio.run(connect, command, "legacy")
    assert (version, tools, capabilities) == (LATEST, [], {"tools": {"listChanged": False}})
    exchanged = wire(log)
    assert [(way, message.get("method")) for way, message in exchanged] == [
        ("->", "initialize"), ("<-", None), ("->", "notifications/initialized"), ("->", "tools/list"), ("<-", None),
    ]
    assert exchanged[0][1]["params"]["protocolVersion"] == LATEST  # what the SDK offers


def test_the_sdk_client_in_auto_mode_probes_server_discover_then_falls_back_to_initialize(tmp_path: Path) -> None:
    command, log = recorded(tmp_path, BONUS)
    version, tools, _ = anyio.run(connect, command, "auto")
    assert (version, tools) == (LATEST, [])
    exchanged = wire(log)
    assert [(way, message.get("method")) for way, message in exchanged] == [
        ("->", "server/discover"), ("<-", None), ("->", "initialize"), ("<-", None),
        ("->", "notifications/initialized"), ("->", "tools/list"), ("<-", None),
    ]
    probe, answer = exchanged[0][1], exchanged[1][1]
    assert answer == {"jsonrpc": "2.0", "id": probe["id"], "error": {"code": -32600, "message": "Pas initialisé"}}


def test_auto_is_the_sdk_clients_default_mode() -> None:
    assert Client(StdioServerParameters(command=sys.executable, args=[str(BONUS)])).mode == "auto"


async def refusal(server: Path, mode: str) -> MCPError:
    try:
        await connect([sys.executable, str(server)], mode)
    except BaseException as problem:  # noqa: B036 - anyio wraps the SDK's error in exception groups
        found = real_clients.find_exception(problem, MCPError)
        assert found is not None, repr(problem)
        return found
    raise AssertionError("the lesson's strict server let the SDK client connect")


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_the_lessons_strict_server_refuses_the_sdk_client_with_a_clear_32602(mode: str) -> None:
    error = anyio.run(refusal, LESSON, mode)
    assert error.error.code == -32602
    assert error.error.message == "Version non prise en charge"
    assert error.error.data == {"requested": LATEST, "supported": ["2025-03-26", "2024-11-05"]}


# ---------------------------------------------------------------- lab.checks.real_clients: the same, in child processes


# (run_sdk on the bonus server: tests/test_checks_bonus.py, through the graded checks.)


def said(run: real_clients.RealClientRun, lang: str) -> str:
    """A real client's reason key, written as the bonus checks write it."""
    from lab.checks.texts import say

    return say(lang, run.reason, **run.fields)


def test_run_sdk_reports_the_lessons_refusal_with_its_data() -> None:
    [run] = real_clients.run_sdk(LESSON, modes=("auto",))
    assert (run.client, run.outcome) == ("sdk-auto", "refused")
    assert run.error == {"code": -32602, "message": "Version non prise en charge",
                         "data": {"requested": LATEST, "supported": ["2025-03-26", "2024-11-05"]}}
    assert (run.reason, run.fields) == ("real.mcp_error", {"code": -32602, "message": "Version non prise en charge"})
    assert said(run, "en") == "MCP error -32602: Version non prise en charge"
    assert said(run, "fr") == "erreur MCP -32602 : Version non prise en charge"


def test_run_sdk_stops_a_silent_server_at_its_limit(tmp_path: Path) -> None:
    silent = tmp_path / "silent.py"
    silent.write_text("import sys\nsys.stdin.read()\n")  # reads everything, answers nothing
    [run] = real_clients.run_sdk(silent, modes=("legacy",), step_limit=0.5)
    assert (run.outcome, run.reason, run.fields) == ("failed", "real.no_answer", {"seconds": 0.5})
    assert (said(run, "en"), said(run, "fr")) == ("no answer within 0.5 s", "aucune réponse en 0.5 s")


def test_without_the_sdk_installed_its_runs_are_unavailable_with_the_reason(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # The child runs `python -I` (no PYTHONPATH): an interpreter of a virtual environment
    # without the SDK stands for a kit installed without it.
    import venv

    venv.create(tmp_path / "bare", with_pip=False)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "bare" / "bin" / "python"))
    runs = real_clients.run_sdk(BONUS)
    fields = {"missing": "No module named 'anyio'"}
    assert [(run.client, run.outcome, run.reason, run.fields) for run in runs] == [
        ("sdk-legacy", "unavailable", "real.sdk_missing", fields), ("sdk-auto", "unavailable", "real.sdk_missing", fields)]
    assert said(runs[0], "en") == "the mcp SDK is not installed (No module named 'anyio'): pip install -e '.[test]'"


def test_a_real_clients_server_gets_the_run_s_language_whatever_the_environment_says(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LAB_LANG", "fr")
    command, env = real_clients.server_command(BONUS, Launch(), "en")
    assert command == [sys.executable, str(BONUS)] and env["LAB_LANG"] == "en"


def inspector(server: Path) -> real_clients.RealClientRun:
    run = real_clients.run_inspector(server)
    if run.outcome == real_clients.UNAVAILABLE:
        pytest.skip(f"the MCP Inspector cannot run here: {said(run, 'en')}")
    return run


def test_the_inspector_cli_lists_no_tools_from_the_bonus_server() -> None:
    run = inspector(BONUS)
    assert (run.outcome, run.tools, run.reason, run.fields) == ("connected", [], "", {})


@pytest.mark.parametrize("code, out, err, fetched, expected", [
    (0, '{\n  "tools": []\n}\n', "", False, ("connected", None, "")),
    (1, "", "Failed to connect to MCP server: MCP error -32602: Version non prise en charge\n", False,
     ("refused", {"code": -32602, "message": "Version non prise en charge"},
      "Failed to connect to MCP server: MCP error -32602: Version non prise en charge")),
    (1, "", "Failed to list tools: Connection lost\n", False, ("failed", None, "Failed to list tools: Connection lost")),
    (None, "", "", False, ("failed", None, f"the Inspector got no answer within {real_clients.INSPECTOR_LIMIT:g} s")),
    (None, "", "", True, ("unavailable", None,
                          f"npx did not fetch and run @modelcontextprotocol/inspector within {real_clients.FETCH_LIMIT:g} s")),
    (1, "", "npm error code E404\nnpm error 404 Not Found - GET https://registry/x\n", True,
     ("unavailable", None, "npx could not run @modelcontextprotocol/inspector: code E404")),
    (0, "Starting MCP inspector...\n", "", False, ("failed", None, "the Inspector printed no JSON: Starting MCP inspector...\n")),
    # The server's stderr comes through before the Inspector's own line: a log line, a flood of brackets.
    (1, "", 'serveur démarré\n{"error":{"code":"error","message":"Version non prise en charge"}}\n', False,
     ("refused", {"code": "error", "message": "Version non prise en charge"}, "Version non prise en charge")),
    (1, "", "[" * 60_000 + '\n{"error":{"code":"error","message":"Connection closed"}}\n', False,
     ("refused", {"code": "error", "message": "Connection closed"}, "Connection closed")),
])
def test_the_inspectors_outcome_is_read_from_what_it_printed(code, out, err, fetched, expected) -> None:
    limit = real_clients.FETCH_LIMIT if fetched else real_clients.INSPECTOR_LIMIT
    run = real_clients.inspector_outcome(Run(out.encode(), err.encode(), code, 0.0), limit, fetched)
    assert (run.outcome, run.error, said(run, "en") if run.reason else "") == expected


def test_without_npx_the_inspector_is_unavailable_with_the_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    run = real_clients.run_inspector(BONUS)
    assert (run.outcome, run.reason, said(run, "fr")) == \
        ("unavailable", "real.no_npx", "npx n’est pas dans le PATH (Node.js n’est pas installé)")


# ---------------------------------------------------------------- the same clients, as `lab grade --bonus` runs them


def test_the_inspectors_own_command_answers_as_npx_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """lab grade --bonus looks the Inspector up once in npx's cache and runs its command with
    node: npm's start (about 0.6 s of CPU) is spared, what the Inspector says is the same."""
    through_npx = [inspector(BONUS), real_clients.run_inspector(LESSON)]
    entry = real_clients.inspector_entry()
    assert entry is not None
    package = Path(entry.split("/node_modules/")[0]) / "node_modules" / "@modelcontextprotocol" / "inspector"
    declared = json.loads((package / "package.json").read_text(encoding="utf-8"))
    assert declared["version"] == real_clients.INSPECTOR_VERSION  # the pinned one, whatever else is cached
    assert Path(entry) == (package / declared["bin"]["mcp-inspector"]).resolve()
    commands = []
    run_capped = real_clients.run_capped
    monkeypatch.setattr(real_clients, "run_capped", lambda args, *more, **options: commands.append(args) or
                        run_capped(args, *more, **options))
    given = Launch(inspector=entry)
    direct = [real_clients.run_inspector(BONUS, launch=given), real_clients.run_inspector(LESSON, launch=given)]
    assert [command[:3] for command in commands] == [[shutil.which("node"), entry, "--cli"]] * 2  # no npx
    assert direct == through_npx
    assert [run.outcome for run in direct] == ["connected", "refused"]


def test_the_class_names_the_inspector_only_for_the_bonus() -> None:
    from lab.grading.classroom import class_inspector

    entry = real_clients.inspector_entry()
    if entry is None:
        pytest.skip("the MCP Inspector is not in npx's cache here")
    assert class_inspector(bonus=True) == entry
    assert class_inspector(bonus=False) == ""


def test_under_lab_grade_the_sdk_client_is_forked_from_the_preloader(monkeypatch: pytest.MonkeyPatch) -> None:
    from lab.grading.classroom import BONUS_PRELOAD
    from lab.process import trusted
    from lab.process.preloader import preloader

    forks = []
    real_fork = trusted.fork
    monkeypatch.setattr(trusted, "fork", lambda *args, **kwargs: forks.append(real_fork(*args, **kwargs)) or forks[-1])
    assert {"mcp", "lab.checks.real_clients"} <= set(BONUS_PRELOAD.modules)  # loaded once for the class
    with preloader(60, 2 << 30, 64 << 20, dict(os.environ), BONUS_PRELOAD) as address:
        assert address is not None
        [run] = real_clients.run_sdk(LESSON, modes=("auto",), launch=Launch(preloader=address))
    assert len(forks) == 1 and forks[0].control is not None  # a fork, no new interpreter
    assert (run.client, run.outcome, said(run, "en")) == ("sdk-auto", "refused", "MCP error -32602: Version non prise en charge")


# ---------------------------------------------------------------- the lesson's client and `lab run --server bonus`


def test_the_client_explains_the_first_initialize_that_succeeded() -> None:
    replies = load("server_replies")
    lesson = [{"id": 1, "error": {}}, {"id": 2, "error": {}},
              {"id": 3, "result": {"protocolVersion": "2024-11-05", "capabilities": {"a": 1}}}]
    spec = [{"id": 1, "error": {}}, {"id": 2, "result": {"protocolVersion": LATEST, "capabilities": {"b": 2}}},
            {"id": 3, "error": {}}]
    assert replies.announced_capabilities(lesson) == {"a": 1}
    assert replies.announced_capabilities(spec) == {"b": 2}
    with pytest.raises(replies.ServerProblem) as problem:
        replies.announced_capabilities([{"id": 1}, {"id": 2, "result": {"protocolVersion": "x"}}, {"id": 3}])
    assert problem.value.fields == {"number": 2, "reply": '{"id": 2, "result": {"protocolVersion": "x"}}'}


def lab(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("AI_", "LAB_"))}
    return subprocess.run([sys.executable, "-m", "lab", *args], capture_output=True, text=True, timeout=60,
                          env={**environment, **env}, cwd=ROOT)


def test_lab_run_server_bonus_shows_the_lessons_scenario_against_the_bonus_server(fake_model: Any) -> None:
    endpoint = fake_model()
    done = lab("run", "--server", "bonus", env={"AI_URL": endpoint.url})
    assert done.returncode == 0, done.stderr
    received = [json.loads(line[3:]) for line in done.stdout.splitlines() if line.startswith("<- ")]
    assert [reply["id"] for reply in received] == [1, 2, 3, 4, 5, 6]
    assert [reply.get("error", {}).get("code") for reply in received] == [-32600, None, -32600, -32600, None, -32601]
    assert received[1]["result"]["protocolVersion"] == LATEST
    assert done.stdout.splitlines()[-1] == "le modèle dit : Il liste des outils."
    [asked] = endpoint.requests
    assert asked["json"]["messages"][-1]["content"].endswith(': {"tools":{"listChanged":false}}')


def test_lab_run_server_bonus_needs_a_bonus_server_in_the_folder(tmp_path: Path) -> None:
    for name in ("client.py", "server.py", "model.py"):
        (tmp_path / name).write_text((SOLUTIONS / name).read_text(encoding="utf-8"), encoding="utf-8")
    done = lab("run", str(tmp_path), "--server", "bonus", env={"AI_URL": refused_url()})
    assert done.returncode == 2
    assert "Fichier introuvable : " + str(tmp_path / "bonus_server.py") in done.stderr


# ---------------------------------------------------------------- `lab grade --bonus` against hostile bonus servers


def grade_bonus_class(submissions: list[Path], out: Path, env: dict[str, str] | None = None,
                      ) -> subprocess.CompletedProcess:
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("AI_", "LAB_"))}
    command = [sys.executable, "-m", "lab", "--lang", "en", "grade", *map(str, submissions), "--bonus",
               "--format", "gradescope", "--out", str(out), "--timeout", "90", "--jobs", "3"]
    return subprocess.run(command, capture_output=True, text=True, timeout=400, cwd=out.parent,
                          env={**environment, "PYTHONPATH": str(ROOT), **(env or {})})


def statuses(out: Path, name: str) -> dict[str, tuple[str, str]]:
    """check id -> (status, output) in the submission's Gradescope results."""
    results = json.loads((out / name / "results.json").read_text(encoding="utf-8"))
    return {test["name"].rsplit("(", 1)[1].rstrip(")"): (test["status"], test["output"]) for test in results["tests"]}


@pytest.fixture(scope="module")
def bonus_class(tmp_path_factory: pytest.TempPathFactory) -> dict:
    from hostile import tree_digest, with_prelude
    from hostile.attacks import planted_inspector_prelude, swapped_server_main, swapped_server_prelude
    from lab.process import sandbox

    if sandbox.find()[0] is None:
        pytest.skip("bubblewrap cannot run here (.ci/run installs it)")
    if real_clients.inspector_entry() is None:
        pytest.skip("the MCP Inspector is not in npx's cache here")
    root = tmp_path_factory.mktemp("bonus-class")
    class_folder = root / "class"
    folders = {name: class_folder / name for name in ("victim", "planted", "swapped")}
    for folder in folders.values():
        shutil.copytree(SOLUTIONS, folder, ignore=shutil.ignore_patterns("__pycache__"))
    markers = {"planted": root / "planted-ran.txt", "swapped": class_folder / "swapped-ran.txt"}
    preludes = {"planted": planted_inspector_prelude(markers["planted"]),
                "swapped": swapped_server_prelude(folders["swapped"], folders["victim"], markers["swapped"])}
    for name, prelude in preludes.items():
        server = folders[name] / "bonus_server.py"
        server.write_text(with_prelude(server.read_text(encoding="utf-8"), prelude), encoding="utf-8")
    (folders["swapped"] / "__main__.py").write_text(swapped_server_main(folders["victim"], markers["swapped"]))
    victim = tree_digest(folders["victim"])
    done = grade_bonus_class(list(folders.values()), root / "out")
    return {"done": done, "out": root / "out", "markers": markers, "victim": folders["victim"], "digest": victim}


BONUS_CLIENT_CHECKS = ("bonus.sdk-legacy", "bonus.sdk-auto", "bonus.inspector")


def test_graded_with_the_bonus_the_honest_submission_keeps_full_marks(bonus_class: dict) -> None:
    from hostile import tree_digest

    assert bonus_class["done"].returncode == 0, bonus_class["done"].stderr
    victim = statuses(bonus_class["out"], "victim")
    assert {check for check in BONUS_CLIENT_CHECKS if victim[check][0] == "passed"} == set(BONUS_CLIENT_CHECKS)
    assert {status for status, _ in victim.values()} == {"passed"}
    assert tree_digest(bonus_class["victim"]) == bonus_class["digest"]


def test_an_inspector_planted_in_the_private_copy_never_runs(bonus_class: dict) -> None:
    """Attack #4: npx would prefer the package (or the .npmrc) a bonus server writes in its folder."""
    assert not bonus_class["markers"]["planted"].exists()
    planted = statuses(bonus_class["out"], "planted")
    assert planted["bonus.inspector"][0] == "passed"  # the kit's own Inspector, against the honest server


def test_a_bonus_server_made_a_link_to_a_folder_is_not_started_and_binds_nothing(bonus_class: dict) -> None:
    """Attack #5: a client that resolved the link would bind the class folder read-write."""
    assert not bonus_class["markers"]["swapped"].exists()
    swapped = statuses(bonus_class["out"], "swapped")
    # The swap fails at once: a sandboxed process's folder is read-only (lab/process/sandbox.py),
    # so the file stays the submission's regular file and the real clients start it. Were it
    # made a link anyway (unsandboxed), none would start it (real_clients.not_a_server_file).
    assert {check: swapped[check][0] for check in BONUS_CLIENT_CHECKS} == dict.fromkeys(BONUS_CLIENT_CHECKS, "passed")


def test_lab_grade_bonus_without_the_inspector_stops_before_grading(tmp_path: Path) -> None:
    folder = tmp_path / "work"
    shutil.copytree(SOLUTIONS, folder, ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "out").mkdir()
    done = grade_bonus_class([folder], tmp_path / "out", env={"npm_config_cache": str(tmp_path / "empty-cache")})
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == "Error: " + text_of("en", "grade.no_inspector", package=real_clients.INSPECTOR)
    # Nothing graded: the submission's file says why, as a kit error (never a zero), so that a
    # platform's reporter reads a file (docs/platforms.md, "A results file whatever happens").
    import csv

    with (tmp_path / "out" / "summary.csv").open(newline="", encoding="utf-8") as handle:
        [row] = list(csv.DictReader(handle))
    assert (row["score"], row["status"]) == ("", "kit-error")
    assert row["error"] == text_of("en", "grade.no_inspector", package=real_clients.INSPECTOR).splitlines()[0]
    assert not list(folder.glob("node_modules"))


def text_of(lang: str, key: str, **fields: str) -> str:
    from lab.i18n import text

    return text(lang, key, **fields)
