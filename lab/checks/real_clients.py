"""Real MCP clients against a server file: the official `mcp` SDK and the MCP Inspector CLI, for
the bonus step's tests and graded checks.

Each is slow to start, so runs in a child process of the kit's, trusted
(lab/process/trusted.py::start_trusted): `python -I` or node, in a fresh temporary folder of the
kit's (never the submission's, where student code may have written a `json.py`, a
`node_modules/` or a `.npmrc`), killed with its process group when late, its output read as it
comes and capped (lab/process/capped.py::read_run). Every run ends as one `RealClientRun`:
connected (the handshake worked and `tools/list` answered), refused (a JSON-RPC error), failed
(anything else the server did wrong), or unavailable (the client cannot run here: a check skips
instead of failing). Its `reason` is a key of lab/checks/bonus.py's `REASONS` with plain
`fields`, never a sentence: the bonus checks write it in the student's language.

Under `lab grade` the Inspector is only the one found in npx's cache before grading started (the
launch context's `inspector`). The server file a client starts is the kit's own path to it,
never resolved through links, and checked to be a regular file just before each start: a
`bonus_server.py` that student code turned into a link or a folder fails the check, and the
sandbox's one writable folder stays the private copy the kit made.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Optional

from lab.layout import KIT_PARENT
from lab.process.launch import HERE, Launch
from lab.process.capped import parse_json, read_run
from lab.process.result import Run
from lab.process.trusted import start_trusted, trusted_python
from lab import time_limits

CONNECTED, REFUSED, FAILED, UNAVAILABLE = "connected", "refused", "failed", "unavailable"

SDK_MODES = ("legacy", "auto")
SDK_STEP_LIMIT, SDK_LIMIT = time_limits.SDK_STEP, time_limits.SDK  # why: lab/time_limits.py

INSPECTOR_PACKAGE = "@modelcontextprotocol/inspector"
# Pinned: npx would otherwise take whatever the registry and the local Node give (on Node 20
# an old 0.15). This version needs Node >= 22.19 (its `engines`); the Gradescope bundle
# installs both (lab/grading/bundle.py), and its CLI's tools/list still runs on Node 20.
INSPECTOR_VERSION = "2.12.0"
INSPECTOR = f"{INSPECTOR_PACKAGE}@{INSPECTOR_VERSION}"
SDK_REQUIREMENT = "mcp==2.3.0"  # the SDK release the bonus checks are tested with (the bundle installs it)
INSPECTOR_LIMIT, FETCH_LIMIT = time_limits.INSPECTOR, time_limits.INSPECTOR_FETCH
# npm's own defaults retry for minutes; no registry must mean a quick, clear skip.
QUIET_NPM = {"npm_config_update_notifier": "false", "npm_config_fund": "false", "npm_config_audit": "false",
             # Node 22's HTTP client (undici) reserves gigabytes of address space for WebAssembly guard
             # regions: under the check run's RLIMIT_AS (--memory) it failed "Out of memory" at start.
             "NODE_OPTIONS": "--disable-wasm-trap-handler"}
FAIL_FAST_NPM = {"npm_config_fetch_retries": "0", "npm_config_fetch_timeout": "30000"}
OUTPUT_CAP = 64 * 1024  # bytes of a child's stdout or stderr worth reading


@dataclass
class RealClientRun:
    client: str  # "sdk-legacy", "sdk-auto" or "inspector"
    outcome: str  # CONNECTED, REFUSED, FAILED or UNAVAILABLE
    version: str = ""  # the negotiated protocol version (the Inspector CLI does not print it)
    tools: Optional[list] = None
    capabilities: Optional[dict] = None
    error: Optional[dict] = None  # the server's JSON-RPC error: code, message, data
    reason: str = ""  # why it did not connect: a key of bonus.py's REASONS ("real.…")
    fields: dict = field(default_factory=dict)  # the reason's fields

    @classmethod
    def from_dict(cls, data: dict) -> "RealClientRun":
        return cls(**{key: data[key] for key in cls.__dataclass_fields__ if key in data})


def run_capped(args: list[str], timeout: float, cwd: str, forked: Optional[tuple[str, str, list[str]]] = None,
               env: Optional[dict[str, str]] = None) -> Run:
    """Run a trusted process to the end, or kill it at `timeout` (its code None then), its
    stdout and stderr each capped at OUTPUT_CAP bytes. `cwd`: a folder of the kit's
    (client_folder), never one student code can write. `forked`: see start_trusted (the SDK
    child, forked with the SDK imported by `lab grade`'s preloader)."""
    started = time.monotonic()
    process = start_trusted(args, dict(os.environ) if env is None else env, cwd=cwd, forked=forked)
    return read_run(process, started, timeout, OUTPUT_CAP, OUTPUT_CAP)


def client_folder() -> tempfile.TemporaryDirectory:
    """A fresh, empty folder of the kit's for a client to work in (under `lab grade`, TMPDIR is
    the submission's holder folder, which no sandbox sees)."""
    return tempfile.TemporaryDirectory(prefix="lab-client-")


def server_path(server: Path) -> Path:
    """The server file as the kit names it: absolute, links left as they are (never resolved)."""
    return Path(os.path.abspath(server))


def not_a_server_file(client: str, server: Path) -> RealClientRun | None:
    """None when `server` is a regular file, reached without following a link at its name; else
    the client's failed run: it is not started (student code made it a link or a folder, or removed it)."""
    from lab.checks.reference import open_regular

    try:
        os.close(open_regular(server))
    except OSError:
        return RealClientRun(client, FAILED, reason="real.not_a_file", fields={"file": server.name})
    return None


def server_command(server: Path, launch: Launch = HERE, lang: str = "fr") -> tuple[list[str], dict[str, str]]:
    """How a client starts `python server`: inside the launch context's sandbox when there is
    one (the client itself stays outside, so its report is out of the server's reach), and
    with what environment: the one every student process gets (the sandbox's: only what a server
    needs; never the kit's PYTHONUNBUFFERED, or a client would pass a server that never flushes
    where the docker lab sets it, and fail it where it does not), in the run's language."""
    from lab.process.student import child_env, student_command

    command = student_command(launch, [sys.executable, str(server)], server.parent, lang)  # the sandbox binds only that folder
    return command, child_env(launch, lang)


# ---------------------------------------------------------------- the mcp SDK client


def run_sdk(server: Path, modes: tuple[str, ...] = SDK_MODES, limit: float = SDK_LIMIT,
            step_limit: Optional[float] = None, launch: Launch = HERE, lang: str = "fr") -> list[RealClientRun]:
    """The SDK's `Client` over stdio against `python server`, once per mode, in one child."""
    step_limit = SDK_STEP_LIMIT if step_limit is None else step_limit
    # `-I`: neither the working folder nor PYTHON* variables reach sys.path; the kit's folder is
    # put first on it, so the child finds `lab` even where it is not installed.
    child = f"import sys; sys.path.insert(0, {str(KIT_PARENT)!r}); from lab.checks.real_clients import sdk_child; sdk_child(sys.argv[1:])"
    arguments = [str(server_path(server)), str(step_limit), launch.to_json(), lang, *modes]
    with client_folder() as folder:
        done = run_capped(trusted_python(["-c", child, *arguments]), limit, folder,
                          forked=(launch.preloader, "lab.checks.real_clients", arguments) if launch.preloader else None)
    runs = {}
    for line in done.stdout_lines():
        try:
            run = RealClientRun.from_dict(parse_json(line, 1 << 20))
        except (ValueError, TypeError):
            continue
        runs[run.client] = run
    if done.timed_out:
        why, fields = "real.sdk_late", {"seconds": limit}
    elif last_line(done.err):
        why, fields = "real.said", {"said": last_line(done.err)}
    else:
        why, fields = "real.sdk_stopped", {"code": done.code}
    return [runs.get(f"sdk-{mode}") or RealClientRun(f"sdk-{mode}", FAILED, reason=why, fields=fields) for mode in modes]


SDK_MODULES = ("mcp", "anyio")  # what sdk_child imports


def sdk_missing() -> str:
    """The SDK module this interpreter cannot import ("" when it has them all): without it every
    SDK check is skipped, so `lab grade --bonus` stops first (lab/grading/classroom.py)."""
    import importlib.util

    for name in SDK_MODULES:
        try:
            if importlib.util.find_spec(name) is None:
                return name
        except (ImportError, ValueError):
            return name
    return ""


def sdk_child(argv: list[str]) -> None:
    """In the child: print one RealClientRun as a JSON line per mode."""
    server, step_limit, launch, lang, *modes = argv
    try:
        import anyio
        import mcp  # noqa: F401
    except ImportError as missing:
        for mode in modes:
            print(json.dumps(asdict(RealClientRun(f"sdk-{mode}", UNAVAILABLE, reason="real.sdk_missing",
                                                  fields={"missing": str(missing)}))), flush=True)
        return
    for mode in modes:  # the file is checked again before each start: the last server may have changed it
        run = not_a_server_file(f"sdk-{mode}", Path(server)) or anyio.run(
            sdk_once, server, mode, float(step_limit), Launch.from_json(launch), lang)
        print(json.dumps(asdict(run)), flush=True)


async def sdk_once(server: str, mode: str, step_limit: float, launch: Launch = HERE, lang: str = "fr") -> RealClientRun:
    import anyio
    from mcp import StdioServerParameters
    from mcp.client.client import Client
    from mcp.client.stdio import stdio_client
    from mcp.shared.exceptions import MCPError

    name = f"sdk-{mode}"
    # The whole environment (the SDK would pass only PATH, HOME and a few more): the server then
    # carries what a grader marks its processes with, and LAB_LANG.
    command, env = server_command(Path(server), launch, lang)
    # Sandboxed, the server's folder is set inside the sandbox (and bwrap starts in the client's own).
    cwd = None if launch.sandbox is not None else str(Path(server).parent)
    params = StdioServerParameters(command=command[0], args=command[1:], cwd=cwd, env=env)
    with open(os.devnull, "w") as quiet:  # the server's stderr: nobody reads it here
        try:
            with anyio.fail_after(step_limit):
                async with Client(stdio_client(params, errlog=quiet), mode=mode) as client:
                    listed = await client.list_tools()
                    return RealClientRun(
                        name, CONNECTED, version=client.protocol_version,
                        tools=[tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in listed.tools],
                        capabilities=client.server_capabilities.model_dump(mode="json", by_alias=True, exclude_none=True),
                    )
        except BaseException as problem:  # noqa: B036 - the child reports every ending, then exits
            refusal = find_exception(problem, MCPError)
            if refusal is not None:
                error = {"code": refusal.error.code, "message": refusal.error.message, "data": refusal.error.data}
                return RealClientRun(name, REFUSED, error=error, reason="real.mcp_error",
                                     fields={"code": refusal.error.code, "message": refusal.error.message})
            if find_exception(problem, TimeoutError) is not None:
                return RealClientRun(name, FAILED, reason="real.no_answer", fields={"seconds": step_limit})
            cause = find_exception(problem, Exception) or problem
            return RealClientRun(name, FAILED, reason="real.said", fields={"said": f"{type(cause).__name__}: {cause}"[:500]})
    raise AssertionError("unreachable")  # pragma: no cover


def find_exception(problem: BaseException, kind: type) -> Any:
    """`problem` itself or the first `kind` inside its exception groups (anyio wraps errors)."""
    if isinstance(problem, kind) and not hasattr(problem, "exceptions"):
        return problem
    for inner in getattr(problem, "exceptions", ()):
        found = find_exception(inner, kind)
        if found is not None:
            return found
    return None


# ---------------------------------------------------------------- the MCP Inspector CLI

FAILURE_LINE = re.compile(r"^Failed to [^:]*: (?:MCP error (-?\d+): )?(.*)$", re.MULTILINE)
NPM_ERROR_LINE = re.compile(r"^npm (?:error|ERR!) (.*)$", re.MULTILINE)


def run_inspector(server: Path, fetch: bool = True, fetch_limit: float = FETCH_LIMIT,
                  limit: float = INSPECTOR_LIMIT, launch: Launch = HERE, lang: str = "fr") -> RealClientRun:
    """`npx @modelcontextprotocol/inspector@VERSION --cli python SERVER --method tools/list`.

    Under `lab grade`, only the Inspector found before grading started (`launch.inspector`)
    runs, with node: never npx. Elsewhere (`lab check --bonus`) npx first runs offline (the npm cache
    only, no registry wait); only when the package is not cached does it fetch it (unless
    `fetch` is false), with the longer `fetch_limit`. Both work in a fresh folder of the kit's.
    """
    server = server_path(server)
    if (not_started := not_a_server_file("inspector", server)) is not None:
        return not_started
    entry, node = launch.inspector, shutil.which("node")
    if launch.grading and not (entry and node and os.path.isfile(entry)):
        # lab grade --bonus stops before grading when it finds no Inspector (classroom.class_inspector):
        # a check run without one is the kit's failure, never npx run from a submission's folder.
        from lab.process.student import KitError

        raise KitError("the check run was given no MCP Inspector to run")
    # The client's own environment, and the run's language for an unsandboxed server it passes it to.
    server_argv, env = server_command(server, launch, lang)[0], {**os.environ, **QUIET_NPM, "LAB_LANG": lang}
    with client_folder() as folder:
        if entry and node and os.path.isfile(entry):  # found once for the class (lab grade --bonus)
            done = run_capped([node, entry, "--cli", *server_argv, "--method", "tools/list"], limit, folder, env=env)
            return inspector_outcome(done, limit, fetched=False)
        npx = shutil.which("npx")
        if npx is None:
            return RealClientRun("inspector", UNAVAILABLE, reason="real.no_npx")
        command = [INSPECTOR, "--cli", *server_argv, "--method", "tools/list"]
        done = run_capped([npx, "--yes", "--offline", *command], limit, folder, env=env)
        fetched = "ENOTCACHED" in done.err
        if fetched and not fetch:
            return RealClientRun("inspector", UNAVAILABLE, reason="real.not_cached", fields={"package": INSPECTOR_PACKAGE})
        if fetched:
            done = run_capped([npx, "--yes", *command], fetch_limit, folder, env={**env, **FAIL_FAST_NPM})
        return inspector_outcome(done, fetch_limit if fetched else limit, fetched)


def inspector_entry(limit: float = INSPECTOR_LIMIT) -> Optional[str]:
    """The Inspector's command (its package's `bin`) in npx's cache, or None when it is not
    cached: what `npx INSPECTOR` runs with node, after npm itself has run (npm's own start,
    each time). `lab grade --bonus` asks once, before grading, and gives it to every submission.

    npm looks for a project from its working folder up (a `node_modules/` or a `package.json`
    there wins over its cache): it runs in a fresh folder of the kit's, and the command found
    counts only if it lies in npx's own cache, in a file of this user's."""
    npx = shutil.which("npx")
    if npx is None:
        return None
    find = ["--yes", "--offline", "--package", INSPECTOR, "--call", "command -v mcp-inspector"]
    with client_folder() as folder:
        done = run_capped([npx, *find], limit, folder, env={**os.environ, **QUIET_NPM})
    if done.code != 0 or not done.out.strip():
        return None
    command = Path(done.out.strip().splitlines()[-1]).resolve()
    try:
        owned = command.is_file() and command.stat().st_uid == os.getuid()
    except OSError:
        return None
    # npm's cache folder, as npm finds it: the setting, else ~/.npm.
    cache = os.environ.get("npm_config_cache") or os.environ.get("NPM_CONFIG_CACHE") or Path.home() / ".npm"
    cached = (Path(cache).expanduser().resolve() / "_npx") in command.parents
    return str(command) if owned and cached else None


def inspector_outcome(done: Run, limit: float, fetched: bool) -> RealClientRun:
    code, out, err = done.code, done.out, done.err
    if code is None:
        if fetched:
            return RealClientRun("inspector", UNAVAILABLE, reason="real.fetch_late",
                                 fields={"package": INSPECTOR_PACKAGE, "seconds": limit})
        return RealClientRun("inspector", FAILED, reason="real.inspector_no_answer", fields={"seconds": limit})
    if code == 0:
        try:
            listed = parse_json(out, 1 << 20)
        except ValueError:
            return RealClientRun("inspector", FAILED, reason="real.no_json", fields={"output": out[:200]})
        tools = listed.get("tools") if isinstance(listed, dict) else None
        return RealClientRun("inspector", CONNECTED, tools=tools)
    said = json_error(err) or json_error(out)
    if said is not None:  # the Inspector (2.x) ran and prints the server's refusal as JSON
        return RealClientRun("inspector", REFUSED, error=said, reason="real.said", fields={"said": said["message"]})
    failure = FAILURE_LINE.search(err) or FAILURE_LINE.search(out)
    if failure is not None:  # the Inspector ran and says what the server did: a refusal when it has an error code
        error = None if failure.group(1) is None else {"code": int(failure.group(1)), "message": failure.group(2)}
        return RealClientRun("inspector", FAILED if error is None else REFUSED, error=error, reason="real.said",
                             fields={"said": failure.group(0)})
    npm_error = NPM_ERROR_LINE.search(err)
    why = npm_error.group(1) if npm_error else last_line(err) or f"exit code {code}"
    return RealClientRun("inspector", UNAVAILABLE, reason="real.npx_failed", fields={"package": INSPECTOR_PACKAGE, "said": why})


def json_error(out: str) -> Optional[dict]:
    """`{"error": {"code": …, "message": …}}`, as the Inspector CLI 2.x prints a failed call, last:
    what the server wrote on its stderr comes before it; None otherwise."""
    text = out.strip()
    for printed in (text, text.rpartition("\n")[2]):
        try:
            error = parse_json(printed, 1 << 20).get("error")
        except (ValueError, AttributeError):
            continue
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return {"code": error.get("code"), "message": error["message"][:500]}
    return None


def last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


if __name__ == "__main__":  # the SDK child, forked by `lab grade`'s preloader (see run_sdk)
    sdk_child(sys.argv[1:])
