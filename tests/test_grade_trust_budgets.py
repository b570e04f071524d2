"""The grader trusts no state another user can write, and each submission gets exactly its own
budget (issue 33, rows 3, 9, 10 and 11): the records a killed run leaves, the processes and
memory of a submission, its /dev/shm, the kernel keyrings. Each attack is graded by the real
`lab grade`, with bubblewrap, beside an honest classmate who keeps full marks."""

from __future__ import annotations

import csv
import os
import platform
import shutil
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from hostile import ROOT, SOLUTIONS, with_prelude
from lab.grading import capacity, cgroup, sweep
from lab.process import sandbox
from lab.process.limits import KEYRING_CALLS

needs_bwrap = pytest.mark.skipif(sandbox.find()[0] is None, reason="needs a working bubblewrap")
GRADE_LIMIT = 600  # seconds: a safety net for a grader that would hang, not a speed figure


def submission(parent: Path, name: str, prelude: str = "", file: str = "server.py") -> Path:
    """solutions/ (full marks), with `prelude` run first in `file`."""
    folder = parent / name
    shutil.copytree(SOLUTIONS, folder, ignore=shutil.ignore_patterns("__pycache__"))
    if prelude:
        path = folder / file
        path.write_text(with_prelude(path.read_text(encoding="utf-8"), prelude), encoding="utf-8")
    for path in (parent, folder, *folder.iterdir()):  # readable by an unprivileged grader too
        path.chmod(path.stat().st_mode | 0o005)
    return folder


def lab_grade(folders: list[Path], out: Path, env: dict[str, str] | None = None,
              *options: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "lab", "grade", *map(str, folders), "--out", str(out), "--lang", "en",
               "--format", "csv", *options]
    return subprocess.run(command, capture_output=True, text=True, timeout=GRADE_LIMIT, cwd=ROOT,
                          env={**os.environ, **(env or {})})


def graded(out: Path) -> dict[str, tuple[str, str, str]]:
    """submission -> (score, max, status) from summary.csv."""
    rows = csv.DictReader((out / "summary.csv").open(encoding="utf-8"))
    return {row["submission"]: (row["score"], row["max"], row["status"]) for row in rows}


def full_marks(row: tuple[str, str, str]) -> bool:
    return row[2] == "graded" and row[0] == row[1] != ""


# ------------------------------------------------------------------ row 3: records in a shared TMPDIR


def sleeper() -> subprocess.Popen:
    return subprocess.Popen(["sleep", "600"], start_new_session=True)


def pids_parent() -> Path | None:
    """This process's own group in the pids hierarchy, when this test may make groups there."""
    parent = cgroup.own_groups().get("pids")
    if parent is None or not os.access(parent, os.W_OK):
        return None
    return parent


def dead_owner() -> str:
    """The owner line of a grader that has ended (a real process, started and reaped)."""
    done = subprocess.Popen(["true"])
    done.wait()
    return f"{done.pid} 1 {sweep.pid_namespace()}"


