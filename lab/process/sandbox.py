"""The sandbox that student processes run in during `lab grade`: bubblewrap (`bwrap`).

Each student process (server, client, model runner, bonus server) starts as
`bwrap ... -- python FILE`, with:
- its own pid, network, mount, user, ipc, uts and cgroup namespaces (`--unshare-all`): it sees
  no process outside its sandbox (not the grader, not the check run, not another submission),
  and its network is a loopback of its own;
- `--die-with-parent` and a pid namespace: when the process started inside ends or the check
  run goes, everything the student started goes too (setsid, double fork change nothing);
- read-only system folders, Python and its site-packages, where the kit's own source is
  covered by an empty folder; its working folder, read-only, and nothing else of the
  submission's; a private /dev and a private /tmp (a tmpfs of Spec.tmp_bytes, /dev/shm an
  eighth of that): the only places it can write;
- no kernel keyring (limits.forbid_keyrings says why): the filter is set on the check run
  itself, so every process it starts inherits it;
- the environment the check gives it (student.child_env), nothing more.

Listening sockets a check needs (a fake model, a spy server) are reachable from inside the
sandbox's network only: a tiny launcher (LAUNCHER) runs first inside the sandbox, binds them on
its loopback, passes them out over an inherited unix socket (SCM_RIGHTS), closes its own
copies, and only then executes the student's program: student code can connect to them,
never own them.
"""

from __future__ import annotations

import contextlib
import os
import platform
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

from lab.layout import DISTRIBUTION, KIT_PARENT, solutions_dir
from lab.time_limits import SANDBOX_TRIAL

SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/localtime", "/etc/nsswitch.conf", "/etc/hosts",
                "/etc/ssl", "/etc/ca-certificates", "/etc/alternatives", "/etc/mime.types")
EDITABLE_NAME = DISTRIBUTION.replace("-", "_")  # the kit's name as an editable install's files spell it
# A sandbox's /tmp is the one place its processes can write much (their folder is read-only): a
# tmpfs of this size. Its pages count toward the submission's memory cap where a control group
# holds it; where none can be made, this size is what caps them.
DEFAULT_TMP_BYTES = 64 * 1024 * 1024
MIN_SHM_BYTES = 1024 * 1024
STUDENT_UID = 65534  # nobody: the host uid of student code when the grader is root
# Joins the $1 cgroups named next (writing 0 moves the writer), then runs the rest. A count, not
# a "--": the MCP Inspector, given this command, takes a second "--" for the end of its own options.
JOIN_FAILED = 125  # a process that could not join its group exits with this, before any student code
JOIN = (f'n=$1; shift; while [ "$n" -gt 0 ]; do echo 0 > "$1" || exit {JOIN_FAILED}; shift; n=$((n - 1)); done; '
        'exec "$@"')

# Runs inside the sandbox before the student's program: argv = CPU FD NAME... -- PROGRAM ARGS...
# (CPU: seconds of CPU for the program and what it starts, 0 for none; FD: -1 without listeners).
# With no PROGRAM it holds the sandbox open until killed, for the zygote's fork to join
# (lab/process/sandbox_entry.py): the listeners it sends out say the sandbox is ready.
LAUNCHER = """\
import json, os, resource, signal, socket, sys
split = sys.argv.index("--")
cpu, channel, names, program = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:split], sys.argv[split + 1:]
if cpu:
    hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    soft = cpu if hard == resource.RLIM_INFINITY else min(cpu, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 1 if hard == resource.RLIM_INFINITY else hard))
listeners = []
for name in names:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    os.environ[name] = str(listener.getsockname()[1])
    listeners.append(listener)
if channel >= 0:
    with socket.socket(fileno=channel) as out:
        socket.send_fds(out, [json.dumps(names).encode()], [listener.fileno() for listener in listeners])
for listener in listeners:
    listener.close()
if not program:
    while True:
        signal.pause()
os.execv(program[0], program)
"""


