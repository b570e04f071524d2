"""The preloader: one process per class that has imported the kit and openai once, and forks a
ready interpreter for every run that asks for one.

Why: `import openai` is the heaviest thing a check run does; a fork of a process that has it
(and Python, and the kit) loaded costs a small fraction of a new interpreter (docs/performance.md).
`lab grade` uses one for each submission's trusted check run, and, only with `--no-sandbox`,
for the model runner. The zygote, a preloader with openai only and none of the kit's checks,
forks the sandboxed model runner and joins it into its sandbox (lab/process/sandbox_entry.py).
Student servers and clients are always new interpreters, as a real client starts them. What
each preloads is the caller's word (Preload): this layer imports nothing above it.

A forked process is as contained as a new interpreter would be:
- it is forked only from the preloader's single-threaded loop (a fork taken while other
  threads run can leave a lock held forever in the child);
- it gets a session of its own, the asker's folder, environment and stdio (passed over the
  socket), and the class's limits, what a process under a grading child inherits;
- it lives no longer than the connection that asked for it: when the asker closes it (done,
  killed, crashed), the preloader kills the child's whole group, then reaps it;
- when the grader goes (the preloader's stdin closes), every forked group is killed;
- the preloader runs with the class's environment without secrets: /proc/PID/environ shows none.

Protocol, over an AF_UNIX SOCK_SEQPACKET socket (one message per send):
    asker -> preloader  {"target", "args", "cwd", "env"} and three fds (stdin, stdout, stderr)
    preloader -> asker  {"pid": N}, later {"exit": CODE} (negative: killed by that signal)
    asker closes        the preloader sweeps the group and reaps the child.
Linux only (pidfds). Where none can start, the launch context names none and `lab grade` says
so in its header: every process starts as a new interpreter, with the same isolation.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import json
import os
import resource
import select
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from typing import Iterator

from lab.process.groups import Child, kill_group, stop, wait_for
from lab.process.limits import apply_limits, cap, join_group
from lab.process.sandbox import JOIN_FAILED
from lab.process.sandbox_entry import NAMESPACES, drop_privileges, join
from lab.process.student import SANDBOX_BASE
from lab.layout import KIT_PARENT
from lab.time_limits import PRELOADER_READY, REAP
from lab.process.trusted import start_trusted, trusted_python

MESSAGE_BYTES = 1 << 20  # the largest request (the environment is most of it)
JOIN_FDS = 1 + len(NAMESPACES)  # a zygote's request carries a status pipe and the sandbox's namespaces
SOCKET_PATH_LIMIT = 100  # bytes: an AF_UNIX address holds 108 with its final NUL


@dataclass(frozen=True)
class Preload:
    """What a preloader loads before it forks: modules to import, warm-ups to call
    ("module:function", each once) and whether it is a zygote (its forks join a sandbox and
    run student code: give it nothing of the kit's checks)."""

    modules: tuple[str, ...]
    warm_ups: tuple[str, ...] = ()
    zygote: bool = False


# The zygote: openai only, and its first client's lazy imports.
ZYGOTE = Preload(("openai",), ("lab.process.preloader:warm_up_openai",), zygote=True)

BOOT = """\
import json, sys
kit, address, cpu, memory, file_size, preload = sys.argv[1:]
sys.path.insert(0, kit)
from lab.process.trusted import keep_out_same_user
keep_out_same_user()
from lab.process.preloader import Preload, serve
serve(address, int(cpu), int(memory), int(file_size), Preload(**json.loads(preload)))
"""


def available() -> bool:
    return sys.platform == "linux" and hasattr(os, "pidfd_open") and hasattr(socket, "send_fds")


def run_script_here(script: str, args: list[str], env: dict[str, str], new_session: bool = True) -> int:
    """In a forked child: become `python script args...` (or `python -m module`), return its exit code.
    What Python and the modules imported already cost is paid once, by the preloader."""
    import runpy

    if new_session:
        os.setsid()  # its own group, as start_new_session gives a new interpreter
    os.environ.clear()
    os.environ.update(env)
    # A new interpreter reads TMPDIR afresh; the forked one must not keep the folder its parent
    # found first (tempfile caches it): a check run's temporary folders go where it is told.
    tempfile.tempdir = None
    path = os.path.abspath(script) if str(script).endswith(".py") else ""  # as Python gives __file__
    sys.argv = [str(script), *args]
    try:
        if path:
            sys.path.insert(0, os.path.dirname(path))  # `python script` puts the script's folder first
            runpy.run_path(path, run_name="__main__")
        else:
            runpy.run_module(str(script), run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as exiting:  # what Python does with sys.exit(...)
        if exiting.code is None or isinstance(exiting.code, int):
            code = exiting.code or 0
        else:
            print(exiting.code, file=sys.stderr)
            code = 1
    except BaseException as error:  # the traceback Python would print, without runpy's frames
        import traceback  # only now: it is slow to import, and most runs never need it

        frames = error.__traceback__
        while path and frames and frames.tb_frame.f_code.co_filename != path:
            frames = frames.tb_next
        traceback.print_exception(type(error), error, frames)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    return code


# ---------------------------------------------------------------- the preloader's side


@dataclass
class Fork:
    pid: int
    pidfd: int
    asker: socket.socket
    exited: bool = False
    asker_gone: bool = False


class Preloader:
    """The loop: accept a request, fork, report the exit, sweep and reap when the asker is done."""

    def __init__(self, address: str, cpu: int, memory: int, file_size: int, zygote: bool = False) -> None:
        self.limits = (cpu, memory, file_size)
        self.zygote = zygote  # its forks join a sandbox (requests carry its namespaces) before running
        self.selector = selectors.DefaultSelector()
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.listener.bind(address)
        self.listener.listen(64)
        self.selector.register(self.listener, selectors.EVENT_READ, self.accept)
        self.selector.register(0, selectors.EVENT_READ, self.grader_gone)  # EOF: the grader went
        self.children: dict[int, Fork] = {}
        self.running = True

    def loop(self) -> None:
        while self.running:
            for key, _ in self.selector.select():
                try:
                    key.data(key.fileobj)
                except Exception:  # a kit bug must not end the preloader (and so slow the class)
                    import traceback

                    traceback.print_exc()

    def accept(self, listener: socket.socket) -> None:
        with contextlib.suppress(OSError):
            asker, _ = listener.accept()
            self.selector.register(asker, selectors.EVENT_READ, self.request)

    def request(self, asker: socket.socket) -> None:
        """One request per connection: fork the child, or close on anything malformed."""
        self.selector.unregister(asker)
        fds: list[int] = []
        try:
            expected = 3 + (JOIN_FDS if self.zygote else 0)
            message, fds, _, _ = socket.recv_fds(asker, MESSAGE_BYTES, expected)
            order = json.loads(message)
            if len(fds) != expected or not isinstance(order, dict):
                raise ValueError(f"a request is a JSON object and {expected} file descriptors")
            pid = self.fork(order, fds, asker)
        except (OSError, ValueError, TypeError, KeyError):
            asker.close()
            return
        finally:
            for fd in fds:
                os.close(fd)  # the child has its copies
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:  # out of descriptors: a fork nobody could watch must not run
            kill_group(pid)
            os.waitpid(pid, 0)
            asker.close()
            return
        child = Fork(pid, pidfd, asker)
        self.children[pid] = child
        self.selector.register(child.pidfd, selectors.EVENT_READ, lambda _: self.exited(child))
        self.selector.register(asker, selectors.EVENT_READ, lambda _: self.asker_done(child))
        with contextlib.suppress(OSError):
            asker.send(json.dumps({"pid": pid}).encode())

    def fork(self, order: dict, fds: list[int], asker: socket.socket) -> int:
        target, args, cwd, env = order["target"], order["args"], order["cwd"], order["env"]
        if not (isinstance(target, str) and isinstance(cwd, str) and isinstance(args, list)
                and isinstance(env, dict)):
            raise ValueError("target and cwd are strings, args a list, env an object")
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            code = 70  # EX_SOFTWARE, if even becoming the child fails
            try:
                self.close_inherited(asker)
                args, env = [str(a) for a in args], {str(k): str(v) for k, v in env.items()}
                for number, fd in enumerate(fds[:3]):  # received fds are above 2: each is closed once copied
                    os.dup2(fd, number)  # 0, 1, 2: the asker's stdio; the grader's pipe on stdin is replaced too
                    os.close(fd)
                if self.zygote:
                    code = self.join_and_run(target, args, cwd, env, fds[3:], order)
                else:  # the class's limits and the asker's folder
                    apply_limits(*self.limits)
                    os.chdir(cwd)
                    code = run_script_here(target, args, env)  # new session, environment, argv, path
            finally:
                os._exit(code)  # the child never returns into the loop
        return pid

    def close_inherited(self, asker: socket.socket) -> None:
        """In the child: none of the preloader's sockets or pidfds may reach student code (with
        another asker's connection, it could send that asker a false exit code)."""
        for key in list(self.selector.get_map().values()):
            if isinstance(key.fileobj, socket.socket):
                key.fileobj.close()  # the listener, every asker's connection, idle ones too
        for child in self.children.values():
            with contextlib.suppress(OSError):
                os.close(child.pidfd)
        asker.close()
        self.selector.close()

    def join_and_run(self, target: str, args: list[str], cwd: str, env: dict[str, str],
                     fds: list[int], order: dict) -> int:
        """In a zygote's child: join the sandbox, then run the target as a child of ours, inside
        its pid namespace; exit as it exits. fds: the status pipe, then one fd per namespace
        (NAMESPACES). The status pipe says "joined" (or why not) before any student code runs,
        and is closed before it does: student code cannot write it."""
        status, namespaces = fds[0], dict(zip(NAMESPACES, fds[1:]))
        os.setsid()  # the asker kills this group: us and the runner (unless it leaves; the holder's end gets it)
        try:
            join_group(order["group"])  # the submission's memory and process caps
            apply_limits(*self.limits)
            if order.get("cpu"):
                cap(resource.RLIMIT_CPU, int(order["cpu"]), int(order["cpu"]) + 1)
            join(namespaces)
            os.chdir(cwd)
            drop_privileges(int(order.get("uid", -1)))
        except (OSError, ValueError, KeyError, TypeError) as error:
            with contextlib.suppress(OSError):
                os.write(status, f"failed: {error}".encode()[:500])
            return JOIN_FAILED
        for fd in namespaces.values():
            os.close(fd)
        os.write(status, b"joined")
        os.close(status)
        runner = os.fork()  # joining a pid namespace places only the children we make next in it
        if runner == 0:
            code = 70
            try:
                code = run_script_here(target, args, env, new_session=False)
            finally:
                os._exit(code)
        return relay_exit(runner)

    def exited(self, child: Fork) -> None:
        """The child has ended (not reaped yet, so its pid still names its group): tell the asker."""
        self.selector.unregister(child.pidfd)
        child.exited = True
        info = os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)
        code = info.si_status if info.si_code == os.CLD_EXITED else -info.si_status
        if not child.asker_gone:
            with contextlib.suppress(OSError):
                child.asker.send(json.dumps({"exit": code}).encode())
        else:
            self.reap(child)

    def asker_done(self, child: Fork) -> None:
        """The asker closed (or wrote again): whatever the child left running goes."""
        self.selector.unregister(child.asker)
        child.asker.close()
        child.asker_gone = True
        kill_group(child.pid)
        if child.exited:
            self.reap(child)  # else exited() reaps it once the kill has landed

    def reap(self, child: Fork) -> None:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(child.pid, 0)
        os.close(child.pidfd)
        del self.children[child.pid]

    def grader_gone(self, _stdin: int) -> None:
        if os.read(0, 4096):
            return  # the grader writes nothing; ignore it if it does
        for pid in self.children:
            kill_group(pid)
        self.running = False


def relay_exit(pid: int) -> int:
    """Wait for child `pid` and end as it ended: the same exit code, or the same signal."""
    status = os.waitpid(pid, 0)[1]
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
        return 128 + number  # a signal whose default action is to go on (none we expect)
    return os.waitstatus_to_exitcode(status)


def warm_up_openai() -> None:
    """Load what a helper's first `OpenAI(...).chat.completions.create(...)` would: the chat
    resources (imported lazily) and the platform headers (cached; reading them runs `uname -p`)."""
    import openai

    client = openai.OpenAI(base_url="http://127.0.0.1:9/v1", api_key="lab", max_retries=0)
    client.chat.completions.with_raw_response  # noqa: B018 (the lazy imports are the point)
    client.platform_headers()
    client.close()


def serve(address: str, cpu: int, memory: int, file_size: int, preload: Preload) -> None:
    """The preloader's main: import and warm up what `preload` says, say ready on stdout, then
    serve until stdin closes."""
    for name in preload.modules:
        with contextlib.suppress(ImportError):  # a kit without openai still grades, only slower
            importlib.import_module(name)
    for warm_up in preload.warm_ups:
        module, _, function = warm_up.partition(":")
        with contextlib.suppress(Exception):  # only a head start: a failure here costs time, not results
            getattr(importlib.import_module(module), function)()
    # What is loaded now stays, in every fork: out of the garbage collector's sight, so that a
    # fork's collections do not touch (and so copy) every page of it.
    gc.freeze()
    preloader = Preloader(address, cpu, memory, file_size, zygote=preload.zygote)
    print("ready", flush=True)
    preloader.loop()


# ---------------------------------------------------------------- the asker's side


@contextlib.contextmanager
def preloader(cpu: int, memory: int, file_size: int, env: dict[str, str],
              preload: Preload = Preload(())) -> Iterator[str | None]:
    """Run one preloader for the `with` block and yield its address (None where it cannot run)."""
    with preloaders(cpu, memory, file_size, env, {"one": preload}) as addresses:
        yield addresses["one"]


@contextlib.contextmanager
def preloaders(cpu: int, memory: int, file_size: int, env: dict[str, str],
               kinds: dict[str, Preload]) -> Iterator[dict[str, str | None]]:
    """Several preloaders at once (name -> address, None where one cannot run): all start
    before any is waited for, so their imports overlap on the host's cores. Each listens in
    a short private folder of its own (socket_folder), whatever TMPDIR's length."""
    started: dict[str, tuple[Child, str]] = {}
    try:
        for name, preload in kinds.items() if available() else []:
            address = os.path.join(socket_folder(), "socket")
            started[name] = (start_trusted(
                trusted_python(["-X", "utf8", "-c", BOOT, str(KIT_PARENT), address, str(cpu), str(memory),
                                str(file_size), json.dumps(asdict(preload))]),
                zygote_environment(env) if preload.zygote else env,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            ), address)
        yield {name: ready(*started[name]) if name in started else None for name in kinds}
    finally:
        for process, address in started.values():
            process.stdin.close()  # the preloader kills what it forked and ends
            wait_for(process, REAP)
            stop(process)
            process.stdout.close()
            shutil.rmtree(os.path.dirname(address), ignore_errors=True)  # the socket only


def socket_folder() -> str:
    """A new private folder (mode 0700) with a path short enough for an AF_UNIX address: in
    TMPDIR when it is short, else in /tmp (a preloader that cannot bind makes grading quietly slow)."""
    for parent in (tempfile.gettempdir(), "/tmp"):
        if len(os.path.join(parent, "lab-preload-XXXXXXXX", "socket").encode()) <= SOCKET_PATH_LIMIT:
            with contextlib.suppress(OSError):
                return tempfile.mkdtemp(prefix="lab-preload-", dir=parent)
    raise OSError("no folder short enough for a preloader's socket (TMPDIR and /tmp)")


def zygote_environment(env: dict[str, str]) -> dict[str, str]:
    """The zygote's environment: no more than a sandboxed process gets anyway. Its forks run
    student code, and /proc/self/environ shows a process the environment its interpreter was
    started with, whatever it sets later: the class's, even without its secrets, could hold
    an instructor's notes or paths. MALLOC_ARENA_MAX stays: see student_environment."""
    arenas = {"MALLOC_ARENA_MAX": env["MALLOC_ARENA_MAX"]} if "MALLOC_ARENA_MAX" in env else {}
    return {**SANDBOX_BASE, **arenas}


def ready(process: Child, address: str) -> str | None:
    """`address` once the preloader there says it is ready, None if it does not in time."""
    said = select.select([process.stdout], [], [], PRELOADER_READY)[0]
    return address if said and process.stdout.readline() == b"ready\n" else None
