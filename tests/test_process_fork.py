"""lab.process.run_python_with_limit: a script run in a fork of the kit's interpreter
behaves as `python script args...` would (arguments, environment, exit code, traceback),
and the time limit still kills its whole group."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lab.process.fork import can_fork

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the fork is used on Linux only")

# The kit's side, in a process of its own so that stdout and stderr are real files.
DRIVER = """
import sys
from pathlib import Path
from lab.process.fork import can_fork, run_python_with_limit
print("fork" if can_fork() else "no fork", flush=True)
code = run_python_with_limit(Path(sys.argv[1]), ["first", "second"], float(sys.argv[2]), {"LAB_WORD": "bonjour"})
print("code", code, flush=True)
"""


def run_driver(script: Path, timeout: float = 10.0) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", DRIVER, str(script), str(timeout)],
                          capture_output=True, text=True, timeout=30)


def is_alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "State:\tZ" not in status


def test_the_script_gets_its_arguments_environment_and_exit_code(tmp_path: Path) -> None:
    script = tmp_path / "client.py"
    script.write_text(
        "import json, os, sys\n"
        "print(json.dumps([__name__, sys.argv[1:], os.environ.get('LAB_WORD'), 'PATH' in os.environ,\n"
        "                  sys.path[0], os.getpgid(0) == os.getpid()]))\n"
        "sys.exit(3)\n"
    )
    done = run_driver(script)
    first, transcript, last = done.stdout.splitlines()
    assert first == "fork"
    assert json.loads(transcript) == ["__main__", ["first", "second"], "bonjour", False, str(tmp_path), True]
    assert last == "code 3"


def test_sys_exit_with_a_message_prints_it_and_gives_1(tmp_path: Path) -> None:
    script = tmp_path / "client.py"
    script.write_text("import sys\nsys.exit('the server is gone')\n")
    done = run_driver(script)
    assert done.stdout.splitlines()[-1] == "code 1"
    assert done.stderr == "the server is gone\n"


def test_a_crash_shows_the_scripts_traceback_without_the_kits_frames(tmp_path: Path) -> None:
    script = tmp_path / "client.py"
    script.write_text("def explain():\n    raise ValueError('no capabilities')\n\nexplain()\n")
    done = run_driver(script)
    assert done.stdout.splitlines()[-1] == "code 1"
    assert done.stderr == (
        "Traceback (most recent call last):\n"
        f'  File "{script}", line 4, in <module>\n'
        "    explain()\n"
        f'  File "{script}", line 2, in explain\n'
        "    raise ValueError('no capabilities')\n"
        "ValueError: no capabilities\n"
    )


def test_past_the_time_limit_the_script_and_its_group_are_killed(tmp_path: Path) -> None:
    script = tmp_path / "client.py"
    pid_file = tmp_path / "sleeper.pid"
    script.write_text(
        "import subprocess, sys, time\n"
        f"sleeper = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(sleeper.pid))\n"
        "time.sleep(60)\n"
    )
    started = time.monotonic()
    done = run_driver(script, timeout=1.0)
    assert done.stdout.splitlines()[-1] == "code None"
    assert time.monotonic() - started < 20
    sleeper = int(pid_file.read_text())
    for _ in range(50):  # killed with the group (then reaped by init, or a zombie if none reaps)
        if not is_alive(sleeper):
            break
        time.sleep(0.1)
    assert not is_alive(sleeper)


def test_no_fork_when_stdout_is_an_in_memory_capture(capsys: pytest.CaptureFixture[str]) -> None:
    # A child writing into a copy of an in-memory buffer would be lost: use a new interpreter.
    assert can_fork() is False


def test_the_forked_script_reads_tmpdir_afresh(tmp_path: Path) -> None:
    """The parent found its temporary folder first (tempfile caches it); the fork, given
    another TMPDIR, uses that one, as a new interpreter would (a preloader's forked check run
    makes its folders beside the private copy, not in the grader's TMPDIR)."""
    script = tmp_path / "where.py"
    script.write_text("import tempfile\nprint(tempfile.gettempdir())\n")
    given = tmp_path / "given"
    given.mkdir()
    driver = ("import sys, tempfile\nfrom pathlib import Path\n"
              "from lab.process.fork import run_python_with_limit\n"
              "print('parent', tempfile.gettempdir(), flush=True)\n"
              f"run_python_with_limit(Path(sys.argv[1]), [], 10.0, {{'TMPDIR': {str(given)!r}}})\n")
    done = subprocess.run([sys.executable, "-c", driver, str(script)], capture_output=True, text=True, timeout=30,
                          env={"PATH": "/usr/bin:/bin", "TMPDIR": str(tmp_path)})
    assert done.stdout.splitlines() == [f"parent {tmp_path}", str(given)], done.stderr
