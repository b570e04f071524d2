"""A correct server written unlike the solution gets full marks, and loses only the checks of
the bad lines it stops on; a server that does not start, hangs, loops or floods is stopped and
told so. Each mistake's first ✗ line: tests/test_checks_mistakes.py."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from checks_helpers import FIXTURES, failed, mutate, run_some
from conftest import ROOT
from lab.checks import registry
from lab.process.launch import HERE
from lab.results import FAILED, PASSED, SKIPPED

ALT = (FIXTURES / "alt_server.py").read_text()


def test_a_correct_server_written_differently_gets_full_marks(tmp_path):
    (tmp_path / "server.py").write_text(ALT)
    report = run_some(tmp_path, "server.")
    server_checks = [check for check in registry()[0] if check.id.startswith("server.")]
    assert len(report.results) == len(server_checks)
    assert report.score == report.max_score == sum(check.points for check in server_checks), [
        (r.id, r.message) for r in report.results if r.status != PASSED]


def test_a_server_that_stops_on_each_kind_of_bad_line_loses_those_checks_only(tmp_path):
    """Each kind of bad line the lesson's server survives costs its own check: the kinds after
    the one it stopped on are sent again in a session of their own."""
    source = ALT
    for old, new in (("        continue\n    try:", "        break\n    try:"),  # stops on an empty line
                     ("    if not isinstance(msg, dict):", "    if False:"),  # [1, 2].get
                     ('(msg.get("params") or {})', 'msg["params"]')):
        source = mutate(source, old, new)
    (tmp_path / "server.py").write_text(source)
    report = run_some(tmp_path, "server.", lang="fr")
    assert failed(report) == {"server.blank-line", "server.not-a-request", "server.initialize-without-params"}
    said = {r.id: r.message for r in report.results if r.status != PASSED}
    assert said == {
        "server.blank-line": "Votre serveur s’est arrêté sur une ligne vide (code 0), avant la fin de son entrée.",
        "server.not-a-request": "Votre serveur s’est arrêté sur une ligne JSON qui n’est pas une requête : [1, 2] (code 1).",
        "server.initialize-without-params": 'Votre serveur s’est arrêté sur un initialize sans params : '
                                            '{"jsonrpc": "2.0", "id": 31, "method": "initialize"} (code 1).'}


def test_a_server_that_does_not_start_skips_the_other_checks(tmp_path):
    (tmp_path / "server.py").write_text(mutate(ALT, "import json\n", "import jsno\n"))
    report = run_some(tmp_path, "server.", lang="fr")
    first, *others = report.results
    assert (first.id, first.status) == ("server.json-rpc-replies", "failed")
    assert first.message == "Le serveur s’est arrêté (code 1) sans rien écrire."
    assert "ModuleNotFoundError: No module named 'jsno'" in first.output
    assert {r.status for r in others} == {SKIPPED}
    assert others[0].message == "pas encore vérifiable : il faut d’abord que « Le serveur démarre et répond en JSON-RPC 2.0, un objet par ligne » réussisse"


def test_a_hung_server_is_stopped_at_its_limit_and_reported(tmp_path):
    (tmp_path / "server.py").write_text("import time\nwhile True:\n    time.sleep(1)\n")
    report = run_some(tmp_path, "server.json-rpc")
    (result,) = report.results
    assert result.status == "failed"
    # Stopped after the first reply's start-up limit and the end's: SERVER_LIMIT from its start.
    from lab.checks.server_session import SERVER_LIMIT
    assert result.message == f"The server wrote nothing in {SERVER_LIMIT:g} s."
    assert report.duration < 3 * SERVER_LIMIT  # once, with room for a busy machine


@pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="the CPU budget is watched in /proc (Linux)")
@pytest.mark.parametrize(("lang", "message"), [
    ("en", "The server used up its CPU time ({cpu} s) without writing, an endless loop most likely."),
    ("fr", "Le serveur a utilisé tout son temps de calcul ({cpu} s de CPU) sans rien écrire, une boucle sans fin sans doute."),
])
def test_a_looping_server_is_stopped_by_its_cpu_budget_not_its_wall_clock(tmp_path, lang, message):
    import os

    from lab.time_limits import SERVER_CPU

    message = message.format(cpu=f"{SERVER_CPU:g}".replace(".", "," if lang == "fr" else "."))
    (tmp_path / "server.py").write_text("while True:\n    pass\n")
    cpu_before = sum(os.times()[2:4])
    report = run_some(tmp_path, "server.json-rpc", lang=lang)
    (result,) = report.results
    assert (result.status, result.message) == ("failed", message)
    # Two sessions, each stopped at its budget (and one look more), not at the rlimit's, a second
    # later, nor after seconds of spinning.
    assert 2 * SERVER_CPU * 0.9 <= sum(os.times()[2:4]) - cpu_before < 2 * SERVER_CPU + 0.6


@pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="the CPU budget is watched in /proc (Linux)")
def test_the_cpu_budget_counts_what_the_server_started(tmp_path):
    """A server that answers, then starts two looping children at the end of its input and waits
    for them: their CPU is the session's (each alone would stay under a per-process limit)."""
    (tmp_path / "server.py").write_text(ALT + (
        "import subprocess\n"  # at the end of its input: two loops, and it waits for them
        "children = [subprocess.Popen([sys.executable, '-c', 'while True: pass']) for _ in range(2)]\n"
        "for child in children:\n    child.wait()\n"))
    report = run_some(tmp_path, "server.exits-at-eof")
    result = next(result for result in report.results if result.id == "server.exits-at-eof")
    from lab.time_limits import SERVER_CPU

    assert (result.status, result.message) == (
        "failed", f"The server used up its CPU time ({SERVER_CPU:g} s) instead of stopping: an endless loop?")
    assert result.actual == f"{SERVER_CPU:g} s CPU"


