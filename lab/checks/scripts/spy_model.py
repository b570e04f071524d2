"""A spy that stands in for model.py while the student's client is checked.

`ask` sends what it was asked to the checks' spy model (127.0.0.1:LAB_SPY_MODEL_PORT, served
from outside the client's sandbox, which writes it down) and returns the text it answers at
once, so the client is judged on its own, whatever its model.py does.
Any other name the client imports comes from the student's model.py, copied beside
this file as student_model.py.
"""

import json
import os
import socket
from typing import NamedTuple


class Answer(NamedTuple):
    text: str
    recorded: bool


def ask(messages, sample, max_tokens=80):
    call = {"messages": messages, "sample": sample, "max_tokens": max_tokens}
    port = int(os.environ["LAB_SPY_MODEL_PORT"])
    with socket.create_connection(("127.0.0.1", port), timeout=5) as connection:
        connection.sendall(json.dumps(call, ensure_ascii=False, default=repr).encode() + b"\n")
        answer = connection.makefile("rb").readline()
    return Answer(json.loads(answer), False)


def __getattr__(name: str):
    if name.startswith("__"):  # the import system asks for __path__ and such: not the student's
        raise AttributeError(name)
    import student_model

    return getattr(student_model, name)
