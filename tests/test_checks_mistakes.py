"""The lesson's classic mistakes, each made in a lesson-style answer written apart from
solutions/ (tests/check_fixtures/lesson_*), are each named by the first ✗ line of
`lab check`, in French and in English; the answers themselves get full marks."""

from __future__ import annotations

import re
import shutil
from concurrent.futures import ThreadPoolExecutor

import click
import pytest

from checks_helpers import FIXTURES, mutate, run_some
from lab.report import render
from lab.results import PASSED

FILES = {"server": "server.py", "client": "client.py", "model": "model.py", "answers": "answers.toml"}
SOURCES = {"server": "lesson_server.py", "client": "lesson_client.py", "model": "lesson_model.py",
           "answers": "lesson_answers.toml"}

# name: (file, line in the lesson-style answer, its mistaken replacement, the check the first ✗ names,
#        words of its message in French, in English)
MISTAKES = {
    "the client waits for the server before sending": (
        "client", "for m in scenario:\n    plein =", "serveur.stdout.readline()\nfor m in scenario:\n    plein =",
        "client.seven-messages", "Le client n’a rien envoyé au serveur en 8 s, et ne s’est pas arrêté",
        "The client sent nothing to the server in 8 s, and did not stop"),
    "the server never flushes": (
        "server", '    print(json.dumps({"jsonrpc": "2.0", **m}), flush=True)\n',
        '    print(json.dumps({"jsonrpc": "2.0", **m}))\n', "server.flushes-each-reply",
        "les réponses ne sont arrivées qu’à la fermeture de l’entrée", "the replies came only when the input closed"),
    "the server answers a notification": (
        "server", '            etat = "pret"\n        return\n', '            etat = "pret"\n        return repondre(None, {})\n',
        "server.notifications-unanswered", "réponse(s) de trop", "reply(ies) too many"),
    "the server crashes on a bad line": (
        "server", "    try:\n        msg = json.loads(ligne)\n    except ValueError:\n        echec(None, -32700, \"Erreur d’analyse\")\n        continue\n",
        "    msg = json.loads(ligne)\n", "server.keeps-running",
        "Le serveur s’est arrêté (code 1) après cette ligne", "The server stopped (code 1) after this line"),
    "the server prints debug output on stdout": (
        "server", "for ligne in sys.stdin:\n", "for ligne in sys.stdin:\n    print('reçu :', ligne.strip())\n",
        "server.json-rpc-replies", "les messages de suivi vont sur stderr, print(..., file=sys.stderr)",
        "log messages go to stderr, print(..., file=sys.stderr)"),
    "the server skips the waiting state": (
        "server", '    etat = "attente"\n', '    etat = "pret"\n', "server.gate-while-waiting",
        "Réponse à tools/list (id 4) : error.code vaut absent au lieu de -32600",
        "Reply to tools/list (id 4): error.code is missing instead of -32600"),
    "the server echoes any version": (
        "server", "    if demandee not in VERSIONS:\n", "    if False:\n", "server.refuses-unknown-version",
        "Réponse à initialize (id 2) : error.code vaut absent au lieu de -32602",
        "Reply to initialize (id 2): error.code is missing instead of -32602"),
    "the server forgets the -32602 data": (
        "server", '"Version non prise en charge", {"requested": demandee, "supported": VERSIONS})',
        '"Version non prise en charge")', "server.error-data",
        "error.data vaut absent", "error.data is missing"),
    "the server looks at the method before the state gate": (
        "server", '    if etat in ("nouveau", "attente"):\n        return echec(msg["id"], -32600, "Pas initialisé")\n',
        '    if msg.get("method") != "tools/list":\n        return echec(msg["id"], -32601, "Méthode inconnue")\n'
        '    if etat in ("nouveau", "attente"):\n        return echec(msg["id"], -32600, "Pas initialisé")\n',
        "server.gate-before-initialize",
        'Réponse à resources/list (id "unknown-new") : error.code vaut -32601 au lieu de -32600.',
        'Reply to resources/list (id "unknown-new"): error.code is -32601 instead of -32600.'),
    "any notification makes the server ready": (
        "server", '        if msg.get("method") == "notifications/initialized" and etat == "attente":\n',
        '        if etat == "attente":\n', "server.gate-while-waiting",
        'Réponse à tools/list (id "list-waiting") : error.code vaut absent au lieu de -32600.',
        'Reply to tools/list (id "list-waiting"): error.code is missing instead of -32600.'),
    "the client closes the server's input after five replies": (
        "client", "    if len(vues) == 6:\n", "    if len(vues) == 5:\n", "client.closes-input",
        "Le client a fermé l’entrée du serveur après 5 réponse(s), avant la sixième : la dernière réponse peut se perdre.",
        "The client closed the server's input after 5 reply(ies), before the sixth: the last reply may be lost."),
    "the server takes id 0 for a notification": (
        "server", '    if "id" not in msg:\n', '    if not msg.get("id"):\n', "server.id-zero",
        "Aucune réponse à ping (id 0).", "No reply to ping (id 0)."),
    "the client leaves jsonrpc out": (
        "client", '    plein = {"jsonrpc": "2.0", **m}\n', "    plein = dict(m)\n", "client.jsonrpc-on-every-message",
        'Le message 1 n’a pas "jsonrpc": "2.0".', 'Message 1 has no "jsonrpc": "2.0".'),
    "the client hangs once the server's input is closed": (
        "client", "serveur.wait()\n", "serveur.wait()\nimport time\ntime.sleep(60)\n", "client.closes-input",
        "Le client ne s’est pas terminé.", "The client did not end."),
    "the helper ignores AI_URL": (
        "model", '    base = os.environ.get("AI_URL", "http://ai:4000")\n', '    base = "http://ai:4000"\n',
        "model.request", "Aucune requête n’est arrivée au modèle.", "No request reached the model."),
    "the server announces a capability it does not have": (
        "server", '{"tools": {"listChanged": False}}', '{"tools": {"listChanged": False}, "resources": {}}',
        "server.capabilities-only-tools",
        "Les capacités annoncées sont [\"resources\", \"tools\"] ; la leçon n’annonce que tools.",
        "The capabilities announced are [\"resources\", \"tools\"]; the lesson announces only tools."),
    "the server uses the lesson's translated keys": (
        "server", '{"requested": demandee, "supported": VERSIONS}', '{"demandee": demandee, "acceptees": VERSIONS}',
        "server.error-data",
        "La spécification MCP nomme ces clés requested et supported ; demandee et acceptees, dans la leçon, en sont "
        "la traduction : la réponse garde les noms de la spécification.",
        "The MCP specification names these keys requested and supported; the lesson's demandee and acceptees are "
        "their French translation: the reply keeps the specification's names."),
    "the client never closes the server's input": (
        "client", "        serveur.stdin.close()\n", "        pass\n", "client.closes-input",
        "Le client n’a pas fermé l’entrée du serveur", "The client did not close the server's input"),
    "the client prints replies without the prefix": (
        "client", '    print("<- " + ligne)\n', "    print(ligne)\n", "client.prints-exchange",
        "sans le préfixe « <- »", 'without the "<- " prefix'),
    "the helper has no timeout": (
        "model", "                               timeout=delai, max_retries=0)\n", "                               max_retries=0)\n",
        "model.slow", "Rien dans ask ne borne l’attente", "Nothing in ask limits the wait"),
    "the helper raises on a refused connection": (
        "model", "    except Exception as erreur:\n", "    except openai.APIStatusError as erreur:\n", "model.refused",
        "ask a levé une exception au lieu de répondre", "ask raised an exception instead of answering"),
    "a wrong cell in answers.toml": (
        "answers", '"1999-01-01" = "erreur -32602"\n', '"1999-01-01" = "erreur -32601"\n', "answers.three-clients",
        'Cellule trois_clients."1999-01-01"', 'Cell trois_clients."1999-01-01"'),
}


