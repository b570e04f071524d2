"""`lab check --watch`: the checks again, in this process (engine.ProbeMemo), whenever a file
of the folder is saved, seen by polling modification times (no dependency, any container)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

from lab.checks.engine import folder_files

POLL_SECONDS = 0.1
SETTLE_SECONDS = 0.05  # for an editor to finish writing the file


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Each file's (mtime, size): a save changes one of them."""
    stamps = {}
    for path in folder_files(folder):
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
