"""The preloader (lab/process/preloader.py): real forks over a real Unix socket.

What a forked process gets (arguments, folder, environment, stdio, session, limits), what
becomes of it when its asker goes or the grader goes, and that bad requests never stop it.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

from hostile import is_gone, wait_until_gone
from lab.process import preloader as preload
from lab.process.groups import Child
from lab.process.trusted import fork as start
from lab.process.preloader import preloader, preloaders
from lab.grading.runner import GiB, MiB

pytestmark = pytest.mark.skipif(not preload.available(), reason="the preloader needs Linux (pidfds)")

CPU, MEMORY, FILE_SIZE = 7, 1 * GiB, 8 * MiB
ENV = {"PATH": os.environ["PATH"], "LAB_WORD": "bonjour"}

# Tells everything a forked script can see of itself, as one JSON line.
REPORTER = """\
import json, os, resource, sys
print(json.dumps({
    "argv": sys.argv, "cwd": os.getcwd(), "env": dict(os.environ), "stdin": sys.stdin.read(),
    "session_leader": os.getsid(0) == os.getpid(), "group_leader": os.getpgid(0) == os.getpid(),
    "parent": os.getppid(), "openai_loaded": "openai" in sys.modules, "path0": sys.path[0],
    "limits": {name: resource.getrlimit(getattr(resource, name))
               for name in ("RLIMIT_CPU", "RLIMIT_AS", "RLIMIT_FSIZE", "RLIMIT_CORE")},
}))
print("to stderr", file=sys.stderr)
raise SystemExit(int(sys.argv[1]))
"""

# Starts a grandchild in its own group, writes both pids, then waits for ever.
SPAWNER = """\
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
print(os.getpid(), child.pid, flush=True)
time.sleep(600)
"""


@pytest.fixture(scope="module")
def address() -> Iterator[str]:
    with preloader(CPU, MEMORY, FILE_SIZE, {**ENV, "LAB_PRELOADER_ONLY": "yes"}, preload.Preload(("openai",))) as where:
        assert where is not None
        yield where


def write(folder: Path, name: str, source: str) -> Path:
    path = folder / name
    path.write_text(source, encoding="utf-8")
    return path


def finish(process: Child, data: bytes = b"") -> tuple[int, bytes, bytes]:
    process.stdin.write(data)
    process.stdin.close()
    out, err = process.stdout.read(), process.stderr.read()
    return process.wait(timeout=10), out, err


def preloader_pid(address: str) -> int:
    """The preloader's pid: the parent of whatever it forks."""
    return int(subprocess.check_output(["pgrep", "-f", address], text=True).split()[0])


def test_a_forked_script_gets_the_askers_arguments_folder_environment_and_stdio(address: str, tmp_path: Path) -> None:
    script = write(tmp_path, "reporter.py", REPORTER)
    work = tmp_path / "work"
    work.mkdir()
    process = start(address, str(script), ["3", "deux"], work, {"LAB_WORD": "hello", "PATH": os.environ["PATH"]})
    assert process is not None
    code, out, err = finish(process, b"what the asker wrote\n")
    seen = json.loads(out)
    assert code == 3
    assert err == b"to stderr\n"
    assert seen["argv"] == [str(script), "3", "deux"]
    assert seen["cwd"] == str(work)
    assert seen["env"] == {"LAB_WORD": "hello", "PATH": os.environ["PATH"]}  # not the preloader's own
    assert seen["stdin"] == "what the asker wrote\n"
    assert seen["path0"] == str(tmp_path)  # as `python script` puts the script's folder first
    assert (seen["session_leader"], seen["group_leader"]) == (True, True)
    assert seen["parent"] == preloader_pid(address)
    assert seen["openai_loaded"] is True  # the point: imported once, in the preloader
    assert seen["limits"] == {"RLIMIT_CPU": [CPU, CPU + 2], "RLIMIT_AS": [MEMORY, MEMORY],
                              "RLIMIT_FSIZE": [FILE_SIZE, FILE_SIZE], "RLIMIT_CORE": [0, 0]}


def test_a_fresh_interpreter_would_not_have_openai_loaded(tmp_path: Path) -> None:
    script = write(tmp_path, "reporter.py", REPORTER)
    done = subprocess.run([sys.executable, str(script), "0"], capture_output=True, text=True, timeout=30)
    assert json.loads(done.stdout)["openai_loaded"] is False  # so the test above can fail


