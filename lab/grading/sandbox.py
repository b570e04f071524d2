"""A private copy of a submission, so that what its code does stays in that copy.

Student code may delete or rewrite files in its own folder: it only ever sees a fresh copy
in a temporary folder of its own (mode 0700), never the original, another submission or the
kit. Symbolic links are not copied (a link could point at the kit or at another student's
work), nor are caches and version-control folders.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Iterator

SKIPPED_NAMES = {"__pycache__", ".git", ".venv", "venv", "node_modules", ".mypy_cache", ".pytest_cache"}


def ignore_links_and_caches(folder: str, names: list[str]) -> set[str]:
    return {
        name for name in names
        if name in SKIPPED_NAMES or os.path.islink(os.path.join(folder, name))
    }


@contextlib.contextmanager
def private_copy(submission: Path) -> Iterator[Path | None]:
    """Yield a fresh copy of `submission` (None if it is not a readable folder); always removed."""
    if not submission.is_dir():
        yield None
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
