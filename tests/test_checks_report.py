"""The terminal view of a report, and --watch."""

from __future__ import annotations

import threading
import time

import click

from lab.checks.watch import watch
from lab.report import render
from lab.results import CheckResult, Report


def result(check_id: str, task: str, status: str, **fields: str) -> CheckResult:
    return CheckResult(id=check_id, task=task, points=1, status=status, title=f"title {check_id}", **fields)


REPORT = Report(target="exercises", lang="en", duration=1.23, results=[
    result("server.a", "server-1", "passed"),
    result("server.b", "server-2", "failed", hint="do this", expected='{"code": -32602}',
           actual='{"code": -32600}\nsecond line', message="Reply 2 is wrong."),
    result("server.c", "server-2", "failed", message="not shown: its title is listed"),
    result("server.d", "server-3", "skipped", message="not checkable yet: “title server.a” must pass first"),
])


def test_each_part_shows_its_mark_score_and_first_failure():
    assert click.unstyle(render(REPORT)).splitlines() == [
        "Checking exercises",
        "",
        "✓ server, part 1               1/1",
        "✗ server, part 2               0/2",
        "    ✗ title server.b",
        "      Reply 2 is wrong.",
        '      expected: {"code": -32602}',
        '      actual:   {"code": -32600}',
        "                second line",
        "      hint:     do this",
        "      also failing: “title server.c”",
        "– server, part 3               0/1",
        "      not checkable yet: “title server.a” must pass first",
        "",
        "Score: 1/4  (1.2 s)",
        "Fix the first error of each part, then run `lab check` again.",
    ]


def test_a_full_score_says_so_in_french():
    report = Report(target="solutions", lang="fr", results=[result("server.a", "server-1", "passed")])
    lines = click.unstyle(render(report)).splitlines()
    assert lines[0] == "Vérification du dossier solutions"
    assert lines[2] == "✓ serveur, partie 1            1/1"
    assert lines[-2:] == ["Score : 1/1  (0.0 s)", "Tout est juste. Bravo !"]


def test_watch_runs_again_after_a_save(tmp_path):
    (tmp_path / "server.py").write_text("one")
    runs: list[float] = []

    def save_later() -> None:
        time.sleep(0.3)
        (tmp_path / "server.py").write_text("two, longer")

    threading.Thread(target=save_later).start()
    started = time.monotonic()
    watch(tmp_path, lambda: runs.append(time.monotonic()), lambda: None, poll=0.05, rounds=2)
    assert len(runs) == 2 and runs[1] - started >= 0.3


def test_watch_stops_cleanly_on_ctrl_c(tmp_path):
    runs = []

    def interrupted() -> None:
        runs.append("run")
        raise KeyboardInterrupt

    # Ctrl-C during a run ends the watch: it returns None (no traceback), after that one run,
    # without waiting for a change.
    assert watch(tmp_path, interrupted, lambda: runs.append("waiting")) is None
    assert runs == ["run"]


def test_a_root_cause_is_shown_before_the_failures_it_explains():
    # The reply-ids failure comes first in the part, but the crash explains it.
    report = Report(target="exercises", lang="fr", results=[
        result("server.json-rpc-replies", "server-1", "passed"),
        result("server.reply-ids", "server-1", "failed", message="Aucune réponse ne porte l’id after-bad-json."),
        result("server.keeps-running", "server-1", "failed", message="Le serveur s’est arrêté (code 1).",
               output="server.py, line 58\n    msg = json.loads(line)\njson.decoder.JSONDecodeError: Expecting value"),
        result("server.parse-error", "server-1", "failed", message="Aucune réponse à id null."),
    ])
    lines = click.unstyle(render(report)).splitlines()
    assert lines[2:9] == [
        "✗ serveur, partie 1            1/4",
        "    ✗ title server.keeps-running",
        "      Le serveur s’est arrêté (code 1).",
        "      sortie  : server.py, line 58",
        "                    msg = json.loads(line)",
        "                json.decoder.JSONDecodeError: Expecting value",
        "      échouent aussi : « title server.reply-ids », « title server.parse-error »",
    ]


