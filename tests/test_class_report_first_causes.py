"""Each kind of submission gets its own first cause, in summary.csv and on the class page
(opened in Chromium), graded in French and in English: a syntax error, a crash and a hang in
each of the three files, blank files, an untouched answers.toml, an upload over the copy's
file cap, beside an honest classmate."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path
from typing import Iterator

import pytest

from browser import Browser
from conftest import ROOT
from lab.grading.class_report import write_report
from lab.grading.classroom import grade_class
from lab.grading.runner import Limits
from test_class_report_browser import chromium
from totals import FULL, task_points

FIRST_LINE = {"server.py": "\nimport ", "client.py": "\nimport ", "model.py": "\nfrom "}  # where a bug goes in
BUGS = {"syntax": "def (", "indent": "  x = 1", "crash": "undefined_name", "hang": "import time\ntime.sleep(600)"}
KINDS = [("server.py", "syntax"), ("server.py", "crash"), ("server.py", "hang"),
         ("client.py", "syntax"), ("client.py", "indent"), ("client.py", "crash"), ("client.py", "hang"),
         ("model.py", "syntax"), ("model.py", "crash"), ("model.py", "hang")]
# submission → (summary.csv's cause, the page's words in fr, in en, "Submissions to look at" in fr, in en)
EXPECTED = {  # in the order make_class lists them, which the page keeps
    "ok": ("", "—", "—", None, None),
    "server-syntax": ("syntax:server.py", "erreur de syntaxe dans server.py", "syntax error in server.py",
                      "ne compile pas", "does not compile"),
    "server-crash": ("crash:server.py", "server.py planté", "server.py crashed", "planté", "crashed"),
    "server-hang": ("hang:server.py", "server.py bloqué (rien écrit)", "server.py hung (wrote nothing)",
                    "bloqué (temps dépassé)", "hung (time limit)"),
    "client-syntax": ("syntax:client.py", "erreur de syntaxe dans client.py", "syntax error in client.py",
                      "ne compile pas", "does not compile"),
    "client-indent": ("syntax:client.py", "erreur de syntaxe dans client.py", "syntax error in client.py",
                      "ne compile pas", "does not compile"),
    "client-crash": ("crash:client.py", "client.py planté", "client.py crashed", "planté", "crashed"),
    "client-hang": ("hang:client.py", "client.py bloqué (rien écrit)", "client.py hung (wrote nothing)",
                    "bloqué (temps dépassé)", "hung (time limit)"),
    "model-syntax": ("syntax:model.py", "erreur de syntaxe dans model.py", "syntax error in model.py",
                     "ne compile pas", "does not compile"),
    "model-crash": ("crash:model.py", "model.py planté", "model.py crashed", "planté", "crashed"),
    "model-hang": ("hang:model.py", "model.py bloqué (rien écrit)", "model.py hung (wrote nothing)",
                   "bloqué (temps dépassé)", "hung (time limit)"),
    "empty": ("empty", "vide", "empty", "vide", "empty"),
    "untouched-answers": ("unwritten:answers", "réponses de la leçon encore à écrire",
                          "the lesson's answers still to write", None, None),
    "stray-venv": ("refused", "refusé (trop gros pour être copié)", "refused (too big to copy)",
                   "refusé (trop gros pour être copié)", "refused (too big to copy)"),
}

READ_PAGE = """(() => ({
  students: Array.from(document.querySelectorAll("#students tbody tr")).map(row =>
    [row.cells[0].textContent, row.cells[3].getAttribute("data-cause"), row.cells[3].textContent]),
  runs: Array.from(document.querySelectorAll("#runs tbody tr")).map(row => [row.cells[0].textContent, row.cells[1].textContent]),
}))()"""


def make_class(root: Path) -> list[Path]:
    def student(name: str) -> Path:
        shutil.copytree(ROOT / "solutions", root / name)
        return root / name

    folders = [student("ok")]
    for file, kind in KINDS:
        folder = student(f"{file.removesuffix('.py')}-{kind}")
        source = (folder / file).read_text(encoding="utf-8")
        assert FIRST_LINE[file] in source
        (folder / file).write_text(source.replace(FIRST_LINE[file], f"\n{BUGS[kind]}{FIRST_LINE[file]}", 1),
                                   encoding="utf-8")
        folders.append(folder)
    empty = student("empty")
    for name in ("server.py", "client.py", "model.py", "answers.toml"):
        (empty / name).write_text("", encoding="utf-8")
    untouched = student("untouched-answers")
    shutil.copyfile(ROOT / "exercises" / "answers.toml", untouched / "answers.toml")
    venv = student("stray-venv")
    for number in range(2001):  # a virtual environment under a name the copy does not skip
        (venv / "env" / str(number // 100)).mkdir(parents=True, exist_ok=True)
        (venv / "env" / str(number // 100) / f"m{number}.py").write_text("", encoding="utf-8")
    return [*folders, empty, untouched, venv]


@pytest.fixture(scope="module", params=["fr", "en"])
def graded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, list[dict]]:
    lang = request.param
    root = tmp_path_factory.mktemp(f"class-{lang}")
    out = root / "out"
    grade_class(make_class(root / "class"), out, fmt="gradescope", lang=lang, jobs=4, limits=Limits(timeout=60.0))
    with (out / "summary.csv").open(newline="", encoding="utf-8") as handle:
        return lang, out, list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with Browser(chromium(), timeout=60) as opened:
        yield opened


def test_summary_csv_names_each_kind_of_submission(graded: tuple[str, Path, list[dict]]) -> None:
    _, _, summary = graded
    assert {row["submission"]: row["cause"] for row in summary} == {name: want[0] for name, want in EXPECTED.items()}
    rows = {row["submission"]: row for row in summary}
    # The stray venv is the student's upload: graded 0, refused, never the kit's error.
    venv = rows["stray-venv"]
    assert (venv["score"], venv["status"]) == ("0", "graded")
    assert venv["error"] == {"fr": "Plus de 2000 fichiers dans le travail : pas copié, rien n’a pu être vérifié.",
                             "en": "More than 2000 files in the submission: not copied, nothing could be checked."}[graded[0]]
    assert (rows["empty"]["score"], rows["empty"]["status"]) == ("0", "graded")
    assert rows["empty"]["error"] == {
        "fr": "Travail vide (server.py, client.py, model.py, answers.toml : rien d’écrit) : rien n’a pu être vérifié.",
        "en": "Empty submission (server.py, client.py, model.py, answers.toml: nothing written): nothing could be checked.",
    }[graded[0]]
    assert rows["untouched-answers"]["score"] == str(FULL - task_points("answers"))  # the answers checks, nothing else
    assert all(row["status"] == "graded" for row in summary)


@pytest.mark.parametrize("page_lang", ["fr", "en"])
def test_the_page_in_chromium_says_each_cause_and_lists_what_never_ran(
        graded: tuple[str, Path, list[dict]], browser: Browser, page_lang: str) -> None:
    _, out, _ = graded
    write_report(out, page_lang)
    url = (out / "report.html").as_uri()
    browser.open(url)
    page = browser.evaluate(READ_PAGE)
    assert browser.console_errors() == [] and browser.requested_urls() == [url]
    words = 1 if page_lang == "fr" else 2
    assert page["students"] == [[name, want[0], want[words]] for name, want in EXPECTED.items()]
    assert page["runs"] == [[name, want[words + 2]] for name, want in EXPECTED.items()
                            if want[words + 2] is not None]


def test_blank_files_are_counted_among_the_empty_submissions(tmp_path: Path) -> None:
    from lab.grading.commands import run_counts
    from lab.grading.runner import blank_files

    blank, written, none = tmp_path / "blank", tmp_path / "written", tmp_path / "none"
    for folder in (blank, written, none):
        folder.mkdir()
    for name in ("server.py", "client.py", "answers.toml"):
        (blank / name).write_text(" \n\t\n", encoding="utf-8")
        (written / name).write_text("", encoding="utf-8")
    (written / "model.py").write_text("print(1)\n", encoding="utf-8")
    (none / "notes.txt").write_text("no code", encoding="utf-8")
    assert blank_files(blank) == ["server.py", "client.py", "answers.toml"]
    assert blank_files(written) == [] and blank_files(none) == []
    assert run_counts([blank, written, none], [])["empty"] == 2