@needs_bwrap
def test_planted_run_records_are_ignored_and_only_the_graders_own_dead_runs_are_swept(tmp_path: Path) -> None:
    """Records planted in TMPDIR by another user (a dead owner, `notes` naming a control group
    with a live process in it), a 64 GiB sparse `notes`, an `owner` that is a FIFO, a link to a
    folder of the grader's: lab grade grades on, kills nothing and removes nothing of them.
    A dead run of its own is swept, with the group it left (found by its name, not a file)."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    temporary.chmod(0o1777)  # shared, as /tmp is
    victims: list[subprocess.Popen] = []
    made_groups: list[Path] = []
    parent = pids_parent()
    root = os.geteuid() == 0

    def record(name: str, owner: str, notes: str = "", mode: int = 0o700) -> Path:
        folder = temporary / (sweep.RUN_PREFIX + name)
        folder.mkdir(mode=mode)
        (folder / sweep.OWNER).write_text(owner + "\n")
        if notes:
            (folder / sweep.NOTES).write_text(notes)
        return folder

    try:
        victim_group = None
        if parent is not None:
            victim_group = parent / f"lab-test-victim-{uuid.uuid4().hex[:8]}"
            victim_group.mkdir()
            made_groups.append(victim_group)
            victims.append(sleeper())
            (victim_group / "cgroup.procs").write_text(f"{victims[-1].pid}\n")
        victims.append(sleeper())  # carries no token: a planted token line must reach nothing else either
        planted = record("planted", dead_owner(), f"group {victim_group or '/sys/fs/cgroup'}\ntoken "
                         "0123456789abcdef\n", mode=0o755)
        if root:
            for path in (planted, *planted.iterdir()):
                os.chown(path, 12345, 12345)  # another user's
        sparse = record("sparse", dead_owner())
        with (sparse / sweep.NOTES).open("wb") as notes:
            notes.truncate(64 * 1024**3)
        fifo = temporary / (sweep.RUN_PREFIX + "fifo")
        fifo.mkdir(mode=0o700)
        os.mkfifo(fifo / sweep.OWNER)
        target = record("target", dead_owner())  # ours, dead, but reached only through the link below...
        hidden = tmp_path / "hidden"
        target.rename(hidden)
        (temporary / (sweep.RUN_PREFIX + "link")).symlink_to(hidden)
        own_dead = record("dead", dead_owner())
        (own_dead / "lab-grade-copy").mkdir()
        (own_dead / "lab-grade-copy" / "server.py").write_text("a copy of a student's code\n")
        open_folder = record("open", dead_owner(), mode=0o777)  # ours, but others could have written in it
        open_folder.chmod(0o777)
        dead_group = None
        if parent is not None:
            namespace = "".join(filter(str.isdigit, sweep.pid_namespace())) or "0"
            dead_group = parent / f"lab-grade-{namespace}-{dead_owner().split()[0]}-1-{uuid.uuid4().hex[:12]}"
            dead_group.mkdir()
            made_groups.append(dead_group)
            left_behind = sleeper()
            (dead_group / "cgroup.procs").write_text(f"{left_behind.pid}\n")
            victims.append(left_behind)

        honest = submission(tmp_path / "class", "honest")
        done = lab_grade([honest], tmp_path / "out", {"TMPDIR": str(temporary)})
        assert done.returncode == 0, done.stderr
        assert full_marks(graded(tmp_path / "out")["honest"])
        assert [victim.poll() for victim in victims[:2 if parent is not None else 1]] == [None] * (
            2 if parent is not None else 1)  # the planted group's process and the bystander live
        if victim_group is not None:
            assert victim_group.is_dir()
        assert planted.is_dir() and fifo.is_dir() and hidden.is_dir() and open_folder.is_dir()
        assert (temporary / (sweep.RUN_PREFIX + "link")).is_symlink()
        assert not own_dead.exists() and not sparse.exists()  # our own dead runs: swept
        if dead_group is not None:
            assert not dead_group.exists()
            assert victims[-1].wait(timeout=30) == -signal.SIGKILL
    finally:
        for victim in victims:
            victim.kill()
            victim.wait()
        for group in made_groups:
            if group.exists():
                group.rmdir()


def test_a_record_file_is_read_only_if_it_is_a_small_regular_file_of_the_graders(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    folder.mkdir(mode=0o700)
    (folder / "small").write_text("1 2 pid:[3]\n")
    (folder / "big").write_bytes(b"x" * (sweep.RECORD_BYTES + 1))
    os.mkfifo(folder / "fifo")
    (folder / "link").symlink_to(folder / "small")
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        assert [sweep.read_record(fd, name) for name in ("small", "big", "fifo", "link", "missing")] == [
            "1 2 pid:[3]\n", None, None, None, None]
    finally:
        os.close(fd)


def test_a_group_is_judged_dead_only_by_its_own_name() -> None:
    namespace = "".join(filter(str.isdigit, sweep.pid_namespace())) or "0"
    alive = f"lab-grade-{namespace}-{os.getpid()}-{sweep.start_time(os.getpid())}-{'a' * 12}"
    assert cgroup.owner_gone(alive) is False
    assert cgroup.owner_gone(f"lab-grade-{namespace}-{os.getpid()}-1-{'a' * 12}") is True  # a reused pid
    assert cgroup.owner_gone(f"lab-grade-1-{os.getpid()}-1-{'a' * 12}") is False  # another namespace's
    assert cgroup.owner_gone("lab-grade-0123456789ab") is False  # not a name this kit gives
    assert cgroup.NAME.fullmatch(cgroup.group_name())


# ------------------------------------------------------------------ row 10: /dev/shm and /dev

FILL_SHM = """
import os as _os
for _n in range(50):
    try:
        with open(f"/dev/shm/fill{_n}", "wb") as _f:
            for _ in range(63):
                _f.write(b"x" * 1048576)
    except OSError:
        pass