def test_json_values_show_only_the_paths_that_differ():
    expected = '{"jsonrpc": "2.0", "id": 6, "error": {"code": -32601, "message": "Méthode inconnue"}}'
    actual = '{"jsonrpc": "2.0", "id": 6, "error": {"code": -32600, "message": "Méthode inconnue", "x": [1]}}'
    for lang, labels, absent in (("en", ("expected: ", "actual:   "), "missing"),
                                 ("fr", ("attendu : ", "obtenu  : "), "absent")):
        report = Report(target="t", lang=lang, results=[
            result("server.unknown-method", "server-3", "failed", expected=expected, actual=actual)])
        lines = click.unstyle(render(report)).splitlines()
        assert lines[4:8] == [
            f"      {labels[0]}error.code = -32601",
            f"      {labels[1]}error.code = -32600",
            f"      {labels[0]}error.x = {absent}",
            f"      {labels[1]}error.x = [1]",
        ]


def test_a_line_nested_deeper_than_python_reads_is_shown_as_the_text_it_is():
    """A server's line of 100,000 "[" (json.loads: RecursionError) once stopped `lab check` with a traceback."""
    expected = '{"jsonrpc": "2.0", "id": 1, "result": {}}'
    for actual in ("[" * 100_000, "[" * 40 + "]" * 40):  # not JSON, and JSON deeper than the kit compares
        report = Report(target="t", lang="en", results=[
            result("server.json-rpc-replies", "server-1", "failed", expected=expected, actual=actual)])
        lines = click.unstyle(render(report)).splitlines()
        assert [line[:16] for line in lines[4:6]] == ["      expected: ", "      actual:   "]
        assert lines[5][16:].startswith(actual[:60])


def test_what_a_program_wrote_is_shown_clean_even_once_read_back_as_json():
    """A lone surrogate (a key "\\ud800" in a reply) made `lab check` and `lab grade --show`
    stop on UnicodeEncodeError; an escape sequence in its output reached the terminal."""
    expected = '{"capabilities": {"tools": {}}}'
    actual = '{"capabilities": {"tools": {}, "\\ud800": {}}}'  # JSON text: the escape, read back as a surrogate
    report = Report(target="t", lang="en", results=[
        result("server.capabilities-only-tools", "server-2", "failed", expected=expected, actual=actual,
               message="The capabilities announced are [\"tools\", \"\ud800\"].", output="\x1b[2J Score: 39/39")])
    lines = click.unstyle(render(report)).encode("utf-8").decode("utf-8").splitlines()
    assert lines[4:8] == [
        '      The capabilities announced are ["tools", "\\ud800"].',
        "      expected: capabilities.\\ud800 = missing",
        "      actual:   capabilities.\\ud800 = {}",
        "      output:   \\x1b[2J Score: 39/39",
    ]


def test_the_terminal_shows_the_difference_and_the_json_report_keeps_the_whole_values(tmp_path):
    from checks_helpers import FIXTURES, mutate, run_some

    source = (FIXTURES / "lesson_server.py").read_text(encoding="utf-8")
    (tmp_path / "server.py").write_text(mutate(source, '    echec(msg["id"], -32601,', '    echec(msg["id"], -32600,'))
    report = run_some(tmp_path, "server.unknown-method")
    lines = click.unstyle(render(report)).splitlines()
    assert [line.strip() for line in lines if line.strip().startswith(("expected:", "actual:"))] == [
        "expected: error.code = -32601", "actual:   error.code = -32600"]
    unknown = report.to_dict()["results"][-1]
    assert unknown["expected"].startswith('{"jsonrpc": "2.0", "id": 6, "error": {"code": -32601, "message": ')
    assert unknown["actual"].startswith('{"jsonrpc": "2.0", "id": 6, "error": {"code": -32600, "message": ')


def test_a_part_still_to_write_is_said_once_without_a_list_of_its_checks():
    still = "Cette partie est encore à écrire (« serveur, partie 2 »)."
    report = Report(target="exercises", lang="fr", results=[
        result("server.a", "server-1", "passed"),
        result("server.b", "server-2", "failed", message=still, hint="Si la version demandée n’est pas dans VERSIONS…"),
        result("server.c", "server-2", "failed", message=still),
        result("server.d", "server-2", "failed", message="Réponse 3 : autre chose."),
    ])
    lines = click.unstyle(render(report)).splitlines()
    assert lines[3:8] == [
        "✗ serveur, partie 2            0/3",
        "    ✗ title server.b",
        f"      {still}",
        "      piste   : Si la version demandée n’est pas dans VERSIONS…",
        "      échouent aussi : « title server.d »",  # server.c fails for the reason already said
    ]
