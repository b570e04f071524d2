"""Each part of the lesson judged as soon as it is written: half-done folders built from the
solutions' markers get every point of their written parts, by `lab check` and by `lab grade`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest

from totals import FULL, points
from conftest import ROOT, SOLUTIONS
from lab.checks import registry, run_checks
from lab.exercises import exercise_text
from lab.report import render
from lab.results import FAILED, PASSED, SKIPPED

LESSON_TASKS = ("server-1", "server-2", "server-3", "client-1", "client-2", "client-3", "model", "answers")
HALF_DONE = {
    "server part 1 alone": {"server-1"},
    "server parts 1-2": {"server-1", "server-2"},
    "client part 1 alone": {"client-1"},
    "everything but server part 3": set(LESSON_TASKS) - {"server-3"},
}


def half_done(folder: Path, written: set[str]) -> Path:
    """The exercises as a student has them after writing the parts in `written`."""
    folder.mkdir(parents=True, exist_ok=True)
    for source in sorted(SOLUTIONS.iterdir()):
        if source.is_file() and source.suffix in (".py", ".toml"):
            text = exercise_text(source.read_text(encoding="utf-8"), source.suffix, source.name, frozenset(written))
            (folder / source.name).write_text(text, encoding="utf-8")
        elif source.is_file():
            shutil.copyfile(source, folder / source.name)
    return folder


def points_by_task(results) -> dict[str, tuple[int, int]]:
    found: dict[str, tuple[int, int]] = {}
    for result in results:
        score, points = found.get(result["task"], (0, 0))
        found[result["task"]] = (score + result["score"], points + result["points"])
    return found


def task_points() -> dict[str, int]:
    totals: dict[str, int] = {}
    for check in registry()[0]:
        totals[check.task] = totals.get(check.task, 0) + check.points
    return totals


@pytest.mark.parametrize("name", sorted(HALF_DONE))
def test_each_written_part_gets_full_points_while_the_others_are_still_to_write(tmp_path, name):
    written = HALF_DONE[name]
    report = run_checks(half_done(tmp_path, written), "en")
    got = points_by_task({"task": r.task, "score": r.score, "points": r.points} for r in report.results)
    totals = task_points()
    for task in LESSON_TASKS:
        wanted = totals[task] if task in written else 0
        assert got[task] == (wanted, totals[task]), (name, task, [
            (r.id, r.status, r.message) for r in report.results if r.task == task and r.status != PASSED])
    # The parts still to write: each says so, or waits for the part it needs; none fails otherwise
    # (answers.toml has no code: its empty cells say they are empty).
    for result in report.results:
        if result.task not in written and result.task != "answers":
            assert result.status in (FAILED, SKIPPED)
            assert result.message.startswith(("This part is still to write", "not checkable yet")), (
                result.id, result.message)


def test_server_part_one_alone_is_judged_by_calling_its_functions(tmp_path):
    """The loop does not exist: part 1's first check says nothing of it; part 3 says it is to write."""
    report = run_checks(half_done(tmp_path, {"server-1"}), "fr")
    messages = {r.id: (r.status, r.message) for r in report.results}
    assert messages["server.json-rpc-replies"] == (PASSED, "")
    assert messages["server.refuses-unknown-version"] == (FAILED, "Cette partie est encore à écrire (« serveur, partie 2 »).")
    assert messages["server.gate-before-initialize"] == (FAILED, "Cette partie est encore à écrire (« serveur, partie 3 »).")


def test_a_part_one_that_does_not_flush_is_told_so_before_the_loop_exists(tmp_path):
    folder = half_done(tmp_path, {"server-1"})
    server = folder / "server.py"
    source = server.read_text(encoding="utf-8")
    assert source.count("    sys.stdout.flush()\n") == 1
    server.write_text(source.replace("    sys.stdout.flush()\n", ""), encoding="utf-8")
    for lang, message in (
            ("fr", "fail(1, -32600, \"Pas initialisé\") écrit sa réponse sans demander son envoi (flush) : Python "
                   "la garde, et un vrai client l’attend sans fin."),
            ("en", "fail(1, -32600, \"Not initialized\") writes its reply without asking for it to be sent (flush): "
                   "Python keeps it, and a real client waits for it forever.")):
        result = next(r for r in run_checks(folder, lang).results if r.id == "server.flushes-each-reply")
        assert (result.status, result.message) == (FAILED, message)


