"""The model helper's checks: the student's `ask` against local endpoints (endpoints.py), in
four cases (a refused port, a model that answers, an HTTP error, a model that never answers)
run by one child (scripts/model_runner.py, openai imported once before model.py). Each case is
read here within its limit, the runner killed past it: only ask's own timeout saves the last.
"""

from __future__ import annotations

import contextlib
import re
import secrets
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from functools import partial
from typing import Any

from lab.checks import parts
from lab.checks.engine import Check, Context, Failed, Probe, Waiting, unwritten_task
from lab.checks.reference import (copy_for_student, copy_with_given_modules, known_texts, model_fallback_line,
                                  model_reasons)
from lab.checks.texts import in_each_language, own_words, say
from lab.checks.tracebacks import trimmed
from lab.process.student import child_env, read_student_text, start_student
from lab.process.talk import Conversation, Run
from lab import time_limits

RUNNER = Path(__file__).resolve().parent / "scripts" / "model_runner.py"
RUNNER_COPY = "lab_model_runner.py"  # copied beside model.py: the kit itself is out of a sandbox's sight
PORT_VARIABLE = "LAB_MODEL_PORT"  # the local endpoints' port, inside the runner's own network
PREPARE_LIMIT, IMPORT_LIMIT = time_limits.MODEL_PREPARE, time_limits.MODEL_IMPORT
CASES_LIMIT, BARRIER_LIMIT = time_limits.MODEL_CASES, time_limits.MODEL_BARRIER
MAX_TOKENS = 42
SLOW_TIMEOUT = time_limits.MODEL_SLOW_TIMEOUT  # the helper must give up after it (plus MODEL_GIVE_UP)


@dataclass
class ModelRun:
    run: Run | None = None  # None when there is no model.py
    text: str = ""  # what the model answered this run (a fresh nonce in it: it cannot be guessed)
    results: dict[str, Any] = field(default_factory=dict)
    requests: list[dict] = field(default_factory=list)  # what the endpoints received
    refused_address: str = ""  # host:port of the refused case, as why_no_model names it
    key: str = ""  # AI_KEY and AI_MODEL of this run: fresh, so only a helper that reads them sends them
    model: str = ""


def cases(endpoints: Any, refused: int, lang: str, key: str = "lab", model: str = "lab") -> list[dict]:
    def case(name: str, url: str, timeout: float) -> dict:
        env = {"AI_URL": url, "AI_TIMEOUT": f"{timeout:g}", "AI_KEY": key, "AI_MODEL": model, "LAB_LANG": lang}
        return {"name": name, "env": env, "messages": QUESTIONS[lang], "sample": SAMPLES[lang], "max_tokens": MAX_TOKENS,
                "limit": timeout + time_limits.MODEL_CASE_ROOM}

    # The refused port first: a helper that never returns is caught in seconds. A generous
    # AI_TIMEOUT where the model answers at once: a busy machine is no slow helper.
    return [case("refused", f"http://127.0.0.1:{refused}", time_limits.MODEL_REFUSED_TIMEOUT),
            case("answer", endpoints.url("answer"), time_limits.MODEL_ANSWER_TIMEOUT),
            case("error", endpoints.url("error"), time_limits.MODEL_ANSWER_TIMEOUT), case("slow", endpoints.url("slow"), SLOW_TIMEOUT)]


