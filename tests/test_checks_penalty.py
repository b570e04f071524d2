"""One mistake, one penalty: each classic mistake, made once in the solutions, costs exactly the
points of the rule it breaks; the checks that only follow from it are judged elsewhere or wait."""

from __future__ import annotations

import shutil

import pytest

from checks_helpers import mutate
from conftest import ROOT
from lab.checks import run_checks
from lab.results import FAILED, PASSED

MISTAKES = {
    "accept every version": ("server.py", "    if requested not in VERSIONS:\n", "    if False:\n",
                             {"server.refuses-unknown-version"}),
    "VERSIONS without 2024-11-05": ("server.py", 'VERSIONS = ["2025-03-26", "2024-11-05"]', 'VERSIONS = ["2025-03-26"]',
                                    {"server.accepts-known-version"}),
    # Part 3 is judged with the lesson's initialize lent: its states never move on part 2's mistake.
    "the version test inverted": ("server.py", "    if requested not in VERSIONS:\n", "    if requested in VERSIONS:\n",
                                  {"server.refuses-unknown-version", "server.accepts-known-version"}),
    "ready spelt prêt in the gate": ("server.py", '    if state != "pret":\n', '    if state != "prêt":\n',
                                     {"server.tools-list-when-ready"}),
    "a question without its words": ("client.py", '"content": TEXT["question"] + to_json(capabilities)}',
                                     '"content": to_json(capabilities)}', {"client.asks-model"}),
    # Part 1's reply wraps every result: parts 2 and 3 are judged with the lesson's part 1 lent.
    "a result inside a result": ("server.py", '    send({"id": request_id, "result": result})\n',
                                 '    send({"id": request_id, "result": {"result": result}})\n', {"server.json-rpc-replies"}),
    "a client without jsonrpc": ("client.py", '        line = to_json({"jsonrpc": "2.0", **message})\n',
                                 "        line = to_json(message)\n", {"client.jsonrpc-on-every-message"}),
}


@pytest.mark.parametrize("name", sorted(MISTAKES))
def test_a_classic_mistake_costs_exactly_the_rule_it_breaks(tmp_path, name):
    file, old, new, broken = MISTAKES[name]
    for source in (ROOT / "solutions").iterdir():
        if source.is_file():
            shutil.copyfile(source, tmp_path / source.name)
    (tmp_path / file).write_text(mutate((tmp_path / file).read_text(encoding="utf-8"), old, new), encoding="utf-8")
    report = run_checks(tmp_path, "en")
    failed = {r.id for r in report.results if r.status == FAILED}
    assert failed == broken, [(r.id, r.status, r.message) for r in report.results if r.status != PASSED]
    # Any other check not passed waits for a broken one, says so, and has no hint of its own to follow.
    titles = {r.title for r in report.results if r.id in broken}
    waiting = [r for r in report.results if r.status != PASSED and r.id not in broken]
    assert all(r.message in {f"not checkable yet: “{title}” must pass first" for title in titles}
               for r in waiting), [(r.id, r.message) for r in waiting]
    assert {r.id for r in waiting} == WAITING.get(name, set())


# The data of a refusal cannot be judged when the unknown version is not refused; a request refused
# as if the server were never ready is said once, by tools/list's check; part 1's other checks wait
# for its first.
WAITING = {"accept every version": {"server.error-data"}, "the version test inverted": {"server.error-data"},
           "ready spelt prêt in the gate": {"server.unknown-method"},
           "a result inside a result": {"server.reply-ids", "server.flushes-each-reply"}}
