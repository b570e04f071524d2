"""Attacks on the grader's rarely taken start paths (issue 23), each a real submission graded
beside an honest one, on every start path `lab grade` can take: the preloaders up, `--no-preload`,
a TMPDIR too long for a socket path in it, and the preloaders down.

- #7: the trusted check run started in the submission's folder: an editable install's relative
  entry on sys.path (`__editable__…__path_hook__`) found the submission's sitecustomize.py;
- #8: the SDK client (`--bonus`) started as `python -c` in the submission's folder: its json.py
  was imported outside the sandbox;
- #9 and "/tmp held 3 GiB": big files kept open in its folder and its /tmp, with nothing to cap
  the total;
- a retry decided from text the student printed ("Resource temporarily unavailable").
An attack that works earns points or leaves a mark outside the sandbox: each must earn nothing,
leave no mark, and the honest submission keeps full marks.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from hostile import ROOT, SOLUTIONS, with_prelude
from lab.grading import classroom
from lab.grading.runner import Limits
from lab.process import preloader as preload
from lab.process import sandbox
from totals import FULL

pytestmark = pytest.mark.skipif(sandbox.find()[0] is None, reason="needs bubblewrap")

PATHS = ["preloaded", "no-preload", "long-tmpdir", "preloader-down"]
PRINTED = "OSError: [Errno 11] Resource temporarily unavailable"
FILL = 56 << 20  # bytes per file: under the class's 64 MiB per-file cap
WINS = 100 << 20  # what the disk attack must keep written to go on as a correct server


def relative_editable_entries() -> list[str]:
    return [entry for entry in sys.path if entry.startswith("__editable__")]


def sitecustomize(mark: Path) -> str:
    """Forges a full report for the check run it gets into, and says so outside the sandbox."""
    return f"""\
import json, os
try:
    open({str(mark)!r}, "w").write("ran as the grader")
    from lab.checks import run_checks
    from lab.layout import solutions_dir
    print(json.dumps(run_checks(solutions_dir(), "en").to_dict()), flush=True)
    os._exit(0)
except Exception:
    pass
"""


DISK = f"""\
import os as _o
_written, _held = 0, []
for _where in (_o.getcwd(), "/tmp"):
    for _n in range(3):
        try:
            _f = open(_o.path.join(_where, f"fill-{{_o.getpid()}}-{{_n}}.bin"), "wb")
            _f.write(bytes({FILL}))
            _f.flush()
            _held.append(_f)  # kept open: deleting it would free nothing
            _written += {FILL}
        except OSError:
            break
if _written < {WINS}:
    raise SystemExit(3)
"""


# #6: a setuid copy of `id` left in its folder, as host root's if it can; it goes on as the
# reference server only if it ran as host root or left such a file on the grader's disk.
SETUID = """\
import os as _o, shutil as _sh
_won = _o.geteuid() == 0
for _where in (_o.getcwd(), "/tmp"):
    _copy = _o.path.join(_where, "id")
    try:
        _sh.copy("/usr/bin/id", _copy)
        _o.chmod(_copy, 0o6755)
        _won = _won or (_where == _o.getcwd() and _o.stat(_copy).st_uid == 0)
    except OSError:
        pass
if not _won:
    raise SystemExit(3)
"""


def copy_of(folder: Path, source: Path) -> Path:
    shutil.copytree(source, folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def prepend(path: Path, prelude: str) -> None:
    path.write_text(with_prelude(path.read_text(encoding="utf-8"), prelude), encoding="utf-8")


def grade(submissions: list[Path], out: Path, path: str, monkeypatch: pytest.MonkeyPatch,
          tmp_path: Path, bonus: bool = False) -> tuple[dict[str, tuple[int, bool]], dict[str, int], str]:
    """Grade on start path `path`: (name -> (score, kit error)), how many times each was graded,
    and the run's header as the instructor reads it."""
    if path == "long-tmpdir":
        long = tmp_path / ("t" * 150)
        long.mkdir()
        monkeypatch.setenv("TMPDIR", str(long))
        monkeypatch.setattr(tempfile, "tempdir", None)  # read again from TMPDIR
    if path == "preloader-down":
        monkeypatch.setattr(preload, "BOOT", "raise SystemExit(1)")  # dies before saying ready
    graded: dict[str, int] = {}
    real = classroom.grade_submission

    def counted(submission: Path, *args, **kwargs):
        graded[submission.name] = graded.get(submission.name, 0) + 1
        return real(submission, *args, **kwargs)

    monkeypatch.setattr(classroom, "grade_submission", counted)
    headers: list[str] = []
    result = classroom.grade_class(submissions, out, lang="en", limits=Limits(timeout=60), bonus=bonus,
                                   preload=path != "no-preload", on_start=lambda said: headers.append(said.said("en")))
    scores = {name: (report.score, report.kit_error) for name, report in result.rows}
    return scores, graded, headers[0]


