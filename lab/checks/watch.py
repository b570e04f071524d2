"""`lab check --watch`: run the checks again whenever a file of the folder is saved.

Polls modification times (no extra dependency, works in every container) often enough
that a save is noticed within a tenth of a second; the checks run again in this same
process, which keeps the results of the probes the save does not concern (see
lab.checks.engine.ProbeMemo). Ctrl-C stops it cleanly.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

POLL_SECONDS = 0.1
SETTLE_SECONDS = 0.05  # for an editor to finish writing the file
IGNORED = ("__pycache__", ".pytest_cache", ".git")


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Each file's (mtime, size): a save changes one of them."""
    stamps = {}
    for path in folder.rglob("*"):
        if path.is_file() and not any(part in IGNORED for part in path.parts):
            try:
                status = path.stat()
            except OSError:
                continue  # removed while we looked
            stamps[str(path)] = (status.st_mtime_ns, status.st_size)
    return stamps


def watch(folder: Path, run_once: Callable[[], None], waiting: Callable[[], None],
          poll: float = POLL_SECONDS, rounds: int | None = None) -> None:
    """Run, then wait for a change and run again; `rounds` limits the runs (for tests)."""
    done = 0
    try:
        while rounds is None or done < rounds:
            seen = snapshot(folder)
            run_once()
            done += 1
            if rounds is not None and done >= rounds:
                return
            waiting()
            while snapshot(folder) == seen:
                time.sleep(poll)
            time.sleep(SETTLE_SECONDS)
    except KeyboardInterrupt:
        return
