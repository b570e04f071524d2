"""Calls the student's `ask` once per case, in this one process, and hands back what each call did.

Usage: python model_runner.py, run in a folder holding the student's model.py. It reads one
order a line and answers each with one line, the order's nonce in it:

- {"nonce": N, "prepare": true}: the kit's own imports (openai, when it is installed), done
  whole before model.py runs, so that a helper never meets a half-loaded module and no case's
  time counts them → {"nonce": N, "ready": true};
- {"nonce": N, "load": ENV}: the environment set, model.py imported →
  {"nonce": N, "ready": true}, or {"nonce": N, "error": "Type: text", "trace": ...};
- {"nonce": N, "env": ..., "messages": ..., "sample": ..., "max_tokens": ...}: the environment
  set, ask(messages, sample, max_tokens) called → {"nonce": N, "text": ..., "recorded": ...,
  "printed": what ask printed, "errors": what it printed on sys.stderr}, or "error" and
  "trace" in place of text and recorded.

It judges nothing: the checks, outside the sandbox, send each order with a fresh nonce once
the last one is answered, time each case themselves, give up on one that does not answer in
time, and judge the facts there.
"""

import contextlib
import io
import json
import os
import sys
import traceback

PRINTED_CAP = 4000  # characters of what ask printed, kept
TEXT_CAP = 20000  # characters of the text it returned, kept


def failure(error: BaseException) -> dict:
    """The error in one line, and Python's own traceback as it would print it: the checks trim it
    to the student's files and explain it in the run's language (lab/checks/tracebacks.py)."""
    return {"error": f"{type(error).__name__}: {error}".splitlines()[0][:300],
            "trace": "".join(traceback.format_exception(type(error), error, error.__traceback__))[-20000:]}


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
    printed, errors = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(errors):
        try:
            text, recorded = answer_parts(ask(case["messages"], case["sample"], case["max_tokens"]))
            facts = {"text": (text if isinstance(text, str) else repr(text))[:TEXT_CAP],
                     "recorded": recorded if isinstance(recorded, bool) else None}
        except BaseException as error:  # SystemExit too: the student's code must not end the run
            facts = failure(error)
    facts["printed"] = printed.getvalue()[:PRINTED_CAP]
    facts["errors"] = errors.getvalue()[:PRINTED_CAP]
    return facts


def main() -> None:
    # The orders come on a descriptor of the runner's own, and its answers go out on one:
    # what the student's code reads from 0 finds nothing, what it writes on 1 goes to stderr.
    orders = os.fdopen(os.dup(0), "rb")
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    os.dup2(2, 1)
    sys.stdout = io.StringIO()
    sys.path.insert(0, os.getcwd())
    ask = None
    for line in orders:
        order = json.loads(line)
        if "prepare" in order:
            with contextlib.suppress(Exception):  # not installed, or broken: the helper's own import will say so
                import openai  # noqa: F401
            facts = {"ready": True}
        elif "load" in order:
            os.environ.update(order["load"])  # a helper that reads its settings at import sees the first case's
            try:
                from model import ask  # the student's model.py, in the current folder
                facts = {"ready": True}
            except BaseException as error:
                facts = failure(error)
        else:
            facts = run_case(ask, order)
        answers.write(json.dumps({**facts, "nonce": order["nonce"]}, ensure_ascii=False) + "\n")
        answers.flush()
        if "error" in facts and "load" in order:
            break
    os._exit(0)  # threads left waiting on a slow model end here


if __name__ == "__main__":
    main()
