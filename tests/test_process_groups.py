"""lab.process.groups: waiting for a process, and killing it with what it started."""

from __future__ import annotations

import subprocess
import sys

from conftest import python
from hostile import is_gone, wait_until_gone
from lab.process.groups import TOKEN_VARIABLE, Child, stop, wait_for


def test_wait_for_gives_the_exit_code_or_none_at_the_limit_and_leaves_the_process_as_it_is() -> None:
    assert wait_for(python("raise SystemExit(3)"), 10.0) == 3
    sleeper = python("import time; time.sleep(60)")
    try:
        assert wait_for(sleeper, 0.2) is None
        assert sleeper.poll() is None and not is_gone(sleeper.pid)  # still running: the caller decides
    finally:
        stop(sleeper)
    assert wait_for(sleeper, 1.0) == -9  # reaped already: its code, at once


def test_a_plain_popen_is_waited_for_alike() -> None:
    assert wait_for(subprocess.Popen([sys.executable, "-c", "raise SystemExit(4)"]), 10.0) == 4


def test_stop_kills_what_the_process_left_running_and_reaps_it() -> None:
    spawner = python("import subprocess, sys, time\n"
                     "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
                     "print(child.pid, flush=True)\n"
                     "time.sleep(60)\n")
    child = int(spawner.stdout.readline())
    assert wait_for(spawner, 0.2) is None
    stop(spawner)
    assert spawner.returncode == -9  # reaped
    assert wait_until_gone(child)  # killed with the spawner's group
    stop(spawner)  # safe to repeat


def test_stop_with_a_token_sweeps_what_left_the_group_carrying_it() -> None:
    import os

    token = "0123456789abcdef"
    spawner = Child.new([sys.executable, "-I", "-c", "import subprocess, sys\n"
                         "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'],"
                         " start_new_session=True)\n"
                         "print(child.pid, flush=True)\n"],
                        stdout=subprocess.PIPE, start_new_session=True, env={**os.environ, TOKEN_VARIABLE: token})
    escaped = int(spawner.stdout.readline())
    assert wait_for(spawner, 10.0) == 0
    stop(spawner)
    assert not is_gone(escaped)  # another session: the group kill missed it
    stop(spawner, token)
    assert wait_until_gone(escaped)


def test_a_launcher_that_hands_out_the_wrong_listeners_is_stopped_and_its_sockets_closed() -> None:
    import os
    import socket

    import pytest

    from lab.process.student import KitError, receive_listeners

    launcher = python("import time; time.sleep(60)")
    ours, theirs = socket.socketpair()
    listener = socket.socket()
    socket.send_fds(theirs, [b'["other"]'], [listener.fileno()])
    before = set(os.listdir("/proc/self/fd"))
    with pytest.raises(KitError, match="wrong ones"):
        receive_listeners(ours, ("model",), launcher)
    assert launcher.poll() is not None  # stopped, where a kit error once left it running
    assert set(os.listdir("/proc/self/fd")) <= before  # the received copy closed
    for sock in (theirs, listener):
        sock.close()