def test_a_flooding_server_is_stopped_early(tmp_path):
    (tmp_path / "server.py").write_text("import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n")
    from lab.checks.server_session import SERVER_LIMIT

    report = run_some(tmp_path, "server.json-rpc")
    (result,) = report.results
    assert result.status == "failed" and result.message.startswith("Line 1 of the output is not JSON.")
    assert report.duration < SERVER_LIMIT  # stopped at its output's cap, not at its time limit


@pytest.mark.parametrize("cpu_seconds", [None, 0])
def test_a_conversation_without_a_cpu_budget_is_not_watched(tmp_path, cpu_seconds):
    """No budget (None, or 0 as the rlimit says it) means no watch: the process runs to its end."""
    from lab.process.talk import converse

    (tmp_path / "busy.py").write_text("total = sum(range(3_000_000))\nprint(total, flush=True)\n")
    talk = converse(HERE, tmp_path / "busy.py", cwd=tmp_path, env={"PATH": "/usr/bin:/bin"}, cpu_seconds=cpu_seconds)
    assert talk.read_line(20) == str(sum(range(3_000_000))).encode()
    run = talk.finish(20)
    assert (run.code, run.cpu_exhausted) == (0, False)


@pytest.mark.parametrize(("lang", "message"), [
    ("fr", 'Votre serveur répond à {"jsonrpc": "2.0", "id": 25} par {"jsonrpc": "2.0", "id": null, "error": {"code": '
           '-32600, "message": "Requête invalide"}} : cette ligne a l’id 25, et sa réponse le reprend, même quand c’est '
           "l’erreur -32600 (requête invalide) ; seule l’erreur -32700 (une ligne qui n’est pas du JSON) a id null."),
    ("en", 'Your server answers {"jsonrpc": "2.0", "id": 25} with {"jsonrpc": "2.0", "id": null, "error": {"code": '
           '-32600, "message": "Invalid request"}}: this line has the id 25, and its reply carries it, even when it is '
           "the error -32600 (invalid request); only the -32700 error (a line that is not JSON) has id null."),
])
def test_an_invalid_request_answered_with_id_null_costs_that_check_only(tmp_path, lang, message):
    """serveur2.js answers a line with an id and no method with that id; the solution's on_line
    answers InvalidRequest with its id. Answering it with id null costs that check, and no other:
    the other -32600 errors, which keep their ids, are not charged."""
    folder = tmp_path / "work"
    shutil.copytree(ROOT / "solutions", folder, ignore=shutil.ignore_patterns("__pycache__"))
    server = folder / "server.py"
    server.write_text(mutate(server.read_text(encoding="utf-8"), "return fail(bad.id, -32600,", "return fail(None, -32600,"),
                      encoding="utf-8")
    report = run_some(folder, "server.", lang=lang)
    said = [(r.id, r.message) for r in report.results if r.status != PASSED]
    assert said == [("server.invalid-request-id", message)]


