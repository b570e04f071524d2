"""The kit's benchmark, in one command: `python bench/run.py` (add --quick for a smoke run).

Side by side, in one run, it measures and prints as Markdown tables (medians):
  (a) `lab run` with no model reachable (AI_URL on a refused port), next to
      `python solutions/client.py` alone and the lesson's Node pair run the same way;
  (b) throughput: 200,000 pipelined tools/list requests after the handshake, for
      solutions/server.py, the lesson's Node server and the official Python SDK's
      stdio server (on fewer requests: it is far slower; the table says how many);
  (c) the peak memory (resident set) of each server during (b);
  (d) the start-up time of `lab --help`;
  and how cost grows: throughput and memory at 10^3, 10^5 and 10^6 requests (memory
  must stay flat), plus the round trip of one request at a time (an interactive client).

The Node files are written from the lesson's text (../shared/lesson/) into a scratch
folder; without node or the lesson, the Node columns are skipped with a note.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from lesson_node import find_lesson, write_node_files
from pipeline import pipelined, round_trips
from startup import Command, contains, refused_port, scenario_check, time_in_turns

REPO = Path(__file__).resolve().parent.parent
SOLUTIONS = REPO / "solutions"
FALLBACK_FR = "Échantillon enregistré"  # the model step ran and fell back to the sample
GROWTH = (1_000, 100_000, 1_000_000)
LAB_RUN = "`lab run` (no model)"
NODE_PAIR = "Node: `node client2.js` (no model)"

# The official SDK's stdio server with no tools: it answers tools/list with [] as ours does.
SDK_SERVER = """\
try:
    from mcp.server.mcpserver import MCPServer as Server  # mcp 2.x
except ImportError:
    from mcp.server.fastmcp import FastMCP as Server  # mcp 1.x
