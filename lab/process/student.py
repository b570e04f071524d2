"""The one way every student process starts (server, client, model runner, bonus server; a
real MCP client's server is wrapped by `student_command`, the same sandbox), as the run's
launch context says (lab/process/launch.py):
- with a sandbox, `python script` runs inside bubblewrap (lab/process/sandbox.py), or, for a
  model runner, is forked by the zygote with openai loaded and joined into its sandbox
  (lab/process/sandbox_entry.py): the same sandbox, the same limits;
- without one (a student's own machine, `--no-sandbox`), as it is, or forked by a preloader
  (lab/process/trusted.py::start_trusted: one that does not answer costs a new interpreter).
A zygote the context names that does not answer, or whose fork cannot join, is a kit error
(KitError): never a quieter, less isolated path taken instead."""

from __future__ import annotations

import functools
import json
import os
import select
import socket
import stat
import subprocess
import sys
from pathlib import Path

from lab.process import sandbox
from lab.process.groups import Child, limit_cpu, stop, wait_for
from lab.process.launch import Launch
from lab.process.trusted import fork, start_trusted
from lab.time_limits import SANDBOX_LISTENERS, ZYGOTE_JOIN


class KitError(RuntimeError):
    """The kit itself failed (not the student's code): reported as a kit error, never a zero."""


def loopback_listeners(names: tuple[str, ...]) -> dict[str, socket.socket]:
    listeners = {name: socket.socket(socket.AF_INET, socket.SOCK_STREAM) for name in names}
    for listener in listeners.values():
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
    return listeners


def with_ports(env: dict[str, str], listeners: dict[str, socket.socket]) -> dict[str, str]:
    return {**env, **{name: str(listener.getsockname()[1]) for name, listener in listeners.items()}}


def start_student(launch: Launch, script: Path, args: tuple[str, ...] = (), *, cwd: Path, env: dict[str, str],
                  listen: tuple[str, ...] = (), cpu_seconds: int = 0, warm: bool = False,
                  terminal: bool = False) -> tuple[Child, dict[str, socket.socket]]:
    """`python script args...`, a student process, with stdin, stdout and stderr on pipes, in a
    session of its own, as `launch` says (see the module's docstring). Returns (process, listeners).

    `listen` names environment variables: each gets the port of a loopback listener the process
    can reach (inside its sandbox's own network when there is one); the listeners are returned,
    for the caller to serve. `warm` (the model runner, which imports openai): forked with openai
    loaded by the context's zygote or preloader when it names one. `terminal` (`lab run`): the
    process takes this one's stdin, stdout and stderr, not pipes."""
    if warm and launch.sandbox is not None and launch.zygote:
        return start_joined(launch.zygote, script, args, cwd, env, launch.sandbox, listen, cpu_seconds)
    forked = (launch.preloader, str(script), list(args)) if warm and launch.preloader else None
    return start_new(launch, [sys.executable, str(script), *args], cwd, env, listen, cpu_seconds, terminal, forked)


def start_new(launch: Launch, argv: list[str], cwd: Path, env: dict[str, str], listen: tuple[str, ...] = (),
              cpu_seconds: int = 0, terminal: bool = False,
              forked: tuple[str, str, list[str]] | None = None) -> tuple[Child, dict[str, socket.socket]]:
    """`argv` as a new process: inside bubblewrap when `launch` has a sandbox; as it is
    otherwise, or `forked` by a preloader (lab/process/trusted.py::start_trusted)."""
    pipes = dict.fromkeys(("stdin", "stdout", "stderr"), None if terminal else subprocess.PIPE)
    spec = launch.sandbox
    if spec is None:
        listeners = loopback_listeners(listen)
        process = start_trusted(argv, with_ports(env, listeners), cwd=cwd, forked=forked, **pipes)
        if cpu_seconds:
            limit_cpu(process.pid, cpu_seconds)
        return process, listeners
    sandbox.open_to_student(spec, cwd)
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET) if listen else (None, None)
    command = sandbox.wrap(spec, argv, cwd, theirs.fileno() if theirs else -1, listen, cpu_seconds)
    try:
        process = start_trusted(command, env, cwd=cwd, pass_fds=(theirs.fileno(),) if theirs else (), **pipes)
    finally:
        if theirs:
            theirs.close()
    return process, receive_listeners(ours, listen, process) if ours else {}


def receive_listeners(channel: socket.socket, listen: tuple[str, ...],
                      process: Child) -> dict[str, socket.socket]:
    """The listeners the sandbox's launcher sends out over `channel` (closed after)."""
    try:
        channel.settimeout(SANDBOX_LISTENERS)
        names, fds, _, _ = socket.recv_fds(channel, 4096, max(1, len(listen)))
        if json.loads(names) != list(listen) or len(fds) != len(listen):
            for fd in fds:
                os.close(fd)
            raise ValueError("it handed out the wrong ones")  # stopped below, as on any other failure
    except (OSError, ValueError) as error:
        stop(process)
        raise KitError(f"the sandbox's launcher gave no listeners: {error}") from None
    finally:
        channel.close()
    return {name: socket.socket(fileno=fd) for name, fd in zip(listen, fds)}


