"""The progress bar: drawn on a terminal only, with an ETA from the pace so far."""

from __future__ import annotations

import io

from lab.grading.progress import ProgressBar, bar_line, format_duration


def test_bar_line_shows_count_elapsed_and_eta() -> None:
    assert bar_line(10, 40, 20.0, width=8) == "[##------] 10/40  0:20 ETA 1:00"
    assert bar_line(0, 40, 1.0, width=8) == "[--------] 0/40  0:01"
    assert bar_line(40, 40, 75.0, width=8) == "[########] 40/40  1:15"


def test_format_duration() -> None:
    assert [format_duration(s) for s in (0, 59.4, 61, 3600)] == ["0:00", "0:59", "1:01", "60:00"]


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_nothing_is_drawn_when_stderr_is_not_a_terminal() -> None:
    stream = io.StringIO()
    bar = ProgressBar(stream)
    bar(1, 2)
    bar.close()
    assert stream.getvalue() == ""


def test_a_terminal_gets_one_line_redrawn_then_ended() -> None:
    stream = FakeTerminal()
    bar = ProgressBar(stream)
    bar(1, 2)
    bar(2, 2)
    bar.close()
    drawn = stream.getvalue()
    assert drawn.count("\r") == 2 and drawn.endswith("2/2  0:00\n")
    assert "] 1/2  0:00 ETA 0:00" in drawn
