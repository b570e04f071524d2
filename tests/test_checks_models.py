"""The model helper's checks against local endpoints: a correct helper written with urllib
passes them all, and buggy helpers (one change each) are each caught by a specific check."""

from __future__ import annotations

import shutil

import pytest

from checks_helpers import FIXTURES, failed, mutate, run_some
from conftest import ROOT
from totals import task_points

ALT = (FIXTURES / "alt_model.py").read_text()
URLLIB = (FIXTURES / "urllib_model.py").read_text()
MODEL_CHECKS = ["model.request", "model.answers", "model.refused", "model.http-error", "model.slow"]

BUGS = {
    "hides the HTTP status": ('        reason = f"HTTP status {error.code}"\n', '        reason = "oops"\n',
                              {"model.http-error"}),
    "no timeout": ("urlopen(request, timeout=timeout)", "urlopen(request)", {"model.slow"}),
    "wrong key": ('"authorization": "Bearer " + settings.key', '"authorization": "Bearer nope"', {"model.request"}),
    # AI_KEY and AI_MODEL left at the kit's defaults: the check gives fresh ones, which a helper must read.
    "key not read": ('"Bearer " + settings.key', '"Bearer lab"', {"model.request"}),
    "model not read": ('{"model": settings.model,', '{"model": "lab",', {"model.request"}),
    "raises when nobody listens": ("    except Exception as error:\n", "    except ValueError as error:\n",
                                   {"model.refused", "model.slow"}),
    "calls the sample the model's words": ("    return Answer(sample, True)\n", "    return Answer(sample, False)\n",
                                           {"model.refused", "model.http-error", "model.slow"}),
}


def test_a_correct_helper_written_differently_passes(tmp_path):
    (tmp_path / "model.py").write_text(ALT)
    report = run_some(tmp_path, "model.")
    assert [r.id for r in report.results] == MODEL_CHECKS
    assert report.score == report.max_score == task_points("model"), [(r.id, r.message, r.actual) for r in report.results]


def test_a_helper_importing_modules_of_its_own_passes(tmp_path):
    """model.py runs with the .py files beside it, as `python client.py` runs it: a module of
    the student's own, or the given module under the name an older kit gave it (plumbing.py)."""
    from lab.layout import solutions_dir

    given = (solutions_dir() / "model_setup.py").read_text(encoding="utf-8")
    (tmp_path / "plumbing.py").write_text(given, encoding="utf-8")
    (tmp_path / "wording.py").write_text('FALLBACK = "Recorded sample: no model answered ({reason})."\n')
    model = (solutions_dir() / "model.py").read_text(encoding="utf-8")
    assert "from model_setup import " in model
    model = model.replace("from model_setup import ", "from wording import FALLBACK  # noqa: F401\nfrom plumbing import ")
    (tmp_path / "model.py").write_text(model, encoding="utf-8")
    report = run_some(tmp_path, "model.")
    assert [(r.id, r.status) for r in report.results] == [(name, "passed") for name in (
        "model.request", "model.answers", "model.refused", "model.http-error", "model.slow")], \
        [(r.id, r.message, r.output) for r in report.results]


def test_a_helper_written_with_urllib_and_the_given_why_no_model_scores_full_marks(tmp_path):
    """Issue 34: the kit imported openai in a thread of its own while model.py ran, and the given
    why_no_model met a half-loaded module (AttributeError: partially initialized module 'openai'
    has no attribute 'APITimeoutError'): 3 of 5. The kit's imports are now done before model.py loads."""
    (tmp_path / "model.py").write_text(URLLIB, encoding="utf-8")
    report = run_some(tmp_path, "model.")
    assert [(r.id, r.status) for r in report.results] == [(name, "passed") for name in MODEL_CHECKS], [
        (r.id, r.message, r.output) for r in report.results if r.status != "passed"]


# Stands in for the SDK (beside model.py, it is what `import openai` finds): its import takes
# longer than the first case's limit (4 s), as the real one may on a busy machine.
SLOW_OPENAI = """import time
time.sleep(5)
class OpenAIError(Exception): pass
class APIConnectionError(OpenAIError): pass
class APITimeoutError(APIConnectionError): pass
class APIStatusError(OpenAIError): pass
"""


