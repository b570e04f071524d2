"""The acceptance repetitions for fair grading: identical correct submissions under load, in a
small CPU share and under pids limits get full marks every time; a server that drops id 0
fails the same checks every time.

    python bench/grade_repeats.py [--repeats 5] [--count 4] [--only load20,cpu04,pids46,pids64,pids128,drop0]

Linux, as root (cgroup v1 cpu and pids hierarchies, or cgroup v2 with both controllers):
- load20: 20 CPU burners beside `lab grade` in one cgroup held to --load-cpus CPUs (1 by
  default), so that the load is real for the grader and the rest of the machine is spared;
- cpu04: `lab grade --jobs 16` in a cgroup held to 0.4 CPU;
- pids46, pids64, pids128: `lab grade` in a cgroup whose pids.max is that;
- drop0: the server checks, --drops times, on the solution with its reply to id 0 removed.
Prints one line per run: the scores (e.g. "4 × 34/34"), the jobs line lab grade printed, the time.
Every cgroup it makes is emptied (its processes killed) and removed at the end of its run.
"""

from __future__ import annotations

import argparse
import collections
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
V1 = Path("/sys/fs/cgroup/cpu").is_dir()
BURN = "while True: pass"


class Group:
    """One cgroup per controller (v1) or one for both (v2), made and removed by this script."""

    def __init__(self, cpus: float | None = None, pids: int | None = None) -> None:
        name = f"lab-bench-{uuid.uuid4().hex[:8]}"
        self.folders: list[Path] = []
        if V1:
            if cpus is not None:
                self.folders.append(self.make(Path("/sys/fs/cgroup/cpu") / name))
                (self.folders[-1] / "cpu.cfs_period_us").write_text("100000\n")
                (self.folders[-1] / "cpu.cfs_quota_us").write_text(f"{int(cpus * 100000)}\n")
            if pids is not None:
                self.folders.append(self.make(Path("/sys/fs/cgroup/pids") / name))
                (self.folders[-1] / "pids.max").write_text(f"{pids}\n")
        else:
            folder = self.make(Path("/sys/fs/cgroup") / name)
            self.folders.append(folder)
            if cpus is not None:
                (folder / "cpu.max").write_text(f"{int(cpus * 100000)} 100000\n")
            if pids is not None:
                (folder / "pids.max").write_text(f"{pids}\n")

    @staticmethod
    def make(folder: Path) -> Path:
        folder.mkdir()
        return folder

    def prefix(self) -> list[str]:
        """A shell that joins the groups, then runs the command given after it."""
        joins = " && ".join(f'echo $$ > "{folder}/cgroup.procs"' for folder in self.folders)
        return ["sh", "-c", f'{joins} && exec "$@"', "sh"]

    def peak(self) -> str:
        for folder in self.folders:
            if (folder / "pids.peak").exists():
                return (folder / "pids.peak").read_text().strip()
        return "?"

    def remove(self) -> None:
        for folder in self.folders:
            for _ in range(50):
                pids = (folder / "cgroup.procs").read_text().split()
                if not pids:
                    break
                for pid in pids:
                    subprocess.run(["kill", "-9", pid], check=False)
                time.sleep(0.1)
            folder.rmdir()


def make_class(work: Path, count: int) -> list[str]:
    folders = []
    for number in range(count):
        folder = work / "class" / f"s{number:02d}"
        shutil.copytree(ROOT / "solutions", folder, ignore=shutil.ignore_patterns("__pycache__"))
        folders.append(str(folder))
    return folders


def grade(group: Group, submissions: list[str], out: Path, jobs: int | None, burners: int = 0) -> str:
    started = time.monotonic()
    burning = [subprocess.Popen([*group.prefix(), sys.executable, "-c", BURN]) for _ in range(burners)]
    try:
        command = [sys.executable, "-m", "lab", "grade", *submissions, "--out", str(out), "--lang", "en",
                   "--format", "csv", "--force", *(["--jobs", str(jobs)] if jobs else [])]
        done = subprocess.run([*group.prefix(), *command], capture_output=True, text=True, timeout=1800)
    finally:
        for burner in burning:
            burner.kill()
            burner.wait()
    elapsed = time.monotonic() - started
    if done.returncode != 0:
        return f"lab grade failed ({done.returncode}): {done.stderr.strip().splitlines()[-1:]}"
    rows = list(csv.DictReader((out / "summary.csv").open(encoding="utf-8")))
    scores = collections.Counter((row["score"] or row["status"]) + "/" + row["max"] for row in rows)
    lowered = [line for line in done.stderr.splitlines() if line.startswith("--jobs")]
    in_turn = "; probes in turn" if "tried one after the other" in done.stderr else ""
    failed = sorted({check for row in rows for check in row["failed"].split()})
    return (", ".join(f"{n} × {score}" for score, n in sorted(scores.items()))
            + f"; failed: {' '.join(failed) or 'none'}; {lowered[0] if lowered else 'jobs as asked'}{in_turn}; "
            f"peak {group.peak()} pids; {elapsed:.1f} s")


def drop_zero(times: int) -> None:
    from lab.checks import registry
    from lab.checks.engine import run

    ping = '    if method == "ping":\n        return reply(message["id"], {})\n'
    with tempfile.TemporaryDirectory(prefix="lab-bench-") as work:
        folder = Path(work) / "drops"
        shutil.copytree(ROOT / "solutions", folder, ignore=shutil.ignore_patterns("__pycache__"))
        source = (folder / "server.py").read_text(encoding="utf-8")
        (folder / "server.py").write_text(source.replace(
            ping, '    if method == "ping" and message["id"] == 0:\n        return\n' + ping), encoding="utf-8")
        checks, probes, _ = registry()
        server = [check for check in checks if check.id.startswith("server.")]
        seen = collections.Counter()
        for _ in range(times):
            report = run(folder, "en", server, probes)
            seen[" ".join(sorted(result.id for result in report.results if result.status != "passed"))] += 1
    for failed, count in seen.most_common():
        print(f"drop0: {count}/{times} runs failed: {failed}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--count", type=int, default=4, help="identical submissions per run")
    parser.add_argument("--load-cpus", type=float, default=1.0)
    parser.add_argument("--drops", type=int, default=10)
    parser.add_argument("--only", default="load20,cpu04,pids46,pids64,pids128,drop0")
    options = parser.parse_args()
    wanted = options.only.split(",")
    scenarios = {"load20": (dict(cpus=options.load_cpus), None, 20), "cpu04": (dict(cpus=0.4), 16, 0),
                 "pids46": (dict(pids=46), None, 0), "pids64": (dict(pids=64), None, 0),
                 "pids128": (dict(pids=128), None, 0)}
    print(f"load before: {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="lab-bench-") as work:
        submissions = make_class(Path(work), options.count)
        for name, (limits, jobs, burners) in scenarios.items():
            if name not in wanted:
                continue
            for repeat in range(1, options.repeats + 1):
                group = Group(**limits)
                try:
                    line = grade(group, submissions, Path(work) / "out", jobs, burners)
                finally:
                    group.remove()
                print(f"{name} run {repeat}: {line}; load {os.getloadavg()[0]:.1f}", flush=True)
    if "drop0" in wanted:
        drop_zero(options.drops)


if __name__ == "__main__":
    main()
