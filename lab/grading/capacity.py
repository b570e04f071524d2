"""How many submissions `lab grade` may grade at once here: a fork or a thread the host refuses
would cost a correct submission its points. The smallest of:
- JOBS_PER_CPU per usable CPU (affinity, capped by a cgroup CPU quota), `--jobs` held to it too;
- the processes and threads left (cgroup pids.max less pids.current, the tightest up the tree,
  and RLIMIT_NPROC less this user's tasks);
- the memory left (the cgroup's limit less its usage, and MemAvailable);
- without a control group per submission (cgroup.py), under a process limit: as many as it holds
  each at its worst, and one as root (its sandboxes share one uid: no limit of their own).
Each submission's group holds exactly what a job was sized for (PIDS_PER_JOB, MEMORY_PER_JOB).
"""

from __future__ import annotations

import math
import os
import resource
import shutil
from dataclasses import dataclass
from pathlib import Path

from lab.process.limits import CGROUP_ROOT, PROC, SANDBOX_PIDS, cgroup_paths

# Processes and threads at the peak of one job, and the grader's own (itself, its preloaders),
# without and with --bonus: fitted with headroom to the peaks bench/grade_under_limits.py
# measures (docs/performance.md).
PIDS_RESERVE = 24
PIDS_PER_JOB = {False: 72, True: 108}  # its probes all at once: the size of its control group too
PIDS_IN_TURN = {False: 12, True: 26}  # its probes one after the other (Launch.probes_in_turn)
# Of a job's, what its check run keeps out of its student processes' reach (cgroup.py): its
# threads and --bonus's SDK client, measured peaks with headroom.
PIDS_FOR_CHECKS = {False: 40, True: 60}
# Without a control group per submission, one job at its worst: its check run, and each of the
# sandboxes it has at once (the sessions, direct-call runners, client and spy, model runner,
# bad lines, burst, lent sessions; the real clients with --bonus) at its own limit.
SANDBOXES_AT_ONCE = {False: 12, True: 20}
WORST_JOB_PIDS = {bonus: PIDS_FOR_CHECKS[bonus] + SANDBOXES_AT_ONCE[bonus] * SANDBOX_PIDS for bonus in (False, True)}
# A job waits on student processes most of its time: fewer per CPU leave cores idle, more are no
# faster (docs/performance.md).
JOBS_PER_CPU = 3
MEMORY_PER_JOB = 256 * 1024**2  # bytes, with a margin
NO_LIMIT_V1 = 2**60  # v1 writes "no limit" as a huge page-rounded number
# A controller's limit files (v2, v1): a folder holding one is where that controller is.
LIMIT_FILES = {"pids": ("pids.max",), "cpu": ("cpu.max", "cpu.cfs_quota_us"),
               "memory": ("memory.max", "memory.limit_in_bytes")}


@dataclass(frozen=True)
class Host:
    """What this process may use: None means no limit was found."""

    cpus: float
    pids: int | None = None  # processes and threads it may still start
    memory: int | None = None  # bytes it may still use
    groups: bool = True  # whether each submission gets a control group of its own (lab/grading/cgroup.py)
    own_limits: bool = True  # whether each sandbox has a process limit of its own (prlimit; not as root: one uid)


@dataclass(frozen=True)
class Fit:
    jobs: int
    reason: str  # which limit chose the number: "cpu", "pids", "memory" or "groups" (none can be made)
    probes_in_turn: bool = False  # in each job, one probe at a time (lab/process/launch.py)


def read_int(path: Path) -> int | None:
    try:
        return int(path.read_text().split()[0])
    except (OSError, IndexError, ValueError):  # ValueError: "max", no limit
        return None


def cgroup_folders(controller: str, root: Path = CGROUP_ROOT, proc: Path = PROC) -> list[Path]:
    """This process's cgroup folder for `controller` and each ancestor up to the mount: v1 at
    root/<name> (or cpu,cpuacct), v2 at root or root/unified; in a container, the mount's root
    when the path read from /proc is not under it."""
    paths = cgroup_paths(proc)
    mounts = sorted(root.glob(f"*{controller}*")) if controller in paths and root.is_dir() else []
    candidates = [(mount, paths[controller]) for mount in mounts if controller in mount.name.split(",")]
    if "" in paths:
        candidates += [(root, paths[""]), (root / "unified", paths[""])]
    for mount, path in candidates:
        if not mount.is_dir():
            continue
        folder = mount / path.lstrip("/")
        if not folder.is_dir():
            folder = mount
        chain = [folder, *[parent for parent in folder.parents if mount in parent.parents or parent == mount]]
        if any((level / name).exists() for level in chain for name in LIMIT_FILES[controller]):
            return chain
    return []


def least_room(controller: str, files: tuple[tuple[str, str], ...], root: Path, proc: Path) -> int | None:
    """The least room left up the tree: the first (limit, usage) pair of `files` with a limit."""
    room: int | None = None
    for folder in cgroup_folders(controller, root, proc):
        for limit_file, used_file in files:
            limit = read_int(folder / limit_file)
            if limit is not None and limit < NO_LIMIT_V1:
                left = limit - (read_int(folder / used_file) or 0)
                room = left if room is None else min(room, left)
                break
    return room