@dataclass(frozen=True)
class Spec:
    """What a sandbox shows: read-only folders, folders hidden in them, one writable folder."""

    bwrap: str
    readable: tuple[str, ...]
    hidden: tuple[str, ...] = ()
    writable: tuple[str, ...] = ()
    hidden_files: tuple[str, ...] = ()  # files made unreadable: an editable install's hook into the kit
    links: tuple[tuple[str, str], ...] = field(default=())  # (link, target) at the root, e.g. /lib -> usr/lib
    proc: bool = True  # a /proc of its own; False where it cannot be mounted (docker masks /proc)
    prlimit: str = ""  # util-linux's prlimit, which sets a CPU limit before bwrap runs ("": the launcher does)
    certificates: str = ""  # the system's hashed certificate folder, shown read-only ("": none)
    tmp_bytes: int = DEFAULT_TMP_BYTES  # the size of its /tmp, a tmpfs (0: the kernel's default, half the RAM)
    uid: int = -1  # the host uid student code runs as when the grader is root (-1: the grader's own, not root)
    setpriv: str = ""  # util-linux's setpriv, which changes to that uid inside the sandbox
    group: tuple[str, ...] = ()  # the cgroup.procs files of the submission's student group, joined before bwrap

    def with_writable(self, *folders: Path | str) -> "Spec":
        return replace(self, writable=tuple(str(f) for f in folders))

    @classmethod
    def from_dict(cls, data: dict) -> "Spec":
        """The spec that asdict() gave `data`, after a JSON round trip (its tuples came back lists)."""
        return cls(**{name: tuple(tuple(item) if isinstance(item, list) else item for item in value)
                      if isinstance(value, list) else value for name, value in data.items()})


def python_folders() -> list[str]:
    """The interpreter, its standard library and every site-packages folder it reads."""
    paths = sysconfig.get_paths()
    folders = {sys.base_prefix, sys.prefix, *(paths[name] for name in ("stdlib", "platstdlib", "purelib", "platlib")),
               os.path.dirname(os.path.dirname(os.path.realpath(sys.executable)))}
    folders.update(path for path in sys.path if path and os.path.isdir(path) and "site-packages" in path)
    return sorted(folders)


def kit_folders() -> list[str]:
    """Where the kit's source is: its package (in a checkout or installed) and the solutions,
    which a wheel keeps inside the package (covering the package covers them too)."""
    folders = sorted({str(KIT_PARENT / "lab"), str(solutions_dir())})
    return [folder for folder in folders if not any(inside(folder, other) for other in folders if other != folder)]


def inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def default_spec(bwrap: str) -> Spec:
    links = [(name, os.readlink(name)) for name in SYSTEM if os.path.islink(name)]
    readable = [name for name in SYSTEM if not os.path.islink(name) and os.path.isdir(name)]
    readable += [name for name in SYSTEM_FILES if os.path.exists(name)]
    for folder in python_folders():
        if not any(inside(folder, other) for other in readable):
            readable.append(folder)
    # An installed kit sits in site-packages: cover it. (A checkout that holds the venv is
    # fine as it is: only the venv folder is shown, not the checkout around it.)
    hidden = [folder for folder in kit_folders() if any(inside(folder, shown) for shown in readable)]
    certificates = certificate_folder()
    # As root, bubblewrap maps uid 0 inside to host root: a file it made setuid would be host
    # root's. So a root grader's student code runs as STUDENT_UID instead.
    root = os.geteuid() == 0
    return Spec(bwrap, tuple(readable), tuple(hidden), (), tuple(editable_hooks()), tuple(links),
                prlimit=shutil.which("prlimit") or "",
                certificates=certificates if any(inside(certificates, shown) for shown in readable) else "",
                uid=STUDENT_UID if root else -1, setpriv=(shutil.which("setpriv") or "") if root else "")


def certificate_folder() -> str:
    """The system's certificate folder, when OpenSSL can look certificates up in it by their
    hashed names (`update-ca-certificates` makes them); "" otherwise.

    Why: the openai SDK's HTTP client loads the whole certificate bundle into every client it
    makes (a model helper makes three per check run), while OpenSSL reads a hashed folder
    lazily. Student processes get SSL_CERT_DIR pointing here (student.child_env): the same
    certificates, looked up instead of loaded (in the sandbox, with no network, only the cost
    changes)."""
    import re
    import ssl

    folder = ssl.get_default_verify_paths().capath or ""
    with contextlib.suppress(OSError):
        if folder and any(re.fullmatch(r"[0-9a-f]{8}\.\d+", name) for name in os.listdir(folder)):
            return os.path.realpath(folder)
    return ""


