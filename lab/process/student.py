"""Starting a student process: sandboxed under `lab grade` (bubblewrap, lab/sandbox.py), as it
is on a student's own machine; a new interpreter, or a preloaded fork (the preloader without a
sandbox, the zygote that joins one: lab/sandbox_entry.py). Its environment, its listeners."""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from lab.process.groups import POSIX, kill_group, limit_cpu
from lab.process.preloaded import start

if TYPE_CHECKING:
    from lab.sandbox import Spec

# Addresses of `lab grade`'s preloaded helpers (lab/process/preloader.py), for the kit only:
PRELOAD_VARIABLE = "LAB_PRELOAD"  # the preloader (the check runs, unsandboxed model runners, the SDK client)
ZYGOTE_VARIABLE = "LAB_ZYGOTE"  # the zygote (sandboxed model runners, servers, clients: lab/sandbox_entry.py)
INSPECTOR_VARIABLE = "LAB_INSPECTOR"  # the MCP Inspector's command, found once (lab/real_clients.py)

# What start_python may fork instead of starting a new interpreter (see there):
KIT_SCRIPT, STUDENT_SCRIPT = "kit", "student"

LISTEN_LIMIT = 10.0  # seconds for the sandbox's launcher to hand its listeners out


class KitError(RuntimeError):
    """The kit itself failed (not the student's code): reported as a kit error, never a zero."""


def loopback_listener() -> socket.socket:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    return listener


def start_student(argv: list[str], cwd: Path, env: dict[str, str], listen: tuple[str, ...] = (),
                  cpu_seconds: int = 0) -> tuple[subprocess.Popen, dict[str, socket.socket]]:
    """Start a student process with stdin, stdout and stderr on pipes, in its own session.

    Under `lab grade` (a sandbox spec in the environment, see lab.sandbox) it runs inside
    bubblewrap; elsewhere as it is (`lab check` on the student's own machine). `listen` names
    environment variables: each gets the port of a loopback listener that the process can
    reach (inside its sandbox's own network when there is one); the listeners are returned,
    for the caller to serve.
    """
    from lab import sandbox

    pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    spec = sandbox.current()
    if spec is None:
        listeners = {name: loopback_listener() for name in listen}
        env = {**env, **{name: str(sock.getsockname()[1]) for name, sock in listeners.items()}}
        process = subprocess.Popen(argv, cwd=cwd, env=env, start_new_session=POSIX, **pipes)
        if cpu_seconds:
            limit_cpu(process.pid, cpu_seconds)
        return process, listeners
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET) if listen else (None, None)
    command = sandbox.wrap(spec, argv, cwd, theirs.fileno() if theirs else -1, listen, cpu_seconds)
    try:
        process = subprocess.Popen(command, cwd=cwd, env=env, start_new_session=True,
                                   pass_fds=(theirs.fileno(),) if theirs else (), **pipes)
    finally:
        if theirs:
            theirs.close()
    if ours is None:
        return process, {}
    return process, receive_listeners(ours, listen, process)


def receive_listeners(channel: socket.socket, listen: tuple[str, ...],
                      process: subprocess.Popen) -> dict[str, socket.socket]:
    """The listeners the sandbox's launcher sends out over `channel` (closed after)."""
    try:
        channel.settimeout(LISTEN_LIMIT)
        names, fds, _, _ = socket.recv_fds(channel, 4096, max(1, len(listen)))
        if json.loads(names) != list(listen) or len(fds) != len(listen):
            raise KitError("the sandbox's launcher handed out the wrong listeners")
    except (OSError, ValueError) as error:
        kill_group(process)
        raise KitError(f"the sandbox's launcher gave no listeners: {error}") from None
    finally:
        channel.close()
    return {name: socket.socket(fileno=fd) for name, fd in zip(listen, fds)}


