"""How fast `lab check` is: wall time and CPU time per folder, medians over a few runs.

    python bench/check_speed.py [--runs N] [--breakdown]

Each run is `python -m lab check FOLDER --json`, as `lab grade` runs it for one
submission. CPU time is the user + system time of that process and of every process
it started and waited for (the student's server twice, the client with its spy server,
the model runner), read from resource.getrusage(RUSAGE_CHILDREN) around the run.

Rows: solutions/ (every check passes: the most work), solutions/ with `--bonus` (the
bonus checks start real MCP clients), the untouched exercises/, and exercises/ half done
(the server and the answers written, the client and the model helper not yet).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def one_run(folder: Path, *options: str) -> tuple[float, float, int, int]:
    """(wall s, cpu s, score, max score) of one `lab check FOLDER --json [options]`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "lab", "check", str(folder), "--json", *options], cwd=REPO,
                            capture_output=True, text=True, timeout=300)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    report = json.loads(result.stdout)
    return wall, cpu, report["score"], report["max_score"]


def measure(name: str, folder: Path, runs: int, *options: str) -> dict:
    one_run(folder, *options)  # warm the file cache; not counted
    samples = [one_run(folder, *options) for _ in range(runs)]
    return {"folder": name, "wall": statistics.median(s[0] for s in samples),
            "cpu": statistics.median(s[1] for s in samples), "score": f"{samples[0][2]}/{samples[0][3]}"}


def breakdown(folder: Path) -> None:
    """Each probe alone, one after the other, in this process: where the time goes."""
    sys.path.insert(0, str(REPO))
    from lab.checks import registry
    from lab.checks.engine import Context, ProbeCrash, run_probe

    _, probes, _ = registry()
    context = Context(folder=folder, lang="fr", probes=probes)
    print(f"\nEach probe alone on {folder.name}/ (children's CPU; the in-process work is small):\n")
    print("| probe | wall (s) | CPU (s) |")
    print("|---|---|---|")
    for name in probes:
        before, started = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        outcome = run_probe(context, name)
        wall, after = time.perf_counter() - started, resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if isinstance(outcome, ProbeCrash):  # it reads other probes' results: not timed alone
            print(f"| {name} | — | — |")
        else:
            print(f"| {name} | {wall:.2f} | {cpu:.2f} |")


def half_done(temp: Path) -> Path:
    """exercises/ with the server and the answers written (the solutions'), the rest untouched."""
    folder = temp / "half-done"
    shutil.copytree(REPO / "exercises", folder, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("server.py", "answers.toml"):
        shutil.copyfile(REPO / "solutions" / name, folder / name)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--breakdown", action="store_true", help="also time each probe alone")
    options = parser.parse_args()
    runs = options.runs
    with tempfile.TemporaryDirectory(prefix="lab-half-done-") as temp:
        rows = [measure("solutions/", REPO / "solutions", runs),
                measure("solutions/ --bonus", REPO / "solutions", runs, "--bonus"),
                measure("exercises/ (untouched)", REPO / "exercises", runs),
                measure("exercises/ half done", half_done(Path(temp)), runs)]
    print(f"`lab check DIR --json`, median of {runs} runs, {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    print(f"load average before: {os.getloadavg()[0]:.2f}\n")
    print("| folder | score | wall (s) | CPU (s) |")
    print("|---|---|---|---|")
    for row in rows:
        print(f"| {row['folder']} | {row['score']} | {row['wall']:.2f} | {row['cpu']:.2f} |")
    if options.breakdown:
        breakdown(REPO / "solutions")


if __name__ == "__main__":
    main()
