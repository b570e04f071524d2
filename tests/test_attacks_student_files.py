"""Attacks through what the trusted side reads of a submission: its folder's name, its files read
as text (answers.toml, server.py, model.py, model_setup.py) and its programs' lines. Each is a
real submission graded with `lab grade` beside an honest one. What makes a check raise turns the
submission into a kit error: no mark, graded again on every rerun, "not your code's" in the
results; what holds the check run in a parse or a search costs the grader's CPU until the
submission's time is out, and the student every point; a name that cannot be written stops
the whole class.

- answers.toml holding an integer Python will not write as text (past its 4,300 digits): valid
  TOML, a ValueError in the parse (decimal) or wherever a cell is read as text (hexadecimal);
- answers.toml with a [table] named with 6,000 parts above 6,000 lines (60 KB): tomllib walks
  the name again for each line, 12 s, past the probe's own limit, a kit error (graded again and
  again by the retries);
- a runnable server.py whose tree is deeper than `ast.parse` builds in a check's thread (the
  compiler, at the top of a fresh interpreter, goes a little deeper): a RecursionError in the
  check that looks for a comparison slip in the source;
- a server whose first line is 800 KB of \" (a string never closed): the check run's count of
  the line's nesting outside its strings tried a string again from each quote, to the end of the
  line each time (hours), the check run stuck until the submission's time was out: 0;
- a model_setup.py whose REASONS hold a template of 25 fields: the check that the fallback's
  reason is one of them made it a regex of 25 ".*", hours on a reason of 40 characters;
- a model.py whose ask raises, with a text of 130,000 lines "except" and no colon after: the
  search for its `except` clause tried again from each line to the end of the file (minutes);
- a folder whose name is not UTF-8 (an old zip's bytes): the record of its results could not be
  written, and `lab grade` stopped with no summary.csv for anyone;
- a cell of 900 KB in answers.toml ("pas d'erreur" again and again): the search for a second
  answer in it read the cell again from its start at each word, for minutes of the check run's
  CPU, and the submission ran out of time with 0;
- a folder named summary.csv.partial: summary.csv is written through a file of that name beside
  the submissions' folders, and the class got none.
Each must score what its work earns, as the student's own failure, and the class be written.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hostile import ROOT, SOLUTIONS, with_prelude
from lab.process import sandbox
from totals import FULL, checks_of, points, task_points

GRADE_LIMIT = 600  # seconds for the whole class: a hang fails the test, never the run
NOT_UTF8 = os.fsdecode(b"caf\xe9")  # "café" as Latin-1 wrote it: not UTF-8
DEEP = 2985  # attributes chained: the compiler takes them, a check's ast.parse does not


def copy_of(folder: Path) -> Path:
    shutil.copytree(SOLUTIONS, folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def with_cell(folder: Path, value: str) -> Path:
    """The reference answers, with `value` in the cell six_reponses.1 (the checks read it)."""
    answers = folder / "answers.toml"
    text = answers.read_text(encoding="utf-8")
    assert "\n1 = -32600" in text, "the answers' [six_reponses] table changed"
    answers.write_text(text.replace("\n1 = -32600", f"\n1 = {value}", 1), encoding="utf-8")
    return folder


def never_ready(folder: Path, deep: bool) -> Path:
    """The reference server that never leaves "attente" (tools/list gets -32600 once ready, so
    the check reads the source for why); `deep`: with a chain of DEEP attributes never run."""
    server = folder / "server.py"
    source = server.read_text(encoding="utf-8")
    assert 'state = "pret"' in source, "the reference server's ready state changed"
    source = source.replace('state = "pret"', 'state = "attente"')
    if deep:
        source += "\nif False:\n    chain = server" + ".server" * DEEP + "\n"
    server.write_text(source, encoding="utf-8")
    return folder


def slow_to_read(folder: Path) -> Path:
    """The reference answers, then a table named with 6,000 parts above 6,000 lines (60 KB)."""
    with open(folder / "answers.toml", "a", encoding="utf-8") as answers:
        answers.write("\n[" + ".".join(["a"] * 6000) + "]\n" + "".join(f"k{line} = 1\n" for line in range(6000)))
    return folder


def first_line(folder: Path, line: str) -> Path:
    """The reference server, which first writes the Python expression `line` as a line of its own."""
    server = folder / "server.py"
    source = server.read_text(encoding="utf-8")
    prelude = f"import sys as _sys\n_sys.stdout.write({line} + '\\n')\n_sys.stdout.flush()\n"
    server.write_text(with_prelude(source, prelude), encoding="utf-8")
    return folder


def own_reason(folder: Path, many_fields: bool) -> Path:
    """The reference model helper with a fallback reason of its own, not why_no_model's;
    `many_fields`: with a template of 25 fields in its copy of model_setup.py's REASONS."""
    model = folder / "model.py"
    source = model.read_text(encoding="utf-8")
    assert "reason = why_no_model(error, settings)" in source, "the reference model helper changed"
    model.write_text(source.replace("reason = why_no_model(error, settings)", 'reason = "y" * 40'), encoding="utf-8")
    if many_fields:
        setup = folder / "model_setup.py"
        text = setup.read_text(encoding="utf-8")
        assert text.count('"other": "{error}",') == 2, "the given REASONS changed"
        setup.write_text(text.replace('"other": "{error}",', '"other": "{error}", "many": "' + "{a}" * 25 + '!",'),
                         encoding="utf-8")
    return folder