def test_the_proc_environment_of_a_fork_is_the_preloaders_not_the_askers(address: str, tmp_path: Path) -> None:
    # /proc/PID/environ shows the environment a process was exec'd with: the preloader's,
    # which the grader strips of secrets (student_environment).
    script = write(tmp_path, "environ.py", "import os\nprint(open(f'/proc/{os.getpid()}/environ', 'rb').read().decode())\n")
    process = start(address, str(script), [], tmp_path, {"SECRET_FROM_ASKER": "no"})
    code, out, _ = finish(process)
    assert code == 0
    shown = dict(entry.split("=", 1) for entry in out.decode().split("\0") if "=" in entry)
    assert shown.get("LAB_PRELOADER_ONLY") == "yes" and "SECRET_FROM_ASKER" not in shown


@pytest.mark.parametrize(("source", "code"), [
    ("import os, signal\nos.kill(os.getpid(), signal.SIGTERM)\n", -signal.SIGTERM),
    ("raise SystemExit('a message')\n", 1),
    ("raise ValueError('boom')\n", 1),
    ("import sys\nsys.exit()\n", 0),
])
def test_exit_codes_are_the_ones_python_would_give(address: str, tmp_path: Path, source: str, code: int) -> None:
    process = start(address, str(write(tmp_path, "ends.py", source)), [], tmp_path, ENV)
    returned, _, err = finish(process)
    assert returned == code
    if "ValueError" in source:
        assert err.decode().splitlines()[-1] == "ValueError: boom"
        assert "runpy" not in err.decode()  # the traceback starts at the script, as Python's does
    if "a message" in source:
        assert err == b"a message\n"  # printed, as Python prints it


def test_a_forked_script_reads_tmpdir_afresh(address: str, tmp_path: Path) -> None:
    """The preloader found its own temporary folder first (tempfile caches it); a fork given
    another TMPDIR uses that one, as a new interpreter would (a forked check run makes its
    folders beside the private copy, not in the grader's TMPDIR)."""
    given = tmp_path / "given"
    given.mkdir()
    script = write(tmp_path, "where.py", "import tempfile\nprint(tempfile.gettempdir())\n")
    code, out, _ = finish(start(address, str(script), [], tmp_path, {**ENV, "TMPDIR": str(given)}))
    assert (code, out) == (0, f"{given}\n".encode())


def test_wait_with_a_limit_then_poll(address: str, tmp_path: Path) -> None:
    process = start(address, str(write(tmp_path, "sleeps.py", "import time\ntime.sleep(0.5)\n")), [], tmp_path, ENV)
    process.stdin.close()
    assert process.poll() is None
    with pytest.raises(subprocess.TimeoutExpired):
        process.wait(timeout=0.1)
    assert process.wait(timeout=5) == 0
    assert process.poll() == 0


def test_when_the_asker_closes_the_whole_group_is_killed(address: str, tmp_path: Path) -> None:
    process = start(address, str(write(tmp_path, "spawner.py", SPAWNER)), [], tmp_path, ENV)
    forked, grandchild = map(int, process.stdout.readline().split())
    assert forked == process.pid and not is_gone(grandchild)
    process.control.close()  # the asker goes (done, killed, crashed): the same for the preloader
    assert wait_until_gone(forked, grandchild)


def test_a_killed_asker_takes_its_forks_with_it(address: str, tmp_path: Path) -> None:
    # The asker is a grading child killed at its time limit: its model runner must not live on.
    pids = tmp_path / "pids"
    asker = write(tmp_path, "asker.py", (
        "import sys, time\n"
        "from lab.process.trusted import fork as start\n"
        f"process = start({address!r}, {str(write(tmp_path, 'spawner.py', SPAWNER))!r}, [], {str(tmp_path)!r}, {{}})\n"
        f"open({str(pids)!r}, 'w').write(process.stdout.readline().decode())\n"
        "time.sleep(600)\n"))
    running = subprocess.Popen([sys.executable, str(asker)], env={**os.environ, "PYTHONPATH": str(Path(preload.__file__).parents[2])})
    deadline = time.monotonic() + 20
    while not (pids.is_file() and pids.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.05)
    forked, grandchild = map(int, pids.read_text().split())
    running.kill()
    running.wait()
    assert wait_until_gone(forked, grandchild)


def test_bad_requests_are_refused_and_the_preloader_goes_on(address: str, tmp_path: Path) -> None:
    def ask(payload: bytes, fds: list[int]) -> bytes:
        with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as sock:
            sock.settimeout(5)
            sock.connect(address)
            socket.send_fds(sock, [payload], fds)
            return sock.recv(4096)

    null = os.open(os.devnull, os.O_RDWR)
    try:
        good = json.dumps({"target": "x.py", "args": [], "cwd": "/", "env": {}}).encode()
        assert ask(b"not json", [null] * 3) == b""  # closed without a pid
        assert ask(b"[1, 2]", [null] * 3) == b""
        assert ask(good, [null]) == b""  # one descriptor instead of three
        assert ask(json.dumps({"target": 1, "args": [], "cwd": "/", "env": {}}).encode(), [null] * 3) == b""
        assert ask(json.dumps({"args": []}).encode(), [null] * 3) == b""
    finally:
        os.close(null)
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as idle:
        idle.connect(address)  # connects and says nothing: it holds nobody up
        process = start(address, str(write(tmp_path, "ok.py", "print('still here')\n")), [], tmp_path, ENV)
        assert finish(process)[:2] == (0, b"still here\n")


