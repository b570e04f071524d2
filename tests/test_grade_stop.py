"""A class run stopped half-way (Ctrl-C, SIGTERM, kill -9) leaves no process, control group or
temporary copy behind; the next run sweeps what a killed one left, and only that."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT
from lab.grading import classroom, sweep
from lab.i18n import text


def hanging_class(root: Path, count: int = 3) -> list[str]:
    """Submissions whose server never answers: each holds a check run for seconds."""
    folders = []
    for number in range(count):
        folder = root / f"s{number}"
        shutil.copytree(ROOT / "solutions", folder, ignore=shutil.ignore_patterns("__pycache__"))
        (folder / "server.py").write_text("import time\ntime.sleep(600)\n")
        folders.append(str(folder))
    return folders


def mentioning(text: str) -> list[int]:
    """Processes whose command line or environment names `text` (this test's folder)."""
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            seen = (entry / "cmdline").read_bytes() + (entry / "environ").read_bytes()
        except OSError:
            continue
        if text.encode() in seen and int(entry.name) != os.getpid():
            found.append(int(entry.name))
    return found


def start(tmp_path: Path, submissions: list[str], ctrl_c: str = "default_int_handler") -> tuple[subprocess.Popen, Path]:
    """`lab grade` on `submissions`, once a check run is going on. Its Ctrl-C is set here, not
    inherited: a job a shell without job control starts with `&` (a CI run, say) has SIGINT
    ignored, and so would everything below it; `ctrl_c="SIG_IGN"` starts it so on purpose."""
    temporary = tmp_path / "tmp"
    temporary.mkdir(exist_ok=True)
    env = {**os.environ, "TMPDIR": str(temporary), "LAB_LANG": "en"}
    launcher = f"import runpy, signal; signal.signal(signal.SIGINT, signal.{ctrl_c}); runpy.run_module('lab', run_name='__main__')"
    process = subprocess.Popen([sys.executable, "-c", launcher, "grade", *submissions, "--out", str(tmp_path / "out"),
                                "--jobs", "2", "--timeout", "60"], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # until a check run is going on
        if any((record / sweep.NOTES).is_file() and "token" in (record / sweep.NOTES).read_text()
               for record in temporary.glob(sweep.RUN_PREFIX + "*")):
            break
        time.sleep(0.2)
    else:
        process.kill()
        pytest.fail("no check run started")
    time.sleep(1.0)
    return process, temporary


def settled(condition, seconds: float = 15.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return condition()


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_run_stopped_by_a_signal_leaves_nothing_behind(tmp_path: Path, stop: int) -> None:
    process, temporary = start(tmp_path, hanging_class(tmp_path / "class"))
    signalled = time.monotonic()
    process.send_signal(stop)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 128 + stop  # 130 for Ctrl-C, as a shell reports it
    assert text("en", "grade.interrupted", signal=stop, path=tmp_path / "out") in stderr.decode()
    # Soon: the check runs the stop killed are not tried again (a retry on a new
    # interpreter, each then waited for, held the run 20 s; alone this takes about 1 s).
    assert time.monotonic() - signalled < 15.0
    assert settled(lambda: mentioning(str(tmp_path)) == []), mentioning(str(tmp_path))
    assert list(temporary.iterdir()) == []
    assert not (tmp_path / "out" / classroom.RESERVE_NAME).exists()  # nor room held in --out


def test_a_run_started_with_ctrl_c_ignored_keeps_it_ignored_and_stops_on_sigterm(tmp_path: Path) -> None:
    """As every Unix tool: a job started with SIGINT ignored (`lab grade … &` in a script) is
    not stopped by the terminal's Ctrl-C; SIGTERM still stops it, cleanly and never with 0."""
    process, _ = start(tmp_path, hanging_class(tmp_path / "class", count=2), ctrl_c="SIG_IGN")
    process.send_signal(signal.SIGINT)
    with pytest.raises(subprocess.TimeoutExpired):
        process.wait(timeout=2)  # still grading
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 128 + signal.SIGTERM, stderr.decode()
    assert text("en", "grade.interrupted", signal=signal.SIGTERM, path=tmp_path / "out") in stderr.decode()
    assert not (tmp_path / "out" / "summary.csv").exists()


# A signal whose KeyboardInterrupt is lost: it comes while a finalizer runs in the main thread
# (here at once, from the __del__ of an object dropped as each report is written), and Python
# prints that exception and goes on.
LOST_SIGNAL = """\
import os, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)  # whatever this test's own starter ignores
from lab.grading import classroom

class Loses:
    def __del__(self):
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(1000):  # the handler runs here, inside the finalizer
            pass

def write_one(*args, **kwargs):
    path = written(*args, **kwargs)
    Loses()
    return path

written, classroom.write_one = classroom.write_one, write_one
from lab.cli import main
main(sys.argv[1:])
"""


def test_a_signal_whose_exception_a_finalizer_lost_still_stops_the_class(tmp_path: Path) -> None:
    """The signal comes as the last submission's files are written: before, the class went on
    to its summary and `lab grade` exited 0."""
    (tmp_path / "empty").mkdir()  # graded without a check run: the run is short
    done = subprocess.run([sys.executable, "-c", LOST_SIGNAL, "grade", str(tmp_path / "empty"), "--out",
                           str(tmp_path / "out")], cwd=ROOT, env={**os.environ, "LAB_LANG": "en"},
                          capture_output=True, text=True, timeout=120)
    assert "Exception ignored in" in done.stderr  # the window this test is about: the exception lost
    assert done.returncode == 128 + signal.SIGINT, done.stderr
    assert text("en", "grade.interrupted", signal=signal.SIGINT, path=tmp_path / "out") in done.stderr
    assert not (tmp_path / "out" / "summary.csv").exists()


# What the class loop does then, while submissions are left: each worker, seeing the stop, takes
# no more, and the loop waited forever for the submission none would grade.
LOST_IN_THE_LOOP = """\
import os, signal
signal.signal(signal.SIGINT, signal.default_int_handler)
from lab.grading import classroom

class Loses:
    def __del__(self):
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(1000):
            pass

with classroom.stopped_cleanly() as stop:
    def grade_one(item):
        if item != "a":
            stop.wait(60)  # as a check run the stop ends
        return item
    try:
        for position, report in classroom.graded_in_parallel(["a", "b", "c"], grade_one, 1, stop):
            if report == "a":
                Loses()
    except KeyboardInterrupt as stopped:
        print("stopped", *stopped.args)
"""


def test_the_class_loop_ends_on_a_signal_whose_exception_was_lost(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", LOST_IN_THE_LOOP], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert "Exception ignored in" in done.stderr
    assert done.stdout.split() == ["stopped", str(int(signal.SIGINT))], done.stderr


# `lab grade` whose interpreter is slow to end, as under load: an exit handler says when the
# run is over, then holds the process a while, as a busy machine's teardown does.
SLOW_END = """\
import atexit, sys, time
def ending():
    print("ENDING", file=sys.stderr, flush=True)
    time.sleep(3)
atexit.register(ending)
from lab.cli import main
main(sys.argv[1:])
"""


def test_a_ctrl_c_as_the_run_ends_is_not_lost(tmp_path: Path) -> None:
    """A Ctrl-C that comes once the class is graded, while the process ends, ends it by that
    signal: before, Python's handler raised KeyboardInterrupt where nothing could act on it
    (click's teardown, the interpreter's exit handlers), and `lab grade` exited with 0."""
    (tmp_path / "empty").mkdir()
    process = subprocess.Popen([sys.executable, "-c", SLOW_END, "grade", str(tmp_path / "empty"), "--out",
                                str(tmp_path / "out")], cwd=ROOT, env={**os.environ, "LAB_LANG": "en"},
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    said = b""
    while b"ENDING" not in said:
        chunk = os.read(process.stderr.fileno(), 4096)
        assert chunk, said
        said += chunk
    process.send_signal(signal.SIGINT)
    process.communicate(timeout=30)
    assert process.returncode == -signal.SIGINT, said.decode()


def test_a_killed_run_is_swept_by_the_next_and_a_live_one_is_not(tmp_path: Path) -> None:
    process, temporary = start(tmp_path, hanging_class(tmp_path / "class"))
    # Another grader, alive, whose record must survive the sweep (its owner is this test).
    live = record(temporary, "live", f"{os.getpid()} {sweep.start_time(os.getpid())}")
    os.kill(process.pid, signal.SIGKILL)
    process.communicate(timeout=30)
    left = sorted(path.name for path in temporary.iterdir())
    assert any(name.startswith(sweep.RUN_PREFIX) and name != live.name for name in left)
    (tmp_path / "empty").mkdir()
    env = {**os.environ, "TMPDIR": str(temporary), "LAB_LANG": "en"}
    done = subprocess.run([sys.executable, "-m", "lab", "grade", str(tmp_path / "empty"), "--out",
                           str(tmp_path / "out2")], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert settled(lambda: [pid for pid in mentioning(str(tmp_path / "class"))] == [])
    assert sorted(path.name for path in temporary.iterdir()) == [live.name]


def record(root: Path, name: str, owner: str) -> Path:
    folder = root / (sweep.RUN_PREFIX + name)
    folder.mkdir(mode=0o700)  # as mkdtemp makes a run folder: only such a folder is a record
    (folder / sweep.OWNER).write_text(owner + "\n")
    return folder


def test_a_sweep_judges_only_the_records_of_its_own_pid_namespace(tmp_path: Path) -> None:
    """A grader in a container or a sandbox that shares this temporary folder sees other pids:
    its sweep must not take a live grader of the host for dead (nor the host's, one of its own)."""
    if shutil.which("unshare") is None or os.geteuid() != 0:
        pytest.skip("needs unshare and root, for a pid namespace of its own")
    live = record(tmp_path, "live", f"{os.getpid()} {sweep.start_time(os.getpid())} {sweep.pid_namespace()}")
    dead_here = record(tmp_path, "dead", f"999999999 1 {sweep.pid_namespace()}")
    elsewhere = record(tmp_path, "elsewhere", "999999999 1 pid:[1]")
    older = record(tmp_path, "older", "999999999 1")  # a record of a kit that did not write the namespace
    inside = subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", sys.executable, "-c",
                             f"from lab.grading import sweep; from pathlib import Path; print(sweep.sweep(Path({str(tmp_path)!r})))"],
                            capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert inside.returncode == 0, inside.stderr
    # From inside: the namespaced records are another namespace's, left alone; the older record
    # is judged by its pid, as that kit's own sweep did.
    assert inside.stdout.split() == ["1"] and not older.exists()
    assert live.is_dir() and dead_here.is_dir() and elsewhere.is_dir()
    assert sweep.sweep(tmp_path) == 1  # from here: the dead one of this namespace only
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted([live.name, elsewhere.name])
