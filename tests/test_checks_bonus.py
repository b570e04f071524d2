"""The bonus step's graded checks (lab/checks/bonus.py): the solution gets full marks, and
bonus servers that keep the lesson's rule, or stay silent on `server/discover`, are caught."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from checks_helpers import mutate
from conftest import ROOT, SOLUTIONS
from lab.process.launch import HERE, Launch
from lab.checks import real_clients
from lab.checks import registry, run_checks, selected_checks
from lab.checks.engine import run
from lab.results import FAILED, PASSED, SKIPPED, Report
from totals import BONUS, FULL, points

NEGOTIATION = "return requested if requested in supported else supported[0]"
MAIN = "    serve(make_session(language()))\n"
SILENT_ON_DISCOVER = """    session = make_session(language())
    answer = session.handle
    session.handle = lambda message: None if message.get("method") == "server/discover" else answer(message)
    serve(session)
"""
BONUS_IDS = [
    "bonus.json-rpc-replies", "bonus.supported-version-echoed", "bonus.unknown-version-latest",
    "bonus.gate-still-holds", "bonus.capabilities-honest", "bonus.discover-answered",
    "bonus.sdk-legacy", "bonus.sdk-auto", "bonus.inspector",
]


def check_bonus(folder: Path, ids: list[str] = BONUS_IDS, lang: str = "en", launch: Launch = HERE) -> Report:
    checks, probes, _ = registry()
    return run(folder, lang, [check for check in checks if check.id in ids], probes, launch=launch)


def statuses(report: Report) -> dict[str, str]:
    return {result.id: result.status for result in report.results}


def bonus_folder(tmp_path: Path, old: str = "", new: str = "") -> Path:
    """server.py and jsonrpc_lines.py from solutions/, and bonus_server.py with one change."""
    shutil.copy(SOLUTIONS / "server.py", tmp_path / "server.py")
    shutil.copy(SOLUTIONS / "jsonrpc_lines.py", tmp_path / "jsonrpc_lines.py")
    source = (SOLUTIONS / "bonus_server.py").read_text(encoding="utf-8")
    (tmp_path / "bonus_server.py").write_text(mutate(source, old, new) if old else source, encoding="utf-8")
    return tmp_path


def test_the_bonus_checks_are_registered_in_order_with_their_points() -> None:
    bonus = [check for check in registry()[0] if check.task == "bonus"]
    assert [check.id for check in bonus] == BONUS_IDS
    assert [check.points for check in bonus] == [1, 2, 2, 1, 1, 1, 2, 2, 1]
    assert all(check.applies_when == "bonus_server.py" for check in bonus)
    assert all(check.title["fr"] and check.title["en"] and check.hint["fr"] and check.hint["en"] for check in bonus)
    assert registry()[2]["bonus"] == {"fr": "bonus : la règle de la spec", "en": "bonus: the spec’s rule"}


def test_the_bonus_checks_run_only_on_request() -> None:
    assert [check.id for check in selected_checks() if check.task == "bonus"] == []
    assert [check.id for check in selected_checks(bonus=True) if check.task == "bonus"] == BONUS_IDS
    lesson_only = run_checks(SOLUTIONS, "en")
    assert [result.id for result in lesson_only.results if result.task == "bonus"] == []
    assert lesson_only.score == lesson_only.max_score == FULL


def test_the_solution_scores_full_marks_on_the_bonus_checks() -> None:
    report = check_bonus(SOLUTIONS)
    got = statuses(report)
    inspector = next(result for result in report.results if result.id == "bonus.inspector")
    if inspector.status == SKIPPED:  # no npx, or no registry: the reason is shown, nothing is lost silently
        assert inspector.message.startswith("skipped: this client cannot run here (")
        got["bonus.inspector"] = PASSED
    assert got == {check_id: PASSED for check_id in BONUS_IDS}, [r.message for r in report.results]
    assert report.max_score == BONUS


def test_a_bonus_server_that_keeps_the_lessons_rule_loses_that_rules_check_only(tmp_path: Path) -> None:
    """One mistake, one cost: the gate and the capabilities are judged in a session opened with a
    supported version, and real clients offer one, so they connect."""
    folder = bonus_folder(tmp_path, NEGOTIATION, "return requested if requested in supported else None")
    report = check_bonus(folder)
    got = statuses(report)
    if got["bonus.inspector"] == SKIPPED:  # no npx here: said, never silently lost (see below)
        got["bonus.inspector"] = PASSED
    assert got == {check_id: PASSED for check_id in BONUS_IDS} | {"bonus.unknown-version-latest": FAILED}
    assert report.max_score - report.score == points("bonus.unknown-version-latest")  # the rule's own points
    unknown = next(result for result in report.results if result.id == "bonus.unknown-version-latest")
    assert unknown.message == "Reply to the request initialize (id \"init-unknown\"): the error -32602 " \
        "(\"Unsupported protocol version\"), where the lesson expects a result: your server refuses what the lesson accepts."


def test_capabilities_announced_for_an_unknown_version_are_judged_too(tmp_path: Path) -> None:
    folder = bonus_folder(tmp_path, '"capabilities": {"tools": {"listChanged": False}}',
                          '"capabilities": {"tools": {"listChanged": version != requested}}')
    report = check_bonus(folder, STDIO_IDS)
    assert [result.id for result in report.results if result.status != PASSED] == ["bonus.capabilities-honest"]
    assert "init-unknown" in report.results[4].message


def test_a_bonus_server_answering_the_oldest_version_shows_expected_and_actual(tmp_path: Path) -> None:
    folder = bonus_folder(tmp_path, NEGOTIATION, "return requested if requested in supported else supported[-1]")
    report = check_bonus(folder, BONUS_IDS[:3], lang="fr")
    assert statuses(report) == {"bonus.json-rpc-replies": PASSED, "bonus.supported-version-echoed": PASSED,
                                "bonus.unknown-version-latest": FAILED}
    unknown = report.results[2]
    assert unknown.message == ("Réponse à la requête initialize (id \"init-unknown\") : result.protocolVersion vaut "
                               "\"2024-11-05\" au lieu de \"2025-11-25\".")
    assert '"protocolVersion": "2025-11-25"' in unknown.expected
    assert '"protocolVersion": "2024-11-05"' in unknown.actual
    assert unknown.hint.startswith("La règle de la spec : ne refusez plus")


STDIO_IDS = BONUS_IDS[:6]


@pytest.mark.parametrize("file, old, new, caught_by", [
    ("bonus_server.py", NEGOTIATION, "return requested", "bonus.unknown-version-latest"),
    ("bonus_server.py", NEGOTIATION, "return supported[0]", "bonus.supported-version-echoed"),
    ("bonus_server.py", '"capabilities": {"tools": {"listChanged": False}}',
     '"capabilities": {"tools": {"listChanged": True}}', "bonus.capabilities-honest"),
    ("bonus_server.py", "GATE.get(method, {READY})", "GATE.get(method, {NEW, WAITING, READY})",
     "bonus.gate-still-holds"),
])
def test_each_buggy_bonus_server_is_caught_by_its_check(tmp_path: Path, file: str, old: str, new: str,
                                                        caught_by: str) -> None:
    folder = bonus_folder(tmp_path)
    source = (folder / file).read_text(encoding="utf-8")
    (folder / file).write_text(mutate(source, old, new), encoding="utf-8")
    report = check_bonus(folder, STDIO_IDS)
    assert [result.id for result in report.results if result.status != PASSED] == [caught_by]


def test_a_bonus_server_silent_on_server_discover_is_caught_and_auto_mode_is_not_tried(tmp_path: Path) -> None:
    folder = bonus_folder(tmp_path, MAIN, SILENT_ON_DISCOVER)
    report = check_bonus(folder, ["bonus.json-rpc-replies", "bonus.unknown-version-latest",
                                  "bonus.discover-answered", "bonus.sdk-legacy", "bonus.sdk-auto"])
    assert statuses(report) == {
        "bonus.json-rpc-replies": PASSED, "bonus.unknown-version-latest": PASSED,
        "bonus.discover-answered": FAILED, "bonus.sdk-legacy": PASSED, "bonus.sdk-auto": SKIPPED,
    }
    discover = report.results[2]
    assert discover.message == ("No error reply to the request server/discover (id \"discover-new\"): "
                                "a client that probes would wait for nothing.")


def test_a_bonus_server_that_answers_only_at_the_end_of_its_input_fails_with_real_clients(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Its stdio checks pass (they send everything, then close), but a real client waits for
    # each reply before it sends the next request.
    folder = bonus_folder(tmp_path, MAIN, """    import json, sys
    session = make_session(language())
    replies = [session.handle_line(line) for line in sys.stdin.buffer.read().split(b"\\n")]
    sys.stdout.write("".join(json.dumps(reply) + "\\n" for reply in replies if reply is not None))