def test_a_working_folder_that_does_not_exist_is_an_exit_code_not_a_crash(address: str, tmp_path: Path) -> None:
    process = start(address, str(write(tmp_path, "ok.py", "print('hi')\n")), [], tmp_path / "missing", ENV)
    assert finish(process)[0] == 70  # EX_SOFTWARE: the child could not become the script
    assert start(address, str(tmp_path / "ok.py"), [], tmp_path, ENV) is not None  # and the preloader lives on


def test_no_preloader_at_the_address_means_none(tmp_path: Path) -> None:
    assert start(str(tmp_path / "nobody"), "x.py", [], tmp_path, ENV) is None


def test_when_the_grader_goes_every_fork_is_killed(tmp_path: Path) -> None:
    script = write(tmp_path, "spawner.py", SPAWNER)
    with preloader(CPU, MEMORY, FILE_SIZE, ENV) as where:
        keeper = preloader_pid(where)
        process = start(where, str(script), [], tmp_path, ENV)
        forked, grandchild = map(int, process.stdout.readline().split())
    # The block is over: the preloader's stdin closed, it killed its forks and ended.
    assert wait_until_gone(keeper, forked, grandchild)
    assert not Path(where).exists()


def test_a_preloader_and_a_zygote_run_side_by_side_each_as_its_kind(tmp_path: Path) -> None:
    script = write(tmp_path, "loaded.py", "import sys\nprint('lab.checks' in sys.modules, 'openai' in sys.modules)\n")
    from lab.grading.classroom import CHECKS_PRELOAD

    with preloaders(CPU, MEMORY, FILE_SIZE, ENV, {"checks": CHECKS_PRELOAD, "zygote": preload.ZYGOTE}) as addresses:
        assert all(addresses.values())  # both ready
        process = start(addresses["checks"], str(script), [], tmp_path, ENV)
        assert process.stdout.readline().split() == [b"True", b"True"]
        process.wait(timeout=10)
        # The zygote forks only into a sandbox: a request without one is refused, nothing runs
        # (what its forks hold: tests/test_sandbox_entry.py).
        assert start(addresses["zygote"], str(script), [], tmp_path, ENV) is None
    assert not any(Path(where).exists() for where in addresses.values())  # both gone, sockets removed


def test_no_preloader_asked_starts_none() -> None:
    with preloaders(CPU, MEMORY, FILE_SIZE, ENV, {}) as addresses:  # `lab grade --no-preload`
        assert addresses == {}


def test_a_fork_inherits_no_descriptor_of_the_preloader(address: str, tmp_path: Path) -> None:
    script = write(tmp_path, "fds.py", "import os\nprint(sorted(int(fd) for fd in os.listdir('/proc/self/fd')))\n")
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as idle:
        idle.connect(address)  # another asker's connection, still open in the preloader
        time.sleep(0.1)
        running = start(address, str(write(tmp_path, "sleeps.py", "import time\ntime.sleep(5)\n")), [], tmp_path, ENV)
        code, out, _ = finish(start(address, str(script), [], tmp_path, ENV))
        running.control.close()
    assert code == 0
    assert json.loads(out) == [0, 1, 2, 3]  # stdio, and the folder listdir is reading


def test_the_preloader_forks_from_a_single_thread(address: str) -> None:
    # A fork copies only the calling thread: with others running, a lock could stay held for ever.
    status = Path(f"/proc/{preloader_pid(address)}/status").read_text()
    assert "Threads:\t1\n" in status


def test_a_preloader_that_cannot_start_means_new_interpreters(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from hostile import make_submission
    from lab.grading.classroom import grade_class
    from lab.grading.runner import Limits

    monkeypatch.setattr(preload, "BOOT", "raise SystemExit(1)")  # dies before saying ready
    with preloader(CPU, MEMORY, FILE_SIZE, ENV) as where:
        assert where is None
    submission = make_submission(tmp_path, "full", "full", server_only=True)
    result = grade_class([submission], tmp_path / "out", lang="en", limits=Limits(timeout=30))
    report = result.rows[0][1]
    assert report.error == ""
    assert [r.id for r in report.results if r.status == "passed"][:3] == [
        "server.json-rpc-replies", "server.reply-ids", "server.flushes-each-reply"]
