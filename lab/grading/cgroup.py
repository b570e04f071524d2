"""A control group per submission, where the platform lets the grader make one: the memory of
all its processes together and their number are capped, not each process on its own.

The group is made inside the grader's own group (never beside it), in the cgroup v2 tree when
a subtree is delegated with the memory and pids controllers, else in cgroup v1's memory and
pids hierarchies when they are writable (as root on most Linux hosts and containers). It holds
the processes and threads one job was sized for (lab/grading/capacity.py), in two groups:
- `trusted`, the check run (moved in as soon as it starts);
- `lab-grade-student`, every student process: each sandbox joins it before bubblewrap starts
  (lab/process/sandbox.py, Spec.group), and holds the job's budget less what the check run
  needs (PIDS_FOR_CHECKS), and the submission's memory (tmpfs pages, /tmp and /dev/shm, count).
So a submission that forks or fills its memory meets its own limit: never a classmate's, and
never its own check run's, which keeps its room and reports the student's failure.
Where no group can be made, the per-process limits (lab/process/limits.py) and each
sandbox's own process limit (Spec.nproc) are all there is, `SubmissionGroup.active` is False,
and the class is graded one submission at a time under a process limit (capacity.fit_jobs).

A group's name says whose it is (group_name): a killed run's groups are found by listing
the grader's own parent groups (`sweep_groups`), never from a file.
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
    """Whether a group named `name` was made by a grader that has ended (in this pid namespace)."""
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
        for controller, parent in own_groups().items():
            if any(parent == made.parent for made in self.folders):
                continue  # v2: one folder holds both controllers
            try:
                (parent / name).mkdir()
            except OSError:
                continue
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
    """Close the groups a killed run of this kit left in this grader's own parent groups: real
    folders of this uid whose name names a grader that has ended. How many it closed."""
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
