"""The model helper (solutions/model.py) meets broken gateways and broken settings.

Every case must end with the recorded sample and one readable reason, and no wait
lasts longer than AI_TIMEOUT. The gateways are real sockets on 127.0.0.1 started here.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any, Iterator

import openai  # noqa: F401  imported once here, so its import time (up to a second on a cold
# 2-core machine) is not charged to the first case's 1 s budget: the reasons stay exact.
import pytest

from lab.checks.reference import load

model = load("model")

MESSAGES = [{"role": "user", "content": "Bonjour"}]
SAMPLE = "Il peut lister des outils."
AI_TIMEOUT = 1.0
TRICKLED = 12  # bytes the trickling gateway sends, one every 0.2 s, before it closes
HTML = b"<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>"


class Gateway:
    """A TCP listener on 127.0.0.1 that misbehaves in one way with every connection.

    `hold`: accepts and never answers. `close`: reads the request, then closes.
    `trickle`: answers one byte every 0.2 s (TRICKLED of them), so that no single read times out.
    """

    def __init__(self, behaviour: str) -> None:
        self.behaviour = behaviour
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.held: list[socket.socket] = []
        threading.Thread(target=self.accept_forever, daemon=True).start()

    def accept_forever(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:  # closed by the test
                return
            if self.behaviour == "hold":
                self.held.append(connection)
                continue
            threading.Thread(target=self.answer, args=(connection,), daemon=True).start()

    def answer(self, connection: socket.socket) -> None:
        connection.settimeout(AI_TIMEOUT * 5)
        try:
            connection.recv(1 << 16)
            if self.behaviour == "trickle":
                for byte in b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 999\r\n\r\n{"[:TRICKLED]:
                    connection.sendall(bytes([byte]))
                    time.sleep(0.2)
        except OSError:
            pass  # the client gave up first
        connection.close()

    def close(self) -> None:
        self.listener.close()
        for connection in self.held:
            connection.close()


@pytest.fixture
def gateway() -> Iterator[Any]:
    started: list[Gateway] = []

    def start(behaviour: str) -> Gateway:
        started.append(Gateway(behaviour))
        return started[-1]

    yield start
    for each in started:
        each.close()


def ask_timed() -> tuple[Any, float]:
    started = time.monotonic()
    answer = model.ask(MESSAGES, SAMPLE)
    return answer, time.monotonic() - started


def fallback_line(reason: str, lang: str = "fr") -> str:
    return model.TEXTS[lang]["fallback"].format(reason=reason) + "\n"


def test_a_gateway_that_accepts_and_never_answers_times_out(
    clean_env: pytest.MonkeyPatch, gateway: Any, capsys: pytest.CaptureFixture
) -> None:
    clean_env.setenv("AI_URL", gateway("hold").url)
    clean_env.setenv("AI_TIMEOUT", "1")
    answer, seconds = ask_timed()
    assert answer == (SAMPLE, True)
    assert capsys.readouterr().out == fallback_line("pas de réponse en 1 s")
    assert seconds > AI_TIMEOUT - 0.1  # waited for the timeout; the reason above says it stopped the call


def test_a_gateway_that_closes_the_connection_is_named(
    clean_env: pytest.MonkeyPatch, gateway: Any, capsys: pytest.CaptureFixture
) -> None:
    closing = gateway("close")
    clean_env.setenv("AI_URL", closing.url)
    clean_env.setenv("AI_TIMEOUT", "1")
    answer, _ = ask_timed()
    assert answer == (SAMPLE, True)
    assert capsys.readouterr().out == fallback_line(f"connexion fermée par 127.0.0.1:{closing.port}")


def test_a_gateway_that_trickles_its_answer_holds_the_helper_only_while_bytes_come(
    clean_env: pytest.MonkeyPatch, gateway: Any, capsys: pytest.CaptureFixture
) -> None:
    # AI_TIMEOUT bounds each wait of the openai SDK (connect, each read), as the lesson's
    # helper hands it over: a gateway that sends a byte every 0.2 s keeps the call going
    # until it stops (here after 12 bytes, then it closes), never longer.
    trickling = gateway("trickle")
    clean_env.setenv("AI_URL", trickling.url)
    clean_env.setenv("AI_TIMEOUT", "1")
    answer, seconds = ask_timed()
    assert answer == (SAMPLE, True)
    assert capsys.readouterr().out == fallback_line(f"connexion fermée par 127.0.0.1:{trickling.port}")
    assert seconds > TRICKLED * 0.2 - 0.5 > AI_TIMEOUT  # past AI_TIMEOUT while bytes came; ended by the close, not a timeout


@pytest.mark.parametrize(
    "status, reason",
    [(200, "réponse illisible"), (502, "statut HTTP 502")],
    ids=["html-200", "html-502"],
)
def test_a_gateway_that_answers_with_html_is_no_model(
    status: int, reason: str, clean_env: pytest.MonkeyPatch, fake_model: Any, capsys: pytest.CaptureFixture
) -> None:
    # A proxy's error page, or a web server where the model should be.
    endpoint = fake_model(status=status, body=HTML, content_type="text/html; charset=utf-8")
    clean_env.setenv("AI_URL", endpoint.url)
    clean_env.setenv("AI_TIMEOUT", "1")
    answer, seconds = ask_timed()
    assert answer == (SAMPLE, True)
    assert capsys.readouterr().out == fallback_line(reason)
    assert len(endpoint.requests) == 1


@pytest.mark.parametrize(
    "url, reason",
    [
        ("", "AI_URL invalide : ''"),
        ("   ", "AI_URL invalide : '   '"),
        ("not a url", "AI_URL invalide : 'not a url'"),
        ("ai:4000", "AI_URL invalide : 'ai:4000'"),
        ("http://", "AI_URL invalide : 'http://'"),
        ("http://:4000", "AI_URL invalide : 'http://:4000'"),
        ("http://ai:port", "AI_URL invalide : 'http://ai:port'"),
        ("http://ai:99999", "AI_URL invalide : 'http://ai:99999'"),
        ("http://[::1:4000", "AI_URL invalide : 'http://[::1:4000'"),
        ("http://" + "a" * 70 + ".invalid:4000", "hôte inconnu : " + "a" * 70 + ".invalid"),
    ],
    ids=["empty", "blank", "words", "no-scheme", "no-host", "port-without-host", "port-not-a-number",
         "port-out-of-range", "unclosed-ipv6-bracket", "label-too-long-for-dns"],
)
def test_a_malformed_or_empty_ai_url_is_a_reason_not_a_crash(
    url: str, reason: str, clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    clean_env.setenv("AI_URL", url)
    clean_env.setenv("AI_TIMEOUT", "1")
    answer, seconds = ask_timed()
    assert answer == (SAMPLE, True)
    assert capsys.readouterr().out == fallback_line(reason)


def test_port_zero_is_tried_not_replaced_by_80(clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    clean_env.setenv("AI_URL", "http://127.0.0.1:0")
    clean_env.setenv("AI_TIMEOUT", "1")
    answer, _ = ask_timed()
    assert answer == (SAMPLE, True)
    assert capsys.readouterr().out == fallback_line("connexion refusée par 127.0.0.1:0")


def test_the_reasons_read_in_english_too(
    clean_env: pytest.MonkeyPatch, gateway: Any, capsys: pytest.CaptureFixture
) -> None:
    clean_env.setenv("LAB_LANG", "en")
    clean_env.setenv("AI_TIMEOUT", "1")
    clean_env.setenv("AI_URL", gateway("hold").url)
    assert model.ask(MESSAGES, SAMPLE).recorded is True
    clean_env.setenv("AI_URL", "http://[::1")
    assert model.ask(MESSAGES, SAMPLE).recorded is True
    assert capsys.readouterr().out == (
        fallback_line("no answer within 1 s", "en") + fallback_line("invalid AI_URL: 'http://[::1'", "en")
    )