def joins_here(address: str, spec: Spec) -> bool:
    """Whether the zygote at `address` can join a sandbox of `spec` on this host: a trial run.
    (Where bwrap is setuid, say, its namespaces belong to root: then a class's model runners
    start as new interpreters in their sandbox instead, slower, never a kit error each.)"""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="lab-join-") as folder:
        script = Path(folder) / "trial.py"
        script.write_text("print('joined')\n", encoding="utf-8")
        try:
            started = start_joined(address, script, (), Path(folder), {"PATH": "/usr/bin:/bin"}, spec=spec)
        except KitError:
            return False
        if started is None:
            return False
        process, _ = started
        try:
            return process.wait(timeout=JOIN_LIMIT) == 0 and process.stdout.read() == b"joined\n"
        except subprocess.TimeoutExpired:
            return False
        finally:
            kill_group(process)


def holder_pid(info: int) -> int:
    """The host pid in bwrap's --info-fd JSON (written, over one or more writes, before the
    sandbox's launcher runs: by the time its listeners arrive, it is all there)."""
    text = b""
    while select.select([info], [], [], LISTEN_LIMIT)[0]:
        chunk = os.read(info, 4096)
        text += chunk
        try:
            return int(json.loads(text)["child-pid"])
        except ValueError:
            if not chunk:
                break
    raise ValueError(f"bwrap said no child pid: {text[:200]!r}")


JOIN_LIMIT = 10.0  # seconds for a zygote's fork to say it joined its sandbox


def start_joined(address: str, script: Path, args: tuple[str, ...], cwd: Path, env: dict[str, str],
                 listen: tuple[str, ...] = (), cpu_seconds: int = 0, spec: Spec | None = None):
    """`python script args...` sandboxed, forked by the zygote at `address` with openai loaded
    (lab/sandbox_entry.py): bubblewrap builds the sandbox around a holder, the fork joins it.
    Returns (process, listeners) as start_student does, or None when the zygote cannot be asked
    (then start a new interpreter). The process ends the sandbox when it is reaped.
    `spec`: the sandbox (lab.sandbox.Spec); by default this check run's."""
    from lab import sandbox
    from lab.sandbox_entry import NAMESPACES

    spec = spec or sandbox.current()
    assert spec is not None, "start_joined is for sandboxed runs"
    info_out, info_in = os.pipe()
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    command = sandbox.wrap(spec, [], cwd, theirs.fileno(), listen, info_fd=info_in)
    try:
        holder = subprocess.Popen(command, cwd=cwd, env=env, start_new_session=True,
                                  pass_fds=(theirs.fileno(), info_in), stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    finally:
        theirs.close()
        os.close(info_in)
    namespaces: list[int] = []
    try:
        listeners = receive_listeners(ours, listen, holder)  # received: the sandbox is ready
        pid = holder_pid(info_out)
        for name in NAMESPACES:
            namespaces.append(os.open(f"/proc/{pid}/ns/{name}", os.O_RDONLY))
    except (OSError, ValueError, KeyError, TypeError) as error:
        kill_group(holder)
        for fd in namespaces:
            os.close(fd)
        raise KitError(f"the sandbox's holder could not be joined: {error}") from None
    finally:
        os.close(info_out)
    status_out, status_in = os.pipe()
    ports = {name: str(listener.getsockname()[1]) for name, listener in listeners.items()}
    try:
        forked = start(address, str(script), list(args), cwd, {**env, **ports}, extra_fds=[status_in, *namespaces],
                       extra={"holder": pid, "cpu": cpu_seconds})
    finally:
        for fd in (status_in, *namespaces):
            os.close(fd)
    if forked is None:
        os.close(status_out)
        kill_group(holder)
        for listener in listeners.values():
            listener.close()
        return None
    forked.companion = holder
    with os.fdopen(status_out, "rb") as status:
        said = status.read(600) if select.select([status], [], [], JOIN_LIMIT)[0] else b"no answer"
    if said != b"joined":
        kill_group(forked)
        raise KitError(f"the zygote's fork could not join its sandbox: {said.decode('utf-8', 'replace')}")
    return forked, listeners


STUDENT_FILE_LIMIT = 1 << 20  # bytes: the largest student file the checks read (a submission's file is small)


def read_student_file(path: Path, limit: int = STUDENT_FILE_LIMIT) -> bytes | None:
    """A file of the student's folder as the trusted checks may read it: never through a
    symbolic link (student code running beside could have made `model.py` a link to a file of
    the grader's), only a regular file, at most `limit` bytes. None when it is not one."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        import stat

        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(os.dup(fd), "rb") as handle:
            return handle.read(limit)
    finally:
        os.close(fd)


def copy_student_file(source: Path, target: Path) -> bool:
    """Copy a student's file for a check (see read_student_file); False when it is not one."""
    data = read_student_file(source)
    if data is None:
        return False
    target.write_bytes(data)
    return True


def student_command(argv: list[str], cwd: Path) -> list[str]:
    """`argv` as it must start when a trusted program (a real MCP client) starts student code:
    wrapped in this check run's sandbox when there is one, as it is otherwise."""
    from lab import sandbox

    spec = sandbox.current()
    if spec is None:
        return argv
    # Whatever environment the client passes on, the server gets only this one.
    clean = ["env", "-i", "PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/tmp", "LANG=C.UTF-8",
             f"LAB_LANG={os.environ.get('LAB_LANG', 'fr')}"]
    return sandbox.wrap(spec, [*clean, *argv], cwd)


# What a sandboxed student process gets: only what the checks set (no HOME, no PATH of the host).
SANDBOX_BASE = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}