"""

COUNT_WRITABLE = """
import os
for folder in ("/dev/shm", "/dev", "/tmp"):
    written = 0
    try:
        with open(folder + "/fill", "wb") as f:
            for _ in range(4096):
                f.write(b"x" * 65536)
                f.flush()
                written += 65536
    except OSError:
        pass
    print(folder, written)
"""


@needs_bwrap
def test_dev_shm_is_a_small_tmpfs_and_dev_is_read_only_in_the_sandbox(tmp_path: Path) -> None:
    spec = sandbox.find()[0]
    folder = tmp_path / "work"
    folder.mkdir()
    sandbox.open_to_student(spec, folder)
    tmp_path.chmod(0o755)
    done = subprocess.run(sandbox.wrap(spec, [sys.executable, "-I", "-c", COUNT_WRITABLE], folder),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    written = dict(line.split() for line in done.stdout.splitlines())
    assert written == {"/dev/shm": str(sandbox.shm_bytes(spec.tmp_bytes)), "/dev": "0", "/tmp": str(spec.tmp_bytes)}
    # No /tmp size given (0) still gets a /dev/shm of its own size, never the kernel's default
    # (half the RAM): the default /tmp's, smaller than that /tmp.
    assert 0 < sandbox.shm_bytes(0) == sandbox.shm_bytes(sandbox.DEFAULT_TMP_BYTES) < sandbox.DEFAULT_TMP_BYTES


@needs_bwrap
def test_a_submission_filling_dev_shm_gets_its_cap_and_its_classmate_keeps_full_marks(tmp_path: Path) -> None:
    """model.py writes 50 files of 63 MiB in /dev/shm at import (6.3 GB of host memory before):
    its /dev/shm holds what sandbox.shm_bytes gives, and the rest of its work is graded for what it is."""
    classroom = tmp_path / "class"
    folders = [submission(classroom, "honest"), submission(classroom, "shm", FILL_SHM, "model.py")]
    done = lab_grade(folders, tmp_path / "out")
    assert done.returncode == 0, done.stderr
    rows = graded(tmp_path / "out")
    assert full_marks(rows["honest"]), rows
    assert full_marks(rows["shm"]), rows  # correct work beside its writes, which met the cap


# ------------------------------------------------------------------ row 11: kernel keyrings


def keyring_code(action: str) -> str:
    """server.py's prelude: add a key to its user and session keyrings, or look for it there
    (found: the server exits at once, and loses its points)."""
    _, add_key, request_key, _ = KEYRING_CALLS[platform.machine()]
    if action == "add":
        return f"""
import ctypes as _c
_libc = _c.CDLL(None, use_errno=True)
for _ring in (-4, -3):  # KEY_SPEC_USER_KEYRING, KEY_SPEC_SESSION_KEYRING
    _libc.syscall({add_key}, b"user", b"lab-row-11", b"from submission A", 17, _ring)
"""
    return f"""
import ctypes as _c
_libc = _c.CDLL(None, use_errno=True)
for _ring in (-4, -3):
    if _libc.syscall({request_key}, b"user", b"lab-row-11", None, _ring) > 0:
        raise SystemExit("a key from another submission")
