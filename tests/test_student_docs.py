"""docs/students.fr.md and docs/students.en.md say the same things: the same sections, the same
commands, the same links, and each quotes the kit's lines in its own language."""

from __future__ import annotations

import re

import pytest

from conftest import ROOT

PAGES = {"fr": ROOT / "docs" / "students.fr.md", "en": ROOT / "docs" / "students.en.md"}
COMMAND = re.compile(r"`((?:lab|python|docker|cp|pip|npx) [^`]*)`")
LINK = re.compile(r"\]\(([^)]+)\)")


def text(lang: str) -> str:
    return PAGES[lang].read_text(encoding="utf-8")


def headings(page: str) -> list[str]:
    return [line.split(" ", 1)[0] for line in page.splitlines() if line.startswith("#")]


def block_commands(page: str) -> list[str]:
    """The commands of the fenced blocks, without their comments (the words differ, not the commands)."""
    blocks = re.findall(r"```sh\n(.*?)```", page, re.S)
    return [line.split("#", 1)[0].strip() for block in blocks for line in block.splitlines() if line.strip()]


def test_the_two_pages_have_the_same_sections():
    assert headings(text("fr")) == headings(text("en"))


def test_the_two_pages_give_the_same_commands_and_links():
    for extract in (block_commands, lambda page: sorted(set(COMMAND.findall(page))),
                    lambda page: sorted(set(LINK.findall(page)))):
        assert extract(text("fr")) == extract(text("en"))


@pytest.mark.parametrize(("lang", "other"), [("fr", "en"), ("en", "fr")])
def test_each_page_quotes_the_kits_lines_in_its_own_language(lang, other):
    from lab.checks.reference import model_fallback_line, todo_line

    page = text(lang)
    assert todo_line(lang).split("{part}")[0] in page
    assert model_fallback_line(lang).split("{reason}")[0].split(":")[0] in page
    assert model_fallback_line(other).split("{reason}")[0].split(":")[0] not in page
