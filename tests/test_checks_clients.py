"""The client checks: a correct client written unlike the solution passes them all, and
buggy clients (one change each) are each caught by a specific check."""

from __future__ import annotations

import click
import pytest

from checks_helpers import FIXTURES, failed, mutate, run_some
from conftest import ROOT
from lab.checks.texts import in_each_language
from lab.report import render
from totals import checks_of

ALT = (FIXTURES / "alt_client.py").read_text()
MODEL = (FIXTURES / "alt_model.py").read_text()

BUGS = {
    "forgets jsonrpc": ('    full = dict(message, jsonrpc="2.0")\n', "    full = dict(message)\n",
                        {"client.jsonrpc-on-every-message"}),
    "swaps two messages": ('    {"id": 4, "method": "tools/list"},\n    {"method": "notifications/initialized"},\n',
                           '    {"method": "notifications/initialized"},\n    {"id": 4, "method": "tools/list"},\n',
                           {"client.seven-messages"}),
    "initialize without clientInfo": ('"clientInfo": {"name": "alt", "version": "2"}', '"clientInfo": "alt"',
                                      {"client.initialize-params"}),
    "does not print the replies": ('    print("<- " + line)\n', "    pass\n", {"client.prints-exchange"}),
    "never closes the server's input": ("server.stdin.close()\nserver.wait(timeout=5)\n", "server.kill()\n",
                                        {"client.closes-input"}),
    "asks without the capabilities": ('capabilities = json.dumps(replies[2]["result"]["capabilities"])',
                                      'capabilities = "tools"', {"client.asks-model"}),
    "asks without the facts": ('answer = ask([facts(replies[2]["result"]["capabilities"]), question]',
                               "answer = ask([question]", {"client.asks-model"}),
    "gives ask no text as its sample": ('question], "sample", 60)', "question], None, 60)", {"client.gives-sample"}),
    "does not print the answer": ('print("the model says: " + answer.text)', 'print("the model says: ?")',
                                  {"client.prints-model-answer"}),
}


def write_client(folder, source):
    (folder / "client.py").write_text(source)
    (folder / "model.py").write_text(MODEL)


def test_a_correct_client_written_differently_passes(tmp_path):
    write_client(tmp_path, ALT)
    report = run_some(tmp_path, "client.")
    assert [r.id for r in report.results] == checks_of("client-1", "client-2", "client-3")
    assert report.score == report.max_score, [(r.id, r.message) for r in report.results if r.status != "passed"]


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_each_buggy_client_is_caught_by_its_check(bug, tmp_path):
    old, new, caught_by = BUGS[bug]
    write_client(tmp_path, mutate(ALT, old, new))
    report = run_some(tmp_path, "client.")
    assert caught_by <= failed(report), report.failed_ids


def test_the_client_is_judged_apart_from_its_model(tmp_path):
    # The spy model stands in for model.py: a broken model.py does not fail the client.
    (tmp_path / "client.py").write_text(ALT)
    (tmp_path / "model.py").write_text("raise RuntimeError('broken')\n")
    assert run_some(tmp_path, "client.").failed_ids == []


def test_a_client_that_sends_nothing_says_why(tmp_path):
    (tmp_path / "client.py").write_text("import sys\nsys.exit('Pas de serveur pour moi')\n")
    report = run_some(tmp_path, "client.seven", lang="fr")
    (result,) = report.results
    assert result.message == ("Le client s’est arrêté sur une erreur (code 1) avant d’envoyer un message : ce qu’il "
                              "a écrit, ci-dessous, dit pourquoi.")
    assert (result.output, result.hint) == ("Pas de serveur pour moi", "")