def child_env(lang: str, **extra: str) -> dict[str, str]:
    """The environment of a student process: under `lab grade` only what the checks set,
    elsewhere the student's own; never the kit's helpers' addresses."""
    from lab import sandbox

    spec = sandbox.current()
    base = dict(SANDBOX_BASE) if spec else dict(os.environ)
    if spec and spec.certificates:  # looked up, not loaded by each OpenAI(...) (see sandbox.certificate_folder)
        base["SSL_CERT_DIR"] = spec.certificates
    env = {**base, "LAB_LANG": lang, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONIOENCODING": "utf-8"}
    for helper in (PRELOAD_VARIABLE, ZYGOTE_VARIABLE, INSPECTOR_VARIABLE):  # the kit's, not the student's
        env.pop(helper, None)
    env.pop(sandbox.VARIABLE, None)
    # A real client's server gets no help to flush its replies: neither does the student's.
    env.pop("PYTHONUNBUFFERED", None)
    env.update(extra)
    return env


def start_python(script: Path, args: tuple[str, ...], cwd: Path, env: dict[str, str], preloaded: str = "",
                 listen: tuple[str, ...] = (), cpu_seconds: int = 0):
    """`python script args...`: a new interpreter (sandboxed under `lab grade`: start_student),
    or a fork of a preloaded one, as `preloaded` allows:
    - KIT_SCRIPT (the kit's own scripts, the model runner): forked with openai imported, by
      `lab grade`'s zygote into the sandbox (lab/sandbox_entry.py), or by its preloader when
      there is no sandbox;
    - STUDENT_SCRIPT (a student's server or client): by the zygote into the sandbox, where a
      shell can hold it open (Spec.shell, when the script needs no listeners) or a launcher holds
      it anyway (the script's listeners); never by the preloader, whose memory holds the checks.
      Python and the standard library it imports come already loaded: about 25 ms of CPU less
      than a new interpreter, which the fork behaves as (lab.process.fork.as_new_interpreter).
    Returns (process, listeners)."""
    from lab import sandbox

    spec = sandbox.current()
    joins = preloaded == KIT_SCRIPT or (preloaded == STUDENT_SCRIPT and bool(listen or spec and spec.shell))
    zygote = os.environ.get(ZYGOTE_VARIABLE) if spec is not None and joins else None
    if zygote:
        joined = start_joined(zygote, script, args, cwd, env, listen, cpu_seconds)
        if joined is not None:
            return joined
    address = os.environ.get(PRELOAD_VARIABLE) if preloaded == KIT_SCRIPT and spec is None else None
    if address:
        listeners = {name: loopback_listener() for name in listen}
        ports = {name: str(listener.getsockname()[1]) for name, listener in listeners.items()}
        forked = start(address, str(script), list(args), cwd, {**env, **ports})
        if forked is not None:
            if cpu_seconds:
                limit_cpu(forked.pid, cpu_seconds)
            return forked, listeners
        for listener in listeners.values():
            listener.close()
    return start_student([sys.executable, str(script), *args], cwd, env, listen, cpu_seconds)