@pytest.mark.parametrize(("lang", "message"), [
    ("fr", "Ligne mal formée : son id n’est ni un nombre, ni un texte, ni null : c’est l’id de la requête qui revient "
           "(reply et fail le reçoivent en premier)."),
    ("en", "Malformed line: its id is neither a number, a text nor null: the request's id is what comes back (reply "
           "and fail get it first).")])
def test_a_part_one_that_swaps_the_id_and_the_result_is_told_so_before_the_loop_exists(tmp_path, lang, message):
    folder = half_done(tmp_path, {"server-1"})
    server = folder / "server.py"
    source = server.read_text(encoding="utf-8")
    assert source.count('send({"id": request_id, "result": result})') == 1
    server.write_text(source.replace('send({"id": request_id, "result": result})',
                                     'send({"id": result, "result": request_id})'), encoding="utf-8")
    result = next(r for r in run_checks(folder, lang).results if r.id == "server.json-rpc-replies")
    assert (result.status, result.message) == (FAILED, message)


def test_client_part_one_alone_shows_the_field_that_differs_not_the_jsonrpc_added_in_part_two(tmp_path):
    folder = half_done(tmp_path, {"client-1"})
    client = folder / "client.py"
    source = client.read_text(encoding="utf-8")
    assert source.count('initialize(3, "2024-11-05")') == 1
    client.write_text(source.replace('initialize(3, "2024-11-05")', 'initialize(3, "2025-03-26")'), encoding="utf-8")
    report = run_checks(folder, "en")
    lines = click.unstyle(render(report)).splitlines()
    start = lines.index("    ✗ The client sends the lesson's seven messages, in order")
    assert [line.strip() for line in lines[start + 1:start + 4]] == [
        "Message 3 is not the lesson's (params.protocolVersion).", 'expected: params.protocolVersion = "2024-11-05"',
        'actual:   params.protocolVersion = "2025-03-26"']


def test_a_written_part_that_needs_an_unwritten_one_is_not_checkable_yet(tmp_path):
    """Server part 2 written, part 1 not: part 2 waits for part 1 and is not counted as wrong."""
    report = run_checks(half_done(tmp_path, {"server-2", "server-3"}), "en")
    part_two = [r for r in report.results if r.task == "server-2"]
    assert {(r.status, r.message) for r in part_two} == {
        (SKIPPED, "not checkable yet: “server, part 1” must be written first")}