def cpu_limit_option(seconds: int) -> str:
    """prlimit's option for `seconds` of CPU (then SIGXCPU, SIGKILL a second later), never above
    the hard limit this process has (raising it would fail, and the program never start)."""
    import resource  # POSIX only, as bubblewrap is

    hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    hard = seconds + 1 if hard == resource.RLIM_INFINITY else hard
    return f"--cpu={min(seconds, hard)}:{min(seconds + 1, hard)}"


def editable_hooks() -> list[str]:
    """The files by which an editable install (`pip install -e`) points Python at the kit's
    checkout: the `.pth` file every interpreter runs at start-up, and the finder it imports.
    In the sandbox /dev/null covers them, unreadable there (its mounts allow no device), so no
    student process learns where the kit is, or pays the hook's start-up cost (a third of a
    bare interpreter's): Python passes over a `.pth` file it cannot read."""
    hooks = []
    for folder in python_folders():
        with contextlib.suppress(OSError):
            for entry in os.scandir(folder):
                if entry.is_file() and entry.name.startswith("__editable__") and EDITABLE_NAME in entry.name:
                    hooks.append(entry.path)
    return sorted(hooks)


def wrap(spec: Spec, argv: list[str], cwd: Path | str, channel: int = -1,
         listen: tuple[str, ...] = (), cpu_seconds: int = 0, info_fd: int = -1) -> list[str]:
    """`argv` as a bwrap command line under `spec`, working in `cwd`, the one folder of the
    submission's it sees (read-only; a mount point, so it cannot be swapped for a link).

    The CPU limit is set before bwrap starts, by `prlimit` (a limit set from outside once it
    runs would miss the processes bwrap has forked already), or where there is no `prlimit`,
    by the launcher inside. `listen` and `channel`: see LAUNCHER and the module's docstring. An
    empty `argv` holds the sandbox open (see LAUNCHER); `info_fd` gets bwrap's JSON about it,
    whose "child-pid" is the host pid of a process in all its namespaces.
    """
    if spec.uid >= 0:
        # Root's bwrap makes no user namespace worth having (inside uid 0 is host uid 0): the
        # others only, then setpriv changes to spec.uid before any program runs, with no
        # capability left and no way to gain one (no_new_privs: setuid files do nothing).
        command = [spec.bwrap, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
                   "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--hostname", "lab",
                   "--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        command = [spec.bwrap, "--unshare-all", "--die-with-parent", "--new-session",
                   "--hostname", "lab", "--cap-drop", "ALL"]
    command += ["--info-fd", str(info_fd)] if info_fd >= 0 else []
    if cpu_seconds and spec.prlimit:  # a Python launcher costs a new interpreter: spare it when we can
        command = [spec.prlimit, cpu_limit_option(cpu_seconds), "--", *command]
        cpu_seconds = 0
    # Its own /tmp first: a Python (a virtual environment) under the host's /tmp is bound on top.
    command += ["--proc", "/proc"] if spec.proc else []
    # A private /dev, read-only (in a user namespace, bwrap's /dev is the sandbox's own tmpfs of
    # no set size), whose /dev/shm (memory, like /tmp) is a small tmpfs of its own.
    command += ["--dev", "/dev", "--perms", "1777", "--size", str(shm_bytes(spec.tmp_bytes)), "--tmpfs", "/dev/shm",
                "--remount-ro", "/dev", "--perms", "1777", *(["--size", str(spec.tmp_bytes)] if spec.tmp_bytes else []),
                "--tmpfs", "/tmp"]
    for link, target in spec.links:
        command += ["--symlink", target, link]
    if spec.uid >= 0:  # the folders on the way to each mount, open to spec.uid (root's bwrap makes them 0700)
        for folder in ways_down(spec, str(cwd)):
            command += ["--perms", "0755", "--dir", folder]
    for folder in spec.readable:
        command += ["--ro-bind", folder, folder]
    for folder in spec.hidden:
        command += ["--tmpfs", folder, "--remount-ro", folder]
    for file in spec.hidden_files:
        command += ["--ro-bind", "/dev/null", file]
    for folder in spec.writable:
        command += ["--bind", folder, folder]
    if str(cwd) not in spec.writable:  # its own folder read-only: it writes to its /tmp, of capped size
        command += ["--ro-bind", str(cwd), str(cwd)]
    command += ["--chdir", str(cwd), "--"]
    if spec.uid >= 0:
        # No "--" after its options: the program is an absolute path, and a second "--" on the
        # line confuses a real client (the MCP Inspector) that is given this command to start.
        command += [spec.setpriv, f"--reuid={spec.uid}", f"--regid={spec.uid}", "--clear-groups",
                    "--inh-caps=-all", "--no-new-privs"]
    elif spec.prlimit:  # in its own user namespace: a process limit of this sandbox's own
        from lab.process.limits import SANDBOX_PIDS  # POSIX only (resource), as bubblewrap is

        command += [spec.prlimit, f"--nproc={SANDBOX_PIDS}"]
    if listen or cpu_seconds or not argv:
        command += [sys.executable, "-I", "-S", "-c", LAUNCHER, str(cpu_seconds), str(channel), *listen, "--"]
    if spec.group:  # born in the submission's student group, bwrap and all it starts
        command = ["/bin/sh", "-c", JOIN, "sh", str(len(spec.group)), *spec.group, *command]
    return command + argv


