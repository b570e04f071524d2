"""Calls the student's `ask` once per case, in this one process (the openai import is paid once).

Usage: python model_runner.py CASES.json, run in a folder holding the student's model.py.

It writes one JSON line on its stdout once model.py is imported ({"ready": true}, or
{"import": error}), then one per case: what ask returned, what it printed, how long it
took. Each case sets the environment (AI_URL, AI_TIMEOUT, ...) and calls
ask(messages, sample, max_tokens) directly: nothing here limits how long ask waits,
only the student's own code does. The caller reads each line with the case's time
limit and kills this process when one does not come.
"""

import contextlib
import io
import json
import os
import sys
import time
import traceback


def one_line(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}".splitlines()[0][:300]


def student_trace(error: BaseException) -> str:
    """The frames of model.py only, with their code, and the error line."""
    lines = []
    for frame in traceback.extract_tb(error.__traceback__):
        if os.path.basename(frame.filename) == "model.py":
            where = f", in {frame.name}" if frame.name != "<module>" else ""
            lines.append(f"model.py, line {frame.lineno}{where}")
            if frame.line:
                lines.append(f"    {frame.line}")
    return "\n".join(lines + [one_line(error)])


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
    outcome: dict = {"name": case["name"]}
    printed = io.StringIO()
    started = time.monotonic()
    with contextlib.redirect_stdout(printed):
        try:
            text, recorded = answer_parts(ask(case["messages"], case["sample"], case["max_tokens"]))
            outcome.update(text=text if isinstance(text, str) else repr(text),
                           recorded=recorded if isinstance(recorded, bool) else None)
        except BaseException as error:  # SystemExit too: the student's code must not end the run
            outcome.update(error=one_line(error), trace=student_trace(error))
    outcome["seconds"] = round(time.monotonic() - started, 3)
    outcome["printed"] = printed.getvalue()[:4000]
    return outcome


def main() -> None:
    cases = json.loads(open(sys.argv[1], encoding="utf-8").read())
    # Our own channel to the caller; the student's code writing to fd 1 lands on stderr.
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)

    def say(message: dict) -> None:
        channel.write(json.dumps(message, ensure_ascii=False) + "\n")
        channel.flush()

    os.environ.update(cases[0]["env"])  # a helper that reads its settings at import sees the first case's
    sys.path.insert(0, os.getcwd())
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            from model import ask  # the student's model.py, in the current folder
    except BaseException as error:
        say({"import": one_line(error), "trace": student_trace(error)})
        os._exit(0)
    say({"ready": True})
    for case in cases:
        say(run_case(ask, case))
    os._exit(0)  # threads the student's code left waiting end here


if __name__ == "__main__":
    main()
