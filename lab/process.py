"""Running a child process that may misbehave: own process group, time limit, always reaped."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

POSIX = os.name == "posix"
# Process groups (POSIX): where there are none (Windows), a child is killed alone, and the
# kit's own children take care to leave nothing behind.
GROUPS = hasattr(os, "killpg")
TOKEN_VARIABLE = "LAB_GRADE_TOKEN"  # set by `lab grade` for each check run: the checks know they are graded


def kill_group(process: subprocess.Popen) -> None:
    """Kill the process and everything it started, then reap it (no zombie).

    The group is killed even when its leader has exited already: what the leader
    started may still run (until the leader is reaped, its pid names the group).
    """
    if GROUPS:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except OSError:
            pass  # the group is gone already
    if process.poll() is None:
        process.kill()
    process.wait()


def run_with_limit(args: list[str], timeout: float, **popen: Any) -> int | None:
    """Run to the end and return the exit code, or None if it ran past `timeout` (then killed)."""
    process = subprocess.Popen(args, start_new_session=POSIX, **popen)
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    except KeyboardInterrupt:
        kill_group(process)
        raise
    finally:
        kill_group(process)


# ---------------------------------------------------------------- a Python script, forked


def run_python_with_limit(script: Path, args: list[str], timeout: float, env: dict[str, str]) -> int | None:
    """`python script args...` to the end: its exit code, or None past `timeout` (then killed).

    Where it is safe, the script runs in a fork of this interpreter instead of a new
    one: Python itself and the modules the kit has already imported come for free,
    which takes about a tenth of a second off every `lab run` (README, "Performance").
    The child still gets its own process group, environment and arguments.
    """
    if not can_fork():
        return run_with_limit([sys.executable, str(script), *args], timeout, env=env)
    sys.stdout.flush()  # else the child would print what our buffers hold a second time
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            code = run_script_here(script, args, env)
        finally:
            os._exit(code)  # the child never returns into the kit's code
    try:
        exited = exits_within(pid, timeout)
    except KeyboardInterrupt:
        kill_and_reap(pid)
        raise
    if not exited:
        kill_and_reap(pid)
        return None
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def can_fork() -> bool:
    # Linux only: a forked macOS process can crash inside system frameworks. Our
    # stdout and stderr must be the real ones (a test's in-memory capture would not
    # reach the child), and the kernel must give pidfds (5.3+) to wait with a limit.
    if sys.platform != "linux" or not all(hasattr(os, name) for name in ("pidfd_open", "fork", "setsid")):
        return False
    try:
        if sys.stdout.fileno() != 1 or sys.stderr.fileno() != 2:
            return False
        os.close(os.pidfd_open(os.getpid()))
    except (AttributeError, ValueError, OSError):  # io.UnsupportedOperation is both
        return False
    return True


def run_script_here(script: Path | str, args: list[str], env: dict[str, str], new_session: bool = True) -> int:
    """In a forked child: become `python script args...` (or `python -m module`), return its exit code."""
    import runpy

    if new_session:
        os.setsid()  # its own group, as start_new_session gives a new interpreter
    os.environ.clear()
    os.environ.update(env)
    is_module = not str(script).endswith(".py")
    path = "" if is_module else os.path.abspath(script)  # as Python gives __file__
    sys.argv = [str(script), *args]
    if not is_module:
        sys.path.insert(0, os.path.dirname(path))  # `python script` puts the script's folder first
    try:
        if is_module:
            runpy.run_module(str(script), run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(path, run_name="__main__")
        code = 0
    except SystemExit as stop:  # what Python does with sys.exit(...)
        if stop.code is None or isinstance(stop.code, int):
            code = stop.code or 0
        else:
            print(stop.code, file=sys.stderr)
            code = 1
    except BaseException as error:  # the traceback Python would print, without runpy's frames
        import traceback  # only now: it is slow to import, and most runs never need it

        frames = error.__traceback__
        while path and frames and frames.tb_frame.f_code.co_filename != path:
            frames = frames.tb_next
        traceback.print_exception(type(error), error, frames)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    return code


def exits_within(pid: int, timeout: float) -> bool:
    """True once child `pid` has exited (not reaped yet), False if still running at `timeout`."""
    pidfd = os.pidfd_open(pid)
    try:
        readable, _, _ = select.select([pidfd], [], [], timeout)
        return bool(readable)
    finally:
        os.close(pidfd)


def kill_and_reap(pid: int) -> None:
    """Kill the group of a forked child that was not reaped yet, then reap it (no zombie)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass  # the group is gone already
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass  # reaped already


# ---------------------------------------------------------------- a student process for a check


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


def joins_here(address: str, spec) -> bool:
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


ZYGOTE_VARIABLE = "LAB_ZYGOTE"  # the address of `lab grade`'s zygote (lab/grading/preload.py), for the kit only
JOIN_LIMIT = 10.0  # seconds for a zygote's fork to say it joined its sandbox


