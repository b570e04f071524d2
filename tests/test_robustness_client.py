"""The lesson's client (solutions/client.py) meets broken servers.

Each broken server is a tiny server.py in a temporary folder, next to copies of
solutions/client.py and solutions/model.py. The client runs as a real process (a
two-line wrapper shortens its limits so that the suite stays fast). For each case:
the exact problem line, a non-zero exit code, a bounded wall time, and nothing left
behind: no child of the client (running or zombie), no process of the server's group.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any, Callable, Iterator, NamedTuple

import pytest

from conftest import SOLUTIONS, refused_url

SILENCE_LIMIT = 1.5  # the client's 5 s limits, shortened for the tests (a busy 2-core
EXIT_LIMIT = SILENCE_LIMIT  # machine may take a second to start a Python server)
TAIL = 1 << 16  # bytes of each output kept: a flood must not fill the test's memory

# Runs the client as the lesson does, with shorter limits; then lists the children
# the client left behind (a zombie is one that was never waited for).
WRAPPER = """\
import os, sys
import client, server_replies
server_replies.SILENCE_LIMIT = server_replies.EXIT_LIMIT = float(sys.argv[1])  # seconds
sys.argv = sys.argv[:1]
code = server_replies.run_client(client.main)
children = []
for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
    try:
        stat = open(f"/proc/{entry}/stat").read()
    except OSError:
        continue
    state, parent = stat.rsplit(")", 1)[1].split()[:2]
    if entry.isdigit() and int(parent) == os.getpid():
        children.append(entry + " " + state)
with open("left-behind.txt", "w") as report:
    report.write("\\n".join(children))
