"""The benchmark's own tools (bench/), checked without timing anything: the lesson's Node
files are rebuilt from the lesson's printf commands, and the pipelined driver counts and
checks every reply."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from conftest import ROOT, SOLUTIONS

sys.path.insert(0, str(ROOT / "bench"))

from lesson_node import find_lesson, node_sources  # noqa: E402
from pipeline import ServerFailure, pipelined, round_trips  # noqa: E402

CAPTION = "Affichée ici, non exécutée. Créez un compte gratuit pour appuyer sur Exécuter."
LESSON = "\n".join([
    "Écrire le serveur",
    """docker exec -w /home/node/project agent sh -c "printf '%s\\n' 'let etat = \\"nouveau\\";' """
    """'function f(m) { process.stdout.write(JSON.stringify(m) + \\"\\n\\"); }' > serveur2.js\"""" + CAPTION,
    """docker exec -w /home/node/project agent sh -c "printf '%s\\n' 'console.log(\\"Erreur d’analyse\\");' """
    """>> serveur2.js\"""" + CAPTION,
    "docker exec -w /home/node/project agent node client2.js" + CAPTION,
])


def test_the_printf_commands_become_files_line_by_line() -> None:
    assert node_sources(LESSON) == {
        "serveur2.js": 'let etat = "nouveau";\n'
                       'function f(m) { process.stdout.write(JSON.stringify(m) + "\\n"); }\n'
                       'console.log("Erreur d’analyse");\n',
    }


def test_the_real_lesson_gives_the_three_node_files() -> None:
    lesson = find_lesson(ROOT)
    if lesson is None:
        pytest.skip("the lesson is not beside the checkout (../shared/lesson/)")
    sources = node_sources(lesson.read_text(encoding="utf-8"))
    assert sorted(sources) == ["client2.js", "model.js", "serveur2.js"]
    assert sources["serveur2.js"].startswith('const VERSIONS = ["2025-03-26", "2024-11-05"];\n')
    assert 'require("readline").createInterface({ input: process.stdin })' in sources["serveur2.js"]
    assert 'spawn("node", ["serveur2.js"])' in sources["client2.js"]


SERVER = [sys.executable, str(SOLUTIONS / "server.py")]


def test_the_driver_counts_every_pipelined_reply() -> None:
    run = pipelined(SERVER, ROOT, dict(os.environ), 2_500)
    assert run.requests == 2_500
    assert run.seconds > 0
    if sys.platform == "linux":
        assert run.peak_rss_kib >= run.rss_before_kib > 0


def test_the_driver_refuses_a_server_that_answers_with_errors(tmp_path: Path) -> None:
    never_ready = tmp_path / "never_ready.py"  # answers initialize, then refuses everything
    never_ready.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    message = json.loads(line)\n"
        "    if 'id' not in message: continue\n"
        "    reply = {'result': {}} if message['method'] == 'initialize' else {'error': {'code': -32600}}\n"
        "    print(json.dumps({'jsonrpc': '2.0', 'id': message['id'], **reply}), flush=True)\n"
    )
    with pytest.raises(ServerFailure, match="0 tool lists for 10 requests"):
        pipelined([sys.executable, str(never_ready)], tmp_path, dict(os.environ), 10)


def test_round_trips_are_one_per_ping() -> None:
    times = round_trips(SERVER, ROOT, dict(os.environ), 20)
    assert len(times) == 20
    assert all(seconds > 0 for seconds in times)


def test_the_sandbox_parts_benchmark_measures_every_part() -> None:
    """bench/sandbox_parts.py runs each part for real (a session must get its six replies) and
    reads the machine's CPU for it; where it cannot (no bwrap, no cpuacct group) it says why."""
    import json
    import subprocess

    done = subprocess.run([sys.executable, str(ROOT / "bench" / "sandbox_parts.py"), "--rounds", "1"],
                          capture_output=True, text=True, timeout=120)
    if done.returncode == 1 and done.stderr.startswith("needs bubblewrap"):
        pytest.skip(done.stderr.strip() + ": .ci/run, as root, has both")
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout.split("\n", 1)[1])
    assert list(figures) == ["bubblewrap around /bin/true", "holder: the Python launcher (one listener)",
                             "server session, a new interpreter", "import openai, a new interpreter",
                             "import openai, a joined fork of the zygote"]
    assert all(value > 0 for value in figures.values())


def test_every_fuzzing_mutation_finds_its_line_and_compiles(tmp_path: Path) -> None:
    """bench/fuzz_outputs.py rewrites one line of each reference file: a change of solutions/
    that moves that line must show here, not when someone runs the round."""
    import py_compile
    import shutil

    from fuzz_outputs import cases, mutate

    found = cases()
    assert len(found) == 41
    for name, (file, after, code, replace) in found.items():
        folder = tmp_path / name
        shutil.copytree(SOLUTIONS, folder, ignore=shutil.ignore_patterns("__pycache__"))
        mutate(folder, file, after, code, replace)
        py_compile.compile(str(folder / file), cfile=str(tmp_path / "compiled.pyc"), doraise=True)
