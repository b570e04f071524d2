"""Asking a preloader (lab/process/preloader.py) for a forked process."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

from lab.process.groups import Child
from lab.time_limits import PRELOADER_REPLY


def fork(address: str, target: str, args: list[str], cwd: Path | str, env: dict[str, str],
         extra_fds: list[int] = (), extra: dict | None = None, holder: Child | None = None) -> Child | None:
    """Ask the preloader at `address` for `python target args...` in `cwd`, its stdin, stdout
    and stderr on pipes to us; None if it cannot. A zygote also takes `extra_fds` (its status
    pipe and namespaces), `extra` fields, and the `holder` of the sandbox its fork joins."""
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
    return Child(pid, os.fdopen(ours[0], "wb"), os.fdopen(ours[1], "rb"), os.fdopen(ours[2], "rb"),
                 control=control, holder=holder)