def joins_here(address: str, spec: sandbox.Spec) -> bool:
    """Whether the zygote at `address` can join a sandbox of `spec` on this host: a trial run.
    (Where bwrap is setuid, say, its namespaces belong to root: then `lab grade` names no zygote,
    says so in its header, and model runners start as new interpreters, as isolated, slower.)"""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="lab-join-") as folder:
        script = Path(folder) / "trial.py"
        script.write_text("print('joined')\n", encoding="utf-8")
        script.chmod(0o644)  # whatever the umask (run_autograder's is 077): the sandbox's uid reads it
        try:
            process, _ = start_joined(address, script, (), Path(folder), {"PATH": "/usr/bin:/bin"}, spec)
        except KitError:
            return False
        try:
            return wait_for(process, ZYGOTE_JOIN) == 0 and process.stdout.read() == b"joined\n"
        finally:
            stop(process)


def holder_pid(info: int) -> int:
    """The host pid in bwrap's --info-fd JSON (written, over one or more writes, before the
    sandbox's launcher runs: by the time its listeners arrive, it is all there)."""
    text = b""
    while select.select([info], [], [], SANDBOX_LISTENERS)[0]:
        chunk = os.read(info, 4096)
        text += chunk
        try:
            return int(json.loads(text)["child-pid"])
        except ValueError:
            if not chunk:
                break
    raise ValueError(f"bwrap said no child pid: {text[:200]!r}")


def start_joined(address: str, script: Path, args: tuple[str, ...], cwd: Path, env: dict[str, str],
                 spec: sandbox.Spec, listen: tuple[str, ...] = (), cpu_seconds: int = 0):
    """`python script args...` sandboxed under `spec`, forked by the zygote at `address` and
    joined into a sandbox built around a holder (lab/process/sandbox_entry.py). Returns
    (process, listeners) as start_student does; KitError when any step fails (see the module's
    docstring). The process ends the sandbox when it is reaped."""
    from lab.process.sandbox_entry import NAMESPACES

    sandbox.open_to_student(spec, cwd)
    info_out, info_in = os.pipe()
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    command = sandbox.wrap(spec, [], cwd, theirs.fileno(), listen, info_fd=info_in)
    try:
        holder = start_trusted(command, env, cwd=cwd, pass_fds=(theirs.fileno(), info_in), stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
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
        stop(holder)
        for fd in namespaces:
            os.close(fd)
        raise KitError(f"the sandbox's holder could not be joined: {error}") from None
    finally:
        os.close(info_out)
    status_out, status_in = os.pipe()
    try:
        forked = fork(address, str(script), list(args), cwd, with_ports(env, listeners),
                      extra_fds=[status_in, *namespaces], holder=holder,
                      extra={"group": list(spec.group), "cpu": cpu_seconds, "uid": spec.uid})
    finally:
        for fd in (status_in, *namespaces):
            os.close(fd)
    if forked is None:
        os.close(status_out)
        stop(holder)
        for listener in listeners.values():
            listener.close()
        raise KitError(f"the zygote at {address} did not answer")
    with os.fdopen(status_out, "rb") as status:
        said = status.read(600) if select.select([status], [], [], ZYGOTE_JOIN)[0] else b"no answer"
    if said != b"joined":
        stop(forked)
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
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(os.dup(fd), "rb") as handle:
            return handle.read(limit)
    finally:
        os.close(fd)


def read_student_text(path: Path) -> str:
    """A student file as text (read_student_file's rules), "" when there is none."""
    return (read_student_file(path) or b"").decode("utf-8", "replace")


def copy_student_file(source: Path, target: Path) -> bool:
    """Copy a student's file for a check (see read_student_file); False when it is not one."""
    data = read_student_file(source)
    if data is None:
        return False
    target.write_bytes(data)
    target.chmod(0o644)  # whatever the umask: when root grades, student code (nobody) reads it
    return True


def student_command(launch: Launch, argv: list[str], cwd: Path, lang: str) -> list[str]:
    """`argv` as it must start when a trusted program (a real MCP client) starts student code:
    wrapped in the launch context's sandbox when there is one, as it is otherwise."""
    if launch.sandbox is None:
        return argv
    # Whatever environment the client passes on, the server gets only this one.
    clean = ["env", "-i", *(f"{name}={value}" for name, value in SANDBOX_BASE.items()), f"LAB_LANG={lang}"]
    sandbox.open_to_student(launch.sandbox, cwd)
    return sandbox.wrap(launch.sandbox, [*clean, *argv], cwd)


system_certificates = functools.lru_cache(maxsize=1)(sandbox.certificate_folder)  # looked for once per process


# What a sandboxed student process gets: only what the checks set (no HOME, no PATH of the host).
# (Unsandboxed, it keeps the grading token, LAB_GRADE_TOKEN: by it the grader finds what it
# left running, see lab/grading/runner.py.)
SANDBOX_BASE = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}


def child_env(launch: Launch, lang: str, **extra: str) -> dict[str, str]:
    """The environment of a student process: in a sandbox only what the checks set, elsewhere
    the student's own."""
    spec = launch.sandbox
    base = dict(SANDBOX_BASE) if spec else dict(os.environ)
    # Certificates looked up, not loaded by each OpenAI(...) (see sandbox.certificate_folder).
    # Outside a sandbox too: the checks' student processes reach only the checks' own
    # endpoints (plain HTTP on loopback, pipes), so no certificate ever serves them, and a
    # bundle named by SSL_CERT_FILE would still be loaded whole by each client.
    certificates = spec.certificates if spec else system_certificates()
    if certificates:
        base.pop("SSL_CERT_FILE", None)
        base["SSL_CERT_DIR"] = certificates
    env = {**base, "LAB_LANG": lang, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONIOENCODING": "utf-8"}
    # A real client's server gets no help to flush its replies: neither does the student's.
    env.pop("PYTHONUNBUFFERED", None)
    env.update(extra)
    return env
