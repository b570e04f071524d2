"""Calls the functions of the student's written parts directly, for the parts a whole run cannot reach yet.

Usage: python parts_runner.py < cases (JSON), run in a folder holding the student's server.py
and client.py. Until server part 3 (the loop) exists, `python server.py` stops at once, and
until client part 2 exists the client sends nothing: these calls judge parts 1 and 2 all the
same, the way model_runner.py calls the model helper's `ask`.

- server part 1: reply(...) or fail(...) for every reply the reference server gave (the
  checks compare what they write), stdout captured, its flushes counted;
- server part 2: initialize(...) on the lesson's initialize messages, and `state` after each;
- client part 1: scenario().

It prints one JSON line. Each call is {"out": what it wrote, "unflushed": ..., "state": ...}
or {"error": "Type: text", "trace": the frames of the student's file}. Nothing it prints
itself is read from anywhere but that line.
"""

import importlib.util
import io
import json
import os
import sys
import traceback


def one_line(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}".splitlines()[0][:300]


def full_trace(error: BaseException) -> str:
    """Python's own traceback, as it would print it: the checks trim it to the student's
    files and explain it in the run's language (lab/checks/tracebacks.py)."""
    return "".join(traceback.format_exception(type(error), error, error.__traceback__))[-20000:]


class Captured(io.StringIO):
    """sys.stdout during a call: what was written, and how much of it was flushed."""

    def __init__(self) -> None:
        super().__init__()
        self.flushed = 0

    def flush(self) -> None:
        self.flushed = len(self.getvalue())


def fresh(name: str):
    """A new copy of the student's module `name` (its globals, `state` included, as written)."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(os.getcwd(), name + ".py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # `from model import ask` in client.py finds the student's model.py
    spec.loader.exec_module(module)
    return module


def call(function, *args, module=None) -> dict:
    captured = Captured()
    saved = sys.stdout
    sys.stdout = captured
    outcome: dict = {}
    try:
        function(*args)
    except BaseException as error:  # SystemExit too: the student's code must not end the run
        outcome.update(error=one_line(error), trace=full_trace(error))
    finally:
        sys.stdout = saved
    written = captured.getvalue()
    outcome.update(out=written[:4000], unflushed=captured.flushed < len(written))
    if module is not None:
        state = getattr(module, "state", None)
        outcome["state"] = state if isinstance(state, str) else repr(state)[:100]
    return outcome


def loaded(name: str) -> tuple:
    """(module, None), or (None, {"error", "trace"}) when it does not load."""
    saved = sys.stdout
    sys.stdout = io.StringIO()  # what it prints at import is not this runner's line
    try:
        return fresh(name), None
    except BaseException as error:
        return None, {"error": one_line(error), "trace": full_trace(error)}
    finally:
        sys.stdout = saved


def as_call(module, reply: dict) -> tuple:
    """The call of part 1 that should write this reference reply."""
    if "result" in reply:
        return module.reply, reply.get("id"), reply["result"]
    error = reply.get("error", {})
    return (module.fail, reply.get("id"), error.get("code"), error.get("message")) + (
        (error["data"],) if "data" in error else ())


def server_parts(cases: dict) -> dict:
    module, problem = loaded("server")
    if problem:
        return {"import": problem}
    part1 = {name: [call(*as_call(module, reply)) for reply in replies]
             for name, replies in cases["replies"].items()}
    part2 = {}
    for name, messages in cases["initialize"].items():
        module, problem = loaded("server")
        part2[name] = [call(module.initialize, message, module=module) for message in messages] if module else []
    return {"part1": part1, "part2": part2}


def client_part(cases: dict) -> dict:
    module, problem = loaded("client")
    if problem:
        return {"import": problem}
    got: list = []
    outcome = call(lambda: got.append(module.scenario()))
    if "error" not in outcome:
        try:
            outcome["scenario"] = json.loads(json.dumps(got[0]))
        except (TypeError, ValueError) as error:
            outcome.update(error=one_line(error), trace="")
    return outcome


def main() -> None:
    cases = json.loads(sys.stdin.read() or "{}")
    sys.stdin = io.StringIO()  # a module that reads its input at import finds it empty
    sys.path.insert(0, os.getcwd())
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    result = {}
    if os.path.isfile("server.py"):
        result["server"] = server_parts(cases)
    if os.path.isfile("client.py"):
        result["client"] = client_part(cases)
    replies.write(json.dumps(result, ensure_ascii=False) + "\n")
    replies.flush()
    os._exit(0)  # threads a student's module started end here


if __name__ == "__main__":
    main()
