"""What a killed class run leaves behind, swept by the next run. Each run has a folder of mode
0700 in $TMPDIR (its private copies and sockets are made inside) with its record: `owner` (pid,
start time and pid namespace: a reused or foreign pid is never judged dead) and `notes` (each
check run's token, written before it starts).

TMPDIR is shared: only a real folder of this uid open to no one else counts, and only its small
regular files of this uid, opened without following links or blocking. Nothing read is a path;
tokens are only compared with what processes carry.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import stat
import tempfile
import threading
from pathlib import Path
from typing import Iterator

from lab.process.groups import kill_marked

RUN_PREFIX = "lab-run-"
OWNER, NOTES = "owner", "notes"
RECORD_BYTES = 64 * 1024  # a record is a few lines: anything longer is not one
TOKEN = re.compile(r"[0-9a-f]{16}")
_lock = threading.Lock()
_notes: Path | None = None  # the notes of the run going on


def start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (/proc/PID/stat), or None."""
    try:
        stat_line = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat_line.rsplit(")", 1)[-1].split()[19]


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


def write(path: Path, text: str, mode: int) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | mode, 0o600)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


@contextlib.contextmanager
def recorded_run() -> Iterator[Path]:
    """This run's folder and record; meanwhile, Python's temporary folders are made inside it."""
    global _notes
    folder = Path(tempfile.mkdtemp(prefix=RUN_PREFIX, dir=tempfile.gettempdir()))
    write(folder / OWNER, f"{os.getpid()} {start_time(os.getpid()) or 0} {pid_namespace()}\n", os.O_EXCL)
    previous, tempfile.tempdir, _notes = tempfile.tempdir, str(folder), folder / NOTES
    try:
        yield folder
    finally:
        tempfile.tempdir, _notes = previous, None
        shutil.rmtree(folder, ignore_errors=True)


def note(kind: str, value: str) -> None:
    """Record a check run's token, if a run is on."""
    with _lock:
        if _notes is not None:
            write(_notes, f"{kind} {value}\n", os.O_APPEND)


def own_folder(info: os.stat_result) -> bool:
    """A real folder of this uid that no one else may write into (or read)."""
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and not info.st_mode & 0o077


def read_record(folder: int, name: str) -> str | None:
    """File `name` in the folder open as `folder`: its text if it is a small regular file of this uid."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=folder)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid() or info.st_size > RECORD_BYTES:
            return None
        return os.read(fd, RECORD_BYTES + 1)[:RECORD_BYTES].decode("utf-8", "replace")
    except OSError:
        return None
    finally:
        os.close(fd)


def sweep(root: Path | None = None) -> int:
    """Remove what dead runs left under `root` (the temporary folder) and in this grader's parent
    groups; how many runs were swept."""
    from lab.grading.cgroup import sweep_groups

    sweep_groups()
    root = root or Path(tempfile.gettempdir())
    swept = 0
    try:
        entries = [entry for entry in os.scandir(root) if entry.name.startswith(RUN_PREFIX)]
    except OSError:
        return 0
    for entry in sorted(entries, key=lambda entry: entry.name):
        try:
            info = entry.stat(follow_symlinks=False)
            folder = os.open(entry.path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            opened = os.fstat(folder)
            if not own_folder(info) or (opened.st_dev, opened.st_ino) != (info.st_dev, info.st_ino):
                continue  # someone else's, or changed under us: not ours to judge
            owner = read_record(folder, OWNER)
            if owner is None or alive(owner.strip()):
                continue  # not a record (or not yet written), or its run goes on
            for line in (read_record(folder, NOTES) or "").splitlines():
                kind, _, value = line.partition(" ")
                if kind == "token" and TOKEN.fullmatch(value):
                    kill_marked(value)
        finally:
            os.close(folder)
        shutil.rmtree(entry.path, ignore_errors=True)  # rmtree follows no link inside
        swept += 1
    return swept
