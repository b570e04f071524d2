"""Issue 33, rows 5-8: the verdict is made only where no student code runs, and every byte from
a sandbox is untrusted. Each attack is a real submission graded by `lab grade` (with its
sandbox where bubblewrap runs) beside an honest classmate: the classmate keeps full marks, the
attack gets a student's failure (never a kit error) or the score its work earns.

- `frames` (row 5): reply, fail and initialize written as a search of the parts runner's
  frames for the reference replies it held, printed as they are (no protocol logic);
- `import_verdict` (row 5): at import, under the parts runner, a whole passing verdict line
  (built from the cases the runner held) and an answer to the order it finds, written on
  stdout and on every file the runner's frames hold open, then os._exit(0);
- `wrong_shape` (row 6): the same with a verdict line of the wrong shape;
- `deep` (row 7): the solutions, whose server writes one line nested 200,000 deep first and
  whose client prints one such line after "<- ";
- `huge` (row 8): the solutions, whose tools/list result carries one 900 KB string (an honest
  server otherwise: full marks but for that one check).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hostile import ROOT, SOLUTIONS
from lab.process import sandbox
from lab.results import FIELD_CHARS
from totals import FULL, points

GRADE_LIMIT = 600  # seconds for the whole class
UNDER_PARTS_RUNNER = "_s.argv[0].endswith('lab_parts_runner.py')"

# Finds, in every frame's locals (nested a few levels), the values `wanted` accepts.
FRAME_SEARCH = """
import json as _j, sys as _s
def _search(wanted):
    found, seen = [], set()
    def walk(value, depth):
        if id(value) in seen or depth > 6:
            return
        seen.add(id(value))
        if wanted(value):
            found.append(value)
        if isinstance(value, dict):
            for item in list(value.values()):
                walk(item, depth + 1)
        elif isinstance(value, (list, tuple)):
            for item in list(value):
                walk(item, depth + 1)
    frame = _s._getframe(1)
    while frame is not None:
        for value in list(frame.f_locals.values()):
            walk(value, 0)
        frame = frame.f_back
    return found
def _write_everywhere(text):
    import io as _io, os as _os
    _os.write(1, text.encode())
    for _file in _search(lambda v: isinstance(v, _io.TextIOWrapper) and 'w' in getattr(v, 'mode', '')):
        try:
            _file.write(text)
            _file.flush()
        except (OSError, ValueError):
            pass
def _is_reply(value):
    return isinstance(value, dict) and value.get('jsonrpc') == '2.0' and ('result' in value or 'error' in value)
"""

# Row 5: reply/fail print the reference reply found for their id; initialize the one for its message's id.
FRAMES = FRAME_SEARCH + """
def _print_reply_for(request_id):
    for found in _search(_is_reply):
        if found.get('id') == request_id and type(found.get('id')) is type(request_id):
            print(_j.dumps(found), flush=True)
            return
def reply(request_id, result):
    _print_reply_for(request_id)
def fail(request_id, code, text, data=None):
    _print_reply_for(request_id)
def initialize(message):
    _print_reply_for(message.get('id'))
"""

# Row 5: the whole verdict at import, from the cases the runner held (the reply each call
# should write), and an answer to the order being carried out if one is found; then the end.
IMPORT_VERDICT = FRAME_SEARCH + f"""
import os as _o
if {UNDER_PARTS_RUNNER}:
    _lines = []
    for _cases in _search(lambda v: isinstance(v, dict) and 'replies' in v and 'initialize' in v):
        _part1 = {{name: [{{'out': _j.dumps(r) + '\\n', 'unflushed': False}} for r in replies]
                  for name, replies in _cases['replies'].items()}}
        _part2 = {{name: [{{'out': ''.join(_j.dumps(r) + '\\n' for r in _cases['replies'][name]
                                          if r.get('id') == m.get('id')), 'unflushed': False, 'state': 'attente'}}
                         for m in messages] for name, messages in _cases['initialize'].items()}}
        _lines.append({{'server': {{'part1': _part1, 'part2': _part2}}}})
    for _order in _search(lambda v: isinstance(v, dict) and 'nonce' in v):
        _lines.append({{'nonce': _order['nonce'], 'loaded': True}})
    _write_everywhere(''.join(_j.dumps(line) + '\\n' for line in _lines))
    _o._exit(0)
