"""Every attack of the threat model (docs/isolation.md), run for real by `lab grade`, shown blocked.

One class is graded once, as an instructor would: `lab grade` from a folder holding a .env,
with secrets in the environment and a model proxy listening on the host's loopback. The
class holds an honest submission (the victim, which must keep full marks) and one hostile
submission per attack (each worth 0 on its merits: the untouched exercises plus the attack).

LAB_ATTACKS_NO_SANDBOX=1 grades the same class with --no-sandbox: then these tests must fail
(the kit without its sandbox does not stop the attacks). LAB_ATTACKS_SKIP=killer,stopper
leaves those out of the class (without the sandbox, the killer ends the whole run, which hides
what each other attack does).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from hostile import ROOT, SOLUTIONS, tree_digest
from hostile.attacks import FALLBACK_WITHOUT_REQUEST, FORGED, FROM_MODEL, MARK, ORPHAN, make_attack, preludes
from lab.process import sandbox
from lab.grading.catalogue import Catalogue
from totals import FULL

pytestmark = pytest.mark.skipif(sandbox.find()[0] is None and not os.environ.get("LAB_ATTACKS_NO_SANDBOX"),
                                reason="bubblewrap cannot run here (.ci/run installs it)")
GRADE_LIMIT = 180  # seconds for the whole class
SKIPPED = set(filter(None, os.environ.get("LAB_ATTACKS_SKIP", "").split(",")))
TIMEOUT = 30  # the class's limit per submission


class Proxy:
    """A service on the host's loopback that no submission may reach: it notes every connection."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.connections = 0
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            connection.close()


def forged_report() -> dict:
    listed = Catalogue.from_engine("en")
    results = [{**check.__dict__, "status": "passed"} for check in listed.checks]
    return {"target": "x", "lang": "en", "results": results, "error": "", "duration": 0.1}


def orphans() -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if ORPHAN.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = tmp_path_factory.mktemp("attacks")
    class_folder, out, home = root / "class", root / "out", root / "instructor"
    class_folder.mkdir()
    home.mkdir()
    (home / ".env").write_text(f"AI_KEY=dotenv-{MARK}\nPROXY_TOKEN=dotenv-{MARK}\n", encoding="utf-8")
    proxy = Proxy()
    import shutil

    victim = class_folder / "victim"
    shutil.copytree(SOLUTIONS, victim, ignore=shutil.ignore_patterns("__pycache__"))
    (victim / "notes.py").write_text(f"# the victim's own work: {MARK}\n", encoding="utf-8")
    attacks = {name: attack for name, attack in preludes(class_folder, out, forged_report(), proxy.port).items()
               if name not in SKIPPED}
    folders = [make_attack(class_folder, name, file_name, prelude) for name, (file_name, prelude) in attacks.items()]
    many = class_folder / "many_files"
    many.mkdir()
    for number in range(2500):
        (many / f"f{number}.txt").write_text("x")
    sparse = class_folder / "sparse"
    shutil.copytree(ROOT / "exercises", sparse, ignore=shutil.ignore_patterns("__pycache__"))
    with (sparse / "big.bin").open("wb") as handle:
        handle.truncate(2 * 1024**3)
    untried = class_folder / "fallback_without_request"
    shutil.copytree(SOLUTIONS, untried, ignore=shutil.ignore_patterns("__pycache__"))
    (untried / "model.py").write_text(FALLBACK_WITHOUT_REQUEST, encoding="utf-8")
    submissions = [victim, *folders, many, sparse, untried]
    originals = {folder.name: tree_digest(folder) for folder in (victim, folders[0])}
    env = {**os.environ, "PYTHONPATH": str(ROOT), "INSTRUCTOR_NOTE": f"note-{MARK}",
           "OPENAI_API_KEY": f"sk-{MARK}", "AI_URL": f"http://127.0.0.1:{proxy.port}"}
    env.pop("LAB_LANG", None)
    unsandboxed = ["--no-sandbox"] if os.environ.get("LAB_ATTACKS_NO_SANDBOX") else []
    command = [sys.executable, "-m", "lab", "--lang", "en", "grade", *map(str, submissions), "--format",
               "exercism", "--out", str(out), "--jobs", "4", "--timeout", str(TIMEOUT), *unsandboxed]
    started = time.monotonic()
    process = subprocess.Popen(command, cwd=home, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=GRADE_LIMIT)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # a frozen grader (SIGSTOP) is killed with its group
        stdout, stderr = process.communicate()
    elapsed = time.monotonic() - started
    time.sleep(1.5)  # the lingering process waits 0.5 s after the summary appears
    results = {}
    for folder in submissions:
        path = out / folder.name / "results.json"
        try:
            results[folder.name] = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            results[folder.name] = None
    yield {"code": process.returncode, "stderr": stderr.decode(errors="replace"), "out": out, "results": results,
           "originals": originals, "victim": victim, "attacker": folders[0], "proxy": proxy, "elapsed": elapsed,
           "orphans": orphans()}
    for pid in orphans():
        os.kill(pid, signal.SIGKILL)
    proxy.listener.close()