""")
    monkeypatch.setattr(real_clients, "SDK_STEP_LIMIT", 1.0)
    report = check_bonus(folder, BONUS_IDS[:-1])
    assert statuses(report) == {check_id: PASSED for check_id in STDIO_IDS} | {
        "bonus.sdk-legacy": FAILED, "bonus.sdk-auto": FAILED}
    assert report.results[-1].actual == "no answer within 1 s"


def test_the_untouched_bonus_exercise_earns_nothing_and_starts_no_real_client(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copy(SOLUTIONS / "server.py", tmp_path / "server.py")
    shutil.copy(SOLUTIONS / "jsonrpc_lines.py", tmp_path / "jsonrpc_lines.py")
    shutil.copy(ROOT / "exercises" / "bonus_server.py", tmp_path / "bonus_server.py")
    started: list[str] = []
    monkeypatch.setattr(real_clients, "run_sdk", lambda *args, **kwargs: started.append("sdk") or [])
    monkeypatch.setattr(real_clients, "run_inspector", lambda *args, **kwargs: started.append("inspector"))
    report = check_bonus(tmp_path)
    # The given code answers JSON-RPC and server/discover on its own: that earns nothing while
    # the one function to write is still to write.
    assert statuses(report) == {check_id: FAILED for check_id in BONUS_IDS}
    assert report.score == 0 and started == []
    assert {r.message for r in report.results} == {"This part is still to write (“bonus: the spec’s rule”)."}
    assert {r.reason for r in report.results} == {"part.unwritten"}


def test_a_folder_without_the_bonus_gets_no_bonus_check(tmp_path: Path) -> None:
    shutil.copy(SOLUTIONS / "server.py", tmp_path / "server.py")
    assert check_bonus(tmp_path).results == []


def test_without_npx_the_inspector_check_is_skipped_with_the_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    report = check_bonus(SOLUTIONS, ["bonus.json-rpc-replies", "bonus.unknown-version-latest", "bonus.inspector"],
                         lang="fr")
    inspector = report.results[-1]
    assert (inspector.status, inspector.message) == (
        SKIPPED, "ignoré : ce client ne peut pas tourner ici (npx n’est pas dans le PATH (Node.js n’est pas installé))")
    assert inspector.score == 0 and report.score == points("bonus.json-rpc-replies", "bonus.unknown-version-latest")


def test_while_grading_a_check_run_without_the_inspector_given_is_a_kit_error_never_npx(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    npx = tmp_path / "bin" / "npx"  # an npx that only notes it was run
    npx.parent.mkdir()
    npx.write_text(f"#!/bin/sh\ntouch {tmp_path / 'npx-ran'}\nexit 1\n")
    npx.chmod(0o755)
    monkeypatch.setenv("PATH", f"{npx.parent}:/usr/bin:/bin")
    graded = Launch(nonce="test")  # a check run of `lab grade`, given no Inspector
    report = check_bonus(SOLUTIONS, ["bonus.json-rpc-replies", "bonus.unknown-version-latest", "bonus.inspector"],
                         launch=graded)
    inspector = report.results[-1]
    assert (inspector.status, inspector.message) == (
        "error", "Kit error, not your code's: RuntimeError: KitError: the check run was given no MCP Inspector "
                 "to run")
    assert not (tmp_path / "npx-ran").exists()


SERVER_INFO = '"capabilities": {"tools": {"listChanged": False}},\n                "serverInfo": SERVER_INFO}'
# (old, new, the failing check, its message in French, in English): one mistake, its own check.
MISTAKES = {
    "forgets serverInfo": (SERVER_INFO, '"capabilities": {"tools": {"listChanged": False}}}',
                           "bonus.capabilities-honest", "serverInfo doit donner name et version, deux textes.",
                           "serverInfo must give name and version, two strings."),
    "gives serverInfo's version as a number": (
        "SERVER_INFO}", '{"name": "cantine", "version": 0.2}}', "bonus.capabilities-honest",
        "serverInfo doit donner name et version, deux textes.", "serverInfo must give name and version, two strings."),
    "answers server/discover as it answers initialize": (
        '            "tools/call": self.call_tool,\n',
        '            "tools/call": self.call_tool,\n            "server/discover": self.initialize,\n',
        "bonus.discover-answered",
        "La requête server/discover (id \"discover-ready\") a reçu un résultat, pas une erreur : un client qui sonde y "
        "voit un serveur de la nouvelle révision (2026-07-28), ce que celui-ci n’est pas.",
        "The request server/discover (id \"discover-ready\") got a result, not an error: a client that probes takes it "
        "for a server of the new revision (2026-07-28), which this one is not."),
    "loops without end on a version it does not know": (
        NEGOTIATION, "index = 0\n    while supported[index] != requested:\n        index = min(index + 1, len(supported) - 1)"
        "\n    return supported[index]", "bonus.unknown-version-latest",
        "Le serveur bonus a utilisé tout son temps de calcul (0,5 s de CPU) sans rien écrire, une boucle sans fin sans "
        "doute.", "The bonus server used up its CPU time (0.5 s) without writing, an endless loop most likely."),
}


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_bonus_mistake_is_named_by_its_own_check_before_any_real_client(tmp_path: Path, mistake: str,
                                                                           lang: str) -> None:
    """The SDK refuses such a handshake with a pydantic error in English: the stdio check says why first."""
    old, new, check_id, french, english = MISTAKES[mistake]
    report = check_bonus(bonus_folder(tmp_path, old, new), STDIO_IDS, lang=lang)
    assert [(r.id, r.message) for r in report.results if r.status != PASSED] == [
        (check_id, {"fr": french, "en": english}[lang])]


UNFLUSHED = ("                stdout.write(b\"\".join(map(encode, replies)))\n                stdout.flush()\n",
             "                stdout.write(b\"\".join(map(encode, replies)))\n")


@pytest.mark.parametrize(("lang", "message"), [
    ("fr", "Le client n’a pas pu se connecter : il attend chaque réponse avant d’envoyer la suite, et les réponses de "
           "votre serveur ne sont arrivées qu’à la fermeture de son entrée. Après chaque réponse, demandez son envoi "
           "(flush)."),
    ("en", "The client could not connect: it waits for each reply before it sends the next line, and your server's "
           "replies came only when its input closed. After each reply, ask for it to be sent (flush)."),
])
def test_a_bonus_server_that_never_flushes_fails_with_real_clients_wherever_the_kit_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lang: str, message: str) -> None:
    """The docker lab sets PYTHONUNBUFFERED: the SDK client's server got it, and passed there only."""
    monkeypatch.setenv("PYTHONUNBUFFERED", "1")
    monkeypatch.setattr(real_clients, "SDK_STEP_LIMIT", 1.0)
    report = check_bonus(bonus_folder(tmp_path, *UNFLUSHED), [*STDIO_IDS, "bonus.sdk-legacy"], lang=lang)
    assert statuses(report) == {check_id: PASSED for check_id in STDIO_IDS} | {"bonus.sdk-legacy": FAILED}
    assert report.results[-1].message == message