"""

# Row 6: a verdict line of the wrong shape (with the order's nonce, where there is one).
WRONG_SHAPE = FRAME_SEARCH + f"""
import os as _o
if {UNDER_PARTS_RUNNER}:
    _line = {{'server': [], 'client': 1}}
    for _order in _search(lambda v: isinstance(v, dict) and 'nonce' in v):
        _line['nonce'] = _order['nonce']
    _write_everywhere(_j.dumps(_line) + '\\n')
    _o._exit(0)
"""

DEEP_LINE = "'[' * 200000 + ']' * 200000"
HUGE = "é" * 450_000  # 900 KB in UTF-8; six characters each in a report's JSON (\\u00e9)


def untouched_with(parent: Path, name: str, server_code: str, at_end: bool) -> Path:
    """The untouched exercises, with `server_code` at the top of server.py or at its end."""
    folder = parent / name
    shutil.copytree(ROOT / "exercises", folder, ignore=shutil.ignore_patterns("__pycache__"))
    server = folder / "server.py"
    source = server.read_text(encoding="utf-8")
    server.write_text(source + server_code if at_end else server_code + source, encoding="utf-8")
    return folder


def solutions_with(parent: Path, name: str, changes: dict[str, tuple[str, str]]) -> Path:
    """The solutions, each file of `changes` with its one (old, new) replaced."""
    folder = parent / name
    shutil.copytree(SOLUTIONS, folder, ignore=shutil.ignore_patterns("__pycache__"))
    for file_name, (old, new) in changes.items():
        path = folder / file_name
        source = path.read_text(encoding="utf-8")
        assert source.count(old) == 1, (file_name, old)
        path.write_text(source.replace(old, new), encoding="utf-8")
    return folder


def class_of(parent: Path) -> list[Path]:
    honest = parent / "honest"
    shutil.copytree(SOLUTIONS, honest, ignore=shutil.ignore_patterns("__pycache__"))
    return [
        honest,
        untouched_with(parent, "frames", FRAMES, at_end=True),
        untouched_with(parent, "import_verdict", IMPORT_VERDICT, at_end=False),
        untouched_with(parent, "wrong_shape", WRONG_SHAPE, at_end=False),
        solutions_with(parent, "deep", {
            "server.py": ("\nimport sys\n", f"\nimport sys\nsys.stdout.write({DEEP_LINE} + '\\n')\nsys.stdout.flush()\n"),
            "client.py": ("\ndef main()", f"\nprint('<- ' + {DEEP_LINE})\n\n\ndef main()")}),
        solutions_with(parent, "huge", {
            "server.py": ('reply(message["id"], {"tools": []})',
                          f'reply(message["id"], {{"tools": [], "note": "{HUGE}"}})')}),
    ]


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = tmp_path_factory.mktemp("verdicts")
    submissions = class_of(root / "class")
    out = root / "out"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("LAB_LANG", None)
    unsandboxed = [] if sandbox.find()[0] is not None else ["--no-sandbox"]
    done = subprocess.run([sys.executable, "-m", "lab", "--lang", "en", "grade", *map(str, submissions),
                           "--format", "exercism", "--out", str(out), "--jobs", "3", "--timeout", "60", *unsandboxed],
                          cwd=root, env=env, capture_output=True, text=True, timeout=GRADE_LIMIT)
    results = {folder.name: json.loads((out / folder.name / "results.json").read_text(encoding="utf-8"))
               for folder in submissions}
    return {"code": done.returncode, "stderr": done.stderr, "results": results}


def checks_of(graded: dict, name: str) -> dict[str, dict]:
    return {test["test_code"]: test for test in graded["results"][name]["tests"]}


def students_failure(graded: dict, name: str) -> dict[str, dict]:
    """The submission's tests, once shown to be its own failure: no kit error anywhere."""
    result = graded["results"][name]
    tests = checks_of(graded, name)
    assert result["status"] == "fail", (result["status"], result.get("message"))
    assert [code for code, test in tests.items() if test["status"] == "error"] == []
    return tests


