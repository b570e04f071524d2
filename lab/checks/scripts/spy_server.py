"""A spy that stands in for the student's server.py while their client is checked.

It answers exactly like the reference server (solutions/server.py, loaded from
LAB_REFERENCE_SERVER) and writes down, one JSON object a line in LAB_SPY_LOG, every
line it receives ({"in": ...}), every reply it sends ({"out": ...}) and the end of
its input ({"eof": true}). It never outlives LIFETIME seconds.
"""

import importlib.util
import json
import os
import sys
import threading

LIFETIME = 20.0


def main() -> None:
    timer = threading.Timer(LIFETIME, os._exit, (3,))  # never outlive a killed client
    timer.daemon = True
    timer.start()
    path = os.environ["LAB_REFERENCE_SERVER"]
    sys.path.insert(0, os.path.dirname(path))  # its plumbing.py, from the reference's folder
    spec = importlib.util.spec_from_file_location("lab_reference_server", path)
    reference = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reference)
    with open(os.environ["LAB_SPY_LOG"], "a", encoding="utf-8") as log:

        def record(kind: str, value: object) -> None:
            log.write(json.dumps({kind: value}, ensure_ascii=False) + "\n")
            log.flush()

        def send(message: dict) -> None:  # the reference's own send, written down on the way
            reply = {"jsonrpc": "2.0", **message}
            record("out", reply)
            sys.stdout.buffer.write(json.dumps(reply, ensure_ascii=False).encode("utf-8", "backslashreplace") + b"\n")
            sys.stdout.buffer.flush()

        reference.send = send
        try:
            for raw in sys.stdin.buffer:
                record("in", raw.decode("utf-8", errors="replace").rstrip("\r\n"))
                reference.on_line(raw.decode("utf-8", "surrogateescape"))
        except BrokenPipeError:
            pass
        record("eof", True)
    os._exit(0)


if __name__ == "__main__":
    main()
