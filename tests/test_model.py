"""The model helper (solutions/model.py) against a real local HTTP endpoint."""

from __future__ import annotations

import time
from typing import Any

import pytest

from conftest import refused_url
from lab.checks.reference import load

model = load("model")

MESSAGES = [{"role": "user", "content": "Bonjour"}]
SAMPLE = "Il peut lister des outils."


def ask_timed(**kwargs: Any) -> tuple[Any, float]:
    started = time.monotonic()
    answer = model.ask(MESSAGES, SAMPLE, **kwargs)
    return answer, time.monotonic() - started


def test_a_model_that_answers_gives_its_text(clean_env: pytest.MonkeyPatch, fake_model: Any) -> None:
    endpoint = fake_model()
    clean_env.setenv("AI_URL", endpoint.url)
    answer, _ = ask_timed()
    assert answer == ("Il liste des outils.", False)
    assert (answer.text, answer.recorded) == ("Il liste des outils.", False)


def test_the_request_carries_url_key_model_and_max_tokens(clean_env: pytest.MonkeyPatch, fake_model: Any) -> None:
    endpoint = fake_model()
    clean_env.setenv("AI_URL", endpoint.url + "/")
    clean_env.setenv("AI_KEY", "secret-key")
    clean_env.setenv("AI_MODEL", "tiny")
    model.ask(MESSAGES, SAMPLE, max_tokens=60)
    [sent] = endpoint.requests
    assert sent["path"] == "/v1/chat/completions"
    assert sent["headers"]["authorization"] == "Bearer secret-key"
    assert (sent["json"]["model"], sent["json"]["max_tokens"], sent["json"]["messages"]) == ("tiny", 60, MESSAGES)


def test_defaults_are_key_lab_model_lab_80_tokens_and_v1_is_not_doubled(
    clean_env: pytest.MonkeyPatch, fake_model: Any
) -> None:
    endpoint = fake_model()
    clean_env.setenv("AI_URL", endpoint.url + "/v1")
    model.ask(MESSAGES, SAMPLE)
    [sent] = endpoint.requests
    assert sent["path"] == "/v1/chat/completions"
    assert sent["headers"]["authorization"] == "Bearer lab"
    assert (sent["json"]["model"], sent["json"]["max_tokens"]) == ("lab", 80)


def test_settings_come_from_a_dotenv_file_but_the_environment_wins(
    clean_env: pytest.MonkeyPatch, fake_model: Any, tmp_path: Any
) -> None:
    endpoint = fake_model()
    (tmp_path / ".env").write_text(f"AI_URL={endpoint.url}\nAI_MODEL=from-dotenv\nAI_KEY=from-dotenv\n")
    clean_env.setenv("AI_KEY", "from-environment")
    model.ask(MESSAGES, SAMPLE)
    [sent] = endpoint.requests
    assert sent["json"]["model"] == "from-dotenv"
    assert sent["headers"]["authorization"] == "Bearer from-environment"


FAILURES = {
    "http-500": ({"status": 500, "body": {"error": {"message": "boom"}}}, "statut HTTP 500"),
    "http-401": ({"status": 401, "body": {"error": {"message": "bad key"}}}, "statut HTTP 401"),
    "malformed-json": ({"body": b"{not json"}, "réponse illisible"),
    "empty-choices": ({"body": {"id": "x", "object": "chat.completion", "created": 0, "model": "lab", "choices": []}},
                      "réponse sans texte"),
    "slow": ({"delay": 4.0}, "pas de réponse en 1 s"),  # past the bound below: a timeout not kept fails
}


@pytest.mark.parametrize("kind", FAILURES)
def test_each_failure_gives_the_sample_with_the_reason_within_the_timeout(
    kind: str, clean_env: pytest.MonkeyPatch, fake_model: Any, capsys: pytest.CaptureFixture
) -> None:
    behaviour, reason = FAILURES[kind]
    clean_env.setenv("AI_URL", fake_model(**behaviour).url)
    clean_env.setenv("AI_TIMEOUT", "1")
    answer, seconds = ask_timed()
    assert answer == (SAMPLE, True)
    assert capsys.readouterr().out == f"Échantillon enregistré : aucun modèle n’a répondu ({reason}).\n"
    assert seconds < 3 * 1  # AI_TIMEOUT bounds every wait