def run_model(context: Context) -> ModelRun:
    """The runner driven case by case, each timed here and answered on its stdout pipe only."""
    model = context.folder / "model.py"
    if not model.is_file():
        return ModelRun()
    from lab.checks.endpoints import Endpoints, refused_port  # http.server: only when there is a model.py

    started = time.monotonic()
    results: dict[str, Any] = {}
    with contextlib.ExitStack() as stack:
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="lab-model-")))
        copy_with_given_modules(context.folder, work)  # model.py, with what it imports
        copy_for_student(RUNNER, work / RUNNER_COPY)
        process, listeners = start_student(context.launch, work / RUNNER_COPY, cwd=work,
                                           env=child_env(context.launch, context.lang), listen=(PORT_VARIABLE,),
                                           warm=True)
        session = Conversation(process, launch=context.launch)
        stack.callback(session.close)
        answer_text = f"{MODEL_TEXTS[context.lang]} #{secrets.token_hex(4)}"
        endpoints = stack.enter_context(contextlib.closing(Endpoints(answer_text, listeners.get(PORT_VARIABLE))))
        refused = stack.enter_context(refused_port(other_than=endpoints.server_address[1]))
        key, model_name = f"lab-key-{secrets.token_hex(4)}", f"lab-model-{secrets.token_hex(4)}"
        pending = cases(endpoints, refused.getsockname()[1], context.lang, key, model_name)
        # Each order carries a fresh nonce its answer echoes: model.py cannot answer ahead (parts.answer).
        nonces: list[str] = []
        facts: list[dict] = []
        asked: dict[str, int] = {}  # a case's name -> its order's index in facts

        def order(message: dict, limit: float, confirmed: bool = False) -> dict:
            nonces.append(secrets.token_hex(12))
            sent = {**message, "nonce": nonces[-1]}
            facts.append(parts.answer(session, sent, nonces, limit, model_shape, facts))
            if confirmed and facts[-1].get("lost") == "part.hangs":  # a timing verdict confirmed before it
                # costs: a busy machine, not the code, may have taken the first wait; the same order gets a second
                facts[-1] = parts.answer(session, sent, nonces, limit, model_shape, facts, sent=True)
            return facts[-1]

        # The kit's own imports first, then model.py: each its own limit, and no case's.
        first = order({"prepare": True}, PREPARE_LIMIT, confirmed=True)
        if "lost" not in first:
            first = order({"load": pending[0]["env"]}, IMPORT_LIMIT, confirmed=True)
        if "lost" in first or "error" in first:
            results["import"] = first  # judged by outcome_of
        else:
            for case in pending:
                sent = time.monotonic()
                outcome = order({key: case[key] for key in ("env", "messages", "sample", "max_tokens")},
                                case["limit"])
                seconds = round(time.monotonic() - sent, 3)
                if outcome.get("lost") in ("part.hangs", "part.stopped"):
                    # No answer in time, or the runner ended: this case and the later ones are hung.
                    for later in pending[pending.index(case):]:
                        results[later["name"]] = {"hung": case["name"], "seconds": seconds}
                    break
                results[case["name"]] = {**outcome, "seconds": seconds, "hung": False}
                asked[case["name"]] = len(facts) - 1
            else:  # one more order, answered once every answer before it is written: a second
                order({"prepare": True}, BARRIER_LIMIT)  # answer to the last case comes before it
        ended = session.close()
        parts.answered_twice(session, nonces, facts)  # an answer given twice is no answer
        for name, index in asked.items():
            if "lost" in facts[index] and "lost" not in results[name]:
                results[name] = {**facts[index], "seconds": results[name]["seconds"], "hung": False}
        run = Run(b"", ended.stderr, ended.code, round(time.monotonic() - started, 3))
        return ModelRun(run, answer_text, results, list(endpoints.requests), f"127.0.0.1:{refused.getsockname()[1]}",
                        key, model_name)


# The facts of the runner's answer (scripts/model_runner.py); any other shape is model.py's doing.
FACT_TYPES = {"ready": (bool,), "text": (str,), "recorded": (bool, type(None)), "error": (str,), "trace": (str,),
              "printed": (str,), "errors": (str,)}


def model_shape(facts: dict, order: dict) -> bool:
    if not parts.has_types(facts, FACT_TYPES):
        return False
    if "prepare" in order or "load" in order:
        return facts == {"ready": True} or ("load" in order and set(facts) == {"error", "trace"})
    return set(facts) in ({"text", "recorded", "printed", "errors"}, {"error", "trace", "printed", "errors"})


PROBES = {"model.run": Probe(run_model, 2 * (PREPARE_LIMIT + IMPORT_LIMIT) + CASES_LIMIT + BARRIER_LIMIT + time_limits.MODEL_PROBE_ROOM,
                             ignores=("server.py", "bonus_server.py", "client.py", "answers.toml"))}