@pytest.mark.parametrize(("lang", "said"), [
    ("fr", "Le client a affiché ses messages (« -> »), mais le serveur n’en a reçu aucun : ils sont restés du côté "
           "du client."),
    ("en", 'The client printed its messages ("-> "), but the server received none of them: they stayed on the '
           "client's side."),
])
def test_a_client_that_prints_its_messages_but_never_flushes_them_is_told_so(tmp_path, lang, said):
    """Found by a walk (issue 34): the solution's client without its flush waits for a reply that
    cannot come, gives up and stops; the server saw nothing, and the client did print "-> " lines."""
    source = (ROOT / "solutions" / "client.py").read_text(encoding="utf-8")
    assert source.count("    server.stdin.flush()\n") == 1
    for name in ("client.py", "jsonrpc_lines.py", "server_replies.py", "model_setup.py"):
        (tmp_path / name).write_text((ROOT / "solutions" / name).read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "client.py").write_text(source.replace("    server.stdin.flush()\n", ""), encoding="utf-8")
    report = run_some(tmp_path, "client.", lang=lang)
    first = next(result for result in report.results if result.status == "failed")
    assert (first.message, first.hint) == (said, in_each_language("client.transport.hint")[lang]), first.id


@pytest.mark.parametrize(("lang", "first"), [
    ("fr", ["    ✗ ask reçoit un échantillon, un texte que le client peut afficher",
            "      ask reçoit \"\" comme échantillon, pas un texte : quand aucun modèle ne répond, model.py rend "
            "l’échantillon et le client l’affiche après « le modèle dit : »."]),
    ("en", ["    ✗ ask gets a sample, a text the client can print",
            '      ask gets "" as its sample, not a text: when no model answers, model.py returns the sample and the '
            'client prints it after "the model says:".']),
])
def test_a_client_that_gives_ask_an_empty_sample_is_told_what_the_sample_is_for(tmp_path, lang, first):
    """The spy model always answers, so the empty sample costs nothing else: only where no model
    answers would the client print nothing after "the model says:"."""
    for name in ("client.py", "jsonrpc_lines.py", "server_replies.py", "model_setup.py"):
        (tmp_path / name).write_text((ROOT / "solutions" / name).read_text(encoding="utf-8"), encoding="utf-8")
    source = (tmp_path / "client.py").read_text(encoding="utf-8")
    (tmp_path / "client.py").write_text(mutate(source, 'TEXT["sample"], 60)', '"", 60)'), encoding="utf-8")
    report = run_some(tmp_path, "client.", lang=lang)
    lines = click.unstyle(render(report)).splitlines()
    at = next(index for index, line in enumerate(lines) if line.startswith("    ✗ "))
    assert (lines[at:at + 2], failed(report)) == (first, {"client.gives-sample"})


def test_every_line_that_reached_the_spy_is_written_down_when_the_client_has_already_ended(monkeypatch):
    """A client that sends its seven messages and crashes at once: the spy has received them all,
    and still handles the last ones when the run ends. Its log is read only once they are written
    down (each line is handled slowly here, as on a loaded machine)."""
    import json
    import socket
    import time

    from lab.checks import client_checks
    from lab.checks.reference import new_session, scenario_messages

    class SlowSession:
        def __init__(self, lang):
            self.session = new_session(lang)

        def handle_line(self, line):
            time.sleep(0.1)
            return self.session.handle_line(line)

    monkeypatch.setattr(client_checks, "new_session", SlowSession)
    listeners = {}
    for name in (client_checks.SERVER_PORT, client_checks.MODEL_PORT):
        listeners[name] = socket.create_server(("127.0.0.1", 0))
    spies = client_checks.Spies(listeners, "en", "answer")
    relay = socket.create_connection(listeners[client_checks.SERVER_PORT].getsockname())
    lines = [json.dumps({"jsonrpc": "2.0", **message}) + "\n" for message in scenario_messages()]
    relay.sendall(b"".join(json.dumps({"line": line}).encode() + b"\n" for line in lines))
    relay.close()  # the relay is gone with the client
    time.sleep(0.3)  # the spy has accepted the connection and handles the first lines
    spies.close()
    assert [value for kind, value in spies.log if kind == "in"] == [line.rstrip("\n") for line in lines]
