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
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from hostile import ROOT, SOLUTIONS, tree_digest
from hostile.attacks import FALLBACK_WITHOUT_REQUEST, FORGED, FROM_MODEL, MARK, ORPHAN, make_attack, preludes
from lab import sandbox
from lab.grading.catalogue import Catalogue

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
                                                  "falling back."), tests[check]["message"]
    # A refused connection leaves nothing to see; the server and client, the solutions', pass.
    assert tests["model.refused"]["status"] == "pass"
    assert {test["status"] for code, test in tests.items() if not code.startswith("model.")} == {"pass"}