def outcome_of(context: Context, name: str) -> dict:
    model: ModelRun = context.probe("model.run")
    if model.run is None:
        raise Failed("model.py", "—", reason="file.missing", fields={"file": "model.py"})
    if loading := model.results.get("import"):
        lost = loading.get("lost")
        # Its error; else the runner ended, or was answered for, or the load (or the kit's imports) timed out.
        said = loading["error"] if "error" in loading \
            else say(context.lang, lost, call="import model") if lost in ("part.stopped", "part.bad_answer") \
            else say(context.lang, "model.not_loaded", load_seconds=2 * IMPORT_LIMIT)
        if lost == "part.hangs":  # what runs at its import never ended: a hang, not an error
            raise Failed("import model", said, reason="model.load_hangs", fields={"seconds": 2 * IMPORT_LIMIT})
        raise Failed("import model", said, reason="file.does_not_load", fields={"file": "model.py"},
                     output=trimmed(loading.get("trace", ""), ("model.py",), context.lang))
    if name not in model.results:
        raise Failed(name, "—", reason="model.stopped_before",
                     output=trimmed(model.run.err, ("model.py",), context.lang))
    outcome = model.results[name]
    if outcome.get("hung") == "slow":
        raise Failed(f"≤ {SLOW_TIMEOUT + time_limits.MODEL_GIVE_UP:g} s", f"> {outcome['seconds']:g} s",
                     reason="model.never_answers", fields={"seconds": outcome["seconds"], "timeout": SLOW_TIMEOUT})
    if outcome.get("hung"):
        raise Failed("ask(…) → Answer", f"> {outcome['seconds']:g} s", reason="model.ask_hangs")
    if str(outcome.get("text")).startswith("<coroutine object"):  # model.js's async, copied: nothing ran
        raise Failed("ask(…) → Answer", outcome["text"], reason="model.async_ask")
    if "lost" in outcome:  # an answer that is not the runner's: the student's code wrote in its place
        raise Failed("ask(…) → Answer", "—", reason=outcome["lost"], fields={"call": "ask(…)", **outcome["fields"]})
    if "error" in outcome:
        if task := unwritten_task(outcome["error"]):  # the part still to write, named in the run's language
            raise Waiting(task)
        narrow = narrow_except(context)
        # NoModel is raised by check_model_address alone: called where no except takes it
        outside = not narrow and outcome["error"].startswith("NoModel")
        raise Failed("ask(…) → Answer", outcome["error"], reason="model.narrow_except" if narrow
                     else "model.address_outside_try" if outside else "model.ask_raises",
                     fields={"clause": narrow} if narrow else {},
                     output=trimmed(outcome.get("trace", ""), ("model.py",), context.lang))
    return outcome


def narrow_except(context: Context) -> str:
    """model.py's first `except` clause when none takes every error (openai.APIError lets some escape)."""
    source = read_student_text(context.folder / "model.py")
    # Each search starts only where a blank run starts, and never past the last colon: tried from
    # every line or every space, to the end of the file each time, a file of 200 KB took 40 s.
    source = source[:source.rfind(":") + 1]
    clauses = [clause.strip() for clause in re.findall(r"^[^\S\n]*except\b([^:]*):", source, re.M)]
    named = [re.sub(r"(?<!\s)\s+as\s+\w+$", "", clause).strip("() ") for clause in clauses]
    if not clauses or any(set(between_commas(one)) & {"", "Exception", "BaseException"} for one in named):
        return ""
    return f"except {clauses[0]}"


def between_commas(text: str) -> list[str]:
    r"""`re.split(r"\s*,\s*", text)` in one pass (the regex tries again from each space of a run)."""
    parts = text.split(",")
    return [part.lstrip() if index else part for index, part in enumerate(
        [part.rstrip() for part in parts[:-1]] + parts[-1:])]


RETURNED_NONE = {"text": "None", "recorded": None}  # as the runner reports an ask that returned None


def answers(context: Context) -> None:
    outcome = outcome_of(context, "answer")
    got = {"text": outcome.get("text"), "recorded": outcome.get("recorded")}
    model: ModelRun = context.probe("model.run")
    if got != {"text": model.text, "recorded": False}:
        reason = ("model.bare_model_text" if got == {"text": model.text, "recorded": None}
                  else "model.returns_none" if got == RETURNED_NONE
                  else "model.text_marked_recorded" if got["text"] == model.text
                  else ("model.fell_back_on_answer" if outcome.get("printed", "").strip() else "model.sample_on_answer")
                  if got == {"text": SAMPLES[context.lang], "recorded": True}
                  else "model.whole_response" if str(got["text"]).startswith("ChatCompletion(")
                  else "model.answer_as_text" if got["recorded"] is None and model.text in str(got["text"])
                  else "model.not_its_text")
        raise Failed({"text": model.text, "recorded": False}, got, reason=reason, output=outcome.get("printed", ""))