def test_a_server_that_stops_on_a_request_without_method_loses_not_a_request_only(tmp_path):
    """A stop on the line with an id and no method is a stop on a JSON line that is not a request:
    not-a-request's, not the check of that line's reply (one mistake, one cost)."""
    (tmp_path / "server.py").write_text(mutate(ALT, '    if method == "ping":\n', '    if method.lower() == "ping":\n'))
    report = run_some(tmp_path, "server.", lang="en")
    said = [(r.id, r.message) for r in report.results if r.status != PASSED]
    assert said == [("server.not-a-request",
                     'Your server stopped on a JSON line that is not a request: {"jsonrpc": "2.0", "id": 25} (code 1).')]


@pytest.mark.parametrize("new", ['return fail(None, -32700, TEXT["parse_error"])', 'return fail(None, -32601, "?")'])
def test_an_invalid_request_given_another_code_costs_not_a_request_only(tmp_path, new):
    """A line that is no request answered with a code not its own (-32700, as if it were not JSON):
    not-a-request names the code; the id null that goes with that code is not charged again."""
    folder = tmp_path / "work"
    shutil.copytree(ROOT / "solutions", folder, ignore=shutil.ignore_patterns("__pycache__"))
    server = folder / "server.py"
    server.write_text(mutate(server.read_text(encoding="utf-8"), 'return fail(bad.id, -32600, TEXT["invalid_request"])',
                             new), encoding="utf-8")
    report = run_some(folder, "server.", lang="en")
    assert failed(report) == {"server.not-a-request"}, [(r.id, r.message) for r in report.results if r.status != PASSED]


@pytest.mark.parametrize("call", ["readline", "read"])
def test_a_loop_over_one_text_of_stdin_is_named_and_costs_part_three_only(tmp_path, call):
    """`for line in sys.stdin.readline():` walks the characters of one line (read(): of the whole
    input), answering each, then ends: keeps-running names the loop; parts 1 and 2 are judged by
    their own calls, and part 3's other checks that fail wait for it (one mistake, one cost)."""
    folder = tmp_path / "work"
    shutil.copytree(ROOT / "solutions", folder, ignore=shutil.ignore_patterns("__pycache__"))
    server = folder / "server.py"
    source = mutate(server.read_text(encoding="utf-8"), "    for line in sys.stdin:\n", f"    for line in sys.stdin.{call}():\n")
    server.write_text(source, encoding="utf-8")
    number = source.splitlines().index(f"    for line in sys.stdin.{call}():") + 1
    report = run_some(folder, "server.", lang="en")
    said = [(r.id, r.message) for r in report.results if r.status == FAILED]
    assert said == [("server.keeps-running", f"Line {number} of your server.py, `for line in sys.stdin.{call}():` walks "
                     f"the characters of a single text: sys.stdin.{call}() returns a text, and for takes each of its "
                     "characters, then stops. To read the input line by line to its end: `for line in sys.stdin:`.")]
    assert {r.task for r in report.results if r.status != PASSED} == {"server-3"}
