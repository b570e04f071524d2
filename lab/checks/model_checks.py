"""The model helper's checks: the student's `ask` against local endpoints (see endpoints.py).

All four cases run in one child process (scripts/model_runner.py), so the openai
import is paid once: a model that answers, a refused port, an HTTP error, a slow model.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lab.checks.engine import Check, Context, Failed, Probe
from lab.checks.reference import HELPER, helper_module
from lab.checks.runner import Run, child_env, run_python

RUNNER = Path(__file__).resolve().parent / "scripts" / "model_runner.py"
MODEL_TEXT = "Il peut lister des outils. / It can list tools."
SAMPLE = "ÉCHANTILLON / SAMPLE"
MESSAGES = [{"role": "user", "content": "Que peut faire ce serveur ? / What can this server do?"}]
MAX_TOKENS = 42
SLOW_TIMEOUT = 0.2  # AI_TIMEOUT for the slow model: the helper must give up after it (plus 1 s)
FALLBACK = ("Échantillon enregistré : aucun modèle n'a répondu (", "Recorded sample: no model answered (")


@dataclass
class ModelRun:
    run: Run | None = None  # None when there is no model.py
    results: dict[str, Any] = field(default_factory=dict)
    requests: list[dict] = field(default_factory=list)  # what the endpoints received


def cases(endpoints: Any, refused: int, lang: str) -> list[dict]:
    def case(name: str, url: str, timeout: float) -> dict:
        env = {"AI_URL": url, "AI_TIMEOUT": str(timeout), "AI_KEY": "lab", "AI_MODEL": "lab", "LAB_LANG": lang}
        return {"name": name, "env": env, "messages": MESSAGES, "sample": SAMPLE, "max_tokens": MAX_TOKENS,
                "limit": timeout + 2.0}

    # The refused port first: quick, so a helper that never returns is caught in seconds
    # (the runner stops at the first hang). A generous AI_TIMEOUT where the model answers
    # at once: it only has to cover the openai import on a busy machine. The slow case
    # comes last, once openai is loaded.
    return [case("refused", f"http://127.0.0.1:{refused}", 2.0), case("answer", endpoints.url("answer"), 10.0),
            case("error", endpoints.url("error"), 10.0), case("slow", endpoints.url("slow"), SLOW_TIMEOUT)]


def run_model(context: Context) -> ModelRun:
    model = context.folder / "model.py"
    if not model.is_file():
        return ModelRun()
    from lab.checks.endpoints import Endpoints, refused_port  # http.server: only when there is a model.py

    endpoints, refused = Endpoints(MODEL_TEXT), refused_port()
    try:
        with tempfile.TemporaryDirectory(prefix="lab-model-") as temp:
            work = Path(temp)
            shutil.copyfile(model, work / "model.py")
            helper = context.folder / HELPER  # the given module model.py imports, if the student has it
            shutil.copyfile(helper if helper.is_file() else helper_module(), work / HELPER)
            todo = cases(endpoints, refused.getsockname()[1], context.lang)
            (work / "cases.json").write_text(json.dumps(todo), encoding="utf-8")
            limit = sum(case["limit"] for case in todo) + 3.0  # plus start-up and the openai import
            run = run_python(RUNNER, limit=limit, cwd=work, env=child_env(context.lang),
                             args=(str(work / "cases.json"), str(work / "results.json")), preloaded=True)
            results_file = work / "results.json"
            results = json.loads(results_file.read_text(encoding="utf-8")) if results_file.is_file() else {}
        return ModelRun(run, results, list(endpoints.requests))
    finally:
        endpoints.close()
        refused.close()


PROBES = {"model.run": Probe(run_model, 40.0)}  # the sum of the cases' limits, and more


def outcome_of(context: Context, name: str) -> dict:
    model: ModelRun = context.probe("model.run")
    if model.run is None:
        raise Failed("model.py", "—", fr="Il n’y a pas de fichier model.py.", en="There is no model.py file.")
    if "import" in model.results:
        raise Failed("import model", model.results["import"], fr="model.py ne se charge pas.",
                     en="model.py does not load.", output=model.run.stderr_tail())
    if name not in model.results:
        raise Failed(name, "—", fr="Le processus de test s’est arrêté avant ce cas.",
                     en="The test process stopped before this case.", output=model.run.stderr_tail())
    outcome = model.results[name]
    if outcome.get("hung"):
        raise Failed("ask(…) → Answer", f"{outcome['seconds']:g} s",
                     fr="ask ne rend pas la main.", en="ask does not return.")
    if "error" in outcome:
        todo = outcome["error"].startswith("NotImplementedError")
        raise Failed("ask(…) → Answer", outcome["error"],
                     fr="ask est encore à écrire." if todo else "ask a levé une exception au lieu de répondre.",
                     en="ask is still to be written." if todo else "ask raised an exception instead of answering.")
    return outcome


def answers(context: Context) -> None:
    outcome = outcome_of(context, "answer")
    got = {"text": outcome.get("text"), "recorded": outcome.get("recorded")}
    if got != {"text": MODEL_TEXT, "recorded": False}:
        raise Failed({"text": MODEL_TEXT, "recorded": False}, got, fr="ask ne renvoie pas le texte du modèle.",
                     en="ask does not return the model's text.", output=outcome.get("printed", ""))


def request_shape(context: Context) -> None:
    outcome_of(context, "answer")
    model: ModelRun = context.probe("model.run")
    sent = [r for r in model.requests if r["path"].startswith("/answer")]
    expected = {"path": "/answer/v1/chat/completions", "authorization": "Bearer lab",
                "body": {"model": "lab", "messages": MESSAGES, "max_tokens": MAX_TOKENS}}
    if not sent:
        raise Failed(expected, "—", fr="Aucune requête n’est arrivée au modèle.", en="No request reached the model.")
    body = sent[0]["body"] if isinstance(sent[0]["body"], dict) else {}
    got = {"path": sent[0]["path"], "authorization": sent[0]["authorization"],
           "body": {key: body.get(key) for key in expected["body"]}}
    if got != expected:
        raise Failed(expected, got, fr="La requête n’est pas celle de la leçon.", en="The request is not the lesson's.")


def fallback(context: Context, name: str, must_say: str = "", within: float = 0.0) -> None:
    outcome = outcome_of(context, name)
    got = {"text": outcome.get("text"), "recorded": outcome.get("recorded")}
    if got != {"text": SAMPLE, "recorded": True}:
        raise Failed({"text": SAMPLE, "recorded": True}, got, fr="ask ne renvoie pas l’échantillon enregistré.",
                     en="ask does not return the recorded sample.", output=outcome.get("printed", ""))
    lines = [line.replace("’", "'") for line in outcome.get("printed", "").splitlines() if line.strip()]
    said = [line for line in lines if line.startswith(FALLBACK) and line.endswith(").")]
    if len(said) != 1:
        raise Failed(FALLBACK[0] + "<raison>).", "\n".join(lines) or "—",
                     fr="ask doit afficher une ligne « Échantillon enregistré : … (<raison>). »",
                     en="ask must print one line “Recorded sample: … (<reason>).”")
    if must_say and must_say not in said[0]:
        raise Failed(f"… ({must_say} …).", said[0], fr=f"La raison ne dit pas {must_say}.",
                     en=f"The reason does not say {must_say}.")
    if within and outcome["seconds"] > within:
        raise Failed(f"≤ {within:g} s", f"{outcome['seconds']:g} s", fr="ask a attendu trop longtemps.",
                     en="ask waited too long.")


def check(check_id: str, run, title_fr: str, title_en: str, hint_fr: str, hint_en: str) -> Check:
    return Check(check_id, "model", {"fr": title_fr, "en": title_en}, {"fr": hint_fr, "en": hint_en}, run,
                 probes=("model.run",))


CHECKS = [
    check("model.answers", answers, "Quand le modèle répond, ask renvoie son texte",
          "When the model answers, ask returns its text",
          "Renvoyez Answer(texte, recorded=False) avec choices[0].message.content.",
          "Return Answer(text, recorded=False) with choices[0].message.content."),
    check("model.request", request_shape, "La requête : POST /v1/chat/completions, Bearer lab, model, max_tokens",
          "The request: POST /v1/chat/completions, Bearer lab, model, max_tokens",
          "AI_URL + /v1, clé AI_KEY, modèle AI_MODEL, les messages et max_tokens reçus par ask.",
          "AI_URL + /v1, key AI_KEY, model AI_MODEL, the messages and max_tokens ask was given."),
    check("model.refused", lambda context: fallback(context, "refused"),
          "Connexion refusée : l’échantillon et une ligne qui dit pourquoi",
          "Connection refused: the sample and one line saying why",
          "Toute erreur devient NoModel ; ask affiche FALLBACK_LINE avec la raison et renvoie l’échantillon.",
          "Every failure becomes NoModel; ask prints FALLBACK_LINE with the reason and returns the sample."),
    check("model.http-error", lambda context: fallback(context, "error", must_say="503"),
          "Erreur HTTP 503 : l’échantillon, et la raison donne le statut",
          "HTTP error 503: the sample, and the reason gives the status",
          "openai.APIStatusError porte status_code : NoModel(\"status\", status=…).",
          "openai.APIStatusError carries status_code: NoModel(\"status\", status=…)."),
    check("model.slow", lambda context: fallback(context, "slow", within=SLOW_TIMEOUT + 1.0),
          "Modèle trop lent : l’échantillon au bout de AI_TIMEOUT (+ 1 s au plus)",
          "Model too slow: the sample after AI_TIMEOUT (+ 1 s at most)",
          "Passez timeout=AI_TIMEOUT et max_retries=0 au client openai (ses essais répétés triplent l’attente).",
          "Give the openai client timeout=AI_TIMEOUT and max_retries=0 (its retries triple the wait)."),
]
