"""Calls the student's `ask` once per case, in this one process (the openai import is paid once).

Usage: python model_runner.py CASES.json RESULTS.json, run in a folder holding the
student's model.py. Each case sets the environment (AI_URL, AI_TIMEOUT, ...), calls
ask(messages, sample, max_tokens) in a thread with a time limit, and writes down what
came back, what was printed, and how long it took. RESULTS.json is rewritten after
each case, so a crash still leaves the cases before it. A case whose ask never
returns ends the run: the later cases are marked the same.
"""

import contextlib
import io
import json
import os
import sys
import threading
import time


def one_line(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}".splitlines()[0][:300]


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

    def call() -> None:
        try:
            text, recorded = answer_parts(ask(case["messages"], case["sample"], case["max_tokens"]))
            outcome.update(text=text if isinstance(text, str) else repr(text),
                           recorded=recorded if isinstance(recorded, bool) else None)
        except BaseException as error:  # SystemExit too: the student's code must not end the run
            outcome["error"] = one_line(error)

    started = time.monotonic()
    with contextlib.redirect_stdout(printed):
        worker = threading.Thread(target=call, daemon=True)
        worker.start()
        worker.join(case["limit"])
    outcome["seconds"] = round(time.monotonic() - started, 3)
    outcome["hung"] = worker.is_alive()
    outcome["printed"] = printed.getvalue()[:4000]
    return outcome


def main() -> None:
    cases_file, results_file = sys.argv[1], sys.argv[2]
    cases = json.loads(open(cases_file, encoding="utf-8").read())
    results: dict = {}

    def save() -> None:
        with open(results_file, "w", encoding="utf-8") as out:
            json.dump(results, out, ensure_ascii=False)

    os.environ.update(cases[0]["env"])  # a helper that reads its settings at import sees the first case's
    sys.path.insert(0, os.getcwd())
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            from model import ask  # the student's model.py, in the current folder
    except BaseException as error:
        results["import"] = one_line(error)
        save()
        os._exit(0)
    for case in cases:
        outcome = run_case(ask, case)
        results[case["name"]] = outcome
        if outcome["hung"]:  # an ask that never returns would hang every case: stop here
            results.update({later["name"]: outcome for later in cases if later["name"] not in results})
        save()
        if outcome["hung"]:
            break
    os._exit(0)  # threads left waiting on a slow model end here


if __name__ == "__main__":
    main()