def test_the_class_is_graded_and_the_honest_classmate_keeps_full_marks(graded: dict) -> None:
    assert graded["code"] == 0, graded["stderr"]
    honest = graded["results"]["honest"]
    assert (honest["status"], honest["score"], honest["max_score"]) == ("pass", FULL, FULL)


def test_reply_fail_and_initialize_that_search_the_runners_frames_find_no_reference(graded: dict) -> None:
    """Row 5: the runner holds only the call it carries out; part 2 runs in a process of its own."""
    tests = students_failure(graded, "frames")
    assert graded["results"]["frames"]["score"] == 0
    first = tests["server.json-rpc-replies"]
    assert first["status"] == "fail"
    assert first["message"].splitlines()[0] == "The server stopped (code 0) without writing."
    # Part 2 is judged on its own (part 1 lent): its initialize finds nothing to print either.
    assert tests["server.refuses-unknown-version"]["message"].splitlines()[0] == "No reply to the request id 2."


def test_a_verdict_written_at_import_answers_nothing(graded: dict) -> None:
    """Row 5: answers carry a nonce sent once the last order is answered: a line written at
    import answers no call, and a runner that ended answers none after it."""
    tests = students_failure(graded, "import_verdict")
    assert graded["results"]["import_verdict"]["score"] == 0
    assert tests["server.json-rpc-replies"]["message"].splitlines()[0] == (
        'The program stopped during fail(1, -32600, "Not initialized") (os._exit, a signal?): the call gave nothing back.')


def test_a_verdict_of_the_wrong_shape_is_the_students_failure(graded: dict) -> None:
    """Row 6: once an AttributeError in the check run, a kit error."""
    tests = students_failure(graded, "wrong_shape")
    assert graded["results"]["wrong_shape"]["score"] == 0
    assert tests["server.json-rpc-replies"]["message"].splitlines()[0] == (
        "The answer to import server is not the kit's: something in your code wrote in its place (on the program's "
        "real output, or by changing the kit's functions).")


def test_a_line_nested_200000_deep_is_a_line_that_is_not_json(graded: dict) -> None:
    """Row 7: once a RecursionError in the trusted parse, a kit error reaching the client checks."""
    tests = students_failure(graded, "deep")
    first = tests["server.json-rpc-replies"]
    assert first["status"] == "fail"
    said = first["message"].splitlines()[0]
    assert said == ("Line 1 of the output is not JSON. On stdout, nothing but the replies: log messages go to "
                    "stderr, print(..., file=sys.stderr)."), said
    client = {code: test["status"] for code, test in tests.items() if code.startswith("client.")}
    assert "error" not in client.values() and "pass" in client.values(), client


def test_a_900_kb_reply_costs_its_own_check_and_the_report_keeps_its_size(graded: dict) -> None:
    """Row 8: once a report past 4 MiB, a kit error for a submission one point short of full marks."""
    tests = students_failure(graded, "huge")
    assert graded["results"]["huge"]["score"] == FULL - points("server.tools-list-when-ready")
    failed = {code: test for code, test in tests.items() if test["status"] != "pass"}
    assert list(failed) == ["server.tools-list-when-ready"]
    said = failed["server.tools-list-when-ready"]["message"].splitlines()[0]
    assert said.startswith('Reply to the request tools/list (id 5): result is {"tools": [], "note": "ééé'), said[:200]
    assert len(said) < 2 * FIELD_CHARS
    assert len(json.dumps(graded["results"]["huge"])) < 100_000