def every_output(out: Path) -> str:
    return "\n".join(path.read_text(encoding="utf-8", errors="replace") for path in out.rglob("*") if path.is_file())


def test_the_grader_survives_and_writes_every_result(graded: dict) -> None:
    """killer (SIGKILL to lab grade) and stopper (SIGSTOP) cannot see it: grading ends normally."""
    assert graded["code"] == 0, graded["stderr"]
    assert graded["elapsed"] < GRADE_LIMIT
    assert all(result is not None for result in graded["results"].values()), graded["results"]


def test_the_honest_submission_keeps_full_marks(graded: dict) -> None:
    victim = graded["results"]["victim"]
    assert (victim["status"], victim["score"]) == ("pass", victim["max_score"])


@pytest.mark.parametrize("attack", ["forge", "secrets", "snoop", "reference", "linger", "killer", "stopper",
                                    "writer", "loopback", *(f"model_{name}" for name in FROM_MODEL),
                                    "model_reference", "model_fds", "model_forge_answers"])
def test_no_attack_earns_a_point(graded: dict, attack: str) -> None:
    """Each attack is the untouched exercises plus hostile code: it scores what they score, 0."""
    if attack in SKIPPED:
        pytest.skip("left out of the class (LAB_ATTACKS_SKIP)")
    result = graded["results"][attack]
    assert result is not None
    assert (result["status"], result["score"]) == ("fail", 0)


def test_no_secret_and_no_other_submission_reaches_any_result(graded: dict) -> None:
    assert MARK not in every_output(graded["out"])
    assert "LEAK" not in every_output(graded["out"])


def test_other_submissions_and_the_output_folder_are_untouched(graded: dict) -> None:
    assert tree_digest(graded["victim"]) == graded["originals"]["victim"]
    assert not list(graded["victim"].parent.rglob("pwned.txt"))
    assert FORGED not in every_output(graded["out"])
    assert not (graded["out"] / "forged.txt").exists()


def test_nothing_a_submission_started_outlives_grading(graded: dict) -> None:
    assert graded["orphans"] == []


def test_the_hosts_loopback_is_out_of_reach(graded: dict) -> None:
    assert graded["proxy"].connections == 0


@pytest.mark.parametrize(("name", "message"), [
    ("many_files", "More than 2000 files in the submission: not copied, nothing could be checked."),
    ("sparse", "More than 64 MiB in the submission: not copied, nothing could be checked."),
])
def test_a_submission_too_big_to_copy_is_refused_before_copying(graded: dict, name: str, message: str) -> None:
    result = graded["results"][name]
    assert (result["status"], result["message"]) == ("error", message)
    assert not list(Path("/tmp").glob(f"lab-grade-*/{name}/big.bin"))


