"""The one capped reader (lab/process/capped.py), on real processes and real pipes."""

from __future__ import annotations

import json
import os
import signal
import time

import pytest

from conftest import python
from lab.process.capped import JSON_DEPTH, CappedReader, parse_json, read_run
from lab.process.result import Run

MIB = 1 << 20


def test_keeps_the_first_bytes_counts_the_rest_and_never_blocks_the_writer():
    # 3 MiB of a known pattern on stdout and 5 bytes on stderr: the writer ends on its own
    # (its pipe never fills), the first MiB is kept byte for byte, the rest only counted.
    process = python("import sys\n"
                     "sys.stdout.buffer.write(bytes(i % 251 for i in range(3 << 20)))\n"
                     "sys.stderr.buffer.write(b'done\\n')")
    full = []
    out = CappedReader(process.stdout, MIB, on_full=lambda: full.append(len(full)))
    err = CappedReader(process.stderr, MIB)
    assert process.wait(timeout=30) == 0
    assert out.wait(5) and err.wait(5)
    assert out.kept() == bytes(i % 251 for i in range(MIB))
    assert out.dropped == 2 * MIB
    assert full == [0]  # told once, when the cap was reached
    assert err.kept() == b"done\n" and err.dropped == 0
    assert process.stdout.closed and process.stderr.closed  # the reader closes what it read


def test_chunks_below_the_cap_reach_on_chunk_and_the_end_reaches_on_end():
    process = python("import sys, time\n"
                     "for n in range(3):\n"
                     "    print('line', n, flush=True); time.sleep(0.05)\n"
                     "sys.stdout.write('no newline')")
    seen, ended = [], []
    reader = CappedReader(process.stdout, 1000, on_chunk=seen.append, on_end=lambda: ended.append(True))
    assert reader.wait(30)
    process.wait(timeout=5)
    assert b"".join(seen) == b"line 0\nline 1\nline 2\nno newline" == reader.kept()
    assert ended == [True]


def test_a_chunk_that_reaches_the_cap_goes_to_on_full_not_on_chunk():
    process = python("import sys; sys.stdout.write('x' * 10)")
    seen, full = [], []
    reader = CappedReader(process.stdout, 4, on_chunk=seen.append, on_full=lambda: full.append(True))
    assert reader.wait(30)
    process.wait(timeout=5)
    assert (seen, full, reader.kept(), reader.dropped) == ([], [True], b"xxxx", 6)


def test_read_run_stops_at_the_deadline():
    process = python("import time; print('started', flush=True); time.sleep(60)")
    started = time.monotonic()
    run = read_run(process, started, 1.0, 100, 100)
    waited = time.monotonic() - started
    assert run.timed_out is True and process.returncode == -signal.SIGKILL  # stopped, and reaped
    assert 1.0 <= waited < 3.0
    assert (run.stdout, run.stderr) == (b"started\n", b"")


def test_read_run_does_not_wait_for_a_grandchild_that_holds_the_pipe():
    # The child starts a grandchild in a session of its own that keeps stdout open for 30 s,
    # then ends: the run returns what came once the grace after the child's end is over.
    process = python("import subprocess, sys\n"
                     "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'],"
                     " start_new_session=True)\n"
                     "print(child.pid, flush=True)")
    started = time.monotonic()
    run = read_run(process, started, 20.0, 100, 100)
    waited = time.monotonic() - started
    grandchild = int(run.stdout)
    try:
        assert run.code == 0 and waited < 10.0
        assert not process.stdout.closed  # the grandchild still holds the pipe: its reader reads on
    finally:
        os.kill(grandchild, signal.SIGKILL)
    deadline = time.monotonic() + 5
    while not process.stdout.closed and time.monotonic() < deadline:
        time.sleep(0.05)
    assert process.stdout.closed  # its end closes the pipe: the reader ends and closes its stream


def test_parse_json_reads_json_within_its_caps():
    line = '{"id": "[[[{", "result": [{"a": [1, 2.5, null, true]}], "text": "\\"]]]"}'
    assert parse_json(line, 1000) == {"id": "[[[{", "result": [{"a": [1, 2.5, None, True]}], "text": '"]]]'}
    assert parse_json(line.encode(), 1000) == parse_json(line, 1000)
    deepest = "[" * JSON_DEPTH + "]" * JSON_DEPTH  # as deep as it reads: read as json reads it
    assert parse_json(deepest, 1000) == json.loads(deepest)


@pytest.mark.parametrize(("data", "cap", "said"), [
    ("[" * 200_000 + "]" * 200_000, 1 << 20, "nested deeper than 32"),  # once a RecursionError in the trusted parse
    ('{"a":' * (JSON_DEPTH + 1) + "1" + "}" * (JSON_DEPTH + 1), 1000, "nested deeper than 32"),
    ('"' + "x" * 2000 + '"', 1000, "longer than 1000"),
    (b"\xff", 1000, "'utf-8' codec can't decode byte 0xff in position 0: invalid start byte"),
    ("not json", 1000, "Expecting value: line 1 column 1 (char 0)"),
    ("1" * 5000, 1 << 20, "Exceeds the limit (4300 digits) for integer string conversion: value has 5000 digits; "
                          "use sys.set_int_max_str_digits() to increase the limit"),
])
def test_parse_json_refuses_what_is_too_long_too_deep_or_not_json_with_a_value_error(data, cap, said):
    with pytest.raises(ValueError) as refused:
        parse_json(data, cap)
    assert str(refused.value) == said


@pytest.mark.parametrize("out, lines", [
    (b"", []), (b"\n", [""]), (b"a\r\nb", ["a", "b"]), (b"x\n\ny\n", ["x", "", "y"]),
    # A line a program printed whole, with a JSON text holding U+2028 or \x1c: str.splitlines cut it in two.
    ('-> {"name": "a\u2028b\x1cc"}\n'.encode(), ['-> {"name": "a\u2028b\x1cc"}']),
])
def test_a_runs_lines_are_cut_at_its_newlines_only(out: bytes, lines: list[str]) -> None:
    assert Run(out, b"", 0, 0.0).stdout_lines() == lines