def test_no_case_counts_the_time_of_the_kits_own_imports(tmp_path):
    """The kit imports openai whole, with a limit of its own, before model.py loads: the first
    case's 4 s count from its request, never from the kit's start."""
    (tmp_path / "model.py").write_text(URLLIB, encoding="utf-8")
    (tmp_path / "openai.py").write_text(SLOW_OPENAI, encoding="utf-8")
    report = run_some(tmp_path, "model.")
    assert [(r.id, r.status) for r in report.results] == [(name, "passed") for name in MODEL_CHECKS], [
        (r.id, r.message, r.output) for r in report.results if r.status != "passed"]


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_each_buggy_helper_is_caught_by_its_check(bug, tmp_path):
    old, new, caught_by = BUGS[bug]
    (tmp_path / "model.py").write_text(mutate(ALT, old, new))
    report = run_some(tmp_path, "model.")
    assert failed(report) == caught_by, [(r.id, r.message) for r in report.results if r.status != "passed"]


def test_a_helper_that_does_not_load_fails_with_its_error(tmp_path):
    (tmp_path / "model.py").write_text("def ask(:\n")
    report = run_some(tmp_path, "model.answers", lang="fr")
    (result,) = report.results
    assert result.message == "model.py ne se charge pas."
    assert result.actual.startswith("SyntaxError")


def test_a_helper_that_never_returns_is_stopped(tmp_path):
    (tmp_path / "model.py").write_text("import time\n\ndef ask(messages, sample, max_tokens=80):\n    time.sleep(60)\n")
    report = run_some(tmp_path, "model.")
    assert {(r.status, r.message) for r in report.results} == {("failed", "ask does not return.")}
    from lab import time_limits

    # Stopped at the first case's limit (the refused port's), the later cases not waited for:
    # every check says that one wait.
    (waited,) = {r.actual for r in report.results}
    first = time_limits.MODEL_REFUSED_TIMEOUT + time_limits.MODEL_CASE_ROOM
    assert first <= float(waited.removeprefix("> ").removesuffix(" s")) < 3 * first, waited


@pytest.mark.parametrize(("lang", "sample", "text"), [("fr", "ÉCHANTILLON", "Il peut lister des outils."),
                                                      ("en", "SAMPLE", "It can list tools.")])
def test_the_test_data_a_student_sees_is_in_the_runs_language(tmp_path, lang, sample, text):
    old, new, _ = BUGS["calls the sample the model's words"]
    (tmp_path / "model.py").write_text(mutate(ALT, old, new))
    report = run_some(tmp_path, "model.", lang=lang)
    refused = next(r for r in report.results if r.id == "model.refused")
    assert refused.expected == f'{{"text": "{sample}", "recorded": true}}'
    (tmp_path / "model.py").write_text(mutate(ALT, '["message"]["content"], False)', '["message"]["content"] + "!", False)'))
    answers = next(r for r in run_some(tmp_path, "model.answers", lang=lang).results if r.id == "model.answers")
    assert answers.expected.startswith(f'{{"text": "{text} #') and " / " not in answers.expected


@pytest.mark.parametrize(("lang", "said"), [("fr", "model.py ne s’est pas chargé en 2 s"),
                                            ("en", "model.py did not load within 2 s")])
def test_a_helper_too_slow_to_load_is_told_so_in_the_runs_language(tmp_path, monkeypatch, lang, said):
    from lab.checks import model_checks

    monkeypatch.setattr(model_checks, "IMPORT_LIMIT", 1.0)
    (tmp_path / "model.py").write_text("import time\ntime.sleep(5)\n\ndef ask(messages, sample, max_tokens=80):\n    pass\n")
    report = run_some(tmp_path, "model.answers", lang=lang)
    (result,) = report.results
    assert result.status == "failed" and result.actual == said, (result.message, result.actual)
    assert (result.reason, result.message) == ("model.load_hangs", {
        "fr": "model.py ne se charge pas en 2 s : ce qui s’exécute à son import ne finit pas.",
        "en": "model.py does not load within 2 s: what runs at its import never ends."}[lang])


def test_an_import_slower_than_one_wait_is_waited_for_again_before_it_costs(tmp_path, monkeypatch):
    """A busy machine can take the first wait: the import's hang is confirmed by a second one."""
    from lab.checks import model_checks

    monkeypatch.setattr(model_checks, "IMPORT_LIMIT", 1.0)
    (tmp_path / "model.py").write_text("import time\ntime.sleep(1.4)\n" + ALT, encoding="utf-8")
    (result,) = run_some(tmp_path, "model.answers", lang="en").results
    assert (result.status, result.reason) == ("passed", "")


def test_the_refused_port_is_never_the_endpoints_own(monkeypatch):
    """In a sandbox the endpoints listen in the runner's own network, where the refused port was
    never bound: drawn on the host, its number could be the endpoints' own there, and a correct
    helper got the model's answer where the connection must be refused (seen once in CI)."""
    from lab.checks import endpoints

    drawn, closed = iter([4242, 4242, 5151]), []

    class Drawn:
        def __init__(self, *args):
            self.port = next(drawn)

        def bind(self, address):
            pass

        def getsockname(self):
            return ("127.0.0.1", self.port)

        def close(self):
            closed.append(self.port)

    monkeypatch.setattr(endpoints.socket, "socket", Drawn)
    assert endpoints.refused_port(other_than=4242).getsockname()[1] == 5151
    assert closed == [4242, 4242]