"""


@needs_bwrap
@pytest.mark.skipif(platform.machine() not in KEYRING_CALLS, reason="no keyring filter for this machine")
def test_a_key_added_by_one_submission_is_never_found_by_the_next(tmp_path: Path) -> None:
    """A adds a key to its user and session keyrings; B, graded after it (one job), looks for
    it in both: as root every sandbox runs as uid 65534 with no user namespace, one user
    keyring for all. No keyring call reaches the kernel: B keeps full marks."""
    classroom = tmp_path / "class"
    folders = [submission(classroom, "a_adds", keyring_code("add")), submission(classroom, "b_reads", keyring_code("find"))]
    done = lab_grade(folders, tmp_path / "out", None, "--jobs", "1")
    assert done.returncode == 0, done.stderr
    rows = graded(tmp_path / "out")
    assert full_marks(rows["a_adds"]) and full_marks(rows["b_reads"]), rows


@needs_bwrap
@pytest.mark.skipif(platform.machine() not in KEYRING_CALLS, reason="no keyring filter for this machine")
def test_no_keyring_call_reaches_the_kernel_in_the_sandbox(tmp_path: Path) -> None:
    from lab.process.limits import forbid_keyrings

    spec = sandbox.find()[0]
    folder = tmp_path / "work"
    folder.mkdir()
    sandbox.open_to_student(spec, folder)
    tmp_path.chmod(0o755)
    _, add_key, _, keyctl = KEYRING_CALLS[platform.machine()]
    code = (f"import ctypes, os\nc = ctypes.CDLL(None, use_errno=True)\n"
            f"print(c.syscall({add_key}, b'user', b'k', b'v', 1, -4), ctypes.get_errno())\n"
            f"print(c.syscall({keyctl}, 0, -3, 0), ctypes.get_errno())\n")  # KEYCTL_GET_KEYRING_ID @s
    command = sandbox.wrap(spec, [sys.executable, "-I", "-c", code], folder)
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, preexec_fn=forbid_keyrings)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["-1", "1", "-1", "1"]  # EPERM, both


# ------------------------------------------------------------------ row 9: the docker grader's budget

FORKS = """
import os as _os, time as _t
for _ in range(400):
    try:
        if _os.fork() == 0:
            _t.sleep(60)
            _os._exit(0)
    except OSError:
        break
"""


def compose_grader() -> dict[str, str]:
    """The docker grader's limits, as docker-compose.yml sets them."""
    text = (ROOT / "docker-compose.yml").read_text(encoding="utf-8")
    grader = text[text.index("\n  grader:"):]
    found = {}
    for key in ("pids_limit", "mem_limit"):
        line = next(line for line in grader.splitlines() if line.strip().startswith(key + ":"))
        found[key] = line.split(":-", 1)[1].rstrip("}").strip()
    return found


def test_the_compose_grader_holds_several_jobs_at_their_worst_and_is_not_root() -> None:
    """What the fork-heavy test below relies on, derived from docker-compose.yml and capacity.py:
    its grader (not root, so no control group per submission) grades several at once."""
    pids = int(compose_grader()["pids_limit"])
    host = capacity.Host(cpus=2.0, pids=pids, groups=False)
    assert capacity.fit_jobs(host).jobs > 1, (pids, capacity.fit_jobs(host))
    assert 'user: "${LAB_UID:-1000}:${LAB_GID:-1000}"' in (ROOT / "docker-compose.yml").read_text(encoding="utf-8")


def grader_groups() -> tuple[Path, Path] | None:
    """A fresh pids group (v1) and memory group of the compose grader's sizes, or None."""
    pids_root, memory_parent = Path("/sys/fs/cgroup/pids"), cgroup.own_groups().get("memory")
    if os.geteuid() != 0 or not (pids_root / "cgroup.procs").exists() or memory_parent is None:
        return None
    name = f"lab-test-grader-{uuid.uuid4().hex[:8]}"
    limits = compose_grader()
    made = []
    for folder, file, value in ((pids_root / name, "pids.max", limits["pids_limit"]),
                                (memory_parent / name, "memory.limit_in_bytes", limits["mem_limit"])):  # v1 reads "2g"
        folder.mkdir()
        made.append(folder)
        (folder / file).write_text(value + "\n")
    return made[0], made[1]


def remove_tree(group: Path) -> None:
    for folder in sorted((path for path in group.rglob("*") if path.is_dir()), key=lambda p: -len(p.parts)) + [group]:
        for pid in (folder / "cgroup.procs").read_text().split() if (folder / "cgroup.procs").exists() else []:
            subprocess.run(["kill", "-9", pid], check=False)
        for _ in range(100):
            try:
                folder.rmdir()
                break
            except OSError:
                __import__("time").sleep(0.05)