def start_joined(address: str, script: Path, args: tuple[str, ...], cwd: Path, env: dict[str, str],
                 listen: tuple[str, ...] = (), cpu_seconds: int = 0, spec=None):
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
    try:
        listeners = receive_listeners(ours, listen, holder)  # received: the sandbox is ready
        pid = holder_pid(info_out)
        namespaces = [os.open(f"/proc/{pid}/ns/{name}", os.O_RDONLY) for name in NAMESPACES]
    except (OSError, ValueError, KeyError, TypeError) as error:
        kill_group(holder)
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


def limit_cpu(pid: int, seconds: int) -> None:
    """At most `seconds` of CPU for process `pid` (then SIGXCPU, and SIGKILL a second later)."""
    try:
        import resource  # POSIX only
    except ImportError:
        return
    if hasattr(resource, "prlimit"):  # Linux
        try:
            resource.prlimit(pid, resource.RLIMIT_CPU, (seconds, seconds + 1))
        except (OSError, ValueError):
            pass  # it has exited already, or its limit is lower still


class LineSession:
    """A started student process driven one line at a time: the caller writes a line, then waits
    (with its own limit) for the next line on stdout. stderr is kept, capped."""

    def __init__(self, process: subprocess.Popen, keep: int = 1 << 16) -> None:
        import queue
        import threading

        self.process = process
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.stderr = bytearray()
        self.keep = keep

        def read_lines() -> None:
            for line in process.stdout:  # type: ignore[union-attr]
                self.lines.put(line[:keep])
            self.lines.put(None)

        def read_errors() -> None:
            while chunk := process.stderr.read1(1 << 16):  # type: ignore[union-attr]
                self.stderr.extend(chunk[: max(0, keep - len(self.stderr))])

        for target in (read_lines, read_errors):
            threading.Thread(target=target, daemon=True).start()

    def send(self, line: bytes) -> bool:
        try:
            self.process.stdin.write(line.rstrip(b"\n") + b"\n")  # type: ignore[union-attr]
            self.process.stdin.flush()  # type: ignore[union-attr]
            return True
        except (OSError, ValueError):
            return False  # it stopped reading or ended: the next read says so

    def read_line(self, timeout: float) -> bytes | None:
        """The next line, or None if none came within `timeout` or the output ended."""
        import queue

        try:
            return self.lines.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return None

    def close(self) -> int | None:
        """Kill it and everything it started; its exit code if it had ended on its own."""
        code = self.process.poll()
        kill_group(self.process)
        return code


# ---------------------------------------------------------------- asking `lab grade`'s preloader

REPLY_LIMIT = 10.0  # seconds for the preloader (lab/grading/preload.py) to fork and answer with the pid


class Forked:
    """A process the preloader forked, through the part of subprocess.Popen's interface the kit uses."""

    def __init__(self, control: socket.socket, pid: int, stdin: int | None, stdout: int | None,
                 stderr: int | None) -> None:
        self.control, self.pid, self.returncode = control, pid, None
        self.companion: subprocess.Popen | None = None  # a process that ends with it (a sandbox's holder)
        self.stdin = os.fdopen(stdin, "wb") if stdin is not None else None
        self.stdout = os.fdopen(stdout, "rb") if stdout is not None else None
        self.stderr = os.fdopen(stderr, "rb") if stderr is not None else None

    def poll(self) -> int | None:
        if self.returncode is None:
            self.receive_exit(0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None and not self.receive_exit(timeout):
            raise subprocess.TimeoutExpired(f"forked process {self.pid}", timeout or 0)
        return self.returncode  # type: ignore[return-value]

    def kill(self) -> None:
        if self.returncode is None:
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)

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
            kill_group(self.companion)
        return True


def start(address: str, target: str, args: list[str], cwd: Path | str, env: dict[str, str],
          extra_fds: list[int] = (), extra: dict | None = None, stdio: list[int] | None = None) -> Forked | None:
    """Ask the preloader at `address` for `python target args...` in `cwd`; None if it cannot.
    Its stdin, stdout and stderr are pipes to us, or the three fds of `stdio` (left open).
    A zygote also takes `extra_fds` (its status pipe and namespaces) and `extra` fields."""
    if stdio is None:
        pipes = [os.pipe() for _ in range(3)]  # stdin, stdout, stderr
        theirs = [pipes[0][0], pipes[1][1], pipes[2][1]]
        ours: list[int | None] = [pipes[0][1], pipes[1][0], pipes[2][0]]
    else:
        theirs, ours = [os.dup(fd) for fd in stdio], [None, None, None]
    control = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        control.settimeout(REPLY_LIMIT)
        control.connect(address)
        order = {"target": target, "args": args, "cwd": str(cwd), "env": env, **(extra or {})}
        socket.send_fds(control, [json.dumps(order).encode()], [*theirs, *extra_fds])
        pid = int(json.loads(control.recv(4096))["pid"])
        control.settimeout(None)
    except (OSError, ValueError, KeyError, TypeError):
        control.close()
        for fd in ours:
            if fd is not None:
                os.close(fd)
        return None
    finally:
        for fd in theirs:
            os.close(fd)
    return Forked(control, pid, *ours)