def test_lab_grade_gives_the_same_points(tmp_path):
    submissions = [half_done(tmp_path / "class" / name.replace(" ", "-"), written)
                   for name, written in sorted(HALF_DONE.items())]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("LAB_LANG", None)
    done = subprocess.run([sys.executable, "-m", "lab", "--lang", "en", "grade", *map(str, submissions),
                           "--format", "exercism", "--out", str(tmp_path / "out"), "--jobs", "2"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    totals = task_points()
    catalogue = {check.id: check.task for check in registry()[0]}
    for (name, written), folder in zip(sorted(HALF_DONE.items()), submissions):
        graded = json.loads((tmp_path / "out" / folder.name / "results.json").read_text(encoding="utf-8"))
        passed: dict[str, int] = {}
        for test in graded["tests"]:
            if test["status"] == "pass":
                task = catalogue[test["test_code"]]
                passed[task] = passed.get(task, 0) + 1
        assert {task: passed.get(task, 0) for task in LESSON_TASKS} == {
            task: totals[task] if task in written else 0 for task in LESSON_TASKS}, name


@pytest.mark.parametrize(("lang", "message"), [
    ("fr", "Cette partie est encore à écrire (« bonus : la règle de la spec »)."),
    ("en", "This part is still to write (“bonus: the spec’s rule”)."),
])
def test_the_untouched_bonus_function_is_named_as_a_part_to_write(tmp_path, lang, message):
    from checks_helpers import run_some

    folder = half_done(tmp_path, set(LESSON_TASKS))
    report = run_some(folder, "bonus.supported-version-echoed", lang=lang)
    result = next(r for r in report.results if r.id == "bonus.supported-version-echoed")
    assert (result.status, result.message) == (FAILED, message)


@pytest.mark.parametrize(("lang", "hint"), [
    ("fr", "Python ne peut pas lire server.py : la ligne 33 (ou celle juste avant) est mal écrite — parenthèse, "
           "deux-points, guillemet ou indentation. Rien d’autre ne peut être vérifié avant."),
    ("en", "Python cannot read server.py: line 33 (or the one just before) is malformed — a bracket, a colon, "
           "a quote or the indentation. Nothing else can be checked before that."),
])
def test_a_syntax_error_gets_a_hint_about_that_with_its_file_and_line(tmp_path, lang, hint):
    folder = half_done(tmp_path, set(LESSON_TASKS))
    source = (folder / "server.py").read_text(encoding="utf-8").splitlines(keepends=True)
    number = next(i for i, line in enumerate(source, start=1) if line.startswith("def send("))
    source[number - 1] = source[number - 1].replace(":\n", "\n")  # the colon forgotten
    (folder / "server.py").write_text("".join(source), encoding="utf-8")
    result = next(r for r in run_checks(folder, lang).results if r.id == "server.json-rpc-replies")
    assert result.hint == hint.replace("33", str(number))
    assert result.output.splitlines()[0] == f"server.py, {'ligne' if lang == 'fr' else 'line'} {number}"


@pytest.mark.parametrize(("lang", "hint"), [
    ("fr", "Python ne peut pas lire server.py : sa ligne 1 a un caractère qui n’est pas en UTF-8 (un fichier "
           "enregistré en Latin-1 ou Windows-1252 ?). Enregistrez-le en UTF-8 ; rien d’autre ne peut être vérifié avant."),
    ("en", "Python cannot read server.py: its line 1 has a character that is not UTF-8 (a file saved as Latin-1 "
           "or Windows-1252?). Save it as UTF-8; nothing else can be checked before that."),
])
def test_a_file_saved_in_another_encoding_gets_a_hint_about_that(tmp_path, lang, hint):
    """Python stops such a file before it runs, with no frame to say where: the place is read
    from its message, and the hint says what to do in the student's language."""
    folder = half_done(tmp_path, set(LESSON_TASKS))
    source = (folder / "server.py").read_text(encoding="utf-8")
    (folder / "server.py").write_bytes("# café\n".encode("latin-1") + source.encode("utf-8"))
    result = next(r for r in run_checks(folder, lang).results if r.id == "server.json-rpc-replies")
    assert result.status == FAILED and result.hint == hint
    sentence = {"fr": "Python ne peut pas lire ce fichier : il n’est pas enregistré en UTF-8.",
                "en": "Python cannot read this file: it is not saved as UTF-8."}[lang]
    assert result.output.splitlines() == [sentence, "SyntaxError: Non-UTF-8 code starting with '\\xe9' in file "
                                          "server.py on line 1, but no encoding declared; see "
                                          "https://peps.python.org/pep-0263/ for details"]


def test_a_print_on_stdout_is_caught_before_the_loop_exists(tmp_path):
    """Part 1's rule (nothing but replies on stdout) holds whatever the loop's state: a print at
    import shows in what `python server.py` wrote before it stopped on part 3."""
    folder = half_done(tmp_path, {"server-1"})
    server = folder / "server.py"
    server.write_text(server.read_text(encoding="utf-8").replace("\nimport sys\n", "\nimport sys\nprint('prêt')\n", 1),
                      encoding="utf-8")
    result = next(r for r in run_checks(folder, "en").results if r.id == "server.json-rpc-replies")
    assert (result.status, result.actual) == (FAILED, "prêt")
    assert result.message == ("Line 1 of the output is not JSON. On stdout, nothing but the replies: log messages "
                              "go to stderr, print(..., file=sys.stderr).")


# Written at the end of a part-1-only server.py: send also answers the runner's order in its
# place, on every file the runner's frames hold open for writing (the runner answers after).
ANSWERS_IN_ITS_PLACE = '''
import io as _io
_send = send
def send(message):
    _send(message)
    frame, orders, files = sys._getframe(1), [], []
    while frame is not None:
        for value in list(frame.f_locals.values()):
            if isinstance(value, dict) and "nonce" in value:
                orders.append(value)
            if isinstance(value, _io.TextIOWrapper) and "w" in getattr(value, "mode", ""):
                files.append(value)
        frame = frame.f_back
    for file in files:
        for order in orders:
            file.write(to_json({"nonce": order["nonce"], "out": "", "unflushed": False, "returned": None}) + "\\n")
            file.flush()
'''


@pytest.mark.parametrize(("lang", "message"), [
    ("fr", "La réponse à fail(1, -32600, \"Pas initialisé\") n’est pas celle du kit : quelque chose dans votre code a "
           "écrit à sa place (sur la vraie sortie du programme, ou en changeant les fonctions du kit)."),
    ("en", "The answer to fail(1, -32600, \"Not initialized\") is not the kit's: something in your code wrote in its "
           "place (on the program's real output, or by changing the kit's functions)."),
])
def test_a_call_answered_twice_is_the_students_failure(tmp_path, lang, message):
    """The runner shares its process with the student's code, which can find the order it carries
    out and answer it first: the runner's own answer then comes twice, and the call counts as
    not answered (never a kit error, never the forged facts)."""
    folder = half_done(tmp_path, {"server-1"})
    server = folder / "server.py"
    server.write_text(server.read_text(encoding="utf-8") + ANSWERS_IN_ITS_PLACE, encoding="utf-8")
    report = run_checks(folder, lang)
    result = next(r for r in report.results if r.id == "server.json-rpc-replies")
    assert (result.status, result.message) == (FAILED, message)
    assert [r.id for r in report.results if r.status == "error"] == []


# One mistake in an earlier part, the rest of the solutions right: (file, old, new), the checks
# that fail (its own) and the score. Part 1 is lent where it spoils the whole server's output
# (issue 34: a bug in send or fail once cost 19 of 34; a client's transport bug all 7 points).
ONE_MISTAKE = {
    "send forgets jsonrpc": ("server.py", 'sys.stdout.write(to_json({"jsonrpc": "2.0", **message}) + "\\n")',
                             'sys.stdout.write(to_json(message) + "\\n")',
                             {"server.json-rpc-replies", "server.reply-ids", "server.flushes-each-reply"}),
    "fail names message text": ("server.py", 'error = {"code": code, "message": text}',
                                'error = {"code": code, "text": text}',
                                {"server.json-rpc-replies", "server.reply-ids", "server.flushes-each-reply"}),
    "send crashes": ("server.py", 'sys.stdout.write(to_json({"jsonrpc": "2.0", **message}) + "\\n")',
                     'sys.stdout.write(to_json({"jsonrpc": "2.0", **mesage}) + "\\n")',
                     {"server.json-rpc-replies", "server.reply-ids", "server.flushes-each-reply"}),
    # Part 3 judged with the lesson's initialize lent: only the bad input that the student's own
    # initialize meets in part 3's sessions (an initialize without params) is charged there too.
    "initialize crashes on every call": ("server.py", 'requested = message.get("params", {}).get("protocolVersion")',
                                         'requested = message["params"]["protocolversion"]',
                                         {"server.refuses-unknown-version", "server.error-data",
                                          "server.accepts-known-version", "server.list-changed-false",
                                          "server.capabilities-only-tools", "server.initialize-without-params"}),
    # Client parts 2 and 3 judged with the lesson's scenario() lent: the client's own check of
    # each reply's id would stop it at reply 3.
    "the client gives two messages id 2": ("client.py", 'initialize(3, "2024-11-05")', 'initialize(2, "2024-11-05")',
                                           {"client.seven-messages"}),
    "the client never ends a line": ("client.py", 'server.stdin.write(line + "\\n")', "server.stdin.write(line)",
                                     {"client.jsonrpc-on-every-message", "client.prints-exchange",
                                      "client.closes-input"}),  # part 3 judged with the lesson's part 2 lent
    "the client never flushes": ("client.py", "    server.stdin.flush()\n", "",
                                 {"client.jsonrpc-on-every-message", "client.prints-exchange", "client.closes-input"}),
    "the client never closes the server's input": ("client.py", "    server.stdin.close()\n", "",
                                                   {"client.closes-input"}),
}


@pytest.mark.parametrize("mistake", sorted(ONE_MISTAKE))
def test_one_mistake_of_an_earlier_part_costs_its_own_checks(tmp_path, mistake):
    file_name, old, new, failing = ONE_MISTAKE[mistake]
    folder = tmp_path / "work"
    shutil.copytree(SOLUTIONS, folder, ignore=shutil.ignore_patterns("__pycache__"))
    source = (folder / file_name).read_text(encoding="utf-8")
    assert source.count(old) == 1
    (folder / file_name).write_text(source.replace(old, new), encoding="utf-8")
    report = run_checks(folder, "en")
    assert {r.id for r in report.results if r.status != PASSED} == failing, [
        (r.id, r.message) for r in report.results if r.status != PASSED]
    assert report.score == FULL - points(*failing)  # those checks' points, no more


@pytest.mark.parametrize("lang, message", [
    ("fr", "Votre serveur répond l’erreur 0 à une ligne JSON qui n’est pas une requête, comme [1, 2] : celle qui lui "
           "va est -32600 (requête invalide), ou aucune réponse, comme dans la leçon."),
    ("en", "Your server answers the error 0 to a JSON line that is not a request, such as [1, 2]: the one that fits "
           "is -32600 (invalid request), or no reply, as in the lesson."),
])
def test_a_line_that_is_no_request_answered_with_another_code_is_named(tmp_path, lang, message):
    """The lesson's server gives no reply to [1, 2]; a reply, if any, is -32600's (found by fuzzing:
    an InvalidRequest answered with code 0 once scored full marks)."""
    folder = tmp_path / "work"
    shutil.copytree(SOLUTIONS, folder, ignore=shutil.ignore_patterns("__pycache__"))
    server = folder / "server.py"
    old = 'return fail(bad.id, -32600, TEXT["invalid_request"])'
    assert server.read_text(encoding="utf-8").count(old) == 1
    server.write_text(server.read_text(encoding="utf-8").replace(old, old.replace("-32600", "0")), encoding="utf-8")
    report = run_checks(folder, lang)
    failed = [(r.id, r.message) for r in report.results if r.status != PASSED]
    assert failed == [("server.not-a-request", message)]


def test_client_part_3_is_judged_as_written_when_part_2_is_wrong(tmp_path):
    """With part 2 unflushed (nothing reaches the server), part 3 runs with the lesson's part 2
    lent: its own mistake (max_tokens 100) is the one its check names, at the line the student
    wrote it (the lent code goes at the file's end; the lines above it keep their numbers)."""
    folder = tmp_path / "work"
    shutil.copytree(SOLUTIONS, folder, ignore=shutil.ignore_patterns("__pycache__"))
    client = folder / "client.py"
    source = client.read_text(encoding="utf-8")
    source = source.replace("    server.stdin.flush()\n", "").replace("TEXT[\"sample\"], 60)", "TEXT[\"sample\"], 100)")
    source = source.replace("    print(TEXT[\"model_says\"] + answer.text, flush=True)\n",
                            "    print(TEXT[\"model_says\"] + answer.txt, flush=True)\n")
    client.write_text(source, encoding="utf-8")
    line = source.splitlines().index("    print(TEXT[\"model_says\"] + answer.txt, flush=True)") + 1
    report = run_checks(folder, "en")
    failed = {r.id: r for r in report.results if r.status != PASSED}
    assert set(failed) == {"client.jsonrpc-on-every-message", "client.prints-exchange", "client.closes-input",
                           "client.asks-model", "client.prints-model-answer"}
    assert failed["client.asks-model"].message == (
        "ask gets max_tokens 100 instead of 60: the lesson asks the model for a short sentence, and tells it so "
        "with ask's third argument.")
    assert failed["client.prints-model-answer"].output == (
        f'client.py, line {line}, in main\n    print(TEXT["model_says"] + answer.txt, flush=True)\n'
        "This value has no attribute “txt”: check its type and the spelling.\n"
        "AttributeError: 'Answer' object has no attribute 'txt'. Did you mean: 'text'?")


GATE_FIRST = ('    if method == "ping":\n        return reply(message["id"], {})\n',
              '    if state != "pret" and method != "ping":\n        return fail(message["id"], -32600, TEXT["not_initialized"])\n'
              '    if method == "ping":\n        return reply(message["id"], {})\n')


@pytest.mark.parametrize(("lang", "message"), [
    ("fr", "La requête tools/list envoyée une fois le serveur prêt reçoit encore -32600 : le serveur n’est jamais devenu "
           "prêt, car initialize lui-même reçoit -32600 (réponse 2) : handle ne le donne jamais à initialize. Dans "
           "l’ordre de la leçon, initialize est traité (dans l’état \"nouveau\") avant le test qui répond -32600 tant "
           "que l’état n’est pas \"pret\"."),
    ("en", "The request tools/list sent once the server is ready still gets -32600: the server never became ready, "
           "because initialize itself gets -32600 (reply 2): handle never hands it to initialize. In the lesson's "
           "order, initialize is handled (in the state \"nouveau\") before the test that answers -32600 while the "
           "state is not \"pret\".")])
def test_a_gate_that_stops_initialize_costs_part_3_not_part_2(tmp_path, lang, message):
    """Part 3's gate put before initialize: part 2 never runs in the sessions, so it is judged by its
    own calls (full points); part 3 pays, told that initialize itself is refused."""
    folder = tmp_path / "work"
    shutil.copytree(SOLUTIONS, folder, ignore=shutil.ignore_patterns("__pycache__"))
    server = folder / "server.py"
    old, new = GATE_FIRST
    assert server.read_text(encoding="utf-8").count(old) == 1
    server.write_text(server.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    results = run_checks(folder, lang).results
    scores = points_by_task({"task": r.task, "score": r.score, "points": r.points} for r in results)
    assert (scores["server-1"], scores["server-2"]) == ((3, 3), (5, 5))
    failed = [(r.id, r.message) for r in results if r.task.startswith("server") and r.status != PASSED]
    assert failed[0] == ("server.tools-list-when-ready", message)
    assert {check for check, _ in failed} == {"server.tools-list-when-ready", "server.unknown-method"}


def test_an_initialize_that_never_replies_costs_one_failure_and_its_announcements_wait(tmp_path):
    """initialize returns its result instead of replying: accepts-known-version says so once; the
    checks of what a result announces wait for it instead of each saying there is no reply."""
    folder = tmp_path / "work"
    shutil.copytree(SOLUTIONS, folder, ignore=shutil.ignore_patterns("__pycache__"))
    server = folder / "server.py"
    old = '    reply(message["id"], result)\n'
    assert server.read_text(encoding="utf-8").count(old) == 1
    server.write_text(server.read_text(encoding="utf-8").replace(old, "    return result\n"), encoding="utf-8")
    results = {r.id: r for r in run_checks(folder, "en").results if r.task.startswith("server")}
    assert [check for check, r in results.items() if r.status == FAILED] == ["server.accepts-known-version"]
    for check in ("server.capabilities-only-tools", "server.list-changed-false"):
        assert (results[check].status, results[check].message) == (
            SKIPPED, "not checkable yet: “Reply 3: a known version is accepted (2024-11-05 as well as 2025-03-26)” "
                     "must pass first")


def part_three_crash(tmp_path: Path, old: str, new: str) -> list:
    """The solutions with `old` made `new` in server.py's part 3, checked in English."""
    folder = tmp_path / "work"
    shutil.copytree(SOLUTIONS, folder, ignore=shutil.ignore_patterns("__pycache__"))
    server = folder / "server.py"
    source = server.read_text(encoding="utf-8")
    assert source.count(old) == 1
    server.write_text(source.replace(old, new), encoding="utf-8")
    return run_checks(folder, "en").results


@pytest.mark.parametrize("old, new, read", [
    # part 3 reads params every message has not: it stops on every line, pings too
    ("    global state\n    # BEGIN SOLUTION server-3\n", '    global state\n    message["params"]\n', set()),
    # `global state` forgotten: a ping is answered, anything else stops it (UnboundLocalError)
    ("    global state\n    # BEGIN SOLUTION server-3\n", "    # BEGIN SOLUTION server-3\n",
     {"server.blank-line", "server.not-a-request", "server.invalid-request-id"}),
])
def test_a_crash_of_part_3_on_the_first_line_costs_part_3_only(tmp_path, old, new, read):
    """A server that stops on the lesson's first line writes nothing: parts 1 and 2 are judged by
    their own calls (8 points), keeps-running says where part 3 stopped and why, and a part 3
    check passes only on the lines the server did read (none of the checks is passed by silence)."""
    results = part_three_crash(tmp_path, old, new)
    scores = points_by_task({"task": r.task, "score": r.score, "points": r.points} for r in results)
    assert (scores["server-1"], scores["server-2"]) == ((3, 3), (5, 5))
    part_three = {r.id: r.status for r in results if r.task == "server-3"}
    assert part_three.pop("server.keeps-running") == FAILED
    assert {check for check, status in part_three.items() if status != SKIPPED} == read
    assert all(part_three[check] == PASSED for check in read)


def test_part_1_cannot_borrow_the_lent_part_1(tmp_path):
    """The lesson's part 1 is lent (lab_lent_parts.py) only to the process of part 2's calls and
    to the sessions that judge parts 2 and 3: part 1's own calls cannot import it."""
    folder = half_done(tmp_path, {"server-1"})
    server = folder / "server.py"
    server.write_text(server.read_text(encoding="utf-8") + (
        "\n\ndef reply(request_id, result):\n    import lab_lent_parts\n    lab_lent_parts.reply(request_id, result)\n"
        "\n\ndef fail(request_id, code, text, data=None):\n    import lab_lent_parts\n"
        "    lab_lent_parts.fail(request_id, code, text, data)\n"), encoding="utf-8")
    result = next(r for r in run_checks(folder, "en").results if r.id == "server.json-rpc-replies")
    assert (result.status, result.message) == (
        FAILED, 'fail(1, -32600, "Not initialized") raises an exception instead of writing its reply.')
    assert result.actual == "ModuleNotFoundError: No module named 'lab_lent_parts'"


@pytest.mark.parametrize("write, part_one, said", [
    # The bytes of the line to stdout's buffer: as right as stdout.write, part 1 earns its points.
    ('sys.stdout.buffer.write((to_json({"jsonrpc": "2.0", **message}) + "\\n").encode())\n    sys.stdout.buffer.flush()',
     (3, 3), ""),
    # A str given to the buffer: Python's own error, as `python server.py` would raise it.
    ('sys.stdout.buffer.write(to_json({"jsonrpc": "2.0", **message}) + "\\n")\n    sys.stdout.buffer.flush()',
     (0, 3), "TypeError: a bytes-like object is required, not 'str'"),
])
def test_part_1_written_to_stdouts_buffer_is_judged_as_python_runs_it(tmp_path, write, part_one, said):
    """Part 1's calls are made with stdout captured: its `buffer` once had no such attribute,
    and a right send through it cost part 1 its 3 points while parts 2 and 3 were still to write."""
    folder = half_done(tmp_path / "work", {"server-1"})
    server = folder / "server.py"
    source = server.read_text(encoding="utf-8")
    old = 'sys.stdout.write(to_json({"jsonrpc": "2.0", **message}) + "\\n")\n    sys.stdout.flush()'
    assert source.count(old) == 1
    server.write_text(source.replace(old, write), encoding="utf-8")
    results = run_checks(folder, "en").results
    assert points_by_task({"task": r.task, "score": r.score, "points": r.points} for r in results)["server-1"] == part_one
    first = next((r for r in results if r.task == "server-1" and r.status == FAILED), None)
    assert (first.actual if first else "") == said
