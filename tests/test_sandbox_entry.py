"""The zygote (lab/process/sandbox_entry.py, lab/process/preloader.py): a preloaded fork that joins a
bubblewrap sandbox must be as contained as a program bubblewrap starts itself, and cost no
`import openai`. Real zygote, real bwrap, real namespaces."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import socket
import sys
import time
from pathlib import Path

import pytest

from lab.layout import KIT_PARENT
from lab.process import sandbox
from lab.grading.cgroup import SubmissionGroup
from lab.process.preloader import JOIN_FAILED, ZYGOTE, available, preloader
from lab.process.groups import stop
from lab.process.trusted import fork
from lab.process.student import KitError, start_joined
from lab.process.sandbox_entry import NAMESPACES

pytestmark = pytest.mark.skipif(sandbox.find()[0] is None or not available(),
                                reason="bubblewrap or pidfds missing here (.ci/run installs bubblewrap)")

MARKER = "LAB_ZYGOTE_TEST_SLEEPER"
NOTE = "an-instructors-note-4242"  # in the class's environment: never in a joined fork's
# How a process's interpreter started, as one JSON line: its standard streams, its bytecode
# setting, what it makes of a byte that is not UTF-8, and the environment it was started with.
# What a joined process finds around it, as one JSON line.
PROBE = f"""
import json, os, socket, subprocess, sys
status = dict(line.split(':', 1) for line in open('/proc/self/status'))
def reach(port):
    try:
        socket.create_connection(('127.0.0.1', port), timeout=1).close()
        return True
    except OSError:
        return False
if len(sys.argv) > 2:  # a sleeper that tries to outlive the run: new session, empty environment
    subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)', {MARKER!r}],
                     start_new_session=True, env={{}})
print(json.dumps({{
    'pid': os.getpid(), 'ppid': os.getppid(), 'cwd': os.getcwd(), 'files': sorted(os.listdir('.')),
    'caps': [int(status[name], 16) for name in ('CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb')],
    'no_new_privs': int(status['NoNewPrivs']), 'hostname': os.uname().nodename,
    'processes': sorted(int(p) for p in os.listdir('/proc') if p.isdigit()),
    'openai_loaded': 'openai' in sys.modules, 'kit_checks_loaded': 'lab.checks' in sys.modules,
    'kit_visible': os.path.exists({str(KIT_PARENT / 'lab' / 'checks')!r}),
    'solutions_visible': os.path.exists({str(KIT_PARENT / 'solutions')!r}),
    'listener': reach(int(os.environ['LAB_TEST_PORT'])), 'host_service': reach(int(sys.argv[1])),
    'env': sorted(os.environ), 'fds': sorted(int(fd) for fd in os.listdir('/proc/self/fd')),
    'note': {NOTE!r} in open('/proc/self/environ', encoding='latin-1').read(),
}}), flush=True)
if os.environ.get('LAB_TEST_HOLD'):  # alive until its input closes, for a test that looks at it
    sys.stdin.read()
