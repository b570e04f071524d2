"""docs/checks.md lists exactly the declared checks: ids, points, titles and prerequisites."""

from __future__ import annotations

import re

from lab.checks import registry
from lab.checks.doc import DOC, markdown


def test_the_checks_doc_is_written_from_the_declarations():
    assert DOC.read_text(encoding="utf-8") == markdown(), "run `python -m lab.checks.doc`"


def test_every_declared_check_has_one_row_with_its_points():
    rows = re.findall(r"^\| `([a-z0-9.-]+)`(?: \(\*cause\*\))? \| (\d+) \|", DOC.read_text(encoding="utf-8"), flags=re.M)
    assert rows == [(check.id, str(check.points)) for check in registry()[0]]


def test_every_check_is_declared_whole():
    for check in registry()[0]:
        assert set(check.title) == set(check.hint) == {"fr", "en"}, check.id
        assert all(check.title.values()) and all(check.hint.values()), check.id
        assert check.points >= 1 and callable(check.run), check.id
        assert "solutions" not in check.hint["fr"] + check.hint["en"], check.id


def test_the_causes_are_marked():
    marked = set(re.findall(r"^\| `([a-z0-9.-]+)` \(\*cause\*\)", DOC.read_text(encoding="utf-8"), flags=re.M))
    assert marked == {check.id for check in registry()[0] if check.cause} >= {
        "server.json-rpc-replies", "server.keeps-running", "server.flushes-each-reply",
        "server.notifications-unanswered", "client.closes-input"}
