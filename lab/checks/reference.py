"""The reference behaviour, computed from solutions/ (never copied into the checks): a session
is a fresh copy of the lesson's server module whose `send` collects the replies, fed line by
line through its own `on_line` as its stdio loop does; the accessors give the texts and lists.
"""

from __future__ import annotations

import ast
import contextlib
import errno
import gc
import importlib.util
import json
import os
import stat
import sys
import threading
from functools import lru_cache
from pathlib import Path
from types import CodeType, ModuleType
from typing import Any, Optional

from lab.layout import HELPERS, solutions_dir
from lab.process.student import copy_student_file, read_student_file

SOLUTIONS = solutions_dir()  # in the checkout, or inside the installed package (a wheel)
# The modes of every file and folder the kit writes for student code, whatever the umask and the
# source's modes: when root grades, student code runs as nobody (uid 65534) and must read them.
FILE_MODE, FOLDER_MODE = 0o644, 0o755
HELPER_NAMES = tuple(helper.removesuffix(".py") for helper in HELPERS)
_loading = threading.Lock()


def load(name: str) -> ModuleType:
    """solutions/<name>.py as a module of its own (`lab_reference_<name>`), loaded once."""
    with _loading:
        return _load(name)


@lru_cache(maxsize=None)
def _load(name: str) -> ModuleType:
    return _exec(name, f"lab_reference_{name}")


def _exec(name: str, module_name: str) -> ModuleType:
    """A fresh module from solutions/<name>.py (caller holds _loading); its code compiled once,
    the given modules it imports (no state) loaded once and shared by every session."""
    path = SOLUTIONS / f"{name}.py"
    spec = importlib.util.spec_from_file_location(module_name, path)
    assert spec, path
    module = importlib.util.module_from_spec(spec)
    saved_path, known = list(sys.path), set(sys.modules)
    sys.path.insert(0, str(SOLUTIONS))
    # A given module gets the ones before it (server_replies imports jsonrpc_lines); any other
    # file gets them all.
    for helper in HELPER_NAMES[:HELPER_NAMES.index(name)] if name in HELPER_NAMES else HELPER_NAMES:
        sys.modules[helper] = _load(helper)
    try:
        exec(_compiled(path), module.__dict__)
    finally:
        # Undo the imports of the files beside it, so that no bare `model`, `server` or
        # `jsonrpc_lines` leaks into the kit (a student's file of that name could come next).
        sys.path[:] = saved_path
        for loaded in set(sys.modules) - known:
            if str(getattr(sys.modules[loaded], "__file__", "") or "").startswith(str(SOLUTIONS)):
                del sys.modules[loaded]
    return module


@lru_cache(maxsize=None)
def _compiled(path: Path) -> CodeType:
    return compile(path.read_bytes(), str(path), "exec")


class ReferenceSession:
    """The reference server with its own state: lines in, replies out, no pipes."""

    def __init__(self, lang: str = "fr") -> None:
        shared = load("server")
        with _loading:
            module = _exec("server", "lab_reference_server_session")
        # The values the checks read from load("server") are the ones every session speaks.
        module.VERSIONS, module.TEXTS, module.SERVER_INFO = shared.VERSIONS, shared.TEXTS, shared.SERVER_INFO
        self.module = module
        self.collected: list[dict] = []
        module.TEXT = module.TEXTS[lang]
        module.send = lambda message: self.collected.append({"jsonrpc": "2.0", **message})

    @property
    def state(self) -> str:
        return self.module.state

    def handle_line(self, line: bytes | str) -> Optional[dict]:
        """One line in (as the server's stdin gives it), the reply out (None when nothing is owed)."""
        text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
        self.collected = []
        self.module.on_line(text)
        # What crosses the pipe: JSON text, read back (a tuple would come back a list).
        replies = [json.loads(json.dumps(reply)) for reply in self.collected]
        return replies[0] if len(replies) == 1 else (replies or None)  # type: ignore[return-value]

    def handle(self, message: Any) -> Optional[dict]:
        return self.handle_line(json.dumps(message, ensure_ascii=False))


def new_session(lang: str = "fr") -> ReferenceSession:
    return ReferenceSession(lang)


def scenario_messages() -> list[dict]:
    """The lesson's seven messages, as the reference client sends them."""
    return [{"jsonrpc": "2.0", **message} for message in load("client").scenario()]


def encode_lines(messages: list[Any]) -> bytes:
    return b"".join(
        (m if isinstance(m, bytes) else json.dumps(m, ensure_ascii=False).encode()) + b"\n" for m in messages
    )


def reference_replies(lines: bytes, lang: str, server: str = "server") -> list[dict]:
    """What the reference server (or the bonus one) answers to these lines, in order."""
    session = new_session(lang) if server == "server" else load(server).make_session(lang)
    return [reply for line in lines.split(b"\n") if (reply := session.handle_line(line)) is not None]


# ---------------------------------------------------------------- accessors: the reference's own values


def bonus_versions() -> list[str]:
    return list(load("bonus_server").HANDSHAKE_VERSIONS)


def states() -> list[str]:
    """The server's states in the lesson's words, as a reference session goes through the
    handshake: new, waiting, ready (nouveau, attente, pret)."""
    session = ReferenceSession()
    walked = [session.state]
    session.handle({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                    "params": {"protocolVersion": load("server").VERSIONS[-1], "capabilities": {}}})
    walked.append(session.state)
    session.handle({"jsonrpc": "2.0", "method": "notifications/initialized"})
    return [*walked, session.state]