"""


@pytest.fixture(scope="module")
def zygote():
    environment = dict(os.environ)
    environment["INSTRUCTOR_NOTE"] = NOTE
    with preloader(60, 2 << 30, 64 << 20, environment, ZYGOTE) as address:
        assert address is not None
        yield address


@pytest.fixture
def jailed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A check's folder, for processes in the class's sandbox (sandbox.find())."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "probe.py").write_text(PROBE, encoding="utf-8")
    return work


@pytest.fixture
def host_service():
    listener = socket.create_server(("127.0.0.1", 0))
    yield listener.getsockname()[1]
    listener.close()


def sleepers() -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if MARKER.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


def probe(zygote: str, work: Path, *args: str, listen=("LAB_TEST_PORT",), hold: bool = False,
          spec: sandbox.Spec | None = None) -> tuple[dict, object]:
    env = {"PATH": "/usr/bin:/bin", "LAB_LANG": "en", **({"LAB_TEST_HOLD": "1"} if hold else {})}
    process, listeners = start_joined(zygote, work / "probe.py", args, work, env, spec or sandbox.find()[0], listen)
    for listener in listeners.values():  # the check's side of the listener: accept what comes
        listener.settimeout(5)
    line = process.stdout.readline()
    assert line, process.stderr.read().decode()
    return json.loads(line), process


def test_a_joined_fork_is_inside_the_sandbox_with_no_privilege(zygote: str, jailed: Path,
                                                               host_service: int) -> None:
    seen, process = probe(zygote, jailed, str(host_service))
    try:
        assert process.wait(timeout=10) == 0
    finally:
        stop(process)
    assert seen["caps"] == [0, 0, 0, 0, 0]  # no capability in any set, the bounding set empty
    assert seen["no_new_privs"] == 1
    assert seen["ppid"] == 0  # its parent (the zygote's fork) is outside its pid namespace
    assert seen["pid"] > 1 and all(pid <= seen["pid"] for pid in seen["processes"])  # only the sandbox's
    assert seen["hostname"] == "lab"
    assert (seen["cwd"], seen["files"]) == (str(jailed), ["probe.py"])
    assert seen["openai_loaded"] is True  # the point: no import to pay
    assert seen["kit_checks_loaded"] is False  # the zygote loads none of the kit's checks
    assert (seen["kit_visible"], seen["solutions_visible"]) == (False, False)
    assert seen["listener"] is True  # the check's listener, bound inside the sandbox
    assert seen["host_service"] is False  # the host's loopback is another network
    assert seen["env"] == ["LAB_LANG", "LAB_TEST_PORT", "PATH"]
    assert seen["fds"] == [0, 1, 2, 3]  # stdio, and the listing's own: none of the zygote's
    assert seen["note"] is False  # the class's environment is not the zygote's


def test_only_the_model_runner_is_forked_by_the_zygote(zygote: str, jailed: Path) -> None:
    """A student's server or client starts as a new interpreter in its sandbox, as a real client
    starts it; only the kit's model runner (warm=True) is a fork of the zygote, joined in."""
    from lab.process.launch import Launch
    from lab.process.student import SANDBOX_BASE, start_student

    (jailed / "hello.py").write_text("import sys\nprint('openai' in sys.modules)\n", encoding="utf-8")
    launch = Launch(sandbox.find()[0], zygote=zygote)
    seen = []
    for warm in (False, True):
        process, _ = start_student(launch, jailed / "hello.py", cwd=jailed, env=dict(SANDBOX_BASE), warm=warm)
        try:
            assert process.wait(timeout=20) == 0
            seen.append((process.control is not None, process.stdout.read()))  # forked: a preloader's connection
        finally:
            stop(process)
    assert seen == [(False, b"False\n"), (True, b"True\n")]


def test_a_sandbox_is_held_open_by_the_launcher(tmp_path: Path) -> None:
    """The holder a joined fork needs is the Python launcher with no program: it binds the
    check's listeners, hands them out (saying the sandbox is ready) and waits."""
    spec = sandbox.find()[0]
    held = sandbox.wrap(spec, [], tmp_path, channel=7)
    assert held[-8:] == [sys.executable, "-I", "-S", "-c", sandbox.LAUNCHER, "0", "7", "--"]


def test_what_a_joined_fork_starts_dies_with_its_sandbox(zygote: str, jailed: Path, host_service: int) -> None:
    _, process = probe(zygote, jailed, str(host_service), "linger")
    deadline = time.monotonic() + 5
    while not sleepers() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sleepers(), "the sleeper did not start"
    stop(process)  # what a check does at its end: the holder goes, and its pid namespace
    deadline = time.monotonic() + 5
    while sleepers() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sleepers() == []
    assert process.holder.poll() is not None  # the holder (bwrap) is reaped too


def test_exit_codes_and_signals_come_back_as_the_program_ended(zygote: str, jailed: Path) -> None:
    (jailed / "exits.py").write_text("raise SystemExit(3)\n")
    (jailed / "loops.py").write_text("while True:\n    pass\n")
    exits, _ = start_joined(zygote, jailed / "exits.py", (), jailed, {"PATH": "/usr/bin"}, sandbox.find()[0])
    assert exits.wait(timeout=10) == 3
    loops, _ = start_joined(zygote, jailed / "loops.py", (), jailed, {"PATH": "/usr/bin"}, sandbox.find()[0],
                            cpu_seconds=1)
    assert loops.wait(timeout=120) == -signal.SIGXCPU  # its CPU budget, as a new interpreter's


