"""Grade identical correct submissions under a pids limit, and show the jobs chosen and the scores.

    python bench/grade_under_limits.py [--count 32] [--pids 256] [--cpus 8] [--jobs N] [--no-fit] [--bonus]

Linux only, as root or with a writable pids cgroup (cgroup v1's pids hierarchy, or a
delegated v2 subtree): the grading runs in a fresh cgroup whose `pids.max` is --pids.
--cpus makes the kit believe the host has that many CPUs (what an 8-core grader would pick
on this machine). --no-fit grades with exactly --jobs, as `lab grade` did before it fitted
its jobs to the host's limits. Prints the jobs, the cgroup's peak of processes and threads,
and how many submissions got each score: identical submissions must all get the same.
"""

from __future__ import annotations

import argparse
import collections
import csv
import os
import shutil
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lab.grading import capacity, classroom  # noqa: E402


def pids_cgroup(limit: int) -> Path:
    for parent in (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup")):
        group = parent / f"lab-bench-{uuid.uuid4().hex[:8]}"
        try:
            group.mkdir()
        except OSError:
            continue
        if (group / "pids.max").exists():
            (group / "pids.max").write_text(f"{limit}\n")
            return group
        group.rmdir()
    sys.exit("no writable pids cgroup here (run as root on Linux, or in a delegated cgroup v2 subtree)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=32)
    parser.add_argument("--pids", type=int, default=256)
    parser.add_argument("--cpus", type=int, default=None, help="pretend the host has this many CPUs")
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--no-fit", action="store_true", help="use --jobs as given, whatever the limits")
    parser.add_argument("--bonus", action="store_true", help="grade the bonus step too (the real MCP clients)")
    options = parser.parse_args()
    if options.cpus:
        capacity.affinity_cpus = lambda: options.cpus
    if options.no_fit:
        classroom.fit_jobs = lambda host, asked=None: capacity.Fit(asked or 2 * int(host.cpus), "asked")
    group = pids_cgroup(options.pids)
    (group / "cgroup.procs").write_text(f"{os.getpid()}\n")  # this process and all it starts
    with tempfile.TemporaryDirectory(prefix="lab-bench-") as work:
        folders = []
        for number in range(options.count):
            folder = Path(work) / "class" / f"s{number:02d}"
            shutil.copytree(ROOT / "solutions", folder, ignore=shutil.ignore_patterns("__pycache__"))
            folders.append(folder)
        started = time.monotonic()
        result = classroom.grade_class(folders, Path(work) / "out", fmt="csv", lang="en", jobs=options.jobs,
                                     bonus=options.bonus)
        elapsed = time.monotonic() - started
        rows = list(csv.DictReader((Path(work) / "out" / "summary.csv").open(encoding="utf-8")))
    peak = (group / "pids.peak").read_text().strip() if (group / "pids.peak").exists() else "?"
    (Path("/sys/fs/cgroup/pids") / "cgroup.procs" if group.parent.name == "pids"
     else group.parent / "cgroup.procs").write_text(f"{os.getpid()}\n")
    group.rmdir()
    scores = collections.Counter((row["score"] or row["status"]) + "/" + row["max"] for row in rows)
    print(f"cpus seen {capacity.read_host().cpus:g}, pids.max {options.pids}, asked --jobs {options.jobs}: "
          f"{result.jobs.jobs} jobs ({result.jobs.reason}), {'probes in turn' if result.jobs.probes_in_turn else 'probes at once'}, "
          f"peak {peak} pids, {elapsed:.1f} s")
    print("scores: " + ", ".join(f"{count} × {score}" for score, count in sorted(scores.items())))


if __name__ == "__main__":
    main()
