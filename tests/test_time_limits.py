"""lab/time_limits.py: the one home of the kit's time limits."""

from __future__ import annotations

import re

import click

from conftest import ROOT
from lab import time_limits

# A module-level name bound to a number of seconds (the kit writes them with a decimal point;
# byte caps are whole numbers): `REPLY_LIMIT = 3.5`, `SLOW_TIMEOUT = 0.1`.
LITERAL_LIMIT = re.compile(r"^[A-Z_]*(LIMIT|TIMEOUT|GRACE|CAP|CPU)[A-Z_]* *= *[0-9]+\.[0-9]+", re.MULTILINE)
# A probe given its limit as a number: `Probe(read_answers, 2.0, …)`.
LITERAL_PROBE = re.compile(r"\bProbe\(\s*\w+\s*,\s*[0-9.]+\s*[,)]")


def test_every_limit_is_a_positive_number_of_seconds() -> None:
    limits = {name: value for name, value in vars(time_limits).items() if name.isupper()}
    assert limits and all(isinstance(value, (int, float)) and value > 0 for value in limits.values())


def test_no_module_of_the_kit_types_a_time_limit_of_its_own() -> None:
    typed = [f"{path.relative_to(ROOT)}: {match.group()}" for path in sorted((ROOT / "lab").rglob("*.py"))
             if path.name != "time_limits.py" for pattern in (LITERAL_LIMIT, LITERAL_PROBE)
             for match in pattern.finditer(path.read_text(encoding="utf-8"))]
    assert typed == []


def test_the_typed_limit_finder_finds_what_it_looks_for() -> None:
    found = [bool(pattern.search(line)) for pattern, line in (
        (LITERAL_LIMIT, "REPLY_LIMIT = 3.5"), (LITERAL_PROBE, 'PROBES = {"a": Probe(read_answers, 2.0)}'),
        (LITERAL_LIMIT, "REPLY_LIMIT = time_limits.SERVER_REPLY"), (LITERAL_PROBE, "Probe(burst, 3 * REPLY_LIMIT)"))]
    assert found == [True, True, False, False]


def test_the_model_cases_fit_in_their_limit() -> None:
    from lab.checks.model_checks import cases

    class Endpoints:
        def url(self, name: str) -> str:
            return f"http://127.0.0.1:9/{name}"

    assert sum(case["limit"] for case in cases(Endpoints(), 9, "en")) <= time_limits.MODEL_CASES


def test_the_modules_that_apply_a_limit_read_it_from_the_table() -> None:
    from lab.checks import model_checks, real_clients, server_session
    from lab.grading import commands, runner

    assert server_session.REPLY_LIMIT == time_limits.SERVER_REPLY
    assert model_checks.SLOW_TIMEOUT == time_limits.MODEL_SLOW_TIMEOUT
    assert real_clients.FETCH_LIMIT == time_limits.INSPECTOR_FETCH
    group = click.Group()
    commands.add_grading_commands(group, "en")
    for name in ("grade", "gradescope-bundle", "gradescope-run"):
        timeout = next(param for param in group.commands[name].params if param.name == "timeout")
        assert timeout.default == runner.Limits().timeout == time_limits.SUBMISSION