def request_shape(context: Context) -> None:
    outcome = outcome_of(context, "answer")
    model: ModelRun = context.probe("model.run")
    sent = [r for r in model.requests if r["path"].startswith("/answer")]
    expected = {"path": "/answer/v1/chat/completions", "authorization": f"Bearer {model.key}",
                "body": {"model": model.model, "messages": QUESTIONS[context.lang], "max_tokens": MAX_TOKENS}}
    if not sent:  # what ask printed says why (its fallback line and reason); the SDK's refusal, in English, said here
        printed = outcome.get("printed", "")
        reason = ("model.address_as_test" if address_as_test(context)
                  else "model.never_awaited" if any("was never awaited" in str(case.get("errors")) for case in
                                                    model.results.values() if isinstance(case, dict))  # warned once
                  else "model.sdk_arguments" if "Missing required arguments" in printed
                  else "model.stale_settings" if model.refused_address in printed
                  else "model.no_request" if printed.strip() else "model.returned_untried")
        raise Failed(expected, "—", reason=reason, fields={"text": outcome.get("text")}, output=printed)
    body = sent[0]["body"] if isinstance(sent[0]["body"], dict) else {}
    got = {"path": sent[0]["path"], "authorization": sent[0]["authorization"],
           "body": {key: body.get(key) for key in expected["body"]}}
    if got != expected:
        differ = [key for key in ("path", "authorization") if got[key] != expected[key]]
        differ += [key for key in expected["body"] if got["body"][key] != expected["body"][key]]
        raise Failed(expected, got, reason="model.request_differs", fields={"fields": ", ".join(differ)})


def address_as_test(context: Context) -> bool:
    """Does model.py test what check_model_address returns? It returns nothing: it raises."""
    source = read_student_text(context.folder / "model.py")
    used = r"\b(el)?if\b|\bwhile\b|\bnot\b|\band\b|\bor\b|="  # its value read, on the line before the call
    return any(re.search(used, line.split("check_model_address(")[0]) for line in source.splitlines()
               if "check_model_address(" in line)


def fallback(context: Context, name: str, must_say: str = "", within: float = 0.0, endpoint: str = "") -> None:
    """The fallback of case `name`, after ask's request reached `endpoint` (when given)."""
    outcome = outcome_of(context, name)
    got = {"text": outcome.get("text"), "recorded": outcome.get("recorded")}
    if got != {"text": SAMPLES[context.lang], "recorded": True}:
        reason = ("model.returns_none" if got == RETURNED_NONE
                  else "model.not_the_sample" if got["text"] != SAMPLES[context.lang] else "model.bare_text" if got["recorded"] is None else "model.sample_not_marked")
        raise Failed({"text": SAMPLES[context.lang], "recorded": True}, got, reason=reason,
                     output=outcome.get("printed", ""))
    model: ModelRun = context.probe("model.run")
    tries = sum(request["path"].startswith(f"/{endpoint}/") for request in model.requests) if endpoint else 0
    if endpoint and not tries:
        raise Failed(f"POST /{endpoint}/v1/chat/completions", "—", reason="model.fell_back_untried")
    prefixes = fallback_prefixes(context)
    lines = [line.replace("’", "'") for line in outcome.get("printed", "").splitlines() if line.strip()]
    said = [line for line in lines if line.startswith(prefixes) and line.endswith(").")]
    expected = model_fallback_line(context.lang).replace("{reason}", say(context.lang, "model.reason_placeholder"))
    # The reason's own placeholder printed as written (an f-string's f, or .format, forgotten): the
    # refused case judges the reason; the others, only a line they would fail for its shape anyway.
    unfilled = [(line, found[0]) for line in lines for before in prefixes if line.startswith(before)
                for found in [re.match(r"\{[^{}\n]*\}", line[len(before):])] if found]
    if unfilled and (name == "refused" or len(said) != 1):
        (line, placeholder), *_ = unfilled
        raise Failed(expected, line, reason="model.reason_unfilled", fields={"reason": placeholder})
    if len(said) != 1:
        on_stderr = [line for line in outcome.get("errors", "").replace("’", "'").splitlines() if line.startswith(prefixes)]
        raise Failed(expected, "\n".join(lines) or "—", reason="model.fallback_on_stderr" if on_stderr and not said
                     else "model.fallback_line")
    if name == "refused":
        given_reason(context, said[0], prefixes, model.refused_address)
    if must_say and must_say not in said[0]:
        raise Failed(f"… ({must_say} …).", said[0], reason="model.reason_lacks", fields={"words": must_say})
    if within and tries > 1:  # the SDK's own retries left on, even one (max_retries=1), in time or not
        source = read_student_text(context.folder / "model.py")
        by_hand = re.search(r"max_retries\s*=\s*0\b", source)  # the SDK's retries off: ask's own code sent again
        raise Failed("1 × POST", f"{tries} × POST", reason="model.retried_by_hand" if by_hand else "model.retried",
                     fields={"count": tries})
    if within and outcome["seconds"] > within:
        raise Failed(f"≤ {within:g} s", f"{outcome['seconds']:g} s", reason="model.waited_too_long")


