"""A student's traceback trimmed to their own files: file and line, the code, the error."""

from __future__ import annotations

from lab.checks.tracebacks import trimmed

CHAINED = '''\
Traceback (most recent call last):
  File "/tmp/x/server.py", line 12, in lire
    return json.loads(ligne)
           ^^^^^^^^^^^^^^^^^
  File "/usr/lib/python3.11/json/__init__.py", line 346, in loads
    return _default_decoder.decode(s)
json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/tmp/x/server.py", line 30, in <module>
    traiter(lire(ligne))
  File "/tmp/x/server.py", line 14, in lire
    raise ValueError("pas du JSON")
ValueError: pas du JSON
'''


def test_only_the_last_traceback_and_the_students_frames_are_kept():
    assert trimmed(CHAINED, ("server.py",)).splitlines() == [
        "server.py, line 30", "    traiter(lire(ligne))",
        "server.py, line 14, in lire", '    raise ValueError("pas du JSON")',
        "ValueError: pas du JSON"]


def test_windows_paths_and_other_files_of_the_kit():
    text = ('Traceback (most recent call last):\n  File "C:\\\\work\\\\client.py", line 3, in <module>\n'
            '    import model\n  File "C:\\\\kit\\\\spy.py", line 9, in ask\n    boom()\nRuntimeError: non\n')
    assert trimmed(text, ("client.py",)).splitlines() == ["client.py, line 3", "    import model", "RuntimeError: non"]


def test_without_a_traceback_the_last_lines_are_kept():
    assert trimmed("one\ntwo\nthree\n", ("server.py",), tail=2) == "two\nthree"