def server_texts(lang: str) -> dict[str, str]:
    """The server's wire texts in this language (unknown_method is the prefix of the method's name)."""
    return dict(load("server").TEXTS[lang])


def client_sample(lang: str) -> str:
    return load("client").TEXTS[lang]["sample"]


def model_says(lang: str) -> str:
    """The prefix of the client's last line: "le modèle dit : " / "the model says: "."""
    return load("client").TEXTS[lang]["model_says"]


def model_fallback_line(lang: str) -> str:
    return load("model").TEXTS[lang]["fallback"]


def model_reasons(lang: str) -> dict[str, str]:
    return dict(load("model_setup").REASONS[lang])


# CPython 3.11 counts the depth of the AST objects it builds per interpreter: if anything else
# builds some in the middle of a parse, the parse fails with "SystemError: AST constructor
# recursion depth mismatch". A collection run in the middle can do it (a finalizer whose error
# Python prints parses the traceback's line: openai's HTTP client has one), or another check
# thread, given the turn by a finalizer. So no collection during a parse, and one parse at a time.
PARSING = threading.Lock()


def parse_python(source: str | bytes, mode: str = "exec") -> ast.AST:
    with PARSING:
        collecting = gc.isenabled()
        gc.disable()
        try:
            return ast.parse(source, mode=mode)
        finally:
            if collecting:
                gc.enable()


def known_texts(folder: Path, file: str, name: str) -> list[dict]:
    """The tables `name[lang]` (French, English) of the student's `file`, read as text and never
    run: the words of the handout the class works from, which may be an older one than this
    kit's; then this kit's own, in French and English."""
    kits = [getattr(load(file.removesuffix(".py")), name)[lang] for lang in ("fr", "en")]
    try:
        tree = parse_python(read_student_file(folder / file) or b"")
        found = [ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign)
                 and any(isinstance(target, ast.Name) and target.id == name for target in node.targets)]
    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
        return kits
    texts = found[-1] if found and isinstance(found[-1], dict) else {}
    return [table for lang in ("fr", "en") if isinstance(table := texts.get(lang), dict)] + kits


def todo_line(lang: str) -> str:
    return load("jsonrpc_lines").TODO_LINE[lang]


def helper_module(helper: str) -> Path:
    """A given module the student's files import, one of HELPERS (copy it beside them to run them)."""
    if helper not in HELPERS:
        raise ValueError(f"{helper!r} is not a given module: {', '.join(HELPERS)}")
    return SOLUTIONS / helper


def copy_with_given_modules(folder: Path, work: Path) -> None:
    """The student's .py files copied into a check's folder, the kit's copy of each given module
    they lack, and the given modules' bytecode."""
    for source in folder.glob("*.py"):
        copy_student_file(source, work / source.name)
    for helper in HELPERS:
        if not (work / helper).is_file():
            copy_for_student(helper_module(helper), work / helper)
    give_helper_bytecode(work)


def give_helper_bytecode(folder: Path) -> None:
    """Each given module's bytecode in the __pycache__ of a folder the kit made (student processes
    do not write bytecode), hash-checked (PEP 552: an edited copy is compiled as before), and
    written whole or not at all: a truncated .pyc would fail an honest copy's import."""
    for helper in HELPERS:
        target = Path(importlib.util.cache_from_source(str(folder / helper)))
        partial = target.with_name(target.name + ".partial")
        data = helper_bytecode(helper)
        try:  # only a head start: without it, the module is compiled as it is imported
            if not target.parent.is_dir():
                make_folder(target.parent)
            write_for_student(partial, data)
            if partial.read_bytes() != data:
                raise OSError("the given module's bytecode did not read back as written")
            os.replace(partial, target)
        except OSError:
            for path in (partial, target):
                with contextlib.suppress(OSError):
                    path.unlink()


def write_for_student(target: Path | str, data: bytes, executable: bool = False) -> None:
    """`data` as file `target`, of mode FILE_MODE (FOLDER_MODE when `executable`) whatever the
    umask, never written through a link planted at its name."""
    mode = FOLDER_MODE if executable else FILE_MODE
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), mode)
    with os.fdopen(fd, "wb") as handle:
        os.fchmod(fd, mode)
        handle.write(data)


def copy_for_student(source: Path | str, target: Path | str, limit: int = 1 << 30, executable: bool = False) -> int:
    """A regular file (never read through a link), at most `limit` bytes of it, copied as
    write_for_student writes; the bytes copied."""
    with os.fdopen(open_regular(source), "rb") as reader:
        # read(n) allocates n bytes at once: never more than the file holds (a --memory cap)
        data = reader.read(min(limit, os.fstat(reader.fileno()).st_size))
    write_for_student(target, data, executable)
    return len(data)


def make_folder(path: Path | str) -> None:
    """A new folder of mode FOLDER_MODE, whatever the umask."""
    os.mkdir(path, FOLDER_MODE)
    os.chmod(path, FOLDER_MODE)


def open_regular(path: Path | str) -> int:
    """A descriptor on a regular file, opened without following a link (OSError otherwise)."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file", str(path))
    return fd


@lru_cache(maxsize=None)
def helper_bytecode(helper: str) -> bytes:
    """solutions/<helper> compiled by py_compile, hash-checked, named as a student's copy is."""
    import py_compile
    import tempfile

    with tempfile.TemporaryDirectory(prefix="lab-bytecode-") as temp:
        compiled = Path(temp) / "helper.pyc"
        py_compile.compile(str(helper_module(helper)), cfile=str(compiled), dfile=helper, doraise=True,
                           invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
        return compiled.read_bytes()
