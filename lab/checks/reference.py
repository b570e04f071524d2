"""The reference behaviour, computed from solutions/ (never copied into the checks).

The checks compare a student's work with what the reference server answers to
the same lines, and the answers file with what the reference server does.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import threading
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any

SOLUTIONS = Path(__file__).resolve().parents[2] / "solutions"
_loading = threading.Lock()


def load(name: str) -> ModuleType:
    """solutions/<name>.py as a module of its own (`lab_reference_<name>`), loaded once.

    Any solution file works, bonus_server.py included (its `from server import ...` too).
    """
    with _loading:
        return _load(name)


@lru_cache(maxsize=None)
def _load(name: str) -> ModuleType:
    path = SOLUTIONS / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"lab_reference_{name}", path)
    assert spec and spec.loader, path
    module = importlib.util.module_from_spec(spec)
    saved_path, known = list(sys.path), set(sys.modules)
    try:
        spec.loader.exec_module(module)
    finally:
        # client.py puts its folder on sys.path and imports `model` (bonus_server.py imports
        # `server`): undo that here, so that no bare `model` or `server` leaks into the kit.
        sys.path[:] = saved_path
        for name in set(sys.modules) - known:
            if str(getattr(sys.modules[name], "__file__", "") or "").startswith(str(SOLUTIONS)):
                del sys.modules[name]
    return module


def scenario_messages() -> list[dict]:
    """The lesson's seven messages, as the reference client sends them."""
    return [{"jsonrpc": "2.0", **message} for message in load("client").SCENARIO]


def encode_lines(messages: list[Any]) -> bytes:
    return b"".join(
        (m if isinstance(m, bytes) else json.dumps(m, ensure_ascii=False).encode()) + b"\n" for m in messages
    )


def reference_replies(lines: bytes, lang: str) -> list[dict]:
    """What the reference server answers to these lines, in order."""
    server = load("server")
    session = server.Session(lang=lang)
    replies = []
    for line in lines.split(b"\n"):
        reply = session.handle_line(line)
        if reply is not None:
            replies.append(reply)
    return replies


def new_session(lang: str = "fr") -> Any:
    return load("server").Session(lang=lang)
