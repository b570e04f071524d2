"""The class report in a real browser: headless Chromium opens report.html from file://, and
the rendered page's figures are checked against summary.csv. Any console error, any request
other than the file itself, or any dialog (a script a student slipped in) fails the test."""

from __future__ import annotations

import csv
import os
from collections import Counter
from pathlib import Path
from typing import Iterator

import pytest

from browser import Browser, find_chromium
from lab.grading.class_report import visible, write_report
from lab.grading.readback import unquoted
from synthetic_class import build_class

CLASS_SIZE = 40

READ_PAGE = """(() => {
  const rows = Array.from(document.querySelectorAll("#students tbody tr")).map(row => ({
    name: row.cells[0].textContent, score: row.cells[1].textContent, cause: row.cells[3].getAttribute("data-cause"),
    causeText: row.cells[3].textContent,
    failed: row.cells[4].querySelector("code") ? row.cells[4].querySelector("code").textContent : "",
    state: row.cells[5].textContent, link: row.querySelector("a") ? row.querySelector("a").getAttribute("href") : null}));
  const bars = Array.from(document.querySelectorAll("#histogram g.bar")).map(bar =>
    [bar.querySelector("text.label").textContent, bar.querySelector("text.count").textContent]);
  const kinds = Array.from(document.querySelectorAll("#run-kinds li")).map(item => item.textContent);
  return {rows, bars, kinds, headings: Array.from(document.querySelectorAll("h1, h2")).map(h => h.textContent),
          buttons: document.querySelectorAll("#students th button").length,
          images: document.images.length, scripts: document.scripts.length,
          help: !document.querySelector(".js-only").hidden};
})()"""


def chromium() -> str:
    found = find_chromium()
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing: .ci/run installs it (apt-get install -y chromium)")
        pytest.skip("chromium is not installed (Debian/Ubuntu: apt-get install chromium)")
    return found


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, str]]]:
    out = tmp_path_factory.mktemp("class")
    build_class(out, CLASS_SIZE, fmt="gradescope", lang="fr")
    write_report(out, "fr")
    with (out / "summary.csv").open(newline="", encoding="utf-8") as handle:
        return out, list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with Browser(chromium(), timeout=60) as opened:
        yield opened


def test_the_rendered_page_shows_summary_csvs_figures_and_fetches_nothing(
        graded: tuple[Path, list[dict[str, str]]], browser: Browser) -> None:
    out, summary = graded
    url = (out / "report.html").as_uri()
    browser.open(url)
    page = browser.evaluate(READ_PAGE)

    assert browser.console_errors() == []
    assert browser.requested_urls() == [url]
    assert [event["method"] for event in browser.events if event["method"] == "Page.javascriptDialogOpening"] == []
    assert (page["images"], page["scripts"], page["buttons"], page["help"]) == (0, 1, 8, True)
    assert [row["name"] for row in page["rows"]] == [visible(unquoted(row["submission"])) for row in summary]
    assert [row["score"] for row in page["rows"]] == [f"{row['score'] or '—'}/{row['max']}" for row in summary]
    assert [row["failed"] for row in page["rows"]] == [row["failed"] for row in summary]
    # The first-cause column: summary.csv's code, in words; the rendered text comes from it.
    assert [row["cause"] for row in page["rows"]] == [row["cause"] for row in summary]
    assert all(row["cause"] for row in summary if row["failed"])
    words = {row["cause"]: row["causeText"] for row in page["rows"]}
    assert (words["hung"], words["kit-error"], words["cpu"]) == ("bloqué (temps dépassé)", "erreur du kit", "CPU épuisé")
    for code, shown in words.items():
        if code.startswith("rule:"):
            assert shown.startswith("règle : ") and len(shown) > len("règle : ")
    assert page["rows"][0]["name"] == "<img src=x onerror=alert(1)>"
    assert page["rows"][1]["name"] == "<script>alert(1)"
    assert page["rows"][2]["name"] == "_x1b[31mred_x1b[0m & <b>bold"
    assert page["rows"][0]["link"] == "%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E/results.json"
    counts = Counter(row["score"] for row in summary if row["score"])
    top = max(int(row["max"]) for row in summary)
    assert page["bars"] == [[str(score), str(counts.get(str(score), 0))] for score in range(top + 1)]
    errors = Counter(row["error"] != "" for row in summary)[True]
    assert page["kinds"] == ["bloqué (temps dépassé) : 1", "CPU épuisé : 1", "planté : 1",
                             "arrêté (signal ou trop de sortie) : 1", "erreur du kit : 1"]
    assert errors == 5
    assert page["headings"][0] == "Rapport de classe"


def test_a_click_on_a_header_sorts_the_students(graded: tuple[Path, list[dict[str, str]]], browser: Browser) -> None:
    out, summary = graded
    browser.open((out / "report.html").as_uri())
    shares = """Array.from(document.querySelectorAll("#students tbody tr")).map(row => Number(row.cells[1].getAttribute("data-sort")))"""
    browser.evaluate('document.querySelectorAll("#students th button")[1].click()')
    ascending = browser.evaluate(shares)
    assert ascending == sorted(ascending) and len(ascending) == CLASS_SIZE
    assert browser.evaluate('document.querySelectorAll("#students th")[1].getAttribute("aria-sort")') == "ascending"
    browser.evaluate('document.querySelectorAll("#students th button")[1].click()')
    assert browser.evaluate(shares) == sorted(ascending, reverse=True)
    browser.evaluate('document.querySelectorAll("#students th button")[0].click()')
    names = browser.evaluate("""Array.from(document.querySelectorAll("#students tbody th")).map(th => th.textContent)""")
    assert names == sorted(names, key=str.lower)
    assert browser.console_errors() == []


def test_without_script_the_page_reads_the_same(graded: tuple[Path, list[dict[str, str]]], browser: Browser) -> None:
    out, summary = graded
    browser.call("Emulation.setScriptExecutionDisabled", {"value": True})
    try:
        browser.open((out / "report.html").as_uri())
        page = browser.evaluate(READ_PAGE)
    finally:
        browser.call("Emulation.setScriptExecutionDisabled", {"value": False})
    assert (page["buttons"], page["help"]) == (0, False)
    assert [row["score"] for row in page["rows"]] == [f"{row['score'] or '—'}/{row['max']}" for row in summary]
    assert len(page["headings"]) == 7
    assert browser.console_errors() == []


def test_the_harness_sees_a_request_and_a_console_error(tmp_path: Path, browser: Browser) -> None:
    """The checks above can fail: a page that fetches an image and logs an error is caught."""
    page = tmp_path / "leaky.html"
    page.write_text('<!DOCTYPE html><html><body><img src="http://127.0.0.1:9/pixel.png">'
                    '<script>console.error("from the page")</script></body></html>', encoding="utf-8")
    browser.open(page.as_uri())
    browser.evaluate("new Promise(done => setTimeout(done, 200))")
    assert browser.requested_urls() == [page.as_uri(), "http://127.0.0.1:9/pixel.png"]
    assert "from the page" in browser.console_errors()
