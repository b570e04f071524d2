"""Calls the student's `ask` once per case, in this one process (the openai import is paid once).

Usage: python model_runner.py, run in a folder holding the student's model.py. It prints
one JSON line when model.py is loaded ({"ready": ID}, or {"import": error}), then reads
one case a line on stdin (the environment to set, the messages, the sample, max_tokens),
calls ask(messages, sample, max_tokens) and prints one JSON line: what came back and what
ask printed, with the case's id. The checks judge from outside: they time each case themselves, give up on a
case that does not answer in time, and read only the line that answers the case they sent.
"""

import contextlib
import io
import json
import os
import sys
import threading
import traceback


def one_line(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}".splitlines()[0][:300]


def full_trace(error: BaseException) -> str:
    """Python's own traceback, as it would print it: the checks trim it to the student's
    files and explain it in the run's language (lab/checks/tracebacks.py)."""
    return "".join(traceback.format_exception(type(error), error, error.__traceback__))[-20000:]


def answer_parts(answer):
    """(text, recorded) from an Answer, a (text, recorded) pair, a dict or a bare string."""
    if hasattr(answer, "text"):
        return answer.text, getattr(answer, "recorded", None)
    if isinstance(answer, (tuple, list)) and len(answer) == 2:
        return answer[0], answer[1]
    if isinstance(answer, dict):
        return answer.get("text", answer.get("texte")), answer.get("recorded", answer.get("enregistre"))
    return answer, None


def run_case(ask, case: dict) -> dict:
    os.environ.update(case["env"])
    outcome: dict = {}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        try:
            text, recorded = answer_parts(ask(case["messages"], case["sample"], case["max_tokens"]))
            outcome.update(text=text if isinstance(text, str) else repr(text),
                           recorded=recorded if isinstance(recorded, bool) else None)
        except BaseException as error:  # SystemExit too: the student's code must not end the run
            outcome.update(error=one_line(error), trace=full_trace(error))
    outcome["printed"] = printed.getvalue()[:4000]
    return outcome


def import_openai_early() -> None:
    """Most helpers import openai, which costs most of this run: start it while the checks
    send the first case (a helper importing it later finds it loaded; ask's timing is
    measured per case, after this)."""
    try:
        import openai  # noqa: F401
    except Exception:
        pass  # not installed, or broken: the helper's own import will say so


def main() -> None:
    threading.Thread(target=import_openai_early, daemon=True).start()
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")  # what ask prints goes to the case's record
    sys.stdout = io.StringIO()

    def say(message: dict) -> None:
        replies.write(json.dumps(message, ensure_ascii=False) + "\n")
        replies.flush()

    first = json.loads(sys.stdin.readline() or "{}")
    os.environ.update(first.get("env", {}))  # a helper that reads its settings at import sees the first case's
    sys.path.insert(0, os.getcwd())
    try:
        from model import ask  # the student's model.py, in the current folder
    except BaseException as error:
        say({"import": one_line(error), "trace": full_trace(error)})
        os._exit(0)
    say({"ready": first.get("id")})
    for line in sys.stdin:
        case = json.loads(line)
        say({**run_case(ask, case), "id": case.get("id")})
    os._exit(0)  # threads left waiting on a slow model end here


if __name__ == "__main__":
    main()
