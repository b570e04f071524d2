"""Timing that is fair on any host (lab/checks/server_session.py): a reply's time counts from
its request, the first one has a start-up limit of its own, "no flush" is said only when the
late reply came once the input closed, a request the server drops is not a timing verdict, and
a timing verdict is confirmed by a second session before it costs a point."""

from __future__ import annotations

import shutil
from pathlib import Path

from checks_helpers import failed, mutate, run_some
from conftest import ROOT
from lab.checks.server_session import REPLY_LIMIT, STARTUP_LIMIT

PING = '    if method == "ping":\n        return reply(message["id"], {})\n'


def server(folder: Path, old: str, new: str, before: str = "") -> Path:
    shutil.copytree(ROOT / "solutions", folder)
    source = mutate((folder / "server.py").read_text(encoding="utf-8"), old, new)
    (folder / "server.py").write_text(before + source, encoding="utf-8")
    return folder


def test_a_server_that_drops_id_0_fails_the_same_checks_every_time_and_flushes(tmp_path: Path) -> None:
    folder = server(tmp_path / "drops", PING, '    if method == "ping" and message["id"] == 0:\n        return\n' + PING)
    verdicts = [failed(run_some(folder, "server.")) for _ in range(3)]  # bench/grade_repeats.py: 10 runs
    assert verdicts[0] == verdicts[1] == verdicts[2]
    assert "server.id-zero" in verdicts[0] and "server.flushes-each-reply" not in verdicts[0]


def test_a_server_that_never_flushes_loses_the_flush_check(tmp_path: Path) -> None:
    folder = server(tmp_path / "buffered", "    sys.stdout.flush()\n", "")
    report = run_some(folder, "server.")
    flush = next(result for result in report.results if result.id == "server.flushes-each-reply")
    assert flush.status == "failed"
    assert flush.message.startswith(f"No reply to this line within {REPLY_LIMIT:g} s")


def test_a_reply_late_once_is_confirmed_by_a_second_session_and_passes(tmp_path: Path) -> None:
    """The host stalls the server once (as a load spike would): the first session sees a reply
    come only at the end of input; the confirmation runs the session again, on time."""
    slow_once = (
        "import os as _os, time as _time\n"
        "_FIRST = not _os.path.exists('stalled-once')\n"
        "open('sessions.log', 'a').write('x')\n"
        "open('stalled-once', 'a').close()\n")
    stall = f'    if _FIRST and message.get("id") in (2, "init-2025"):\n        _time.sleep({REPLY_LIMIT + 1})\n' + PING
    folder = server(tmp_path / "stalls", PING, stall, before=slow_once)
    report = run_some(folder, "server.")
    assert failed(report) == set()
    assert len((folder / "sessions.log").read_text()) >= 3  # two sessions, at least one run again


def test_the_first_reply_has_a_start_up_limit_of_its_own(tmp_path: Path) -> None:
    """A server slow to start (longer than a reply's limit, within the start-up one) loses nothing."""
    assert STARTUP_LIMIT > REPLY_LIMIT + 2
    folder = server(tmp_path / "slow-start", "import sys\n", f"import sys\nimport time\ntime.sleep({REPLY_LIMIT + 1})\n")
    assert failed(run_some(folder, "server.")) == set()