def test_a_fallback_line_printed_without_a_request_earns_no_fallback_point(graded: dict) -> None:
    """The model checks of a failing endpoint (503, silent) want the helper's request to have
    reached it: printing the fallback line without trying earns neither."""
    tests = {test["test_code"]: test for test in graded["results"]["fallback_without_request"]["tests"]}
    for check in ("model.http-error", "model.slow"):
        assert tests[check]["status"] == "fail"
        assert tests[check]["message"].startswith("No request reached the model: ask must try the model before "
                                                  "it returns the recorded sample."), tests[check]["message"]
    # A refused connection leaves nothing to see, but the reason it prints is its own, not why_no_model's.
    assert tests["model.refused"]["status"] == "fail"
    assert {test["status"] for code, test in tests.items() if not code.startswith("model.")} == {"pass"}


# ---------------------------------------------------------------- the grader's side: its disk, its clean-up


def run_as_host(scratch: Path, script: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    """`script` (bash) in a private mount and pid namespace (hostile/hosts.py), as root."""
    from hostile.hosts import private_host

    command, env = private_host(scratch, ["bash", "-c", script], env)
    return subprocess.run(command, capture_output=True, text=True, timeout=GRADE_LIMIT, env=env)


needs_host = pytest.mark.skipif(not __import__("hostile.hosts").hosts.CAN_RUN,
                                reason="needs root, unshare and setpriv")


@needs_host
def test_a_full_disk_on_the_graders_side_is_a_kit_error_and_summary_csv_is_written(tmp_path: Path) -> None:
    """The private copies' disk (TMPDIR) is full before grading starts: each submission is a
    kit error saying so (never a zero, never a half-graded score), and summary.csv is written."""
    import shutil

    honest = tmp_path / "class" / "honest"
    shutil.copytree(SOLUTIONS, honest, ignore=shutil.ignore_patterns("__pycache__"))
    full, out = tmp_path / "full", tmp_path / "out"
    full.mkdir()
    # Full but for 16 KiB: room for the probe tempfile writes to pick a temporary folder, not for a copy.
    script = (f"mount -t tmpfs -o size=1m tmpfs {full} && dd if=/dev/zero of={full}/filler bs=16k count=63 2>/dev/null"
              f" && TMPDIR={full} {sys.executable} -m lab --lang en grade {honest} --out {out} --format exercism"
              " --timeout 30")
    done = run_as_host(tmp_path / "host", script, {**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    result = json.loads((out / "honest" / "results.json").read_text(encoding="utf-8"))
    assert result["status"] == "error"
    assert result["message"] == ("Kit error, not a mark: The private copy of this submission failed on the "
                                 "grader's side (No space left on device)."), result["message"]
    rows = (out / "summary.csv").read_text(encoding="utf-8").splitlines()
    assert len(rows) == 2 and rows[1].split(",")[0] == "honest"


@needs_host
def test_the_clean_up_of_a_non_root_grader_chmods_nothing_through_a_link(tmp_path: Path) -> None:
    """A submission leaves, in its private copy, a read-only folder holding a link to a file of
    the grader's: the clean-up (as an unprivileged grader, whose rmtree must first make that
    folder writable) leaves the linked file's mode as it was, and removes the copy."""
    import shutil

    from hostile import with_prelude

    grader = tmp_path / "grader"
    own_file = grader / "notes.txt"
    # pytest's tmp folders are root's alone: the unprivileged grader works in tmp_path bound here.
    reachable = Path("/tmp") / f"h23b-cleanup-{os.getpid()}"
    victim, attacker = tmp_path / "class" / "victim", tmp_path / "class" / "linker"
    for folder in (victim, attacker):
        shutil.copytree(SOLUTIONS, folder, ignore=shutil.ignore_patterns("__pycache__"))
    server = attacker / "server.py"
    server.write_text(with_prelude(server.read_text(encoding="utf-8"), f"""
import os as _o
_here = _o.path.dirname(_o.path.abspath(__file__))
try:
    _o.mkdir(_o.path.join(_here, 'locked'))
    _o.symlink({str(reachable / 'grader' / 'notes.txt')!r}, _o.path.join(_here, 'locked', 'notes'))
    _o.chmod(_o.path.join(_here, 'locked'), 0o500)
except OSError:
    pass
"""), encoding="utf-8")
    (grader / "tmp").mkdir(parents=True)
    own_file.write_text("the grader's own\n")
    own_file.chmod(0o600)
    for path in (tmp_path, tmp_path / "class", victim, attacker, *victim.iterdir(), *attacker.iterdir()):
        path.chmod(path.stat().st_mode | 0o005)  # readable by the unprivileged grader
    shutil.chown(grader, "nobody")
    shutil.chown(grader / "tmp", "nobody")
    shutil.chown(own_file, "nobody")
    out = grader / "out"
    script = (f"mount --bind {tmp_path} {reachable} && cd {reachable} && "
              f"setpriv --reuid nobody --regid nogroup --clear-groups env HOME={reachable / 'grader'} "
              f"TMPDIR={reachable / 'grader' / 'tmp'} {sys.executable} -m lab --lang en grade "
              f"{reachable / 'class' / 'victim'} {reachable / 'class' / 'linker'} --out {reachable / 'grader' / 'out'}"
              " --format exercism --timeout 30 --no-sandbox")
    reachable.mkdir(mode=0o755)
    try:
        done = run_as_host(tmp_path / "host", script, {**os.environ, "PYTHONPATH": str(ROOT)})
    finally:
        reachable.rmdir()
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE(own_file.stat().st_mode) == 0o600  # not chmod-ed through the link
    assert list((grader / "tmp").iterdir()) == []  # the copies are gone all the same
    victim_result = json.loads((out / "victim" / "results.json").read_text(encoding="utf-8"))
    assert (victim_result["status"], victim_result["score"]) == ("pass", victim_result["max_score"])


def test_a_private_copy_is_the_graders_alone_and_drops_setuid_bits(tmp_path: Path) -> None:
    """Other local users cannot reach a private copy (its folder is 0700), and a setuid or
    setgid file of the submission is copied without those bits."""
    import shutil

    from lab.grading.private_copy import private_copy

    submission = tmp_path / "work"
    submission.mkdir()
    shutil.copy("/usr/bin/id", submission / "id")
    (submission / "id").chmod(0o6755)
    with private_copy(submission) as copy:
        assert isinstance(copy, Path)
        assert stat.S_IMODE(copy.parent.stat().st_mode) == 0o700
        assert stat.S_IMODE((copy / "id").stat().st_mode) == 0o755
        assert (copy / "id").read_bytes() == Path("/usr/bin/id").read_bytes()
    assert not copy.parent.exists()


@needs_host
def test_the_helpers_bytecode_on_a_full_disk_is_whole_or_absent(tmp_path: Path) -> None:
    """A truncated .pyc of a given module would fail an honest submission's import: on a disk
    with less room than any of them, the copy gets none at all (each module is then compiled
    as imported)."""
    from lab.checks.reference import HELPERS, helper_bytecode

    sizes = [len(helper_bytecode(helper)) for helper in HELPERS]
    size = sum(sizes)
    folder = tmp_path / "copy"
    folder.mkdir()
    room = 4096 * max(1, min(sizes) // 4096 // 2)  # half the smallest bytecode's pages, at most
    assert room < min(sizes)
    pages = -(-(size + 65536) // 4096)  # whole pages: tmpfs rounds its size up to one
    script = (f"mount -t tmpfs -o size={pages * 4096} tmpfs {folder} && "
              f"dd if=/dev/zero of={folder}/filler bs=4096 count={pages - room // 4096} 2>/dev/null && "
              f"{sys.executable} -c 'from pathlib import Path; from lab.checks.reference import give_helper_bytecode; "
              f"give_helper_bytecode(Path(\"{folder}\"))' && find {folder} -name '*.pyc*' | wc -l")
    done = run_as_host(tmp_path / "host", script, {**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0"], done.stdout


@needs_host
def test_summary_csv_is_written_in_the_room_held_for_it_when_the_results_fill_the_disk(tmp_path: Path) -> None:
    """A disk that the first results fill: the room lab grade held from the start takes
    summary.csv, whatever the sizes; the class page may go missing, and that is said."""
    import shutil

    for name in ("a", "b", "c"):
        shutil.copytree(SOLUTIONS, tmp_path / "class" / name, ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path / "out"
    out.mkdir()
    for size in (20, 24, 28):  # KiB: about where the results and the summary compete for the last pages
        script = (f"mount -t tmpfs -o size={size}k tmpfs {out} && {sys.executable} -m lab --lang en grade "
                  + " ".join(str(tmp_path / "class" / name) for name in ("a", "b", "c"))
                  + f" --out {out} --format gradescope --jobs 1 --timeout 30; echo exit=$?; cat {out}/summary.csv")
        done = run_as_host(tmp_path / f"host{size}", script, {**os.environ, "PYTHONPATH": str(ROOT)})
        lines = done.stdout.splitlines()
        assert "Traceback" not in done.stderr, done.stderr
        assert lines[2:] and [row.split(",")[0] for row in lines[2:]] == ["a", "b", "c"], (size, done.stdout)
    # A disk full before the run: no room to hold, and the summary's own write fails, said so.
    script = (f"mount -t tmpfs -o size=4k tmpfs {out} && head -c 4096 /dev/zero > {out}/filler; "
              f"{sys.executable} -m lab --lang en grade {tmp_path / 'class' / 'a'} --out {out} --jobs 1; echo exit=$?")
    done = run_as_host(tmp_path / "host-full", script, {**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.stdout.splitlines()[-1] == "exit=1" and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        "Error: summary.csv could not be written (No space left on device): free some room, then run the same lab "
        "grade command again (the submissions already graded are kept).")


@needs_host
def test_a_full_output_disk_makes_kit_errors_and_summary_csv_is_still_written(tmp_path: Path) -> None:
    """--out on a disk with room for one submission's files: the next ones are kit errors (never
    a zero, never the end of `lab grade`), and summary.csv says so for each."""
    import shutil

    names = ("first", "second", "third")
    for name in names:
        shutil.copytree(SOLUTIONS, tmp_path / "class" / name, ignore=shutil.ignore_patterns("__pycache__"))
    # Room for one submission's files (results.json and its completion record), as a first grading
    # measures them in 4 KiB pages, a page more, and the room lab grade holds for summary.csv:
    # not for a second submission's.
    probe = tmp_path / "probe"
    subprocess.run([sys.executable, "-m", "lab", "--lang", "en", "grade", str(tmp_path / "class" / "first"), "--out",
                    str(probe), "--format", "gradescope", "--jobs", "1"], capture_output=True, timeout=120, check=True)
    pages = sum(-(-path.stat().st_size // 4096) for path in (probe / "first").rglob("*") if path.is_file())
    out = tmp_path / "out"
    out.mkdir()
    from lab.grading.classroom import RESERVE_PER_ROW

    room = 4096 * (pages + 1) + RESERVE_PER_ROW * (len(names) + 1)
    script = (f"mount -t tmpfs -o size={room // 1024}k tmpfs {out} && {sys.executable} -m lab --lang en grade "
              + " ".join(str(tmp_path / "class" / name) for name in names)
              + f" --out {out} --format gradescope --jobs 1 --timeout 30; echo exit=$?; cat {out}/summary.csv")
    done = run_as_host(tmp_path / "host", script, {**os.environ, "PYTHONPATH": str(ROOT)})
    lines = done.stdout.splitlines()
    assert lines[0] == "exit=1"  # the class page could not be written: said, after the summary
    assert done.stderr.strip().splitlines()[-1] == (
        "Error: summary.csv is written, but not the class report (No space left on device): free some room, "
        "then lab report.")
    rows = {row.split(",")[0]: row.split(",") for row in lines[2:]}
    assert list(rows) == list(names) and rows["first"][1:3] == [str(FULL), str(FULL)] and rows["first"][5] == "graded"
    kit_error = ["", str(FULL), "", "This submission's results could not be written (No space left on device).",
                 "kit-error"]
    # Graded in full, then written nowhere: a kit error, never a zero (and no results file of its
    # own that the summary would contradict).
    assert rows["third"][1:6] == kit_error, rows["third"]
    for name in ("second", "third"):
        if rows[name][1:6] == kit_error:
            assert not (out / name / "results.json").exists()