# ask answers its own case in the runner's place (the order found in the runner's frames, on
# every file they hold open for writing), then returns: the runner's own answer comes second.
ANSWERS_IN_ITS_PLACE = """
import io, json, sys
from collections import namedtuple

Answer = namedtuple("Answer", "text recorded")


def ask(messages, sample, max_tokens=80):
    frame, orders, files = sys._getframe(1), [], []
    while frame is not None:
        for value in list(frame.f_locals.values()):
            if isinstance(value, dict) and "nonce" in value:
                orders.append(value)
            if isinstance(value, io.TextIOWrapper) and "w" in getattr(value, "mode", ""):
                files.append(value)
        frame = frame.f_back
    for file in files:
        for order in orders:
            file.write(json.dumps({"nonce": order["nonce"], "text": "forged", "recorded": False, "printed": ""}) + "\\n")
            file.flush()
    return Answer(sample, True)
"""


@pytest.mark.parametrize(("lang", "message"), [
    ("fr", "La réponse à ask(…) n’est pas celle du kit : quelque chose dans votre code a écrit à sa place (sur la "
           "vraie sortie du programme, ou en changeant les fonctions du kit)."),
    ("en", "The answer to ask(…) is not the kit's: something in your code wrote in its place (on the program's real "
           "output, or by changing the kit's functions)."),
])
def test_a_case_answered_in_the_runners_place_is_the_helpers_failure(tmp_path, lang, message):
    (tmp_path / "model.py").write_text(ANSWERS_IN_ITS_PLACE, encoding="utf-8")
    report = run_some(tmp_path, "model.", lang=lang)
    assert {(r.status, r.message) for r in report.results} == {("failed", message)}


SOLUTION = (ROOT / "solutions" / "model.py").read_text(encoding="utf-8")
READ_ONCE = [("    settings = model_settings()  # .url", "    settings = SETTINGS  # .url"),
             ("why_no_model\n", "why_no_model\nSETTINGS = model_settings()\n")]
# A beginner's mistake in the reference helper: (changes, the first failing check, its message in French, in English).
MISTAKES = {
    "forgets to return the model's answer": (
        [("        return model_answer(", "        model_answer(")], "model.answers",
        "ask renvoie None au lieu d’un Answer : le chemin qu’il a suivi ici finit sans return.",
        "ask returns None instead of an Answer: the path it took here ends without a return."),
    "forgets to return the sample": (
        [("        return Answer(sample, recorded=True)\n", "")], "model.refused",
        "ask renvoie None au lieu d’un Answer : le chemin qu’il a suivi ici finit sans return.",
        "ask returns None instead of an Answer: the path it took here ends without a return."),
    "returns the SDK's whole response": (
        [("        return model_answer(response, messages, sample, settings.lang)", "        return response")],
        "model.answers", "ask renvoie la réponse entière du SDK (un ChatCompletion), pas son texte : model_answer "
        "(fourni) la lit et rend un Answer.",
        "ask returns the SDK's whole response (a ChatCompletion), not its text: model_answer (given) reads it and "
        "returns an Answer."),
    "reads its settings once, at import": (
        READ_ONCE, "model.request",
        "Aucune requête n’est arrivée au modèle de l’adresse AI_URL : ask a pris l’adresse d’un appel précédent "
        "(ci-dessous, celle du port refusé, le premier cas). Lisez les réglages dans ask, à chaque appel "
        "(model_settings()), pas une fois pour toutes.",
        "No request reached the model at the address AI_URL: ask used the address of an earlier call (below, the "
        "refused port's, the first case). Read the settings in ask, at each call (model_settings()), not once for all."),
}


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
@pytest.mark.parametrize("lang", ["fr", "en"])
def test_the_first_failure_names_a_helper_mistake_in_the_runs_language(tmp_path, mistake, lang):
    from lab.layout import solutions_dir

    changes, check_id, french, english = MISTAKES[mistake]
    source = SOLUTION
    for old, new in changes:
        source = mutate(source, old, new)
    shutil.copyfile(solutions_dir() / "model_setup.py", tmp_path / "model_setup.py")
    (tmp_path / "model.py").write_text(source, encoding="utf-8")
    report = run_some(tmp_path, "model.", lang=lang)
    first = next(r for r in report.results if r.status != "passed")
    assert (first.id, first.message) == (check_id, {"fr": french, "en": english}[lang])
