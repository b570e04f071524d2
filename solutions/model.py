"""The lesson's model helper (model.js), in Python.

`ask(messages, sample)` asks an OpenAI-compatible endpoint for a short answer. When
no model answers, for whatever reason, it prints one line saying why and returns
the recorded sample instead. It never raises and never waits longer than
AI_TIMEOUT plus one second.

Settings come from the environment, then from a .env file found from the current
directory: AI_URL (http://ai:4000), AI_KEY (lab), AI_MODEL (lab), AI_TIMEOUT (30).
"""

from __future__ import annotations

import os
import socket
import threading
from typing import NamedTuple
from urllib.parse import urlsplit

FALLBACK_LINE = {
    "fr": "Échantillon enregistré : aucun modèle n’a répondu ({reason}).",
    "en": "Recorded sample: no model answered ({reason}).",
}
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
    },
}


class Answer(NamedTuple):
    text: str
    recorded: bool  # True when `text` is the recorded sample, not a model's words


class NoModel(Exception):
    """No model answered; the reason is a key of REASONS plus its fields."""

    def __init__(self, reason: str, **fields: object) -> None:
        super().__init__(reason)
        self.reason = reason
        self.fields = fields

    def describe(self, lang: str) -> str:
        return REASONS[lang][self.reason].format(**self.fields)


def find_env_file() -> str | None:
    """The nearest .env from the current directory up (as python-dotenv's find_dotenv)."""
    folder = os.getcwd()
    while not os.path.isfile(os.path.join(folder, ".env")):
        if os.path.dirname(folder) == folder:
            return None
        folder = os.path.dirname(folder)
    return os.path.join(folder, ".env")


def load_settings() -> dict[str, str]:
    """The environment wins over .env; python-dotenv only fills in what is missing."""
    env_file = find_env_file()
    if env_file:  # python-dotenv is slow to import (it loads logging): only when there is a .env
        from dotenv import load_dotenv

        load_dotenv(env_file)
    return {
        "url": os.environ.get("AI_URL", "http://ai:4000"),
        "key": os.environ.get("AI_KEY", "lab"),
        "model": os.environ.get("AI_MODEL", "lab"),
        "timeout": os.environ.get("AI_TIMEOUT", "30"),
        "lang": "en" if os.environ.get("LAB_LANG", "fr").lower().startswith("en") else "fr",
    }