@needs_bwrap
@pytest.mark.parametrize("grader", ["unprivileged", "root"])
def test_a_fork_heavy_submission_under_the_docker_graders_limits_moves_no_honest_score(
    tmp_path: Path, grader: str,
) -> None:
    """pids.max and memory for the whole grader as docker-compose.yml's grader service sets them; its
    user not root (as compose runs it), or root (as Gradescope does). One submission forks 400
    sleepers beside three honest classmates: each honest one keeps full marks, and the forker
    is graded (never a kit error). Unprivileged, no control group can be made per submission:
    they are graded as many at once as the limit holds with each sandbox at its own process
    limit; as root, each gets its own group of the size its job was given."""
    from hostile.hosts import CAN_RUN, private_host

    if not CAN_RUN:
        pytest.skip("needs root, unshare and setpriv")
    groups = grader_groups()
    if groups is None:
        pytest.skip("needs cgroup v1 pids and memory hierarchies to make the grader's limits")
    pids_group, memory_group = groups
    classroom = tmp_path / "class"
    folders = [submission(classroom, f"honest{number}") for number in range(3)]
    folders.insert(1, submission(classroom, "forker", FORKS))
    reachable = Path("/tmp") / f"h33b-grader-{os.getpid()}-{grader}"
    (tmp_path / "grader" / "tmp").mkdir(parents=True)
    for path in (tmp_path, tmp_path / "grader", tmp_path / "grader" / "tmp"):
        shutil.chown(path, 1000, 1000)
    seen = [reachable / "class" / folder.name for folder in folders]
    as_user = "setpriv --reuid 1000 --regid 1000 --clear-groups --no-new-privs " if grader == "unprivileged" else ""
    script = (f"echo $$ > {pids_group}/cgroup.procs && echo $$ > {memory_group}/cgroup.procs && "
              f"mount --bind {tmp_path} {reachable} && cd {reachable} && "
              f"{as_user}env HOME={reachable / 'grader'} TMPDIR={reachable / 'grader' / 'tmp'} "
              f"{sys.executable} -m lab --lang en grade {' '.join(map(str, seen))} "
              f"--out {reachable / 'grader' / 'out'} --format csv")
    reachable.mkdir(mode=0o755)
    try:
        command, env = private_host(tmp_path / "host", ["bash", "-c", script], {**os.environ, "PYTHONPATH": str(ROOT)})
        done = subprocess.run(command, capture_output=True, text=True, timeout=GRADE_LIMIT, env=env)
    finally:
        remove_tree(pids_group)
        remove_tree(memory_group)
        reachable.rmdir()
    assert done.returncode == 0, done.stderr
    rows = graded(tmp_path / "grader" / "out")
    assert [full_marks(rows[f"honest{number}"]) for number in range(3)] == [True] * 3, rows
    assert rows["forker"][2] == "graded", (tmp_path / "grader" / "out" / "summary.csv").read_text()  # its own failure, if any: never a kit error
    one_at_a_time = ("One submission at a time: under this host's limit on processes and threads, no control "
                     "group (cgroup) can be made for each submission")
    assert one_at_a_time not in done.stderr, done.stderr  # compose's limit holds several jobs at their worst


@pytest.mark.parametrize("used_up", [True, False])
def test_a_check_that_could_not_start_its_process_is_the_students_failure_only_when_its_group_refused(
    used_up: bool,
) -> None:
    """A check run's own error (a sandbox that could not start) is the kit's, unless the
    submission's student processes had used up their group's processes (pids.events)."""
    import json

    from lab.grading.catalogue import Catalogue
    from lab.grading.runner import Limits, read_report
    from lab.i18n import text
    from lab.process.result import Run
    from lab.results import CheckResult, Report

    checks = Catalogue([CheckResult(id="a", task="t", points=2, status="error", title="A"),
                        CheckResult(id="b", task="t", points=1, status="error", title="B")])
    said = Report(target="s", lang="en", results=[
        CheckResult(id="a", task="t", points=2, status="error", title="A", message="KitError: no listeners"),
        CheckResult(id="b", task="t", points=1, status="passed", title="B")])
    outcome = Run(json.dumps(said.to_dict()).encode(), b"", 0, 1.0)
    report = read_report(outcome, "en", Limits(), checks, trusted=True, used_up=used_up)
    first = report.results[0]
    if used_up:
        pids = capacity.PIDS_PER_JOB[False] - capacity.PIDS_FOR_CHECKS[False]  # the student processes' share
        assert (first.status, first.message, report.kit_error) == (
            "failed", text("en", "grade.pids_used_up", pids=pids), False)
        assert first.message == (f"Your programs used up every process and thread of this submission ({pids}): "
                                 "this file could not be started. A program starts only what it needs, and waits for it.")
    else:
        assert (first.status, report.kit_error) == ("error", True)
    assert report.results[1].status == "passed"


UNPRIVILEGED_FILL = """
import subprocess, sys
from lab.process import sandbox
spec, why = sandbox.find()
assert spec is not None and spec.uid == -1, why
done = subprocess.run(sandbox.wrap(spec, [sys.executable, "-I", "-c", sys.argv[2]], sys.argv[1]),
                      capture_output=True, text=True, timeout=60)
print(done.stdout, end="")
print(sandbox.shm_bytes(spec.tmp_bytes), spec.tmp_bytes)
"""