sys.exit(code)
"""

# Started first by every broken server: it records its pid, and starts a child in
# its process group that sleeps; the client must kill that one too.
PRELUDE = """\
import os, subprocess, sys, time
open("server.pid", "w").write(str(os.getpid()))
child = subprocess.Popen(["sleep", "60"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
open("child.pid", "w").write(str(child.pid))
"""

# The lesson's six replies, as a correct server prints them (for servers that break later).
SIX_REPLIES = """\
import json
def reply(i, body):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": i, **body}) + "\\n")
CAPS = {"protocolVersion": "2024-11-05", "capabilities": {"tools": {"listChanged": False}},
        "serverInfo": {"name": "broken", "version": "0"}}
def six_replies():
    for i in range(1, 7):
        reply(i, {"error": {"code": -32602, "message": "no"}} if i == 2 else {"result": CAPS if i == 3 else {}})
    sys.stdout.flush()
"""

BROKEN_SERVERS = {
    "exits-at-once": "sys.exit(3)\n",
    "never-replies": "sys.stdin.read()\ntime.sleep(60)\n",
    "never-reads-never-replies": "time.sleep(60)\n",
    "replies-out-of-order": 'sys.stdout.write(\'{"jsonrpc":"2.0","id":2,"result":{}}\\n\')\nsys.stdout.flush()\n'
                            "time.sleep(60)\n",
    "replies-with-a-string-id": 'print(\'{"jsonrpc":"2.0","id":"1","result":{}}\', flush=True)\ntime.sleep(60)\n',
    "replies-without-an-id": 'print(\'{"jsonrpc":"2.0","result":{}}\', flush=True)\ntime.sleep(60)\n',
    "prints-garbage": 'print("Serveur prêt !", flush=True)\ntime.sleep(60)\n',
    "prints-binary-garbage": 'sys.stdout.buffer.write(b"\\xff\\xfe\\x00garbage\\n")\nsys.stdout.flush()\n'
                             "time.sleep(60)\n",
    "prints-deep-json": 'print("[" * 100000, flush=True)\ntime.sleep(60)\n',
    "prints-a-huge-line": 'sys.stdout.write("x" * (2 << 20))\nsys.stdout.flush()\ntime.sleep(60)\n',
    "prints-a-huge-reply": 'sys.stdout.write(\'{"jsonrpc":"2.0","id":1,"result":{"pad":"\' + "x" * (2 << 20) + '
                           '\'"}}\\n\')\nsys.stdout.flush()\ntime.sleep(60)\n',
    "floods-stderr-and-never-replies": "while True:\n    sys.stderr.write('x' * 65535 + '\\n')\n",
    "trickles-half-a-line": 'sys.stdout.write(\'{"jsonrpc":\')\nsys.stdout.flush()\ntime.sleep(60)\n',
    "closes-stdout-and-lives-on": "os.close(1)\ntime.sleep(60)\n",
    "exits-leaving-a-child-on-stdout": 'holder = subprocess.Popen(["sleep", "60"])\n'
                                       'open("child.pid", "w").write(str(holder.pid))\nos._exit(0)\n',
    "answers-then-ignores-end-of-input": SIX_REPLIES + "six_replies()\ntime.sleep(60)\n",
    "answers-then-floods-stdout": SIX_REPLIES + "six_replies()\nfor n in range(10**9):\n    print('{}')\n"
                                  "    if n % 1000 == 0:\n        open('written.tmp', 'w').write(str(n))\n"
                                  "        os.replace('written.tmp', 'written.txt')\n",
    "answers-then-exits-with-2": SIX_REPLIES + "six_replies()\nsys.stdin.read()\nsys.exit(2)\n",
    "answers-without-capabilities": SIX_REPLIES + "CAPS.clear()\nsix_replies()\nsys.stdin.read()\n",
}

# The exact problem line for each, in English (LAB_LANG=en).
SILENT = f"the server sent nothing for {SILENCE_LIMIT:g} s (reply 1 of 6 expected)"
NO_EXIT = f"the server did not stop {EXIT_LIMIT:g} s after its input ended"
PROBLEMS = {
    "exits-at-once": "the server stopped (code 3) after 0 of 6 replies",
    "never-replies": SILENT,
    "never-reads-never-replies": SILENT,
    "replies-out-of-order": "reply 1: expected id 1, got id 2",
    "replies-with-a-string-id": 'reply 1: expected id 1, got id "1"',
    "replies-without-an-id": "reply 1: expected id 1, got a reply without an id",
    "prints-garbage": 'the server wrote a line that is not a JSON object: "Serveur prêt !"',
    "prints-binary-garbage": 'the server wrote a line that is not a JSON object: "\ufffd\ufffd\\u0000garbage"',
    "prints-deep-json": 'the server wrote a line that is not a JSON object: "' + "[" * 200 + '"',
    "prints-a-huge-line": "the server wrote a line longer than 1048576 characters",
    "prints-a-huge-reply": "the server wrote a line longer than 1048576 characters",
    "floods-stderr-and-never-replies": SILENT,
    "trickles-half-a-line": SILENT,
    "closes-stdout-and-lives-on": "the server closed its output after 0 of 6 replies, and did not stop",
    "exits-leaving-a-child-on-stdout": SILENT,
    "answers-then-ignores-end-of-input": NO_EXIT,
    "answers-then-floods-stdout": NO_EXIT,
    "answers-then-exits-with-2": "the server stopped with code 2 instead of 0",
    "answers-without-capabilities": "reply 3 has no result.capabilities: "
                                    '{"jsonrpc": "2.0", "id": 3, "result": {}}',
}


class Run(NamedTuple):
    code: int | None
    stdout: str
    stderr_tail: str
    stderr_bytes: int
    seconds: float
    folder: Path


def drain(stream: IO[bytes], kept: bytearray, counted: list[int]) -> None:
    # Read to the end, keeping only the last TAIL bytes.
    while chunk := stream.read1(1 << 16):
        counted[0] += len(chunk)
        kept.extend(chunk)
        del kept[:-TAIL]


@pytest.fixture
def lab_folder(tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    """A folder with the client, the helper and this server.py; what the server
    recorded is killed at the end even if the client failed to (no test leaks)."""
    folders: list[Path] = []

    def make(server_code: str, name: str = "lab") -> Path:
        folder = tmp_path / name
        folders.append(folder)
        folder.mkdir()
        shutil.copy(SOLUTIONS / "client.py", folder)
        shutil.copy(SOLUTIONS / "model.py", folder)
        for helper in ("jsonrpc_lines.py", "server_replies.py", "model_setup.py"):  # the given modules
            shutil.copy(SOLUTIONS / helper, folder)
        (folder / "server.py").write_text(server_code)
        (folder / "run_client.py").write_text(WRAPPER)
        return folder

    yield make
    for folder in folders:
        for name in ("server.pid", "child.pid"):
            try:
                os.kill(int((folder / name).read_text()), signal.SIGKILL)
            except (OSError, ValueError):
                pass


def run_client(folder: Path, lang: str = "en", limit: float = SILENCE_LIMIT, timeout: float = 20) -> Run:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("AI_", "LAB_"))}
    env.update(LAB_LANG=lang, AI_URL=refused_url(), AI_TIMEOUT="1")
    started = time.monotonic()
    client = subprocess.Popen([sys.executable, "run_client.py", str(limit)], cwd=folder, env=env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    outputs = [(bytearray(), [0]), (bytearray(), [0])]
    readers = [threading.Thread(target=drain, args=(stream, *kept), daemon=True)
               for stream, kept in zip((client.stdout, client.stderr), outputs)]
    for reader in readers:
        reader.start()
    try:
        code: int | None = client.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        code = None
    seconds = time.monotonic() - started
    try:
        os.killpg(client.pid, signal.SIGKILL)  # whatever is left of the client's own group
    except ProcessLookupError:
        pass
    client.wait()
    for reader in readers:
        reader.join(timeout=5)
    (out, _), (err, err_count) = outputs
    return Run(code, out.decode(errors="replace"), err.decode(errors="replace"), err_count[0], seconds, folder)


def process_state(pid: int) -> str | None:
    """'R', 'S', 'Z'... or None when there is no such process any more."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def assert_nothing_left_behind(run: Run) -> None:
    assert (run.folder / "left-behind.txt").read_text() == ""  # no child of the client, not even a zombie
    for name in ("server.pid", "child.pid"):
        pid = int((run.folder / name).read_text())
        # Killed by the client with the server's group; once an orphan, its zombie is
        # reaped by init, which may take a moment.
        deadline = time.monotonic() + 10  # a wait that ends as soon as it is gone, not a speed figure
        while process_state(pid) not in (None, "Z") and time.monotonic() < deadline:
            time.sleep(0.02)
        assert process_state(pid) in (None, "Z"), f"{name} {pid} still runs"


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
@pytest.mark.parametrize("name", BROKEN_SERVERS)
def test_a_broken_server_gets_one_clear_line_a_failure_code_and_nothing_left(name: str, lab_folder: Any) -> None:
    run = run_client(lab_folder(PRELUDE + BROKEN_SERVERS[name]))
    assert run.code == 1  # it ended on its own limits: the harness's kill would leave no code
    assert run.stderr_tail.splitlines()[-1] == "Problem: " + PROBLEMS[name]
    assert "Traceback" not in run.stderr_tail
    assert_nothing_left_behind(run)


def test_the_problem_line_speaks_french_by_default(lab_folder: Any) -> None:
    run = run_client(lab_folder(PRELUDE + BROKEN_SERVERS["replies-out-of-order"]), lang="fr")
    assert run.code == 1
    assert run.stderr_tail.splitlines()[-1] == "Problème : réponse 1 : id 1 attendu, id 2 reçu"
    run = run_client(lab_folder(PRELUDE + BROKEN_SERVERS["replies-without-an-id"], name="no-id"), lang="fr")
    assert run.stderr_tail.splitlines()[-1] == "Problème : réponse 1 : id 1 attendu, une réponse sans id reçue"


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_a_server_flooding_stdout_after_its_replies_does_not_fill_the_clients_memory(lab_folder: Any) -> None:
    # While the client waits for it to stop, it must not store what a flooding server
    # writes (3 s of "{}" lines is hundreds of thousands of them, even on a busy
    # machine): it stops reading, so the full pipe holds the server back.
    run = run_client(lab_folder(PRELUDE + BROKEN_SERVERS["answers-then-floods-stdout"]), limit=3)
    assert run.stderr_tail.splitlines()[-1] == "Problem: the server did not stop 3 s after its input ended"
    written = int((run.folder / "written.txt").read_text())
    assert written < 50_000  # a 64 KB pipe, the reader's buffer and 64 queued lines hold about 25,000


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_a_server_that_floods_stderr_but_answers_well_is_not_blocked(lab_folder: Any) -> None:
    # Its stderr is the client's stderr (never a pipe nobody reads), so 16 MB of logs
    # cannot fill a pipe and freeze it: the scenario ends well.
    # The client's own 5 s limits: writing 16 MB may take longer than 0.5 s on a busy machine.
    flood = "for _ in range(256):\n    sys.stderr.write('log ' * 16384)\nsys.stderr.flush()\n"
    run = run_client(lab_folder(PRELUDE + flood + SIX_REPLIES + "six_replies()\nsys.stdin.read()\n"), limit=5)
    assert run.code == 0
    assert run.stderr_bytes >= 16 << 20
    lines = run.stdout.splitlines()
    assert (sum(line.startswith("-> ") for line in lines), sum(line.startswith("<- ") for line in lines)) == (7, 6)
    assert run.stdout.endswith("the model says: It can list tools, and it does not say its list will change.\n")
    assert_nothing_left_behind(run)


# A server on the official Python SDK that speaks first, as @modelcontextprotocol/server-everything
# does: a notification (a method, no id) before any reply. JSON-RPC and MCP allow it at any time.
NOTIFIES_FIRST = """\
import anyio
import mcp_types as types
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

server = MCPServer("notifies-first")


@server.tool()
def hello() -> str:
    return "hello"


async def main():
    low = server._lowlevel_server  # the SDK's own session loop, after one notification of its own
    async with stdio_server() as (read, write):
        await write.send(SessionMessage(types.JSONRPCNotification(jsonrpc="2.0",
                                                                  method="notifications/tools/list_changed")))
        await low.run(read, write, low.create_initialization_options())

anyio.run(main)
"""
NOTIFICATION_LINE = '<- {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}'


@pytest.mark.parametrize(("lang", "model_says"), [
    ("fr", "le modèle dit : Il peut lister des outils, et il ne dit pas que sa liste va changer."),
    ("en", "the model says: It can list tools, and it does not say its list will change."),
])
def test_a_notification_from_the_server_is_shown_and_skipped_not_taken_for_a_reply(lab_folder: Any, lang: str,
                                                                                    model_says: str) -> None:
    pytest.importorskip("mcp.server.mcpserver")
    # The SDK server takes seconds of CPU to start: on a busy machine, many.
    run = run_client(lab_folder(NOTIFIES_FIRST), lang=lang, limit=120, timeout=180)
    assert (run.code, "Traceback" in run.stderr_tail) == (0, False), run.stderr_tail
    received = [line for line in run.stdout.splitlines() if line.startswith("<- ")]
    assert received[0] == NOTIFICATION_LINE  # the transcript stays true: everything the server said
    assert [line.split('"id":')[1].split(",")[0] for line in received[1:]] == ["1", "2", "3", "4", "5", "6"]
    assert run.stdout.splitlines()[-1] == model_says


def test_the_reference_server_still_passes_through_the_same_harness(lab_folder: Any) -> None:
    # The harness itself must not make a good server fail.
    folder = lab_folder((SOLUTIONS / "server.py").read_text())
    run = run_client(folder)
    assert (run.code, run.stderr_tail) == (0, "")
    assert (folder / "left-behind.txt").read_text() == ""  # (0, "") above: no limit of its own was hit


@pytest.mark.parametrize("name", ["exits-at-once", "replies-out-of-order", "prints-garbage"])
def test_lab_run_passes_the_problem_line_and_the_failure_code_on(name: str, lab_folder: Any) -> None:
    folder = lab_folder(PRELUDE + BROKEN_SERVERS[name])
    env = {key: value for key, value in os.environ.items() if not key.startswith(("AI_", "LAB_"))}
    done = subprocess.run([sys.executable, "-m", "lab", "--lang", "en", "run", str(folder)], capture_output=True,
                          timeout=30, env={**env, "AI_URL": refused_url()}, cwd=folder)
    assert done.returncode == 1
    assert done.stderr.decode().splitlines()[-1] == "Problem: " + PROBLEMS[name]
