"""Shared fixtures and helpers: where the reference files are, the lesson's messages and the
one way to feed lines to a server, a Python child to watch, and a local model endpoint."""

from __future__ import annotations

import importlib.util
import json
import socket
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Iterable, Iterator

import pytest

from lab.process.groups import Child

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "solutions"
REFERENCE_SERVER = SOLUTIONS / "server.py"
sys.path.insert(0, str(Path(__file__).resolve().parent))

from fake_model import FakeModel  # noqa: E402


def load_module(path: Path, name: str) -> ModuleType:
    """Import a student-style file by path, under a unique name."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def request(request_id: Any, method: str, params: Any = None) -> dict:
    message = {"jsonrpc": "2.0", "id": request_id, "method": method}
    return message if params is None else {**message, "params": params}


def initialize(request_id: Any, version: Any = "2024-11-05") -> dict:
    return request(request_id, "initialize", {"protocolVersion": version, "capabilities": {},
                                              "clientInfo": {"name": "t", "version": "1"}})


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def as_lines(messages: Iterable[Any]) -> bytes:
    """What a client writes: each dict as one line of JSON, each str as it is, all ended by a newline."""
    return "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in messages).encode()


def feed_server(data: bytes, server: Path = REFERENCE_SERVER, lang: str = "fr",
                timeout: float = 10) -> subprocess.CompletedProcess[bytes]:
    """A server (the reference by default) run on these bytes until the end of its input ends
    it, with LAB_LANG alone in its environment: nothing of the machine's reaches it."""
    return subprocess.run([sys.executable, str(server)], input=data, capture_output=True, timeout=timeout,
                          env={"LAB_LANG": lang})


def python(code: str) -> Child:
    """A Python child in a session of its own (its group can be killed whole), isolated (-I),
    reading nothing, its stdout and stderr piped: the kit's own child type (lab/process/groups.py)."""
    return Child.new([sys.executable, "-I", "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                     stdin=subprocess.DEVNULL, start_new_session=True)


def refused_url() -> str:
    """A URL on 127.0.0.1 where nothing listens: connecting is refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture
def fake_model() -> Iterator[type[FakeModel]]:
    started: list[FakeModel] = []

    def start(**behaviour: object) -> FakeModel:
        model = FakeModel(**behaviour)
        started.append(model)
        return model

    yield start
    for model in started:
        model.close()


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    """No AI_* or LAB_LANG from the machine, and no .env found from the current directory."""
    for name in ("AI_URL", "AI_KEY", "AI_MODEL", "AI_TIMEOUT", "LAB_LANG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return monkeypatch


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory: pytest.TempPathFactory):
    """The stub engine's list of checks (tests/hostile), which the grading tests grade against."""
    from hostile import stub_catalogue

    return stub_catalogue(tmp_path_factory.mktemp("ref"))


# The slowest module first (one run of the docker classroom: a few minutes cold): with one
# worker per core (pyproject's addopts), the rest of the suite runs beside it, not after it.
SLOWEST_FIRST = ("test_docker_classroom.py",)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.path.name not in SLOWEST_FIRST)  # stable: the rest keeps its order
