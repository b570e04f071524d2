"""`lab check --watch` in one warm process: a save runs again only the probes it concerns,
and the new verdict follows the save at once."""

from __future__ import annotations

import queue
import shutil
import subprocess
import sys
import threading

from checks_helpers import FIXTURES
from conftest import ROOT
from lab.checks import run_checks
from lab.checks.engine import ProbeMemo


def lesson_folder(folder):
    shutil.copyfile(FIXTURES / "lesson_server.py", folder / "server.py")
    shutil.copyfile(FIXTURES / "lesson_model.py", folder / "model.py")
    return folder


def scores(report) -> dict[str, str]:
    return {r.id: r.status for r in report.results if r.id.startswith(("server.", "model."))}


def test_a_save_runs_again_only_the_probes_that_read_the_saved_file(tmp_path):
    folder, memo = lesson_folder(tmp_path), ProbeMemo()
    first = run_checks(folder, "en", memo=memo)
    assert set(scores(first).values()) == {"passed"}
    model_run, server_run = memo.kept["model.run"][1], memo.kept["server.scenario"][1]

    server = folder / "server.py"
    server.write_text(server.read_text().replace('    etat = "attente"\n', '    etat = "pret"\n'))
    second = run_checks(folder, "en", memo=memo)
    assert scores(second)["server.gate-while-waiting"] == "failed"
    assert memo.kept["model.run"][1] is model_run  # model.py did not change: its cases did not run
    assert memo.kept["server.scenario"][1] is not server_run

    (folder / "model.py").write_text((folder / "model.py").read_text() + "\n# saved again\n")
    third = run_checks(folder, "en", memo=memo)
    assert memo.kept["model.run"][1] is not model_run
    assert scores(third) == scores(second)


def test_the_watching_command_judges_each_save_in_the_same_process(tmp_path):
    folder = lesson_folder(tmp_path)
    watcher = subprocess.Popen([sys.executable, "-m", "lab", "check", str(folder), "--watch", "--lang", "en"],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in watcher.stdout], daemon=True).start()

    def next_score(limit: float) -> tuple[str, list[str]]:
        seen = []
        while True:
            line = lines.get(timeout=limit)
            seen.append(line)
            if line.startswith("Score"):
                return line, seen

    try:
        first, _ = next_score(60)
        server = folder / "server.py"
        server.write_text(server.read_text().replace("    if demandee not in VERSIONS:\n", "    if False:\n"))
        second, view = next_score(60)  # how soon: bench/watch_speed.py measures it
    finally:
        watcher.terminate()
        watcher.wait(timeout=10)
    assert first != second and "    ✗ Reply 2: an unknown version is refused with -32602\n" in view  # its title
    assert "Fix the first error of each part and save: the checks run again by themselves.\n" in view
