"""The class report's answers table reads the answers checks' kept keys and fields (the cell,
the other cells, a file that cannot be read): the same counts in French and in English."""

from __future__ import annotations

from pathlib import Path

import pytest

from checks_helpers import run_some
from lab.grading import class_stats
from lab.grading.readback import ClassRecord, Submission
from test_checks_answers import GOOD

# ann: reply 1 wrong, 5 and 6 empty; bob: reply 1 and 6 wrong; cy: not TOML; dee: not UTF-8.
STUDENTS = {
    "ann": GOOD.replace('1 = "-32600"', "1 = -32601").replace('5 = "resultat"', '5 = ""').replace("6 = -32601", '6 = ""'),
    "bob": GOOD.replace('1 = "-32600"', "1 = 0").replace("6 = -32601", "6 = 3"),
    "cy": "[six_reponses\n",
}


def graded(root: Path, lang: str) -> list[Submission]:
    submissions = []
    for name, text in STUDENTS.items():
        folder = root / lang / name
        folder.mkdir(parents=True)
        (folder / "answers.toml").write_text(text, encoding="utf-8")
        submissions.append(Submission(name, checks=run_some(folder, "answers.", lang=lang).results))
    folder = root / lang / "dee"
    folder.mkdir()
    (folder / "answers.toml").write_bytes(b"[mots_cles]\netat = \"pr\xeat\"\n")
    submissions.append(Submission("dee", checks=run_some(folder, "answers.", lang=lang).results))
    return submissions


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_the_answers_table_counts_each_cell_from_the_keys(tmp_path: Path, lang: str) -> None:
    submissions = graded(tmp_path, lang)
    six = next(c for c in submissions[0].checks if c.id == "answers.six-replies")
    assert six.reason == "answers.cell"
    assert six.fields == {"cell": "six_reponses.1", "why": {"reason": "answers.why_not_the_reply"},
                          "empty_cells": ["six_reponses.5", "six_reponses.6"], "wrong_cells": []}
    assert [c.reason for c in submissions[2].checks] == ["answers.not_toml_at"] * 3
    assert [c.reason for c in submissions[3].checks] == ["answers.not_utf8"] * 3
    record = ClassRecord(submissions, {})
    assert class_stats.answers_unreadable(record) == 2
    asks = {"fr": "la réponse 1 de `lab run`", "en": "reply 1 of `lab run`"}[lang]
    # Wrong values and empty cells apart: ann left 5 and 6 empty, bob wrote 6 wrong (its value unseen).
    assert [(f.cell, f.question, f.wrong, f.values, f.unseen, f.empty)
            for f in class_stats.answer_cells(record)] == [
        ("six_reponses.1", asks, 2, [("-32601", 1), ("0", 1)], 0, 0),
        ("six_reponses.6", "", 1, [], 1, 1),
        ("six_reponses.5", "", 0, [], 0, 1),
    ]


def test_a_forged_cell_reason_is_read_without_trusting_its_fields(tmp_path: Path) -> None:
    submissions = graded(tmp_path, "fr")[:1]
    six = next(c for c in submissions[0].checks if c.id == "answers.six-replies")
    six.fields = {"cell": 3, "empty_cells": "six_reponses.5", "wrong_cells": [None, "six_reponses.2"]}
    figures = class_stats.answer_cells(ClassRecord(submissions, {}))
    assert [(f.cell, f.wrong, f.values, f.unseen, f.empty) for f in figures] == [
        ("la réponse 1 de `lab run`", 1, [("-32601", 1)], 0, 0), ("six_reponses.2", 1, [], 1, 0)]