def test_a_fork_that_cannot_join_says_so_before_any_code_runs(zygote: str, jailed: Path) -> None:
    status_out, status_in = os.pipe()
    namespaces = [os.open(f"/proc/self/ns/{name}", os.O_RDONLY) for name in NAMESPACES]
    forked = fork(zygote, str(jailed / "probe.py"), [], jailed, {}, extra_fds=[status_in, *namespaces],
                  extra={"group": ["/etc/passwd"]})  # not a control group's cgroup.procs: never written
    for fd in (status_in, *namespaces):
        os.close(fd)
    said = os.read(status_out, 600)
    assert said == b"failed: a group is a list of cgroup.procs files"
    assert forked.wait(timeout=10) == JOIN_FAILED
    assert forked.stdout.read() == b""  # the probe never ran


def test_a_zygote_that_does_not_answer_is_a_kit_error(jailed: Path, tmp_path: Path) -> None:
    # Named in the launch context but gone: no quieter path is taken instead (fail closed).
    with pytest.raises(KitError, match="did not answer"):
        start_joined(str(tmp_path / "no-zygote"), jailed / "probe.py", (), jailed, {}, sandbox.find()[0])


def test_a_holder_that_cannot_start_is_a_kit_error(zygote: str, jailed: Path, monkeypatch) -> None:
    spec = sandbox.find()[0]
    broken = sandbox.Spec(**{**spec.__dict__, "bwrap": "/bin/false"})
    with pytest.raises(KitError, match="the sandbox's launcher gave no listeners"):
        start_joined(zygote, jailed / "probe.py", (), jailed, {}, broken)


def test_a_joined_fork_counts_against_its_submissions_group(zygote: str, jailed: Path, host_service: int) -> None:
    group = SubmissionGroup(1 << 30)
    if not group.active:
        pytest.skip("no writable control group here")
    spec = dataclasses.replace(sandbox.find()[0], group=group.student_procs())
    try:
        # Held alive until its input closes: a probe that had already ended would have left the group.
        seen, process = probe(zygote, jailed, str(host_service), hold=True, spec=spec)
        student = set()
        for procs in group.student_procs():
            student.update(int(pid) for pid in Path(procs).read_text().split())
        assert {process.pid, process.holder.pid} <= student  # the zygote's fork and the holder, in its student part
        assert os.getpid() not in group.members()  # moved in by the fork itself, not by its asker
        stop(process)
    finally:
        group.close()


def test_the_editable_install_hook_is_unreadable_in_the_sandbox(jailed: Path) -> None:
    spec = sandbox.find()[0]
    hooks = sandbox.editable_hooks()
    if not hooks:
        pytest.skip("the kit is not an editable install here")
    read = ("import sys\nfor f in sys.argv[1:]:\n    try:\n        print(len(open(f).read()))\n"
            "    except OSError as e:\n        print(type(e).__name__)\nprint('lab' in sys.modules, 'lab' in str(sys.meta_path))")
    command = sandbox.wrap(spec, [sys.executable, "-c", read, *hooks], jailed)
    import subprocess

    done = subprocess.run(command, capture_output=True, text=True, timeout=30)
    assert done.stdout.split() == ["PermissionError"] * len(hooks) + ["False", "False"]
    assert done.stderr == ""  # Python passes over a .pth file it cannot read, without a word


@pytest.mark.parametrize("prlimit", [True, False], ids=["prlimit", "launcher"])
def test_a_cpu_budget_holds_set_by_prlimit_or_by_the_launcher(jailed: Path, prlimit: bool) -> None:
    import subprocess

    spec = sandbox.find()[0]
    if prlimit and not spec.prlimit:
        pytest.skip("no prlimit here")
    spec = spec if prlimit else sandbox.Spec(**{**spec.__dict__, "prlimit": ""})
    command = sandbox.wrap(spec, [sys.executable, "-c", "while True: pass"], jailed, cpu_seconds=1)
    assert (command[0] == spec.prlimit) is prlimit
    done = subprocess.run(command, capture_output=True, timeout=120)
    assert done.returncode == 128 + signal.SIGXCPU  # bwrap's way of saying "killed by SIGXCPU"


def test_lab_grade_tries_joining_once_and_falls_back_where_it_cannot(zygote: str) -> None:
    """A host where joining fails (bwrap setuid, say) gets new interpreters, not a kit error
    for every submission: lab grade uses the zygote only after this trial run succeeds."""
    from lab.process.student import joins_here

    spec = sandbox.find()[0]
    assert joins_here(zygote, spec) is True
    assert joins_here(zygote, sandbox.Spec(**{**spec.__dict__, "bwrap": "/bin/false"})) is False
    assert joins_here("/nonexistent/zygote", spec) is False