Server("bench").run("stdio")
"""


def lab_command() -> list[str]:
    """The `lab` script of this Python (what a student types), else `python -m lab`."""
    script = Path(sys.executable).with_name("lab")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "lab"]


def version_of(argv: list[str]) -> str:
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return "?"


def sdk_available() -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mcp")
    except PackageNotFoundError:
        return None


def median(values: list[float]) -> float:
    return statistics.median(values)


def mib(kib: int | None) -> str:
    return "n/a" if kib is None else f"{kib / 1024:.1f} MiB"


# ---------------------------------------------------------------- the measures


def measure_startup(scratch: Path | None, env: dict[str, str], repeat: int) -> dict[str, Command]:
    lab = lab_command()
    scenario = scenario_check(FALLBACK_FR)
    commands = {
        LAB_RUN: Command([*lab, "run"], REPO, env, scenario),
        "`python solutions/client.py` (no model)": Command(
            [sys.executable, str(SOLUTIONS / "client.py")], REPO, env, scenario
        ),
    }
    if scratch:
        commands[NODE_PAIR] = Command(
            ["node", "client2.js"], scratch, env, scenario
        )
    commands["`lab --help`"] = Command([*lab, "--help"], REPO, env, contains("run"))
    commands["floor: `python -c pass`"] = Command([sys.executable, "-c", "pass"], REPO, env, contains(""))
    if scratch:
        commands["floor: `node -e 0`"] = Command(["node", "-e", "0"], REPO, env, contains(""))
    time_in_turns(commands, repeat)
    return commands


def servers(scratch: Path | None, sdk_folder: Path | None) -> dict[str, tuple[list[str], Path]]:
    found = {"solutions/server.py": ([sys.executable, str(SOLUTIONS / "server.py")], REPO)}
    if scratch:
        found["Node serveur2.js"] = (["node", "serveur2.js"], scratch)
    if sdk_folder:
        found["MCP Python SDK (stdio)"] = ([sys.executable, "sdk_server.py"], sdk_folder)
    return found


def measure_throughput(
    argv: list[str], cwd: Path, env: dict[str, str], count: int, rounds: int
) -> dict[str, float]:
    runs = [pipelined(argv, cwd, env, count) for _ in range(rounds)]
    return {
        "requests": count,
        "per_second": median([run.per_second for run in runs]),
        "seconds": median([run.seconds for run in runs]),
        "rss_before_kib": median([run.rss_before_kib or 0 for run in runs]),
        "peak_rss_kib": median([run.peak_rss_kib or 0 for run in runs]),
        "cpu_per_reply": median([run.cpu_per_reply or 0.0 for run in runs]),
    }


# ---------------------------------------------------------------- the report


def print_table(header: list[str], rows: list[list[str]]) -> None:
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print(flush=True)


def verdict(label: str, ok: bool, detail: str) -> bool:
    print(f"- {'met' if ok else 'NOT MET'}: {label} ({detail})")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few runs, small counts: a smoke test")
    parser.add_argument("--repeat", type=int, help="runs of each command (default 15; quick: 3)")
    parser.add_argument("--rounds", type=int, help="runs of each throughput test (default 3; quick: 1)")
    parser.add_argument("--requests", type=int, help="pipelined requests for (b) (default 200000)")
    parser.add_argument("--sdk-requests", type=int, help="requests for the SDK (default 5000)")
    parser.add_argument("--json", type=Path, help="also write every figure to this file")
    options = parser.parse_args()
    repeat = options.repeat or (3 if options.quick else 15)
    rounds = options.rounds or (1 if options.quick else 3)
    requests = options.requests or (20_000 if options.quick else 200_000)
    sdk_requests = options.sdk_requests or (500 if options.quick else 5_000)
    growth = GROWTH[:2] if options.quick else GROWTH

    env = {**os.environ, "AI_URL": f"http://127.0.0.1:{refused_port()}", "LAB_LANG": "fr"}
    env.pop("AI_TIMEOUT", None)
    node = shutil.which("node")
    lesson = find_lesson(REPO)
    sdk_version = sdk_available()
    figures: dict[str, object] = {}

    print("# Benchmark of the MCP handshake lab\n")
    print(f"- machine: {os.cpu_count()} CPUs, {platform.platform()}, load {os.getloadavg()[0]:.2f}")
    print(f"- Python {platform.python_version()}, node {version_of(['node', '--version']) if node else 'absent'}, "
          f"mcp {sdk_version or 'absent'}")
    print(f"- PYTHONDONTWRITEBYTECODE={os.environ.get('PYTHONDONTWRITEBYTECODE', '')!r}, "
          f"`lab` = {' '.join(lab_command())}")
    print(f"- no model: AI_URL={env['AI_URL']} (a refused port) for every client, Python and Node")
    if not node or not lesson:
        why = "node is not installed" if not node else "the lesson (../shared/lesson/) is absent"
        print(f"- Node columns skipped: {why}")
    if not sdk_version:
        print("- SDK column skipped: the `mcp` package is not installed")
    print(flush=True)

    with tempfile.TemporaryDirectory(prefix="mcp-lab-bench-") as folder:
        scratch = write_node_files(lesson, Path(folder)) if node and lesson else None
        sdk_folder = Path(folder) if sdk_version else None
        if sdk_folder:
            (sdk_folder / "sdk_server.py").write_text(SDK_SERVER)

        print(f"## Start-up and a whole `lab run` (median of {repeat} runs)\n")
        commands = measure_startup(scratch, env, repeat)
        print_table(
            ["command", "median", "fastest", "CPU time (median)"],
            [[name, f"{median(c.times):.3f} s", f"{min(c.times):.3f} s", f"{median(c.cpu_times):.3f} s"]
             for name, c in commands.items()],
        )
        figures["startup"] = {name: {"wall": c.times, "cpu": c.cpu_times} for name, c in commands.items()}

        targets = servers(scratch, sdk_folder)
        print(f"## Pipelined tools/list after the handshake (median of {rounds} rounds)\n")
        throughput = {}
        for name, (argv, cwd) in targets.items():
            count = sdk_requests if name.startswith("MCP") else requests
            throughput[name] = measure_throughput(argv, cwd, env, count, rounds)
        print_table(
            ["server", "requests", "replies per second", "server CPU per reply", "peak memory (RSS)"],
            [[name, f"{t['requests']:,}", f"{t['per_second']:,.0f}", f"{t['cpu_per_reply'] * 1e6:.1f} µs",
              mib(t["peak_rss_kib"])] for name, t in throughput.items()],
        )
        figures["throughput"] = throughput

        print(f"## How cost grows with work (median of {rounds} rounds)\n")
        growth_rows, growth_figures = [], {}
        for name, (argv, cwd) in servers(scratch, None).items():
            for count in growth:
                t = measure_throughput(argv, cwd, env, count, rounds)
                growth_figures[f"{name} {count}"] = t
                growth_rows.append([name, f"{count:,}", f"{t['per_second']:,.0f}",
                                    f"{t['cpu_per_reply'] * 1e6:.1f} µs",
                                    mib(t["rss_before_kib"]), mib(t["peak_rss_kib"])])
        print_table(
            ["server", "requests", "replies per second", "server CPU per reply",
             "memory after handshake", "peak memory"],
            growth_rows,
        )
        figures["growth"] = growth_figures

        pings = 200 if options.quick else 2_000
        print(f"## One request at a time: round trip of a ping (median of {pings})\n")
        latency = {}
        for name, (argv, cwd) in targets.items():
            count = pings // 10 if name.startswith("MCP") else pings
            latency[name] = median(round_trips(argv, cwd, env, count))
        print_table(["server", "round trip"], [[name, f"{s * 1e6:,.0f} µs"] for name, s in latency.items()])
        figures["round_trip_seconds"] = latency

    print(f"## Targets (load average now {os.getloadavg()[0]:.2f})\n")
    ours = throughput["solutions/server.py"]["per_second"]
    help_time = median(commands["`lab --help`"].times)
    met = [verdict("`lab --help` under 0.15 s", help_time < 0.15, f"{help_time:.3f} s")]
    if scratch:
        lab_run = median(commands[LAB_RUN].times)
        node_pair = median(commands[NODE_PAIR].times)
        node_rate = throughput["Node serveur2.js"]["per_second"]
        met.append(verdict("`lab run` no slower than the Node pair", lab_run <= node_pair,
                           f"{lab_run:.3f} s vs {node_pair:.3f} s"))
        met.append(verdict("server throughput at least the Node server's", ours >= node_rate,
                           f"{ours:,.0f} vs {node_rate:,.0f} msg/s, ×{ours / node_rate:.2f}"))
        met.append(verdict("server throughput never below half the Node server's", ours >= node_rate / 2,
                           f"×{ours / node_rate:.2f}"))
    if sdk_version:
        sdk_rate = throughput["MCP Python SDK (stdio)"]["per_second"]
        met.append(verdict("server throughput at least 50× the SDK's", ours >= 50 * sdk_rate,
                           f"×{ours / sdk_rate:,.0f}"))
    # Flat: once the first buffers are in use, more requests cost no more memory. Compared
    # between the last two counts (10^5 and 10^6): a leak of even 2 bytes a request shows.
    small, big = (growth_figures[f"solutions/server.py {n}"]["peak_rss_kib"] for n in growth[-2:])
    met.append(verdict(f"memory flat from {growth[-2]:,} to {growth[-1]:,} requests", big <= small + 1024,
                       f"peak {mib(small)} → {mib(big)}"))
    if options.json:
        options.json.write_text(json.dumps(figures, indent=2, default=str))
    return 0 if all(met) else 1


if __name__ == "__main__":
    sys.exit(main())
