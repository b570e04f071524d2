"""Fourni : les réglages du modèle, et pourquoi aucun modèle n’a répondu, pour model.py.
Servez-vous-en ; ne le modifiez pas. model.py appelle model_settings, check_model_address et
why_no_model, et rend une Answer ; le reste sert why_no_model.
Given: the model's settings, and why no model answered, for model.py. Use it; do not edit it.
model.py calls model_settings, check_model_address and why_no_model, and returns an Answer;
the rest serves why_no_model.
"""

from __future__ import annotations

import math
import os
import socket
import sys
from typing import NamedTuple
from urllib.parse import urlsplit

REASONS = {
    "fr": {
        "bad_url": "AI_URL invalide : {value!r}",
        "bad_timeout": "AI_TIMEOUT invalide : {value!r}",
        "refused": "connexion refusée par {address}",
        "unknown_host": "hôte inconnu : {host}",
        "unreachable": "{address} injoignable",
        "timeout": "pas de réponse en {seconds:g} s",
        "closed": "connexion fermée par {address}",
        "status": "statut HTTP {status}",
        "unreadable": "réponse illisible",
        "no_text": "réponse sans texte",
        "other": "{error}",
    },
    "en": {
        "bad_url": "invalid AI_URL: {value!r}",
        "bad_timeout": "invalid AI_TIMEOUT: {value!r}",
        "refused": "connection refused by {address}",
        "unknown_host": "unknown host: {host}",
        "unreachable": "{address} unreachable",
        "timeout": "no answer within {seconds:g} s",
        "closed": "connection closed by {address}",
        "status": "HTTP status {status}",
        "unreadable": "unreadable answer",
        "no_text": "answer with no text",
        "other": "{error}",
    },
}


class Answer(NamedTuple):
    text: str
    recorded: bool  # True : `text` est l’échantillon enregistré / the recorded sample, not a model's words


class NoModel(Exception):
    """Aucun modèle n’a répondu : une clé de REASONS et ses champs.
    No model answered: a key of REASONS, and its fields."""

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
        number = float(text)
    except ValueError:
        return math.nan
    return number if 0 < number < math.inf else math.nan


def model_settings() -> Settings:
    """fr : AI_URL (http://ai:4000), AI_KEY (lab), AI_MODEL (lab), AI_TIMEOUT (30), LAB_LANG (fr) :
    l’environnement d’abord, puis le fichier .env le plus proche pour ce qui y manque.
    en: the same settings, from the environment, then the nearest .env file for what it lacks."""
    try:
        from dotenv import find_dotenv, load_dotenv
    except ImportError:  # no python-dotenv here: the environment alone
        pass
    else:
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
    """fr : lève NoModel tout de suite quand un réglage est faux ou que rien n’écoute à AI_URL.
    en: raises NoModel at once when the settings are wrong or nothing listens at AI_URL."""
    # fr : une simple connexion : sans modèle (le cas courant en classe), elle échoue en une
    # milliseconde, avant même de charger le SDK openai (une demi-seconde).
    # en: a plain TCP connection: with no model around (a classroom's usual case) it fails in a
    # millisecond, before the openai SDK (half a second to import) is even loaded.
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
    """fr : pourquoi aucun modèle n’a répondu, en quelques mots, dans la langue des réglages.
    en: why no model answered, in a few words, in the settings' language."""
    found = reason_of(error, settings)
    return REASONS[settings.lang][found.reason].format(**found.fields)


# Sous le capot : rien à lire ici pour la leçon ; chaque erreur possible de la requête devient
# une raison de REASONS. / Under the hood: nothing to read here for the lesson; each error the
# request may raise becomes a reason of REASONS.
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
    if openai and isinstance(error, openai.OpenAIError):
        return NoModel("unreadable")
    if isinstance(error, (IndexError, TypeError)):  # no choices, or no message in them
        return NoModel("no_text")
    if isinstance(error, (AttributeError, KeyError, ValueError)):  # a body that is not the JSON expected
        return NoModel("unreadable")
    return NoModel("other", error=f"{type(error).__name__}: {error}"[:200])