def lesson_folder(folder, kind: str, change: tuple[str, str] | None = None):
    source = (FIXTURES / SOURCES[kind]).read_text(encoding="utf-8")
    if change:
        source = mutate(source, *change)
    (folder / FILES[kind]).write_text(source, encoding="utf-8")
    if kind == "client":  # the client's model.py is replaced by the kit's spy: any helper will do
        shutil.copyfile(FIXTURES / SOURCES["model"], folder / "model.py")
    return folder


def first_failure(report) -> tuple[str, str]:
    """The first ✗ line's check id, and the message under it."""
    lines = click.unstyle(render(report)).splitlines()
    index = next(i for i, line in enumerate(lines) if line.startswith("    ✗ "))
    return re.search(r"\[([a-z0-9.-]+)\]$", lines[index]).group(1), lines[index + 1].strip()


@pytest.mark.parametrize("kind", sorted(FILES))
def test_a_lesson_style_answer_gets_full_marks(tmp_path, kind):
    report = run_some(lesson_folder(tmp_path, kind), f"{kind}.", lang="fr")
    assert report.results and report.score == report.max_score, [
        (r.id, r.message, r.actual, r.output) for r in report.results if r.status != PASSED]


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_the_first_failure_names_the_mistake_in_both_languages(tmp_path, mistake):
    kind, old, new, check_id, french, english = MISTAKES[mistake]

    def check(lang: str):
        folder = tmp_path / lang
        folder.mkdir()
        return run_some(lesson_folder(folder, kind, (old, new)), f"{kind}.", lang=lang)

    # Both languages at once: a hanging mistake waits out its limits in each, side by side.
    with ThreadPoolExecutor(max_workers=2) as pool:
        reports = dict(zip(("fr", "en"), pool.map(check, ("fr", "en"))))
    for lang, words in (("fr", french), ("en", english)):
        named, message = first_failure(reports[lang])
        assert (named, words in message) == (check_id, True), (lang, named, message)


def test_the_server_gets_no_help_to_flush_even_when_the_kit_has_some(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONUNBUFFERED", "1")  # in the kit's own environment: not passed on
    kind, old, new, check_id, _, english = MISTAKES["the server never flushes"]
    report = run_some(lesson_folder(tmp_path, kind, (old, new)), "server.", lang="en")
    named, message = first_failure(report)
    assert (named, english in message) == (check_id, True), message
    # The first reply's start-up limit, then everything at once; confirmed by a second session.
    from lab.checks.server_session import FINISH_LIMIT, STARTUP_LIMIT
    assert report.duration < 2 * (STARTUP_LIMIT + FINISH_LIMIT) + 2


def test_a_crash_shows_the_students_file_and_line_and_the_error_only(tmp_path):
    kind, old, new, *_ = MISTAKES["the server crashes on a bad line"]
    report = run_some(lesson_folder(tmp_path, kind, (old, new)), "server.", lang="en")
    crash = next(r for r in report.results if r.id == "server.keeps-running")
    line = 1 + (FIXTURES / SOURCES["server"]).read_text().replace(old, new).splitlines().index("    msg = json.loads(ligne)")
    assert crash.output.splitlines() == [
        f"server.py, line {line}", "    msg = json.loads(ligne)", "This text is not JSON: json.loads refused it.",
        "json.decoder.JSONDecodeError: Expecting value: line 2 column 1 (char 39)"]
