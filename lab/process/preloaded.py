"""Asking a preloader (lab/process/preloader.py) for a forked process, and that process."""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import subprocess
from pathlib import Path

from lab.process.groups import stop
from lab.time_limits import PRELOADER_REPLY


class Forked:
    """A process the preloader forked, through the part of subprocess.Popen's interface the kit uses."""

    def __init__(self, control: socket.socket, pid: int, stdin: int, stdout: int, stderr: int,
                 companion=None) -> None:
        self.control, self.pid, self.returncode = control, pid, None
        self.companion = companion  # a process that ends with it (a sandbox's holder)
        self.stdin, self.stdout, self.stderr = os.fdopen(stdin, "wb"), os.fdopen(stdout, "rb"), os.fdopen(stderr, "rb")

    def poll(self) -> int | None:
        if self.returncode is None:
            self.receive_exit(0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None and not self.receive_exit(timeout):
            raise subprocess.TimeoutExpired(f"forked process {self.pid}", timeout or 0)
        return self.returncode  # type: ignore[return-value]

    def receive_exit(self, timeout: float | None) -> bool:
        """True once the exit code is in; then close, so the preloader sweeps the group and reaps."""
        if not select.select([self.control], [], [], timeout)[0]:
            return False
        try:
            message = self.control.recv(4096)
            self.returncode = int(json.loads(message)["exit"]) if message else -signal.SIGKILL
        except (OSError, ValueError, KeyError, TypeError):
            self.returncode = -signal.SIGKILL  # the preloader is gone, and its children with it
        self.control.close()
        if self.companion is not None:
            stop(self.companion)
        return True


def start(address: str, target: str, args: list[str], cwd: Path | str, env: dict[str, str],
          extra_fds: list[int] = (), extra: dict | None = None, companion=None) -> Forked | None:
    """Ask the preloader at `address` for `python target args...` in `cwd`, its stdin, stdout
    and stderr on pipes to us; None if it cannot. A zygote also takes `extra_fds` (its status
    pipe and namespaces) and `extra` fields, and its fork stops its `companion` (the sandbox's
    holder) when it ends."""
    pipes = [os.pipe() for _ in range(3)]  # stdin, stdout, stderr, each (read, write)
    theirs = [pipes[0][0], pipes[1][1], pipes[2][1]]
    ours = [pipes[0][1], pipes[1][0], pipes[2][0]]
    control = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        control.settimeout(PRELOADER_REPLY)
        control.connect(address)
        order = {"target": target, "args": args, "cwd": str(cwd), "env": env, **(extra or {})}
        socket.send_fds(control, [json.dumps(order).encode()], [*theirs, *extra_fds])
        pid = int(json.loads(control.recv(4096))["pid"])
        control.settimeout(None)
    except (OSError, ValueError, KeyError, TypeError):
        control.close()
        for fd in ours:
            os.close(fd)
        return None
    finally:
        for fd in theirs:
            os.close(fd)
    return Forked(control, pid, *ours, companion=companion)
