"""The class page says what to re-teach: in a class where most of the failures are work not
written yet, the checks table is led by the rules students really broke, and the answers
table by the values they really wrote, with "not written yet" and empty cells counted apart."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import ROOT
from lab.grading.class_report import write_report
from lab.grading.classroom import grade_class
from lab.grading.runner import Limits
from page_tree import Node, parse


def student(root: Path, name: str, file: str = "", old: str = "", new: str = "", untouched: tuple[str, ...] = ()) -> Path:
    folder = root / name
    shutil.copytree(ROOT / "solutions", folder)
    for given in untouched:  # the exercise as handed out
        shutil.copyfile(ROOT / "exercises" / given, folder / given)
    if file:
        source = (folder / file).read_text(encoding="utf-8")
        assert old in source
        (folder / file).write_text(source.replace(old, new, 1), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("class")
    promise = ('{"tools": {"listChanged": False}}', '{"tools": {"listChanged": True}}')
    folders = [
        *(student(root, f"promise-{n}", "server.py", *promise) for n in range(3)),  # announces a change it never sends
        *(student(root, f"no-close-{n}", "client.py", "    server.stdin.close()\n", "") for n in range(2)),
        *(student(root, f"no-client-{n}", untouched=("client.py", "answers.toml")) for n in range(5)),
        student(root, "wrong-reply", "answers.toml", "1 = -32600", "1 = -32601"),
        student(root, "ok"),
    ]
    out = root / "out"
    grade_class(folders, out, lang="fr", jobs=4, limits=Limits(timeout=60.0))
    return out


def page(out: Path, lang: str) -> Node:
    return parse(write_report(out, lang).read_text(encoding="utf-8"))


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_the_checks_table_is_led_by_the_two_real_misunderstandings(out: Path, lang: str) -> None:
    rows = page(out, lang).find("table", id="checks").find("tbody").all("tr")
    figures = [(row.attrs["data-check"], row.all("td")[1].text, row.all("td")[2].text, row.all("td")[3].text)
               for row in rows]
    # Five clients not written: apart. Over the seven whose client ran, two broke the rule.
    assert figures[:2] == [("server.list-changed-false", "3/12 (25 %)", "0", "0"),
                           ("client.closes-input", "2/7 (29 %)", "5", "0")]
    assert all(not_written in ("0", "5") for _, _, not_written, _ in figures)
    headers = [th.text for th in page(out, lang).find("table", id="checks").find("thead").all("th")]
    assert headers[3] == {"fr": "Pas encore écrit", "en": "Not written yet"}[lang]


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_the_answers_table_shows_the_wrong_value_first_and_empty_cells_apart(out: Path, lang: str) -> None:
    rows = page(out, lang).find("table", id="cells").find("tbody").all("tr")
    first = rows[0]
    assert (first.attrs["data-cell"], first.all("td")[1].text, [li.text for li in first.all("li")],
            first.all("td")[3].text) == ("six_reponses.1", "1", ["-32601 (1)"], "5")
    # Every other cell: nobody wrote a wrong value, the five untouched files left it empty.
    assert {(row.all("td")[1].text, row.all("td")[3].text, len(row.all("li"))) for row in rows[1:]} == {("0", "5", 0)}
    headers = [th.text for th in page(out, lang).find("table", id="cells").find("thead").all("th")]
    assert headers[4] == {"fr": "Encore vide", "en": "Still empty"}[lang]
