"""A control group per submission, where the platform lets the grader make one: the memory of
all its processes together and their number are capped, not each process on its own.

The group is made inside the grader's own group (never beside it), in the cgroup v2 tree when
a subtree is delegated with the memory and pids controllers, else in cgroup v1's memory and
pids hierarchies when they are writable (as root on most Linux hosts and containers). The
submission's check run is moved in as soon as it starts; everything it starts (the sandboxed
student processes) is born inside. Where no group can be made, the per-process limits
(lab/process/limits.py) are all there is, and `SubmissionGroup.active` is False.
"""

from __future__ import annotations

import contextlib
import secrets
import time
from pathlib import Path

from lab.process.groups import kill_pids
from lab.process.limits import CGROUP_ROOT as ROOT
from lab.process.limits import GROUP_PREFIX

PIDS_PER_SUBMISSION = 256  # processes and threads: the check run's threads are most of them


def own_groups() -> dict[str, Path]:
    """controller -> this process's group folder, for the memory and pids controllers."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return {}
    found: dict[str, Path] = {}
    for line in lines:
        number, controllers, path = line.split(":", 2)
        if number == "0" and not controllers:  # cgroup v2: one tree
            folder = ROOT / path.lstrip("/")
            enabled = (folder / "cgroup.subtree_control").read_text().split() if (
                folder / "cgroup.subtree_control").is_file() else []
            for controller in ("memory", "pids"):
                if controller in enabled:
                    found.setdefault(controller, folder)
            continue
        for controller in controllers.split(","):
            if controller in ("memory", "pids") and (ROOT / controller).is_dir():
                found[controller] = ROOT / controller / path.lstrip("/")
    return found


class SubmissionGroup:
    """One submission's group in each controller that allows it; `add(pid)` moves a process in."""

    def __init__(self, memory_bytes: int, pids: int = PIDS_PER_SUBMISSION) -> None:
        self.folders: list[Path] = []
        name = f"{GROUP_PREFIX}{secrets.token_hex(6)}"
        for controller, parent in own_groups().items():
            if any(parent == made.parent for made in self.folders):
                continue  # v2: one folder holds both controllers
            folder = parent / name
            try:
                folder.mkdir()
            except OSError:
                continue
            self.folders.append(folder)
        for folder in self.folders:
            for file, value in (("memory.limit_in_bytes", memory_bytes), ("memory.max", memory_bytes),
                                ("memory.memsw.limit_in_bytes", memory_bytes), ("memory.swap.max", 0),
                                ("pids.max", pids)):
                with contextlib.suppress(OSError):
                    (folder / file).write_text(f"{value}\n")

    @property
    def active(self) -> bool:
        return bool(self.folders)

    def add(self, pid: int) -> None:
        for folder in self.folders:
            with contextlib.suppress(OSError):
                (folder / "cgroup.procs").write_text(f"{pid}\n")

    def peak_memory(self) -> int | None:
        for folder in self.folders:
            for file in ("memory.max_usage_in_bytes", "memory.peak"):
                with contextlib.suppress(OSError, ValueError):
                    return int((folder / file).read_text())
        return None

    def close(self) -> None:
        """Kill whatever is still inside, then remove the group."""
        for _ in range(50):
            left = self.members()
            if not left:
                break
            kill_pids(left)
            time.sleep(0.02)
        for folder in self.folders:
            for _ in range(50):
                try:
                    folder.rmdir()
                    break
                except OSError:
                    time.sleep(0.02)

    def members(self) -> list[int]:
        pids: set[int] = set()
        for folder in self.folders:
            with contextlib.suppress(OSError, ValueError):
                pids.update(int(line) for line in (folder / "cgroup.procs").read_text().split())
        return sorted(pids)

