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
    result("server.c", "server-2", "failed", message="not shown: only the first failure is"),
    result("server.d", "server-3", "skipped", message="skipped: “title server.a” did not pass"),
])


def test_each_part_shows_its_mark_score_and_first_failure():
    assert click.unstyle(render(REPORT)).splitlines() == [
        "Checking exercises",
        "",
        "✓ server, part 1               1/1",
        "✗ server, part 2               0/2",
        "    ✗ title server.b  [server.b]",
        "      Reply 2 is wrong.",
        '      expected: {"code": -32602}',
        '      actual:   {"code": -32600}',
        "                second line",
        "      hint:     do this",
        "– server, part 3               0/1",
        "      skipped: “title server.a” did not pass",
        "",
        "Score: 1/4  (1.2 s)",
        "Fix the first error of each part, then run `lab check` again.",
    ]


def test_a_full_score_says_so_in_french():
    report = Report(target="solutions", lang="fr", results=[result("server.a", "server-1", "passed")])
    lines = click.unstyle(render(report)).splitlines()
    assert lines[0] == "Vérification de solutions"
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
    def interrupted() -> None:
        raise KeyboardInterrupt

    watch(tmp_path, interrupted, lambda: None)  # returns instead of raising