@needs_bwrap
def test_an_unprivileged_sandbox_can_write_no_more_in_dev_than_its_dev_shm(tmp_path: Path) -> None:
    """In a user namespace bubblewrap's /dev is a tmpfs the sandbox's uid owns, of no set size:
    it is made read-only, and /dev/shm is a tmpfs of its own size."""
    from hostile.hosts import CAN_RUN, private_host

    if not CAN_RUN:
        pytest.skip("needs root, unshare and setpriv")
    reachable = Path("/tmp") / f"h33b-shm-{os.getpid()}"
    (tmp_path / "work").mkdir()
    for path in (tmp_path, tmp_path / "work"):
        shutil.chown(path, 1000, 1000)
    script = (f"mount --bind {tmp_path} {reachable} && cd / && setpriv --reuid 1000 --regid 1000 --clear-groups "
              f"env HOME={reachable} TMPDIR={reachable} {sys.executable} -c '{UNPRIVILEGED_FILL}' "
              f"{reachable / 'work'} '{COUNT_WRITABLE}'")
    reachable.mkdir(mode=0o755)
    try:
        command, env = private_host(tmp_path / "host", ["bash", "-c", script], {**os.environ, "PYTHONPATH": str(ROOT)})
        done = subprocess.run(command, capture_output=True, text=True, timeout=GRADE_LIMIT, env=env)
    finally:
        reachable.rmdir()
    assert done.returncode == 0, done.stderr
    *written, sizes = done.stdout.splitlines()
    shm, tmp = sizes.split()
    assert dict(line.split() for line in written) == {"/dev/shm": shm, "/dev": "0", "/tmp": tmp}


@needs_bwrap
def test_an_unprivileged_grader_is_not_made_to_kill_itself_by_a_planted_record(tmp_path: Path) -> None:
    """Another user's record names the control group the unprivileged grader runs in (it
    killed itself before removing the record, so every later run died too): lab grade, run
    twice, grades its honest submission both times, and the record stays."""
    from hostile.hosts import CAN_RUN, private_host

    if not CAN_RUN:
        pytest.skip("needs root, unshare and setpriv")
    groups = grader_groups()
    if groups is None:
        pytest.skip("needs cgroup v1 pids and memory hierarchies")
    pids_group, memory_group = groups
    submission(tmp_path / "class", "honest")
    reachable = Path("/tmp") / f"h33b-planted-{os.getpid()}"
    grader_home = tmp_path / "grader"
    (grader_home / "tmp").mkdir(parents=True)
    (grader_home / "tmp").chmod(0o1777)
    planted = grader_home / "tmp" / (sweep.RUN_PREFIX + "planted")
    planted.mkdir()
    (planted / sweep.OWNER).write_text("999999999 1\n")  # dead, in every namespace
    (planted / sweep.NOTES).write_text(f"group {pids_group}\ngroup {memory_group}\n")
    for path in (tmp_path, grader_home):
        shutil.chown(path, 1000, 1000)
    runs = " && ".join(
        f"setpriv --reuid 1000 --regid 1000 --clear-groups env HOME={reachable / 'grader'} "
        f"TMPDIR={reachable / 'grader' / 'tmp'} {sys.executable} -m lab --lang en grade "
        f"{reachable / 'class' / 'honest'} --out {reachable / 'grader' / f'out{run}'} --format csv" for run in (1, 2))
    script = (f"echo $$ > {pids_group}/cgroup.procs && echo $$ > {memory_group}/cgroup.procs && "
              f"mount --bind {tmp_path} {reachable} && cd {reachable} && {runs}")
    reachable.mkdir(mode=0o755)
    try:
        command, env = private_host(tmp_path / "host", ["bash", "-c", script], {**os.environ, "PYTHONPATH": str(ROOT)})
        done = subprocess.run(command, capture_output=True, text=True, timeout=GRADE_LIMIT, env=env)
    finally:
        remove_tree(pids_group)
        remove_tree(memory_group)
        reachable.rmdir()
    assert done.returncode == 0, done.stderr
    assert [full_marks(graded(grader_home / f"out{run}")["honest"]) for run in (1, 2)] == [True, True]
    assert sorted(path.name for path in (grader_home / "tmp").iterdir()) == [planted.name]
