"""A control group per submission where the grader can make one (a delegated cgroup v2 subtree
with the memory and pids controllers, else writable v1 hierarchies), inside its own group: the
memory and number of all its processes together are capped, in two parts:
- `trusted`, the check run (moved in as soon as it starts);
- `lab-grade-student`, every student process (each sandbox joins it before bubblewrap starts),
  with the job's budget less the check run's, and the submission's memory (tmpfs pages count).
A submission that forks or fills its memory meets its own limit, never a classmate's nor its
check run's. Without a group, the per-process limits are all there is (capacity.fit_jobs).

A group's name says whose it is: a killed run's are found by listing the grader's own parent
groups (`sweep_groups`), never from a file.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import time
from pathlib import Path

from lab.grading.capacity import PIDS_PER_JOB
from lab.grading.sweep import pid_namespace, start_time
from lab.process.groups import kill_pids
from lab.process.limits import CGROUP_ROOT as ROOT
from lab.process.limits import cgroup_paths

GROUP_PREFIX = "lab-grade-"  # a submission's group
TRUSTED, STUDENT = "trusted", f"{GROUP_PREFIX}student"
MEMORY_FILES = ("memory.limit_in_bytes", "memory.max", "memory.memsw.limit_in_bytes")  # v1, v2, v1 with swap
NAME = re.compile(re.escape(GROUP_PREFIX) + r"(\d+)-(\d+)-(\d+)-[0-9a-f]{12}")


def own_groups() -> dict[str, Path]:
    """controller -> this process's group folder, for the memory and pids controllers."""
    paths, found = cgroup_paths(), {}
    for controller in ("memory", "pids"):
        if controller in paths and (ROOT / controller).is_dir():  # cgroup v1: a tree each
            found[controller] = ROOT / controller / paths[controller].lstrip("/")
    if "" in paths:  # cgroup v2: one tree, where the controllers are enabled for the groups below
        folder = ROOT / paths[""].lstrip("/")
        enabled = (folder / "cgroup.subtree_control").read_text().split() if (
            folder / "cgroup.subtree_control").is_file() else []
        for controller in ("memory", "pids"):
            if controller in enabled:
                found.setdefault(controller, folder)
    return found


def group_name() -> str:
    """lab-grade-NAMESPACE-PID-START-RANDOM: the grader's pid namespace, pid and start time."""
    namespace = re.sub(r"\D", "", pid_namespace()) or "0"
    return f"{GROUP_PREFIX}{namespace}-{os.getpid()}-{start_time(os.getpid()) or 0}-{secrets.token_hex(6)}"


def owner_gone(name: str) -> bool:
    """Whether a group named `name` was made by a grader of this pid namespace that has ended."""
    found = NAME.fullmatch(name)
    if found is None:
        return False  # not a name this kit gives: never touched
    namespace, pid, started = found.groups()
    if namespace != (re.sub(r"\D", "", pid_namespace()) or "0"):
        return False
    return start_time(int(pid)) != started


class SubmissionGroup:
    """One submission's group in each controller that allows it; `add(pid)` moves a process
    (the check run) into its trusted part, `student_procs()` names where student processes go."""

    def __init__(self, memory_bytes: int, pids: int = PIDS_PER_JOB[False], checks_pids: int = 0,
                 folders: list[Path] | None = None) -> None:
        self.folders: list[Path] = folders or []
        self.forks_refused = 0
        if folders is not None:
            return  # groups left by a dead run, to close
        name = group_name()
        for parent in dict.fromkeys(own_groups().values()):  # v2: one folder holds both controllers
            with contextlib.suppress(OSError):
                (parent / name).mkdir()
                self.folders.append(parent / name)
        for folder in self.folders:
            with contextlib.suppress(OSError):  # v2: the controllers, handed down to both parts
                (folder / "cgroup.subtree_control").write_text("+memory +pids\n")
            try:
                (folder / TRUSTED).mkdir()
                (folder / STUDENT).mkdir()
            except OSError:
                self.close()
                self.folders = []
                return
            limits = [(folder, "pids.max", pids), (folder / STUDENT, "pids.max", pids - checks_pids),
                      (folder / STUDENT, "memory.swap.max", 0),
                      *((folder / STUDENT, file, memory_bytes) for file in MEMORY_FILES)]
            for part, file, value in limits:
                with contextlib.suppress(OSError):
                    (part / file).write_text(f"{value}\n")

    @property
    def active(self) -> bool:
        return bool(self.folders)

    def add(self, pid: int) -> None:
        for folder in self.folders:
            with contextlib.suppress(OSError):
                (folder / TRUSTED / "cgroup.procs").write_text(f"{pid}\n")

    def student_procs(self) -> tuple[str, ...]:
        return tuple(str(folder / STUDENT / "cgroup.procs") for folder in self.folders)

    def refused(self) -> int:
        """How many forks the student part refused at its limit (pids.events, v1 and v2)."""
        count = 0
        for folder in self.folders:
            with contextlib.suppress(OSError, ValueError, IndexError):
                for line in (folder / STUDENT / "pids.events").read_text().splitlines():
                    if line.startswith("max "):
                        count += int(line.split()[1])
        return count

    def close(self) -> None:
        """Kill whatever is still inside, then remove the group (what it refused is kept in
        `forks_refused`: the student's processes used up their own budget)."""
        self.forks_refused = self.refused()
        for _ in range(50):
            left = self.members()
            if not left:
                break
            kill_pids(left)
            time.sleep(0.02)
        for folder in self.folders:
            for part in (folder / TRUSTED, folder / STUDENT, folder):
                for _ in range(50 if part.is_dir() else 0):
                    try:
                        part.rmdir()
                        break
                    except OSError:
                        time.sleep(0.02)

    def members(self) -> list[int]:
        pids: set[int] = set()
        for folder in self.folders:
            for part in (folder, folder / TRUSTED, folder / STUDENT):
                with contextlib.suppress(OSError, ValueError):
                    pids.update(int(line) for line in (part / "cgroup.procs").read_text().split())
        return sorted(pids)


def sweep_groups() -> int:
    """Close the groups (real folders of this uid) that ended graders left in this grader's parent
    groups; how many."""
    closed = 0
    for parent in set(own_groups().values()):
        with contextlib.suppress(OSError):
            for entry in os.scandir(parent):
                if not entry.is_dir(follow_symlinks=False) or not owner_gone(entry.name):
                    continue
                with contextlib.suppress(OSError):
                    if entry.stat(follow_symlinks=False).st_uid != os.geteuid():
                        continue
                SubmissionGroup(0, 0, folders=[Path(entry.path)]).close()
                closed += 1
    return closed
