"""Fourni : les réglages du modèle, pourquoi aucun modèle n’a répondu, et sa réponse lue, pour model.py ;
facts(capacités), la réponse juste sur les capacités annoncées, pour client.py. Servez-vous-en ; ne le modifiez pas.
Given: the model's settings, why no model answered and its answer read, for model.py; facts(capabilities), the
right answer about the announced capabilities, for client.py. Use it; do not edit it.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import socket
import sys
from typing import NamedTuple
from urllib.parse import urlsplit

REASONS = {
    "fr": {
        "bad_url": "AI_URL invalide : {value!r}", "bad_timeout": "AI_TIMEOUT invalide : {value!r}",
        "refused": "connexion refusée par {address}", "unknown_host": "hôte inconnu : {host}",
        "unreachable": "{address} injoignable",
        "timeout": "pas de réponse en {seconds:g} s",
        "closed": "connexion fermée par {address}", "status": "statut HTTP {status}",
        "unreadable": "réponse illisible", "no_text": "réponse sans texte",
        "other": "{error}",
    },
    "en": {
        "bad_url": "invalid AI_URL: {value!r}", "bad_timeout": "invalid AI_TIMEOUT: {value!r}",
        "refused": "connection refused by {address}", "unknown_host": "unknown host: {host}",
        "unreachable": "{address} unreachable",
        "timeout": "no answer within {seconds:g} s",
        "closed": "connection closed by {address}", "status": "HTTP status {status}",
        "unreadable": "unreadable answer", "no_text": "answer with no text",
        "other": "{error}",
    },
}


class Answer(NamedTuple):
    text: str
    recorded: bool  # True : `text` est l’échantillon enregistré / the recorded sample, not a model's words


class NoModel(Exception):
    """Aucun modèle n’a répondu : une clé de REASONS et ses champs. / No model answered: a key of REASONS."""

    def __init__(self, reason: str, **fields: object) -> None:
        super().__init__(reason)
        self.reason, self.fields = reason, fields


class Settings(NamedTuple):
    url: str  # AI_URL avec /v1 / with /v1 added: the base_url of the openai SDK
    key: str
    model: str
    timeout: float  # secondes / seconds
    lang: str
    raw_url: str  # AI_URL et AI_TIMEOUT tels qu’écrits / as written, for check_model_address
    raw_timeout: str


def seconds(text: str) -> float:
    """Un nombre de secondes positif et fini, sinon NaN. A positive, finite number of seconds, else NaN."""
    try:
        return float(text) if 0 < float(text) < math.inf else math.nan
    except ValueError:  # not a number at all
        return math.nan


def model_settings() -> Settings:
    """fr : AI_URL (http://ai:4000), AI_KEY (lab), AI_MODEL (lab), AI_TIMEOUT (30), LAB_LANG (fr) :
    l’environnement d’abord, puis le fichier .env le plus proche pour ce qui y manque.
    en: the same settings, from the environment, then the nearest .env file for what it lacks."""
    with contextlib.suppress(ImportError):  # no python-dotenv here: the environment alone
        from dotenv import find_dotenv, load_dotenv
        load_dotenv(find_dotenv(usecwd=True))
    get = os.environ.get
    raw_url, raw_timeout = get("AI_URL", "http://ai:4000"), get("AI_TIMEOUT", "30")
    # The same rule as the server's language(), read here so that model.py needs this file only.
    lang = "en" if get("LAB_LANG", "fr").lower().startswith("en") else "fr"
    base, timeout = raw_url.strip().rstrip("/"), seconds(raw_timeout)
    # A wrong AI_TIMEOUT counts as 30 here; check_model_address says it is wrong.
    return Settings(base if base.endswith("/v1") else base + "/v1", get("AI_KEY", "lab"), get("AI_MODEL", "lab"),
                    30.0 if math.isnan(timeout) else timeout, lang, raw_url, raw_timeout)


def check_model_address(settings: Settings) -> None:
    """Lève NoModel tout de suite si un réglage est faux ou que rien n’écoute à AI_URL (en: the same)."""
    # A plain connection: with no model (the usual case in class) it fails before openai even loads.
    timeout = seconds(settings.raw_timeout)
    if math.isnan(timeout):
        raise NoModel("bad_timeout", value=settings.raw_timeout)
    try:
        parts = urlsplit(settings.raw_url.strip())
        host, port = parts.hostname, parts.port
    except ValueError:  # a port that is not a number, or an unclosed "[" (IPv6)
        raise NoModel("bad_url", value=settings.raw_url) from None
    if parts.scheme not in ("http", "https") or not host:
        raise NoModel("bad_url", value=settings.raw_url)
    port = (443 if parts.scheme == "https" else 80) if port is None else port  # port 0 is a port
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except ConnectionRefusedError:
        raise NoModel("refused", address=f"{host}:{port}") from None
    except (socket.gaierror, UnicodeError):  # UnicodeError: a name no DNS can carry
        raise NoModel("unknown_host", host=host) from None
    except socket.timeout:
        raise NoModel("timeout", seconds=timeout) from None
    except OSError:
        raise NoModel("unreachable", address=f"{host}:{port}") from None


def why_no_model(error: BaseException, settings: Settings) -> str:
    """Pourquoi aucun modèle n’a répondu, en quelques mots. / Why no model answered, in a few words."""
    found = reason_of(error, settings)
    return REASONS[settings.lang][found.reason].format(**found.fields)


# Sous le capot : rien à lire ici pour la leçon. / Under the hood: nothing to read for the lesson.
def reason_of(error: BaseException, settings: Settings) -> NoModel:
    openai = sys.modules.get("openai")  # its errors can only come from it once it is imported
    if isinstance(error, NoModel):
        return error
    if openai and isinstance(error, openai.APITimeoutError):
        return NoModel("timeout", seconds=settings.timeout)
    if openai and isinstance(error, openai.APIStatusError):
        return NoModel("status", status=error.status_code)
    if openai and isinstance(error, openai.APIConnectionError):
        url = error.request.url  # where the request went: AI_URL, unless model.py ignored it
        host, address = url.host, f"{url.host}:{url.port or (443 if url.scheme == 'https' else 80)}"
        causes = [error]  # the SDK wraps the socket's own error: it is down this chain
        while len(causes) < 10 and (causes[-1].__cause__ or causes[-1].__context__):
            causes.append(causes[-1].__cause__ or causes[-1].__context__)  # type: ignore[arg-type]
        if any(isinstance(cause, ConnectionRefusedError) for cause in causes):
            return NoModel("refused", address=address)
        if any(isinstance(cause, socket.gaierror) for cause in causes):
            return NoModel("unknown_host", host=host)
        return NoModel("closed", address=address)
    if openai and isinstance(error, openai.OpenAIError):  # an answer it could not read, or a setting it refused
        return NoModel("unreadable") if isinstance(error, openai.APIError) else NoModel("other", error=str(error)[:200])
    if isinstance(error, IndexError) or isinstance(error, TypeError) and "subscriptable" in str(error):
        return NoModel("no_text")  # no choices, or no message in them (any other TypeError says itself)
    if isinstance(error, (AttributeError, KeyError, ValueError)):  # a body that is not the JSON expected
        return NoModel("unreadable")
    return NoModel("other", error=f"{type(error).__name__}: {error}"[:200])


FACTS = {  # the right answer, for a small model to say: asked about the JSON alone, it guesses (docs/docker.md)
    "fr": {"start": "Réponse juste : « Un serveur qui annonce ces capacités ", "end": ". »", "and": " et ",
           "offers": "propose au client {items}", "tools": "des outils d’action", "prompts": "des modèles de prompts",
           "resources": "des ressources de données", "logging": "peut envoyer au client des messages de journal",
           "other": "annonce « {name} », une capacité que ce client ne connaît pas", "then": " ; il ",
           True: ("préviendra le client quand {lists} change", "préviendra le client quand {lists} changent"),
           False: ("ne préviendra pas le client quand {lists} change", "ne préviendra pas le client quand {lists} changent"),
           "all": ("cette liste", "ces listes"), "one": "la liste {name}", "nothing": "Le serveur n’annonce aucune capacité."},
    "en": {"start": "Right answer: \"A server that announces these capabilities ", "end": ".\"", "and": " and ",
           "offers": "offers the client {items}", "tools": "action tools", "prompts": "prompt templates",
           "resources": "data resources", "logging": "can send the client log messages",
           "other": "announces \"{name}\", a capability this client does not know", "then": "; it ",
           True: ("will tell the client when {lists} changes", "will tell the client when {lists} change"),
           False: ("will not tell the client when {lists} changes", "will not tell the client when {lists} change"),
           "all": ("that list", "those lists"), "one": "the list of {name}", "nothing": "The server announces no capability."},
}
LISTS = ("tools", "resources", "prompts")  # the capabilities whose list can change (listChanged)


def facts(capabilities: object, lang: str = "") -> dict:
    """The right answer about `capabilities`, as a system message in `lang` (else LAB_LANG's)."""
    words = FACTS[lang or model_settings().lang]
    announced = capabilities if isinstance(capabilities, dict) else {}
    lists = [name for name in announced if name in LISTS]  # in their order
    said = [words["offers"].format(items=said_and([words[name] for name in lists], words))] if lists else []
    said += [words["logging"] if name == "logging" else words["other"].format(name=name)
             for name in announced if name not in LISTS]
    for flag in (True, False):  # listChanged false or absent: no promise; one statement for all the lists alike
        same = [n for n in lists if (isinstance(announced[n], dict) and announced[n].get("listChanged") is True) is flag]
        said += [words[flag][len(same) > 1].format(lists=words["all"][len(same) > 1] if len(same) == len(lists) else
                 said_and([words["one"].format(name=words[n]) for n in same], words))] if same else []
    return {"role": "system", "content": words["start"] + words["then"].join(said) + words["end"] if said else words["nothing"]}


def said_and(items: list, words: dict) -> str:  # "a, b et c" / "a, b and c"
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + words["and"] + items[-1]


DOUBTS = {
    "fr": {"line": "La phrase ci-dessous peut être fausse ({reasons}) ; l’échantillon enregistré dit : {sample}",
           "missing": "elle ne nomme pas {name}", "what": "elle ne dit pas ce que sont {name}",
           "extra": "elle nomme {name}, que le serveur n’annonce pas",
           "changes": "elle dit que la liste change, ce que listChanged ne promet pas", "cut": "elle a été coupée",
           "language": "elle n’est pas en français", "lines": "elle tenait sur plusieurs lignes", "and": " ; ",
           "tools": "les outils", "resources": "les ressources", "prompts": "les prompts", "logging": "le journal"},
    "en": {"line": "The sentence below may be wrong ({reasons}); the recorded sample says: {sample}",
           "missing": "it does not name {name}", "what": "it does not say what {name} are",
           "extra": "it names {name}, which the server does not announce",
           "changes": "it says the list changes, which listChanged does not promise",
           "language": "it is not in English", "lines": "it was on several lines", "cut": "it was cut", "and": "; ",
           "tools": "tools", "resources": "resources", "prompts": "prompts", "logging": "logging"},
}
NAMED = {"tools": r"outil|tool", "resources": r"ressource|resource", "logging": r"journa|\blogs?\b|logging",
         "prompts": r"prompt|invite|mod[eè]les? de messages?|message templates?"}
WHAT = {"tools": r"action|fonction|function|opération|operation|command",  # with several lists, each must be told apart
        "resources": r"donnée|data|contenu|content|fichier|file|document|information",
        "prompts": r"mod[eè]le|template|gabarit|tout prêt|ready-made"}
CHANGE = r"chang|modifi|évolu|mises? à jour|met à jour|updat"
NEGATION = r"\bne\b|\bn[’']|\bpas\b|\bjamais\b|\bsans\b|\baucun|\bnot\b|n[’']t\b|\bnever\b|\bno\b|\bwithout\b|false"
COMMON = {"fr": {"le", "la", "les", "des", "un", "une", "est", "et", "il", "peut", "que", "qui", "pas", "de", "du"},
          "en": {"the", "a", "is", "and", "it", "can", "that", "which", "not", "of", "its", "will", "to", "has"}}


def model_answer(response: object, messages: list, sample: str, lang: str) -> Answer:
    """A chat completion's text on one line, "…" if cut; if it looks wrong, first a line saying why."""
    choice = response.choices[0]  # type: ignore[attr-defined]
    text, cut = choice.message.content, choice.finish_reason == "length"  # "length": max_tokens reached
    if not text or not text.strip():
        raise IndexError("no text")
    sentence = " ".join(text.split()) + "…" * cut
    capabilities = asked_about(messages)
    reasons = [] if capabilities is None else doubts(sentence, capabilities, lang, "\n" in text.strip(), cut)
    if reasons:
        print(DOUBTS[lang]["line"].format(reasons=DOUBTS[lang]["and"].join(reasons), sample=sample), flush=True)
    return Answer(sentence, recorded=False)


def asked_about(messages: list) -> dict | None:  # the JSON object in the last user message, if any
    content = str(([m.get("content") for m in messages if isinstance(m, dict) and m.get("role") == "user"] or [""])[-1])
    try:
        value = json.JSONDecoder().raw_decode(content, content.index("{"))[0]
    except ValueError:  # no "{", or no JSON object after it
        return None
    return value if isinstance(value, dict) else None


def doubts(sentence: str, capabilities: dict, lang: str, lines: bool, cut: bool) -> list[str]:
    """Why `sentence` may be wrong, judged from the capabilities alone, in `lang`."""
    lower, words = sentence.lower(), DOUBTS[lang]
    reasons = [words["missing" if name in capabilities else "extra"].format(name=words[name])
               for name, pattern in NAMED.items() if (name in capabilities) != bool(re.search(pattern, lower))]
    if sum(name in capabilities for name in LISTS) > 1:
        reasons += [words["what"].format(name=words[name]) for name in LISTS
                    if name in capabilities and re.search(NAMED[name], lower) and not re.search(WHAT[name], lower)]
    promised = [isinstance(v, dict) and v.get("listChanged") is True for k, v in capabilities.items() if k in LISTS]
    if not all(promised) and re.search(CHANGE, lower) and not re.search(NEGATION, lower):
        reasons.append(words["changes"])
    tokens = re.findall(r"[a-zà-ÿ]+", lower)  # the run's language: more of its common words than of the other's
    if sum(t in COMMON[lang] for t in tokens) < sum(t in COMMON["en" if lang == "fr" else "fr"] for t in tokens):
        reasons.append(words["language"])
    return reasons + [words["lines"]] * lines + [words["cut"]] * cut
