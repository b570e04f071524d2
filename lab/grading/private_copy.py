"""A private copy of a submission, in a folder of its own (mode 0700), so that what its code does
stays there. Links (they could point at the kit or another student's work), caches,
version-control folders and special files are not copied.

Every step walks the submission the same way (`walk`): without recursion, within caps of files,
depth, bytes and the deadline, so that an oversized one is refused before a byte is copied. The
copy's modes are the kit's (0755 folders, 0644 files, 0755 with an x bit: the sandbox's uid reads
them), never the source's nor the umask's.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import shutil
import stat
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from lab.checks.reference import copy_for_student, make_folder, open_regular

SKIPPED_NAMES = {"__pycache__", ".git", ".venv", "venv", "node_modules", ".mypy_cache", ".pytest_cache"}


@dataclass(frozen=True)
class CopyCaps:
    files: int = 2000  # files and folders: a submission has a handful
    bytes: int = 64 * 1024 * 1024  # apparent size, so a sparse file counts in full
    depth: int = 32  # folders inside folders: an upload is a few deep


# What a failed copy says about the grader's side, not the submission: a full disk, a quota...
GRADER_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EMFILE, errno.ENFILE, errno.ENOMEM}


@dataclass(frozen=True)
class CopyFailed:
    """The copy failed on the grader's side (a kit error for that submission, never a zero)."""

    reason: str


@dataclass(frozen=True)
class Refused:
    """A submission over the copy's caps: the i18n key and its fields."""

    key: str
    fields: dict


@dataclass(frozen=True)
class Entry:
    relative: str  # below the submission, with os.sep
    folder: bool
    size: int = 0
    executable: bool = False  # a file with an x bit: its copy is 0755


def walk(submission: Path, caps: CopyCaps = CopyCaps(), deadline: float = float("inf")) -> list[Entry] | Refused | None:
    """What would be copied, folders first, in a stable order; Refused as soon as a cap or the
    deadline is passed; None when a folder cannot be read."""
    entries: list[Entry] = []
    size = 0
    pending = [("", 0)]
    while pending:
        relative, depth = pending.pop()
        try:
            with os.scandir(os.path.join(submission, relative) if relative else submission) as listing:
                found = sorted(listing, key=lambda entry: entry.name)
            subfolders = []
            for entry in found:
                if entry.name in SKIPPED_NAMES or entry.is_symlink():
                    continue
                path = os.path.join(relative, entry.name) if relative else entry.name
                if entry.is_dir(follow_symlinks=False):
                    if depth + 1 > caps.depth:
                        return Refused("grade.copy_depth", {"limit": caps.depth})
                    entries.append(Entry(path, True))
                    subfolders.append((path, depth + 1))
                elif entry.is_file(follow_symlinks=False):
                    info = entry.stat(follow_symlinks=False)
                    size += info.st_size
                    entries.append(Entry(path, False, info.st_size, bool(info.st_mode & 0o111)))
                if len(entries) > caps.files:
                    return Refused("grade.copy_files", {"limit": caps.files})
                if size > caps.bytes:
                    return Refused("grade.copy_bytes", {"limit": caps.bytes // (1024 * 1024)})
        except OSError:
            return None
        pending.extend(reversed(subfolders))
        if time.monotonic() > deadline:
            return Refused("grade.copy_time", {})
    return entries


def files_digest(submission: Path, caps: CopyCaps = CopyCaps()) -> str:
    """The hash of each name and content that would be graded; "" over the caps or unreadable
    (no earlier result then stands). Never raises."""
    found = walk(submission, caps)
    if not isinstance(found, list):
        return ""
    digest = hashlib.sha256()
    try:
        for entry in found:
            digest.update(entry.relative.encode("utf-8", "surrogateescape") + (b"/\n" if entry.folder else b"\0"))
            if entry.folder:
                continue
            with os.fdopen(open_regular(submission / entry.relative), "rb") as handle:
                digest.update(hashlib.sha256(handle.read(entry.size + 1)).digest())  # within the walk's caps
    except OSError:
        return ""
    return digest.hexdigest()


@contextlib.contextmanager
def private_copy(submission: Path, caps: CopyCaps = CopyCaps(),
                 deadline: float = float("inf")) -> Iterator[Path | Refused | CopyFailed | None]:
    """A fresh copy of `submission`, always removed; None if it is not a readable folder, Refused
    over the caps, CopyFailed when the grader's disk failed."""
    found = walk(submission, caps, deadline) if submission.is_dir() else None
    if not isinstance(found, list):
        yield found
        return
    holder = Path(tempfile.mkdtemp(prefix="lab-grade-"))
    # Bytes that are not UTF-8 in its name (an old zip's) would not pass in the check run's JSON.
    name = os.fsencode(submission.resolve().name).decode("utf-8", "replace")
    copy = holder / (name or "submission")
    try:
        budget = caps.bytes
        try:
            make_folder(copy)
            for entry in found:
                if entry.folder:
                    make_folder(copy / entry.relative)
                else:  # within what the walk measured: a file grown since adds nothing
                    budget -= copy_for_student(submission / entry.relative, copy / entry.relative,
                                               min(entry.size, budget), executable=entry.executable)
        except OSError as error:
            # The reason without paths: it reaches the student's feedback.
            yield CopyFailed(os.strerror(error.errno)) if error.errno in GRADER_ERRORS else None
            return
        yield copy
    finally:
        remove_tree(holder)


def remove_tree(path: Path) -> None:
    """Remove a folder even if student code made parts of it read-only, never following a link
    (a folder rmtree could not empty is made writable through a descriptor of its own)."""

    def make_writable_and_retry(function, failed_path, _error) -> None:
        with contextlib.suppress(OSError):
            owner_may_write(os.path.dirname(failed_path))
        with contextlib.suppress(OSError):
            owner_may_write(failed_path)  # a folder it could not list; anything else is left alone
        with contextlib.suppress(OSError):
            function(failed_path)

    shutil.rmtree(path, onerror=make_writable_and_retry)


def owner_may_write(folder: str) -> None:
    """chmod 0700 the folder `folder` names, opened without following a link; OSError otherwise."""
    by_path = hasattr(os, "O_PATH") and os.path.isdir("/proc/self/fd")
    fd = os.open(folder, os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
                 | (os.O_PATH if by_path else os.O_RDONLY))
    try:  # fchmod refuses an O_PATH descriptor; its /proc entry names that folder, not a path
        if by_path:
            os.chmod(f"/proc/self/fd/{fd}", stat.S_IRWXU)
        else:
            os.fchmod(fd, stat.S_IRWXU)
    finally:
        os.close(fd)
