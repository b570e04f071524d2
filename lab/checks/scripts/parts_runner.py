"""Calls the functions of a student's file one at a time and hands back what each call did.

Usage: python parts_runner.py, run in a folder holding the student's files, for the parts a
whole run cannot reach yet (until server part 3 exists, `python server.py` stops at once;
until client part 2 exists, the client sends nothing). It reads one order a line and
answers each with one line, the order's nonce in it:

- {"nonce": N, "load": "server"}: a fresh copy of server.py (its globals as written) →
  {"nonce": N, "loaded": true}, or {"nonce": N, "error": "Type: text", "trace": ...}; with
  "lend": true, its send, reply and fail are then the lesson's (lab_lent_parts.py, beside);
- {"nonce": N, "call": "reply", "args": [...]}: reply(*args) on the module loaded last →
  {"nonce": N, "out": what it wrote on stdout, "unflushed": true when some of it was never
  flushed, "returned": what it returned (as JSON), or "unreturnable": why it is not JSON,
  or "error" and "trace" when it raised};
- {"nonce": N, "end": true}: nothing → {"nonce": N, "loaded": true}, after every answer before it.

It judges nothing: the checks do, outside the sandbox (lab/checks/parts.py).
"""

import importlib.util
import io
import json
import os
import sys
import traceback

OUT_CAP = 4000  # characters of what a call wrote, kept
RETURNED_CAP = 60000  # characters of what a call returned, as JSON


def one_line(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}".splitlines()[0][:300]


def full_trace(error: BaseException) -> str:
    """Python's own traceback, as it would print it: the checks trim it to the student's
    files and explain it in the run's language (lab/checks/tracebacks.py)."""
    return "".join(traceback.format_exception(type(error), error, error.__traceback__))[-20000:]


class Captured(io.StringIO):
    """sys.stdout during a call: what was written, and how much of it was flushed; its
    `buffer` takes bytes, as a real stdout's does (UTF-8, the lesson's stdio)."""

    def __init__(self) -> None:
        super().__init__()
        self.flushed = 0
        self.buffer = CapturedBytes(self)

    def flush(self) -> None:
        self.flushed = len(self.getvalue())


class CapturedBytes:
    def __init__(self, text: Captured) -> None:
        self.text = text

    def write(self, data) -> int:
        if not isinstance(data, (bytes, bytearray, memoryview)):  # a str, as the real buffer refuses it
            raise TypeError(f"a bytes-like object is required, not '{type(data).__name__}'")
        self.text.write(bytes(data).decode("utf-8", "replace"))
        return len(data)

    def flush(self) -> None:
        self.text.flush()


def fresh(name: str):
    """A new copy of the student's module `name` (its globals, `state` included, as written)."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(os.getcwd(), name + ".py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # `from model import ask` in client.py finds the student's model.py
    spec.loader.exec_module(module)
    return module


def as_json(value) -> dict:
    try:
        text = json.dumps(value, ensure_ascii=False)
        if len(text) > RETURNED_CAP:
            return {"unreturnable": f"more than {RETURNED_CAP} characters"}
        return {"returned": json.loads(text)}
    except BaseException as error:  # a value JSON cannot write (a set, a cycle, too deep)
        return {"unreturnable": one_line(error)}


def carry_out(order: dict, modules: dict) -> dict:
    captured = Captured()
    sys.stdout = captured
    facts = {}
    try:
        if "end" in order:  # nothing to do: its answer comes after every answer before it
            facts["loaded"] = True
        elif "load" in order:
            modules["last"] = fresh(order["load"])
            if order.get("lend"):  # part 1 lent: send, reply and fail are the lesson's
                from lab_lent_parts import fail, reply, send

                modules["last"].send, modules["last"].reply, modules["last"].fail = send, reply, fail
            facts["loaded"] = True
        else:
            facts.update(as_json(getattr(modules["last"], order["call"])(*order["args"])))
    except BaseException as error:  # SystemExit too: the student's code must not end the run
        facts = {"error": one_line(error), "trace": full_trace(error)}
    finally:
        sys.stdout = io.StringIO()  # a thread of the student's printing later writes nowhere
    written = captured.getvalue()
    if "call" in order:
        facts.update(out=written[:OUT_CAP], unflushed=captured.flushed < len(written))
    return facts


def main() -> None:
    # The orders come on a descriptor of the runner's own, and its answers go out on one:
    # what the student's code reads from 0 finds nothing, what it writes on 1 goes to stderr.
    orders = os.fdopen(os.dup(0), "rb")
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    os.dup2(2, 1)
    sys.stdin = io.StringIO()  # a module that reads its input at import finds it empty
    sys.path.insert(0, os.getcwd())
    modules: dict = {}
    for line in orders:
        order = json.loads(line)
        facts = carry_out(order, modules)
        answers.write(json.dumps({**facts, "nonce": order["nonce"]}, ensure_ascii=False) + "\n")
        answers.flush()
    os._exit(0)  # threads a student's module started end here


if __name__ == "__main__":
    main()