def not_passed(out: Path) -> dict[str, list[tuple[str, str, str]]]:
    """Each graded submission's checks that did not pass: (id, reason, message), for a failure's message."""
    records = {record.parent.name: json.loads(record.read_text(encoding="utf-8"))["report"]
               for record in out.glob("*/.lab-report.json")}
    return {name: [(check["id"], check.get("reason", ""), check.get("message", "")[:200])
                   for check in report.get("results", []) if check.get("status") != "passed"]
            for name, report in records.items()}


HEADERS = {
    "preloaded": "checks forked by the preloader; model runner forked by the zygote, joined into its sandbox.",
    "long-tmpdir": "checks forked by the preloader; model runner forked by the zygote, joined into its sandbox.",
    "no-preload": "checks as a new interpreter; model runner as a new interpreter.",
    "preloader-down": "checks as a new interpreter (the preloader did not start); "
                      "model runner as a new interpreter (the preloader did not start).",
}


@pytest.mark.parametrize("path", PATHS)
def test_no_attack_on_a_start_path_earns_a_point_or_runs_as_the_grader(
        path: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    class_folder = tmp_path / "class"
    honest = copy_of(class_folder / "honest", SOLUTIONS)
    # #7: the untouched exercises (worth 0), and a sitecustomize.py where the relative entry
    # would lead from the submission's folder (and at its top, for any other way in).
    editable = copy_of(class_folder / "editable", ROOT / "exercises")
    for entry in [*relative_editable_entries(), "."]:
        (editable / entry).mkdir(exist_ok=True)
        (editable / entry / "sitecustomize.py").write_text(sitecustomize(marks / "sitecustomize"), encoding="utf-8")
    # The retry read student text: a server whose first line says the grader ran short.
    printer = copy_of(class_folder / "printer", SOLUTIONS)
    prepend(printer / "server.py", f"print({PRINTED!r}, flush=True)\n")
    # #9 and /tmp: the reference server, once it has kept WINS bytes written.
    disk = copy_of(class_folder / "disk", SOLUTIONS)
    prepend(disk / "server.py", DISK)
    setuid = copy_of(class_folder / "setuid", SOLUTIONS)
    prepend(setuid / "server.py", SETUID)
    stops = copy_of(class_folder / "stops", SOLUTIONS)  # what the disk and setuid attacks score when blocked
    prepend(stops / "server.py", "raise SystemExit(3)\n")

    scores, graded, header = grade([honest, editable, printer, disk, setuid, stops], tmp_path / "out", path,
                                   monkeypatch, tmp_path)
    assert header == "Start path: student code in bubblewrap; " + HEADERS[path]
    assert scores["honest"] == (FULL, False)
    assert scores["editable"] == (0, False) and not (marks / "sitecustomize").exists()
    assert graded == {"honest": 1, "editable": 1, "printer": 1, "disk": 1, "setuid": 1, "stops": 1}  # once each
    assert scores["printer"][1] is False and scores["printer"][0] < FULL
    assert scores["disk"] == scores["stops"] and scores["stops"][0] < FULL  # it never kept WINS bytes written
    assert scores["setuid"] == scores["stops"]  # never host root, and nothing setuid on the grader's disk


def json_module(mark: Path) -> str:
    """A json.py that says where it was imported, then hands over the real module."""
    return f"""\
import os, sys
try:
    open({str(mark)!r}, "w").write("imported outside the sandbox")
except OSError:
    pass
_here, _path = os.path.dirname(os.path.abspath(__file__)), list(sys.path)
sys.path[:] = [entry for entry in sys.path if os.path.abspath(entry or ".") != _here]
del sys.modules["json"]
import json as _real
sys.modules["json"], sys.path[:] = _real, _path
globals().update({{name: getattr(_real, name) for name in dir(_real) if not name.startswith("__")}})
"""


@pytest.mark.parametrize("path", ["preloaded", "no-preload", "preloader-down"])
def test_a_submissions_json_py_never_reaches_the_sdk_client(path: str, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """#8: the SDK client is a trusted process (`-I`, the kit's own folder): the submission's
    json.py is imported by its own sandboxed processes only, never outside."""
    pytest.importorskip("mcp")
    marks = tmp_path / "marks"
    marks.mkdir()
    honest = copy_of(tmp_path / "class" / "honest", SOLUTIONS)
    shadow = copy_of(tmp_path / "class" / "shadow", SOLUTIONS)
    (shadow / "json.py").write_text(json_module(marks / "json"), encoding="utf-8")
    scores, _, _ = grade([honest, shadow], tmp_path / "out", path, monkeypatch, tmp_path, bonus=True)
    assert not (marks / "json").exists()
    assert scores["honest"][1] is False
    # The same work, the same marks: json.py changed nothing.
    assert scores["shadow"] == scores["honest"], not_passed(tmp_path / "out")


FORGED_FRAME = """\
import os as _o, sys as _s


def _forge():
    # The case's id, from the runner's frame that called ask; then a frame of the wrong shape.
    frame = _s._getframe(1)
    while frame is not None and "case" not in frame.f_locals:
        frame = frame.f_back
    if frame is not None:
        _o.write(1, ('{"id": "%s", "error": 5, "text": ["not", "text"]}\\n' % frame.f_locals["case"]["id"]).encode())
"""

FORGED_RELAY = """\
import os as _o, socket as _socket
_port = _o.environ.get("LAB_SPY_SERVER_PORT")
if _port:
    with _socket.create_connection(("127.0.0.1", int(_port)), timeout=2) as _spy:
        _spy.sendall(b'{"line": 5}\\nnot json at all\\n\\xff\\xfe\\n')
"""


def test_a_malformed_frame_from_a_student_process_is_the_students_failure(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The model runner shares its process with model.py, and the relay runs beside the
    client: frames they send that are not the kit's shape fail the student's checks, and are
    never a kit error (a kit error is graded again, and has no mark)."""
    honest = copy_of(tmp_path / "class" / "honest", SOLUTIONS)
    forger = copy_of(tmp_path / "class" / "forger", SOLUTIONS)
    model = forger / "model.py"
    source = model.read_text(encoding="utf-8")
    model.write_text(with_prelude(source, FORGED_FRAME).replace("def ask(", "def ask(*args, **kwargs):\n"
                                                                "    _forge()\n    return _ask(*args, **kwargs)\n\n\n"
                                                                "def _ask(", 1), encoding="utf-8")
    prepend(forger / "client.py", FORGED_RELAY)
    scores, graded, _ = grade([honest, forger], tmp_path / "out", "preloaded", monkeypatch, tmp_path)
    assert scores["honest"] == (FULL, False)
    assert graded == {"honest": 1, "forger": 1}
    score, kit_error = scores["forger"]
    assert kit_error is False and score < FULL


IDENTITY = "import os\nprint(os.getuid(), os.geteuid(), os.getgid(), os.getgroups())\n"


def test_student_code_never_runs_as_host_root(tmp_path: Path) -> None:
    """#6: under a root grader a sandboxed process, new or joined by the zygote, is uid and gid
    sandbox.STUDENT_UID on the host, with no supplementary group; under any other grader, the
    grader's own uid (an unprivileged user namespace maps it, and nothing else)."""
    import os

    from lab.process.groups import stop
    from lab.process.launch import Launch
    from lab.process.preloader import ZYGOTE, preloader
    from lab.process.student import SANDBOX_BASE, start_student

    spec = sandbox.find()[0]
    work = tmp_path / "work"
    work.mkdir(mode=0o700)  # as a check's folder is made
    (work / "identity.py").write_text(IDENTITY, encoding="utf-8")
    expected = f"{sandbox.STUDENT_UID} {sandbox.STUDENT_UID} {sandbox.STUDENT_UID} []" if os.geteuid() == 0 \
        else f"{os.getuid()} {os.geteuid()} {os.getgid()} {os.getgroups()}"
    seen = []
    with preloader(60, 2 << 30, 64 << 20, dict(SANDBOX_BASE), ZYGOTE) as zygote:
        for warm in (False, True):
            process, _ = start_student(Launch(spec, zygote=zygote or ""), work / "identity.py", cwd=work,
                                       env=dict(SANDBOX_BASE), warm=warm)
            try:
                assert process.wait(timeout=30) == 0, process.stderr.read()
                seen.append(process.stdout.read().decode().strip())
            finally:
                stop(process)
    assert seen == [expected, expected]
