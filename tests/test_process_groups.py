"""lab.process.groups: waiting for a process, and killing it with what it started."""

from __future__ import annotations

import subprocess
import sys

from conftest import python
from hostile import is_gone, wait_until_gone
from lab.process.groups import wait_for, wait_or_kill


def test_wait_for_gives_the_exit_code_or_none_at_the_limit_and_leaves_the_process_as_it_is() -> None:
    assert wait_for(python("raise SystemExit(3)"), 10.0) == 3
    sleeper = python("import time; time.sleep(60)")
    try:
        assert wait_for(sleeper, 0.2) is None
        assert sleeper.poll() is None and not is_gone(sleeper.pid)  # still running: the caller decides
    finally:
        sleeper.kill()
        sleeper.wait()
    assert wait_for(sleeper, 1.0) == -9  # reaped already: its code, at once


def test_a_plain_popen_is_waited_for_alike() -> None:
    assert wait_for(subprocess.Popen([sys.executable, "-c", "raise SystemExit(4)"]), 10.0) == 4


def test_wait_or_kill_kills_what_the_process_left_running() -> None:
    spawner = python("import subprocess, sys, time\n"
                     "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
                     "print(child.pid, flush=True)\n"
                     "time.sleep(60)\n")
    child = int(spawner.stdout.readline())
    assert wait_or_kill(spawner, 0.2) is None
    assert spawner.returncode == -9
    assert wait_until_gone(child)  # killed with the spawner's group
