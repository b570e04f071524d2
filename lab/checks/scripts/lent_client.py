"""Runs the student's client.py with client part 1 lent: scenario() gives the lesson's seven
messages (lab_lent_scenario.json, written beside by the kit).

Usage: python lent_client.py, run in a folder holding the student's client.py. When the
student's scenario() is not the lesson's (ids counted from 0, say), parts 2 and 3 are judged on
this run: one mistake costs part 1's checks, not the whole client's. Everything else is the
student's: main, which sends, reads, closes and asks, as `python client.py` runs it.
"""

import copy
import importlib.util
import json
import os
import sys


def main() -> None:
    with open("lab_lent_scenario.json", encoding="utf-8") as file:
        messages = json.load(file)
    spec = importlib.util.spec_from_file_location("client", os.path.join(os.getcwd(), "client.py"))
    client = importlib.util.module_from_spec(spec)
    sys.modules["client"] = client
    spec.loader.exec_module(client)
    client.scenario = lambda: copy.deepcopy(messages)
    run_client = getattr(client, "run_client", None)  # given (server_replies): the client's own exit code
    sys.exit(run_client(client.main) if callable(run_client) else client.main())


if __name__ == "__main__":
    main()