def fits(template: str, text: str) -> bool:
    """Could `text` be `template` with its fields filled in ("connexion refusée par {address}")?
    Its words are found in turn, each as early as it can be: the student's copy of the template
    may hold many fields, which as a regex (".*" each) took minutes on a short line."""
    first, *words = re.split(r"\{[^}]*\}", template)
    if not words:
        return text == first
    *middle, last = words
    end = len(text) - len(last)
    if not (text.startswith(first) and text.endswith(last) and len(first) <= end):
        return False
    at = len(first)
    for word in middle:
        found = text.find(word, at, end)
        if found < 0:
            return False
        at = found + len(word)
    return True


def fallback_prefixes(context: Context) -> tuple[str, ...]:
    """The fallback line up to its reason, in either language (’ and ' alike): the student's
    own model.py's (an older handout may word it otherwise) and this kit's."""
    lines = [table.get("fallback") for table in known_texts(context.folder, "model.py", "TEXTS")]
    return tuple(dict.fromkeys(line.split("{reason}")[0].replace("’", "'") for line in lines
                               if isinstance(line, str) and "{reason}" in line and not line.startswith("{reason}")))


def given_reason(context: Context, line: str, prefixes: tuple[str, ...], address: str) -> None:
    """The line's reason is one why_no_model (given) writes: one of its REASONS (the student's
    copy's or this kit's), or an error named by its type ("URLError: …"), not str(error)."""
    reason = next((line[len(before):-len(").")] for before in prefixes if line.startswith(before)), "")
    tables = known_texts(context.folder, "model_setup.py", "REASONS")
    templates = [template.replace("’", "'") for table in tables for key, template in table.items()
                 if key != "other" and isinstance(template, str)]
    if any(fits(template, reason) for template in templates) or re.match(r"[A-Za-z_][\w.]*: ", reason):
        return
    expected = model_reasons(context.lang)["refused"].format(address=address)
    raise Failed(f"… ({expected}).", line, reason="model.reason_not_given", fields={"reason": reason, "expected": expected},
                 hint=in_each_language("model.reason_not_given.hint"))


model_check = partial(Check, task="model", probes=("model.run",))

# The request first: a helper that does not reach the model (AI_URL ignored) is told that,
# not only that the model's text did not come back.
CHECKS = [
    model_check(id="model.request", run=request_shape,
                fr=("ask envoie au modèle la requête de model.js : sa clé, son nom de modèle, les messages et max_tokens",
                    "AI_URL + /v1, clé AI_KEY, modèle AI_MODEL, les messages et max_tokens reçus par ask."),
                en=("ask sends the model the request of model.js: its key, its model name, the messages and max_tokens",
                    "AI_URL + /v1, key AI_KEY, model AI_MODEL, the messages and max_tokens ask was given.")),
    model_check(id="model.answers", run=answers,
                fr=("Quand le modèle répond, ask renvoie son texte",
                    "Renvoyez le texte du premier choix de la réponse, marqué comme venant du modèle."),
                en=("When the model answers, ask returns its text",
                    "Return the text of the reply's first choice, marked as coming from the model.")),
    model_check(id="model.refused", run=lambda context: fallback(context, "refused"),
                fr=("Connexion refusée : l’échantillon et une ligne qui dit pourquoi",
                    "Toute erreur de la requête mène à l’échantillon enregistré : d’abord une ligne qui dit pourquoi, puis l’échantillon."),
                en=("Connection refused: the sample and one line saying why",
                    "Every failure of the request leads to the recorded sample: first one line saying why, then the sample.")),
    model_check(id="model.http-error", run=lambda context: fallback(context, "error", must_say="503", endpoint="error"),
                fr=("Erreur HTTP 503 : l’échantillon, et la raison donne le statut",
                    "Une erreur HTTP porte son statut : mettez-le dans la raison que donne la ligne « Échantillon enregistré »."),
                en=("HTTP error 503: the sample, and the reason gives the status",
                    'An HTTP error carries its status: put it in the reason the "Recorded sample" line gives.')),
    model_check(id="model.slow", run=lambda context: fallback(context, "slow", within=SLOW_TIMEOUT + time_limits.MODEL_GIVE_UP, endpoint="slow"),
                fr=("Modèle muet : ask abandonne seul au bout de AI_TIMEOUT (+ 1 s au plus)",
                    "Donnez à la requête son propre délai, AI_TIMEOUT, sans nouvel essai : sinon ask attend sans fin."),
                en=("Silent model: ask gives up on its own after AI_TIMEOUT (+ 1 s at most)",
                    "Give the request its own time limit, AI_TIMEOUT, with no retry: otherwise ask waits forever.")),
]