# ---------------------------------------------------------------- the model helper
def parse_timeout(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        raise NoModel("bad_timeout", value=value) from None
    if not 0 < seconds < float("inf"):
        raise NoModel("bad_timeout", value=value)
    return seconds


def api_base(url: str) -> tuple[str, str, int]:
    """AI_URL plus /v1 (unless present), and the host and port it names."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:  # a port that is not a number, or an unclosed "[" (IPv6)
        raise NoModel("bad_url", value=url) from None
    if port is None:  # not `or`: port 0 is a port (a wrong one), not a missing one
        port = 443 if parts.scheme == "https" else 80
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise NoModel("bad_url", value=url)
    base = url.strip().rstrip("/")
    return (base if base.endswith("/v1") else base + "/v1"), parts.hostname, port


def check_reachable(host: str, port: int, timeout: float) -> None:
    # A plain TCP connect first: with no model around (the classroom's usual
    # case) it fails in a millisecond, before the openai SDK (half a second to
    # import) is even loaded.
    address = f"{host}:{port}"
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except ConnectionRefusedError:
        raise NoModel("refused", address=address) from None
    except (socket.gaierror, UnicodeError):  # UnicodeError: a name no DNS can carry
        raise NoModel("unknown_host", host=host) from None
    except socket.timeout:
        raise NoModel("timeout", seconds=timeout) from None
    except OSError:
        raise NoModel("unreachable", address=address) from None


def complete(messages: list[dict], max_tokens: int, settings: dict[str, str]) -> str:
    """The model's text, or NoModel saying why there is none."""
    # BEGIN SOLUTION model
    # fr: lisez timeout (parse_timeout) et l’adresse (api_base), vérifiez qu’elle répond
    # fr: (check_reachable), puis demandez avec le SDK openai : openai.OpenAI(base_url=…,
    # fr: api_key=settings["key"], timeout=…, max_retries=0).chat.completions.create(model=…,
    # fr: messages=…, max_tokens=…). Tout échec devient NoModel(<raison de REASONS>) ;
    # fr: renvoyez le texte de choices[0].message.content.
    # en: read the timeout (parse_timeout) and the address (api_base), check that it answers
    # en: (check_reachable), then ask with the openai SDK: openai.OpenAI(base_url=…,
    # en: api_key=settings["key"], timeout=…, max_retries=0).chat.completions.create(model=…,
    # en: messages=…, max_tokens=…). Every failure becomes NoModel(<a reason of REASONS>);
    # en: return the text of choices[0].message.content.
    timeout = parse_timeout(settings["timeout"])
    base, host, port = api_base(settings["url"])
    check_reachable(host, port, timeout)

    import openai  # lazily: only once somebody is listening

    # max_retries=0: the SDK's retries would turn a 30 s timeout into 90 s.
    client = openai.OpenAI(
        base_url=base, api_key=settings["key"], timeout=timeout, max_retries=0
    )
    try:
        response = client.chat.completions.create(
            model=settings["model"], messages=messages, max_tokens=max_tokens
        )
    except openai.APITimeoutError:
        raise NoModel("timeout", seconds=timeout) from None
    except openai.APIStatusError as error:
        raise NoModel("status", status=error.status_code) from None
    except openai.APIConnectionError:
        raise NoModel("closed", address=f"{host}:{port}") from None
    except Exception:  # a body that is not the JSON we expect
        raise NoModel("unreadable") from None
    if isinstance(response, str):  # the SDK hands back a body that is not JSON (an HTML page) as text
        raise NoModel("unreadable")
    try:
        text = response.choices[0].message.content
    except (AttributeError, IndexError, TypeError):
        raise NoModel("no_text") from None
    if not isinstance(text, str) or not text.strip():
        raise NoModel("no_text")
    return text.strip()
    # END SOLUTION


def ask(messages: list[dict], sample: str, max_tokens: int = 80) -> Answer:
    """The model's answer, or the recorded sample when no model answers."""
    settings = load_settings()
    outcome: list[object] = []

    def attempt() -> None:
        try:
            outcome.append(complete(messages, max_tokens, settings))
        except NoModel as no_model:
            outcome.append(no_model)
        except Exception:  # never raise to the caller, whatever happens
            outcome.append(NoModel("unreadable"))

    # A hard deadline over everything (name lookup included, which no socket
    # timeout covers): the caller never waits more than AI_TIMEOUT + 1 s.
    try:
        deadline = parse_timeout(settings["timeout"]) + 0.5
    except NoModel:
        deadline = 1.0
    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(deadline)
    result = outcome[0] if outcome else NoModel("timeout", seconds=deadline - 0.5)
    # BEGIN SOLUTION model
    # fr: result est le texte du modèle (str) ou un NoModel. Texte : renvoyez Answer(result,
    # fr: recorded=False). NoModel : affichez la ligne FALLBACK_LINE[settings["lang"]] avec
    # fr: sa raison (result.describe(…)), et renvoyez Answer(sample, recorded=True).
    # en: result is the model's text (str) or a NoModel. Text: return Answer(result,
    # en: recorded=False). NoModel: print the FALLBACK_LINE[settings["lang"]] line with its
    # en: reason (result.describe(…)), and return Answer(sample, recorded=True).
    if isinstance(result, str):
        return Answer(result, recorded=False)
    assert isinstance(result, NoModel)
    print(FALLBACK_LINE[settings["lang"]].format(reason=result.describe(settings["lang"])), flush=True)
    return Answer(sample, recorded=True)
    # END SOLUTION