@pytest.mark.parametrize(("lang", "message"), [
    ("fr", "pas encore vérifiable : il faut d’abord que « Une version prise en charge est renvoyée telle quelle "
           "(2024-11-05 à 2025-11-25) » réussisse"),
    ("en", "not checkable yet: “A supported version is echoed as it is (2024-11-05 to 2025-11-25)” must pass first"),
])
def test_a_bonus_server_with_no_handshake_starts_no_real_client_and_says_which_check_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lang: str, message: str) -> None:
    """It answers the oldest version it knows to every client: the real clients' checks wait for
    that rule's check, never a kit error."""
    folder = bonus_folder(tmp_path, NEGOTIATION, "return supported[-1] if requested in supported else supported[0]")
    started: list[str] = []
    monkeypatch.setattr(real_clients, "run_sdk", lambda *args, **kwargs: started.append("sdk") or [])
    monkeypatch.setattr(real_clients, "run_inspector", lambda *args, **kwargs: started.append("inspector"))
    report = check_bonus(folder, lang=lang)
    real = ["bonus.sdk-legacy", "bonus.sdk-auto", "bonus.inspector"]
    assert statuses(report) == {check_id: PASSED for check_id in BONUS_IDS} | {
        "bonus.supported-version-echoed": FAILED} | {check_id: SKIPPED for check_id in real}
    assert {r.message for r in report.results if r.id in real} == {message} and started == []