# Why a check failed, by key (lab/checks/texts.py `say`), in both languages with the same fields.
REASONS = {
    "fr": {
        "model.data.answer": "Il peut lister des outils.",
        "model.data.sample": "ÉCHANTILLON",
        "model.data.question": "Que peut faire ce serveur ?",
        "model.not_loaded": "model.py ne s’est pas chargé en {load_seconds} s",
        "model.load_hangs": "model.py ne se charge pas en {seconds:g} s : ce qui s’exécute à son import ne finit pas.",
        "model.stopped_before": "Le processus de test s’est arrêté avant ce cas.",
        "model.never_answers": "Le modèle accepte la connexion mais ne répond jamais : ask attendait encore au bout de "
                               "{seconds:g} s (AI_TIMEOUT = {timeout:g}) : son attente n’est pas bornée par AI_TIMEOUT, qui "
                               "compte en secondes.",
        "model.ask_hangs": "ask ne rend pas la main.",
        "model.async_ask": "ask est écrit async def : l’appeler rend une coroutine, qui ne fait rien tant qu’on ne "
                           "l’attend pas (await). demander (model.js) est async parce que fetch l’est ; en Python, le "
                           "SDK openai attend lui-même la réponse : écrivez def ask.",
        "model.address_outside_try": "ask a laissé passer l’erreur de check_model_address (fourni), qui dit que rien "
                                     "ne répond à AI_URL : appelez-le dans le try, avant la requête ; le except la "
                                     "donne alors à why_no_model, comme les erreurs de la requête.",
        "model.ask_raises": "ask a levé une exception au lieu de répondre.",
        "model.narrow_except": ("ask a levé une exception au lieu de répondre : « {clause} » ne prend que les erreurs "
                                "qu’il nomme, et celle-ci lui échappe. Toute erreur, quelle qu’elle soit, mène à "
                                "l’échantillon enregistré."),
        "model.not_its_text": "ask ne renvoie pas le texte du modèle.",
        "model.whole_response": "ask renvoie la réponse entière du SDK (un ChatCompletion), pas son texte : "
                                "model_answer (fourni) la lit et rend un Answer.",
        "model.fell_back_on_answer": "Le modèle a répondu, mais ask a rendu l’échantillon enregistré : lire sa réponse "
                                     "a échoué (ask a affiché sa raison, ci-dessous). Le texte est le contenu du "
                                     "message du premier choix de la réponse.",
        "model.sample_on_answer": "Le modèle a répondu, mais ask a rendu l’échantillon enregistré sans afficher de "
                                  "raison : rien n’avait échoué. L’échantillon se rend dans le except seulement ; un "
                                  "return dans finally, ou après le try, prend la place de celui de la réponse.",
        "model.answer_as_text": "ask renvoie l’Answer écrit en texte, pas l’Answer lui-même : rendez-le tel quel "
                                "(ce que rend model_answer, fourni) ; son recorded dit d’où vient le texte.",
        "model.text_marked_recorded": "ask renvoie bien le texte du modèle, mais marqué comme l’échantillon enregistré : recorded dit d’où vient le texte.",
        "model.sample_not_marked": "ask renvoie bien l’échantillon, mais sans le marquer comme enregistré : recorded dit d’où vient le texte.",
        "model.bare_text": "ask renvoie l’échantillon seul, un texte, au lieu d’un Answer : son recorded dit d’où vient le texte.",
        "model.bare_model_text": "ask renvoie le texte du modèle seul, une chaîne, sans dire d’où il vient : comme "
                                 "model.js rend {{ texte, enregistre: false }}, ask rend un Answer marqué comme venant "
                                 "du modèle (model_answer, fourni, lit la réponse ainsi).",
        "model.no_request": "Aucune requête n’est arrivée au modèle de l’adresse AI_URL : ce qu’ask a affiché, "
                            "ci-dessous, dit pourquoi.",
        "model.never_awaited": "Aucune requête n’est partie : ask a reçu une coroutine (d’AsyncOpenAI, ou d’une "
                               "fonction async def) sans jamais l’attendre (« was never awaited »). ask n’est pas "
                               "async : prenez openai.OpenAI, qui attend lui-même la réponse.",
        "model.returned_untried": "Aucune requête n’est arrivée au modèle de l’adresse AI_URL, qui pouvait répondre, "
                                  "et ask n’a rien affiché : il a rendu « {text} » sans le demander au modèle.",
        "model.address_as_test": "Aucune requête n’est arrivée au modèle de l’adresse AI_URL, qui pouvait répondre : "
                                 "ask teste ce que rend check_model_address (fourni), qui ne rend rien (None). Il lève "
                                 "une erreur quand rien ne répond, sinon la requête part : appelez-le seul, sans if.",
        "model.stale_settings": "Aucune requête n’est arrivée au modèle de l’adresse AI_URL : ask a pris l’adresse "
                                "d’un appel précédent (ci-dessous, celle du port refusé, le premier cas). Lisez les "
                                "réglages dans ask, à chaque appel (model_settings()), pas une fois pour toutes.",
        "model.request_differs": "La requête n’est pas celle de la leçon ; ce qui diffère : {fields}.",
        "model.sdk_arguments": "Aucune requête n’est partie : le SDK openai a refusé l’appel, car "
                               "client.chat.completions.create demande model= et messages= (les messages reçus par ask) ; "
                               "il en manque un.",
        "model.not_the_sample": "ask ne renvoie pas l’échantillon enregistré.",
        "model.returns_none": "ask renvoie None au lieu d’un Answer : le chemin qu’il a suivi ici finit sans return.",
        "model.fell_back_untried": "Aucune requête n’est arrivée au modèle : ask doit essayer le modèle avant de rendre "
                                   "l’échantillon enregistré.",
        "model.reason_placeholder": "<raison>",
        "model.fallback_line": "ask doit afficher une ligne « Échantillon enregistré : … (<raison>). »",
        "model.fallback_on_stderr": "ask affiche la ligne « Échantillon enregistré : … » sur la sortie d’erreur "
                                    "(stderr) : comme le console.log de model.js, elle va sur la sortie standard, "
                                    "avec les autres lignes du client.",
        "model.reason_lacks": "La raison ne dit pas {words}.",
        "model.waited_too_long": "ask a attendu trop longtemps.",
        "model.retried": "ask a envoyé {count} requêtes au modèle muet : une requête sans réponse à temps n’est pas "
                         "réessayée (le SDK openai réessaie de lui-même, sauf si on le lui interdit).",
        "model.retried_by_hand": "ask a envoyé {count} requêtes au modèle muet : une requête sans réponse à temps "
                                 "n’est pas réessayée. Le SDK ne réessaie pas ici (max_retries=0) : c’est ask qui la "
                                 "renvoie ; après l’échec de la première, la ligne « Échantillon enregistré » suffit.",
        "model.reason_not_given": "La raison « {reason} » n’est pas une de celles que donne why_no_model (fourni) : "
                                  "pour une connexion refusée, il dit « {expected} ».",
        "model.reason_unfilled": "La raison « {reason} » est restée telle qu’écrite, accolades comprises : rien ne "
                                 "l’a remplacée par ce que dit why_no_model (le f devant les guillemets, ou "
                                 ".format(reason=…), oublié).",
        "model.reason_not_given.hint": "Donnez l’erreur à why_no_model (fourni) : il dit pourquoi en quelques mots, "
                                       "dans la langue choisie ; le texte de l’erreur elle-même est celui de la "
                                       "bibliothèque.",
    },
    "en": {
        "model.data.answer": "It can list tools.",
        "model.data.sample": "SAMPLE",
        "model.data.question": "What can this server do?",
        "model.not_loaded": "model.py did not load within {load_seconds} s",
        "model.load_hangs": "model.py does not load within {seconds:g} s: what runs at its import never ends.",
        "model.stopped_before": "The test process stopped before this case.",
        "model.never_answers": "The model accepts the connection but never answers: ask was still waiting after "
                               "{seconds:g} s (AI_TIMEOUT = {timeout:g}): its wait is not bounded by AI_TIMEOUT, which counts "
                               "seconds.",
        "model.ask_hangs": "ask does not return.",
        "model.async_ask": "ask is written async def: calling it returns a coroutine, which does nothing until it is "
                           "awaited. demander (model.js) is async because fetch is; in Python, the openai SDK waits "
                           "for the answer itself: write def ask.",
        "model.address_outside_try": "ask let through the error of check_model_address (given), which says nothing "
                                     "answers at AI_URL: call it inside the try, before the request; the except then "
                                     "hands it to why_no_model, as it does the request's errors.",
        "model.ask_raises": "ask raised an exception instead of answering.",
        "model.narrow_except": ("ask raised an exception instead of answering: “{clause}” takes only the errors it "
                                "names, and this one escapes it. Any error at all leads to the recorded sample."),
        "model.not_its_text": "ask does not return the model's text.",
        "model.whole_response": "ask returns the SDK's whole response (a ChatCompletion), not its text: model_answer "
                                "(given) reads it and returns an Answer.",
        "model.fell_back_on_answer": "The model answered, but ask returned the recorded sample: reading its answer "
                                     "failed (ask printed its reason, below). The text is the content of the first "
                                     "choice's message in the answer.",
        "model.sample_on_answer": "The model answered, but ask returned the recorded sample without printing a "
                                  "reason: nothing had failed. The sample is returned in the except only; a return "
                                  "in finally, or after the try, takes the place of the answer's.",
        "model.answer_as_text": "ask returns the Answer written as a text, not the Answer itself: return it as it is "
                                "(what model_answer, given, returns); its recorded says where the text comes from.",
        "model.text_marked_recorded": "ask returns the model's text, but marked as the recorded sample: recorded says where the text comes from.",
        "model.sample_not_marked": "ask returns the sample, but does not mark it as recorded: recorded says where the text comes from.",
        "model.bare_text": "ask returns the sample alone, a string, instead of an Answer: its recorded says where the text comes from.",
        "model.bare_model_text": "ask returns the model's text alone, a string, without saying where it comes from: "
                                 "as model.js returns {{ texte, enregistre: false }}, ask returns an Answer marked as "
                                 "coming from the model (model_answer, given, reads the response that way).",
        "model.no_request": "No request reached the model at the address AI_URL: what ask printed, below, says "
                            "why.",
        "model.never_awaited": "No request left: ask got a coroutine (from AsyncOpenAI, or from an async "
                               "def function) and never awaited it (“was never awaited”). ask is not async: take "
                               "openai.OpenAI, which waits for the answer itself.",
        "model.returned_untried": "No request reached the model at the address AI_URL, which could answer, and ask "
                                  "printed nothing: it returned “{text}” without asking the model.",
        "model.address_as_test": "No request reached the model at the address AI_URL, which could answer: ask tests "
                                 "what check_model_address (given) returns, which is nothing (None). It raises an error "
                                 "when nothing answers, else the request goes: call it alone, with no if.",
        "model.stale_settings": "No request reached the model at the address AI_URL: ask used the address of an "
                                "earlier call (below, the refused port's, the first case). Read the settings in ask, "
                                "at each call (model_settings()), not once for all.",
        "model.request_differs": "The request is not the lesson's; what differs: {fields}.",
        "model.sdk_arguments": "No request left: the openai SDK refused the call, as "
                               "client.chat.completions.create needs model= and messages= (the messages ask got); one "
                               "is missing.",
        "model.not_the_sample": "ask does not return the recorded sample.",
        "model.returns_none": "ask returns None instead of an Answer: the path it took here ends without a return.",
        "model.fell_back_untried": "No request reached the model: ask must try the model before it returns the recorded "
                                   "sample.",
        "model.reason_placeholder": "<reason>",
        "model.fallback_line": "ask must print one line “Recorded sample: … (<reason>).”",
        "model.fallback_on_stderr": "ask prints the “Recorded sample: …” line on the error output (stderr): like "
                                    "model.js's console.log, it belongs on standard output, with the client's other "
                                    "lines.",
        "model.reason_lacks": "The reason does not say {words}.",
        "model.waited_too_long": "ask waited too long.",
        "model.retried": "ask sent {count} requests to the silent model: a request with no answer in time is not "
                         "retried (the openai SDK retries on its own unless told not to).",
        "model.retried_by_hand": "ask sent {count} requests to the silent model: a request with no answer in time is "
                                 "not retried. The SDK does not retry here (max_retries=0): ask sends it again; once "
                                 "the first has failed, the “Recorded sample” line is all there is to do.",
        "model.reason_not_given": "The reason “{reason}” is not one why_no_model (given) gives: for a refused "
                                  "connection it says “{expected}”.",
        "model.reason_unfilled": "The reason “{reason}” stayed as written, braces and all: nothing replaced it with "
                                 "what why_no_model says (the f before the quotes, or .format(reason=…), forgotten).",
        "model.reason_not_given.hint": "Hand the error to why_no_model (given): it says why in a few words, in the "
                                       "chosen language; the error's own text is the library's.",
    },
}

# The cases' data, in the run's language (one language per run, test data included).
MODEL_TEXTS = own_words(REASONS, "model.data.answer")
SAMPLES = own_words(REASONS, "model.data.sample")
QUESTIONS = {lang: [{"role": "user", "content": question}] for lang, question in own_words(REASONS, "model.data.question").items()}