def narrow_except(folder: Path, except_lines: bool) -> Path:
    """The reference model helper catching ValueError only (ask raises, and the check reads the
    source for its `except`); `except_lines`: with a text of 130,000 lines "except" (900 KB)."""
    model = folder / "model.py"
    source = model.read_text(encoding="utf-8")
    assert "except Exception as error:" in source, "the reference model helper changed"
    source = source.replace("except Exception as error:", "except ValueError as error:")
    if except_lines:
        source += '\nNOTES = """\n' + "except\n" * 130000 + '"""\n'
    model.write_text(source, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = tmp_path_factory.mktemp("student-files")
    parent = root / "class"
    submissions = [
        copy_of(parent / "honest"),
        with_cell(copy_of(parent / "long_integer"), "1" * 5000),
        with_cell(copy_of(parent / "long_hex"), "0x" + "f" * 5000),
        never_ready(copy_of(parent / "deep_tree"), deep=True),
        never_ready(copy_of(parent / "never_ready"), deep=False),  # what deep_tree's work earns
        copy_of(parent / NOT_UTF8),
        with_cell(copy_of(parent / "long_cell"), '"' + "pas d'erreur " * 70000 + '"'),
        copy_of(parent / "summary.csv.partial"),
        slow_to_read(copy_of(parent / "slow_toml")),
        first_line(copy_of(parent / "quotes_line"), "'\\\\\"' * 400000"),  # \" again and again, 800 KB
        first_line(copy_of(parent / "plain_line"), "'x' * 800000"),  # what quotes_line's work earns
        own_reason(copy_of(parent / "many_fields"), many_fields=True),
        own_reason(copy_of(parent / "own_reason"), many_fields=False),  # what many_fields's work earns
        narrow_except(copy_of(parent / "except_lines"), except_lines=True),
        narrow_except(copy_of(parent / "narrow_except"), except_lines=False),  # what except_lines's work earns
    ]
    out = root / "out"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("LAB_LANG", None)
    unsandboxed = [] if sandbox.find()[0] is not None else ["--no-sandbox"]
    done = subprocess.run([sys.executable, "-m", "lab", "--lang", "en", "grade", *map(str, submissions),
                           "--out", str(out), "--timeout", "60", *unsandboxed],
                          cwd=root, env=env, capture_output=True, text=True, timeout=GRADE_LIMIT)
    with open(out / "summary.csv", encoding="utf-8", newline="") as handle:
        summary = {row["submission"]: row for row in csv.DictReader(handle)}
    return {"code": done.returncode, "stderr": done.stderr, "summary": summary, "out": out}


def reasons(graded: dict, name: str) -> dict[str, str]:
    """Each check's reason for its failure, from the record of the submission's report."""
    record = json.loads((graded["out"] / name / ".lab-report.json").read_text(encoding="utf-8"))
    return {check["id"]: check.get("reason", "") for check in record["report"]["results"]
            if check["status"] != "passed"}


def test_the_class_is_written_and_the_honest_classmate_keeps_full_marks(graded: dict) -> None:
    assert graded["code"] == 0, graded["stderr"][-3000:]
    assert graded["summary"]["honest"]["score"] == str(FULL)
    assert [name for name, row in graded["summary"].items() if row["status"] != "graded"] == []


@pytest.mark.parametrize("name", ["long_integer", "long_hex", "slow_toml"])
def test_an_answers_toml_python_cannot_read_or_print_costs_the_answers_only(graded: dict, name: str) -> None:
    row = graded["summary"][name]
    assert (row["score"], row["error"]) == (str(FULL - task_points("answers")), "")
    assert reasons(graded, name) == dict.fromkeys(checks_of("answers"), "answers.not_toml")


def test_a_server_deeper_than_a_checks_parse_scores_what_its_work_earns(graded: dict) -> None:
    deep, control = graded["summary"]["deep_tree"], graded["summary"]["never_ready"]
    assert int(control["score"]) < FULL
    assert (deep["score"], deep["failed"], deep["error"]) == (control["score"], control["failed"], "")


def test_a_folder_whose_name_is_not_utf8_is_graded_and_named_in_summary_csv(graded: dict) -> None:
    row = graded["summary"]["caf_udce9"]  # its byte written as a visible escape, a folder's name
    assert (row["score"], row["error"]) == (str(FULL), "")
    assert row["path"] == str(graded["out"].parent / "class" / "caf\\udce9")
    assert (graded["out"] / "caf_udce9" / "results.json").is_file()


def test_a_cell_of_900_kb_costs_its_own_cell_and_no_time(graded: dict) -> None:
    row = graded["summary"]["long_cell"]
    assert (row["score"], row["failed"], row["error"]) == (str(FULL - points("answers.six-replies")),
                                                            "answers.six-replies", "")


def test_a_folder_named_like_summary_csvs_partial_file_leaves_summary_csv_to_the_class(graded: dict) -> None:
    row = graded["summary"]["summary.csv.partial-2"]
    assert (row["score"], row["error"]) == (str(FULL), "")
    assert row["path"] == str(graded["out"].parent / "class" / "summary.csv.partial")


def test_a_line_of_800_kb_of_escaped_quotes_is_a_line_that_is_not_json(graded: dict) -> None:
    quotes, plain = graded["summary"]["quotes_line"], graded["summary"]["plain_line"]
    assert 0 < int(plain["score"]) < FULL
    assert (quotes["score"], quotes["failed"], quotes["error"]) == (plain["score"], plain["failed"], "")


def test_a_reason_template_of_25_fields_is_read_in_one_pass(graded: dict) -> None:
    many, own = graded["summary"]["many_fields"], graded["summary"]["own_reason"]
    assert "model.refused" in own["failed"].split()
    assert (many["score"], many["failed"], many["error"]) == (own["score"], own["failed"], "")


def test_a_model_py_of_130000_lines_except_is_searched_in_one_pass(graded: dict) -> None:
    lines, narrow = graded["summary"]["except_lines"], graded["summary"]["narrow_except"]
    assert "model.refused" in narrow["failed"].split() and int(narrow["score"]) > 0
    assert (lines["score"], lines["failed"], lines["error"]) == (narrow["score"], narrow["failed"], "")
