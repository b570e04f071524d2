"""A private copy of a submission, so that what its code does stays in that copy.

Student code may delete or rewrite files in its own folder: it only ever sees a fresh copy
in a temporary folder of its own (mode 0700), never the original, another submission or the
kit. Symbolic links are not copied (a link could point at the kit or at another student's
work), nor are caches and version-control folders.

Copying has caps of its own (files, bytes, and the submission's deadline): a submission of
50,000 files or a sparse 2 GB file is refused before a byte of it is copied.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

SKIPPED_NAMES = {"__pycache__", ".git", ".venv", "venv", "node_modules", ".mypy_cache", ".pytest_cache"}


def ignore_links_and_caches(folder: str, names: list[str]) -> set[str]:
    return {
        name for name in names
        if name in SKIPPED_NAMES or os.path.islink(os.path.join(folder, name))
    }


@dataclass(frozen=True)
class CopyCaps:
    files: int = 2000  # files and folders: a submission has a handful
    bytes: int = 64 * 1024 * 1024  # apparent size, so a sparse file counts in full


# What a failed copy says about the grader's side, not the submission: a full disk, a quota...
GRADER_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EMFILE, errno.ENFILE, errno.ENOMEM}
SPECIAL_BITS = stat.S_ISUID | stat.S_ISGID | stat.S_ISVTX


@dataclass(frozen=True)
class CopyFailed:
    """The copy failed on the grader's side (a kit error for that submission, never a zero)."""

    reason: str


@dataclass(frozen=True)
class Refused:
    """A submission over the copy's caps: the i18n key and its fields."""

    key: str
    fields: dict


def measure(submission: Path, caps: CopyCaps, deadline: float) -> Refused | None:
    """Walk what would be copied, stopping as soon as a cap or the deadline is passed."""
    files = size = 0
    for folder, names, file_names in os.walk(submission):
        names[:] = [n for n in names if n not in ignore_links_and_caches(folder, names)]
        for name in file_names:
            path = os.path.join(folder, name)
            if name in SKIPPED_NAMES or os.path.islink(path):
                continue
            with contextlib.suppress(OSError):
                size += os.lstat(path).st_size
        files += len(names) + len(file_names)
        if files > caps.files:
            return Refused("grade.copy_files", {"limit": caps.files})
        if size > caps.bytes:
            return Refused("grade.copy_bytes", {"limit": caps.bytes // (1024 * 1024)})
        if time.monotonic() > deadline:
            return Refused("grade.copy_time", {})
    return None


@contextlib.contextmanager
def private_copy(submission: Path, caps: CopyCaps = CopyCaps(),
                 deadline: float = float("inf")) -> Iterator[Path | Refused | CopyFailed | None]:
    """Yield a fresh copy of `submission` (None if it is not a readable folder, Refused if it is
    over the caps, CopyFailed when the grader's disk failed it); always removed.

    The copy lies in a folder of mode 0700 (no other local user reaches it) and its files lose
    their setuid, setgid and sticky bits (a copied setuid file runs as nobody's but its caller's)."""
    if not submission.is_dir():
        yield None
        return
    refused = measure(submission, caps, deadline)
    if refused is not None:
        yield refused
        return
    holder = Path(tempfile.mkdtemp(prefix="lab-grade-"))
    copy = holder / (submission.resolve().name or "submission")
    try:
        grader_errors: list[OSError] = []

        def copy_file(source: str, target: str) -> None:
            try:
                shutil.copyfile(source, target, follow_symlinks=False)
                os.chmod(target, stat.S_IMODE(os.lstat(source).st_mode) & ~SPECIAL_BITS & 0o777)
            except OSError as error:
                if error.errno in GRADER_ERRORS:
                    grader_errors.append(error)
                raise

        try:
            shutil.copytree(submission, copy, ignore=ignore_links_and_caches, copy_function=copy_file)
        except (OSError, shutil.Error) as error:
            if isinstance(error, OSError) and error.errno in GRADER_ERRORS:
                grader_errors.append(error)
            # The reason without paths: it reaches the student's feedback.
            yield CopyFailed(os.strerror(grader_errors[0].errno)) if grader_errors else None
            return
        yield copy
    finally:
        remove_tree(holder)


def remove_tree(path: Path) -> None:
    """Remove a folder even if student code made parts of it read-only, never following a link:
    rmtree itself does not, and a folder it could not empty is made writable through a
    descriptor opened on the folder itself (a link planted there is left as it is, never
    `chmod`ed through to a file of the grader's)."""

    def make_writable_and_retry(function, failed_path, _error) -> None:
        with contextlib.suppress(OSError):
            owner_may_write(os.path.dirname(failed_path))
        with contextlib.suppress(OSError):
            owner_may_write(failed_path)  # a folder it could not list; anything else is left alone
        with contextlib.suppress(OSError):
            function(failed_path)

    shutil.rmtree(path, onerror=make_writable_and_retry)


def owner_may_write(folder: str) -> None:
    """chmod 0700 the folder `folder` names, opened without following a link at its name (an
    O_PATH descriptor needs no permission on the folder itself); OSError for anything else."""
    flags = os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    if hasattr(os, "O_PATH") and os.path.isdir("/proc/self/fd"):
        fd = os.open(folder, flags | os.O_PATH)
        try:  # fchmod refuses an O_PATH descriptor; its /proc entry names that folder, not a path
            os.chmod(f"/proc/self/fd/{fd}", stat.S_IRWXU)
        finally:
            os.close(fd)
        return
    fd = os.open(folder, flags | os.O_RDONLY)
    try:
        os.fchmod(fd, stat.S_IRWXU)
    finally:
        os.close(fd)
