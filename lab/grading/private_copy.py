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
                 deadline: float = float("inf")) -> Iterator[Path | Refused | None]:
    """Yield a fresh copy of `submission` (None if it is not a readable folder, Refused if it is
    over the caps); always removed."""
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
        try:
            shutil.copytree(submission, copy, ignore=ignore_links_and_caches)
        except (OSError, shutil.Error):
            yield None
            return
        yield copy
    finally:
        remove_tree(holder)


def remove_tree(path: Path) -> None:
    """Remove a folder even if student code made parts of it read-only."""

    def make_writable_and_retry(function, failed_path, _error) -> None:
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(failed_path), stat.S_IRWXU)
            os.chmod(failed_path, stat.S_IRWXU)
            function(failed_path)

    shutil.rmtree(path, onerror=make_writable_and_retry)