def shm_bytes(tmp_bytes: int) -> int:
    """The size of a sandbox's /dev/shm: an eighth of its /tmp (POSIX shared memory and
    semaphores need little), never unbounded (0: the kernel's default, half the RAM)."""
    return max(MIN_SHM_BYTES, (tmp_bytes or DEFAULT_TMP_BYTES) // 8)


def ways_down(spec: Spec, cwd: str) -> list[str]:
    """Every folder above a mount point of `spec` (and `cwd`) that is not itself shown: what
    bubblewrap creates on the sandbox's root, parents first."""
    shown = [*spec.readable, *spec.writable, cwd, *spec.hidden_files]
    folders = set()
    for path in shown:
        parent = os.path.dirname(path.rstrip("/"))
        while parent not in ("", "/", "/tmp") and not any(inside(parent, other) for other in spec.readable):
            folders.add(parent)
            parent = os.path.dirname(parent)
    return sorted(folders, key=lambda folder: folder.count("/"))


def open_to_student(spec: Spec, folder: Path | str) -> None:
    """Let spec.uid read `folder` (a check's working folder, made 0700 by the grader): it
    holds copies of the student's files and the kit's scripts, and sits in the submission's
    private folder, which stays the grader's own (0700)."""
    if spec.uid >= 0:
        os.chmod(folder, 0o755)


@lru_cache(maxsize=1)
def find() -> tuple[Spec | None, str]:
    """The sandbox this machine can give, or None and why not (fr/en message key, detail)."""
    if sys.platform != "linux":
        return None, "platform"
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return None, "missing"
    from lab.process.limits import KEYRING_CALLS

    if platform.machine() not in KEYRING_CALLS:
        return None, f"broken:no keyring filter for {platform.machine()}: keyrings would be shared between submissions"
    if os.geteuid() == 0 and not shutil.which("setpriv"):
        return None, "broken:setpriv (util-linux) is needed to grade as root: student code never runs as root"
    problem = ""
    # Inside docker a new /proc cannot be mounted over the masked one: then none at all.
    for spec in (default_spec(bwrap), replace(default_spec(bwrap), proc=False)):
        problem = trial(spec)
        if not problem:
            return spec, ""
    if problem.startswith("setpriv: failed to execute"):  # the sandbox started; its uid cannot reach Python
        return None, "unreachable:" + problem
    return None, "broken:" + problem


def trial(spec: Spec) -> str:
    """"" when a Python program runs in this sandbox, else what went wrong. It runs as student
    code does, in a fresh working folder of its own (not /tmp: bound over the sandbox's own
    /tmp, the host's would hide the mounts below it, a virtual environment there among them)."""
    try:
        with tempfile.TemporaryDirectory(prefix="lab-trial-") as folder:
            open_to_student(spec, folder)
            command = wrap(spec, [sys.executable, "-I", "-c", "print('ok')"], folder)
            done = subprocess.run(command, capture_output=True, timeout=SANDBOX_TRIAL, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as error:
        return str(error)
    if done.returncode != 0 or done.stdout.strip() != b"ok":
        detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return detail[-1] if detail else f"exit code {done.returncode}"
    return ""