def cgroup_pids(root: Path = CGROUP_ROOT, proc: Path = PROC) -> int | None:
    return least_room("pids", (("pids.max", "pids.current"),), root, proc)


def cgroup_cpus(root: Path = CGROUP_ROOT, proc: Path = PROC) -> float | None:
    cpus: float | None = None
    for folder in cgroup_folders("cpu", root, proc):
        quota, period = None, None
        fields = (folder / "cpu.max").read_text().split() if (folder / "cpu.max").is_file() else []
        if len(fields) == 2 and fields[0] != "max":
            quota, period = int(fields[0]), int(fields[1])
        else:
            v1_quota = read_int(folder / "cpu.cfs_quota_us")
            if v1_quota is not None and v1_quota > 0:
                quota, period = v1_quota, read_int(folder / "cpu.cfs_period_us") or 100_000
        if quota and period:
            cpus = quota / period if cpus is None else min(cpus, quota / period)
    return cpus


def cgroup_memory(root: Path = CGROUP_ROOT, proc: Path = PROC) -> int | None:
    return least_room("memory", (("memory.max", "memory.current"), ("memory.limit_in_bytes", "memory.usage_in_bytes")),
                      root, proc)


def available_memory(proc: Path = PROC) -> int | None:
    try:
        for line in (proc / "meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def user_tasks(uid: int, proc: Path = PROC) -> int:
    """Processes and threads owned by `uid`: what RLIMIT_NPROC counts."""
    count = 0
    for entry in proc.glob("[0-9]*"):
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue
        values = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if int(values.get("Uid", "-1 0").split()[0]) == uid:
            count += int(values.get("Threads", "1").strip() or 1)
    return count


def nproc_room(proc: Path = PROC) -> int | None:
    soft = resource.getrlimit(resource.RLIMIT_NPROC)[0]
    if soft == resource.RLIM_INFINITY or os.geteuid() == 0:  # root is not held to it
        return None
    return soft - user_tasks(os.getuid(), proc)


def smallest(*values: float | None) -> float | None:
    known = [value for value in values if value is not None]
    return min(known) if known else None


def affinity_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS
        return os.cpu_count() or 1


def read_host(root: Path = CGROUP_ROOT, proc: Path = PROC) -> Host:
    cpus = smallest(affinity_cpus(), cgroup_cpus(root, proc)) or 1
    pids = smallest(cgroup_pids(root, proc), nproc_room(proc))
    memory = smallest(cgroup_memory(root, proc), available_memory(proc))
    return Host(cpus=float(cpus), pids=None if pids is None else int(pids),
                memory=None if memory is None else int(memory), groups=groups_here(),
                own_limits=os.geteuid() != 0 and shutil.which("prlimit") is not None)


def groups_here() -> bool:
    """Whether this grader can make each submission's control group (tried once, removed)."""
    from lab.grading.cgroup import SubmissionGroup

    trial = SubmissionGroup(MEMORY_PER_JOB, PIDS_PER_JOB[False])
    trial.close()
    return trial.active


def fit_jobs(host: Host, asked: int | None = None, bonus: bool = False) -> Fit:
    """`asked`, or JOBS_PER_CPU per CPU, within the CPUs, processes and memory (a job given a
    sliver of a CPU times out). Never below one: where the processes left do not hold one job's
    probes at once, they run in turn (below even that, `one_job_pids`, nothing is graded)."""
    per_cpu = max(1, math.floor(JOBS_PER_CPU * host.cpus))
    bounds: list[tuple[int, str]] = [(per_cpu, "cpu")] if asked else []
    pid_jobs = None if host.pids is None else (host.pids - PIDS_RESERVE) // PIDS_PER_JOB[bonus]
    if pid_jobs is not None:
        bounds.append((pid_jobs, "pids"))
        if not host.groups:  # all share that limit: as many as can each be at their worst
            worst = (host.pids - PIDS_RESERVE) // WORST_JOB_PIDS[bonus] if host.own_limits else 1
            bounds.append((max(1, worst), "groups"))
    if host.memory is not None:
        bounds.append((host.memory // MEMORY_PER_JOB, "memory"))
    wanted = (asked, "asked") if asked else (per_cpu, "cpu")
    jobs, reason = min([wanted, *bounds], key=lambda bound: bound[0])
    return Fit(jobs=max(1, jobs), reason=reason, probes_in_turn=pid_jobs is not None and pid_jobs < 1)


def one_job_pids(bonus: bool = False) -> int:
    """Below this many processes and threads left, even one job with its probes in turn may be
    refused a fork in a student's process, read as theirs: the class is not graded."""
    return PIDS_RESERVE + PIDS_IN_TURN[bonus]


def holds_one_job(host: Host, bonus: bool = False) -> bool:
    return host.pids is None or host.pids >= one_job_pids(bonus)
