"""What a class run leaves behind if it is killed (kill -9, a power cut): swept by the next run.

Each `lab grade` run has a record folder, `$TMPDIR/lab-run-XXXX/`, that holds:
- `owner`: the grader's pid, its start time (from /proc), so a pid reused by another
  process is not taken for the owner, and its pid namespace: a grader in another namespace
  (a container, a sandbox) that shares this folder has pids this one cannot judge;
- `notes`: one line per thing it made outside that folder, written before it is used: a
  check run's token (every process it starts carries it: groups.kill_marked) and each
  submission's control group;
and, while the run lasts, the private copies and preloader sockets themselves (the run points
Python's temporary folder there: tempfile.tempdir).

`sweep()` removes only what a dead run left: a record whose owner is gone. Several graders
may run on one machine at once (other users, other classes): a live owner's record, or
anything that is not a record, is never touched.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Iterator

from lab.process.groups import kill_marked

RUN_PREFIX = "lab-run-"
OWNER, NOTES = "owner", "notes"
_lock = threading.Lock()
_active: "RunRecord | None" = None


def start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (/proc/PID/stat field 22), or None."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[-1].split()[19]


def pid_namespace() -> str:
    """This process's pid namespace ("pid:[4026531836]"), or "" where /proc does not say."""
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return ""


def alive(owner: str) -> bool:
    try:
        pid, started, *namespace = owner.split()
        if namespace and namespace != [pid_namespace()]:
            return True  # its pid means another process here: never judged dead from this side
        return start_time(int(pid)) == started
    except ValueError:
        return True  # not a record this kit wrote: leave it alone


class RunRecord:
    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix=RUN_PREFIX, dir=tempfile.gettempdir()))
        (self.folder / OWNER).write_text(f"{os.getpid()} {start_time(os.getpid()) or 0} {pid_namespace()}\n")

    def note(self, kind: str, value: str) -> None:
        with _lock, (self.folder / NOTES).open("a", encoding="utf-8") as notes:
            notes.write(f"{kind} {value}\n")
            notes.flush()

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


@contextlib.contextmanager
def recorded_run() -> Iterator[RunRecord]:
    """A record for this run; meanwhile, Python's temporary folders are made inside it."""
    global _active
    record = RunRecord()
    previous, _active = tempfile.tempdir, record
    tempfile.tempdir = str(record.folder)
    try:
        yield record
    finally:
        tempfile.tempdir, _active = previous, None
        record.close()


def note(kind: str, value: str) -> None:
    """Record something made outside the record folder (see module docstring), if a run is on."""
    if _active is not None:
        _active.note(kind, value)


def sweep(root: Path | None = None) -> int:
    """Remove what dead runs left under `root` (the temporary folder); how many runs were swept."""
    root = root or Path(tempfile.gettempdir())
    swept = 0
    for folder in sorted(root.glob(RUN_PREFIX + "*")):
        try:
            owner = (folder / OWNER).read_text().strip()
        except OSError:
            continue  # not a record (or not yet written): leave it
        if alive(owner):
            continue
        notes = (folder / NOTES).read_text(encoding="utf-8").splitlines() if (folder / NOTES).is_file() else []
        for line in notes:
            kind, _, value = line.partition(" ")
            if kind == "token" and value:
                kill_marked(value)
            elif kind == "group" and value:
                remove_group(Path(value))
        shutil.rmtree(folder, ignore_errors=True)
        swept += 1
    return swept


def remove_group(folder: Path) -> None:
    """Kill what is left in a dead run's control group, then remove the group (as the run's
    own SubmissionGroup.close would have)."""
    from lab.grading.cgroup import SubmissionGroup

    if not folder.is_dir() or not (folder / "cgroup.procs").exists():
        return
    group = SubmissionGroup.__new__(SubmissionGroup)  # the one already made, not a new one
    group.folders = [folder]
    group.close()