@pytest.mark.parametrize(
    "url, reason",
    [
        (None, "connexion refusée par 127.0.0.1:{port}"),
        ("http://lab-model.invalid:4000", "hôte inconnu : lab-model.invalid"),
        ("", "AI_URL invalide : ''"),
        ("ftp://ai:4000", "AI_URL invalide : 'ftp://ai:4000'"),
    ],
    ids=["refused-port", "unknown-host", "empty-url", "not-http"],
)
def test_no_model_at_all_gives_the_sample_with_the_reason(
    url: str | None, reason: str, clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    refused = refused_url()
    clean_env.setenv("AI_URL", url if url is not None else refused)
    clean_env.setenv("AI_TIMEOUT", "2")
    answer, seconds = ask_timed()
    assert answer == (SAMPLE, True)
    expected = reason.format(port=refused.rsplit(":", 1)[1])
    assert capsys.readouterr().out == f"Échantillon enregistré : aucun modèle n’a répondu ({expected}).\n"
    assert seconds < 3 * 2  # AI_TIMEOUT bounds every wait


def test_the_fallback_line_speaks_english_too(clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    clean_env.setenv("AI_URL", refused_url())
    clean_env.setenv("LAB_LANG", "en")
    assert model.ask(MESSAGES, SAMPLE).recorded is True
    assert capsys.readouterr().out.startswith("Recorded sample: no model answered (connection refused by 127.0.0.1:")


def test_a_bad_timeout_setting_is_a_reason_not_a_crash(
    clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    clean_env.setenv("AI_URL", refused_url())
    clean_env.setenv("AI_TIMEOUT", "soon")
    assert model.ask(MESSAGES, SAMPLE) == (SAMPLE, True)
    assert capsys.readouterr().out == "Échantillon enregistré : aucun modèle n’a répondu (AI_TIMEOUT invalide : 'soon').\n"


def test_the_sdks_own_error_for_an_unknown_host_reads_as_unknown_host(clean_env: pytest.MonkeyPatch) -> None:
    """A student's ask that skips the optional quick check meets the unknown host inside the
    openai SDK: the given why_no_model still names the cause."""
    import openai

    given = load("model_setup")
    clean_env.setenv("AI_URL", "http://no-such-host.invalid:4000")
    settings = given.model_settings()
    client = openai.OpenAI(base_url=settings.url, api_key="lab", timeout=5, max_retries=0)
    with pytest.raises(openai.APIConnectionError) as raised:
        client.chat.completions.create(model="lab", messages=MESSAGES, max_tokens=5)
    assert given.why_no_model(raised.value, settings) == "hôte inconnu : no-such-host.invalid"


def test_the_sdks_refusal_of_a_setting_is_said_as_it_is_not_as_an_answer_without_text(
        clean_env: pytest.MonkeyPatch) -> None:
    """A helper that forgets its key, or passes AI_TIMEOUT as text, meets an error inside the SDK
    before any request: the given why_no_model gives the SDK's own words (issue 34's walk), not
    "unreadable answer" or "answer with no text", which would send the student to the wrong line."""
    import openai

    given = load("model_setup")
    clean_env.setenv("AI_URL", refused_url())
    clean_env.delenv("OPENAI_API_KEY", raising=False)
    settings = given.model_settings()
    with pytest.raises(openai.OpenAIError) as no_key:
        openai.OpenAI(base_url=settings.url, timeout=5, max_retries=0)
    assert given.why_no_model(no_key.value, settings) == str(no_key.value)[:200]
    with pytest.raises(TypeError) as text_timeout:  # refused when the client is made, or when it sends: by version
        client = openai.OpenAI(base_url=settings.url, api_key="lab", timeout="5", max_retries=0)  # type: ignore[arg-type]
        client.chat.completions.create(model="lab", messages=MESSAGES, max_tokens=5)
    assert given.why_no_model(text_timeout.value, settings) == f"TypeError: {text_timeout.value}"[:200]
    with pytest.raises(TypeError) as positional:  # the client's settings given without their names
        openai.OpenAI(settings.url, "lab")  # type: ignore[misc]
    assert given.why_no_model(positional.value, settings) == f"TypeError: {positional.value}"[:200]
    for no_text in ([], None):  # an answer with no choices, or none at all, read by the student's own code
        with pytest.raises((IndexError, TypeError)) as read:
            no_text[0]  # type: ignore[index]
        assert given.why_no_model(read.value, settings) == "réponse sans texte"
