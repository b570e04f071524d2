"""Stands in for the student's server.py while their client is checked: a dumb relay.

It connects to the spy server of the checks (127.0.0.1:LAB_SPY_SERVER_PORT, served by the
checks from outside the client's sandbox, where the reference server answers and what
arrives is written down), passes its stdin there line by line, and what comes back to its
stdout. Each line goes as one JSON object, {"line": TEXT} (bytes that are not UTF-8 kept as
surrogate escapes), the size of a line begun and not ended yet as {"unended": N}, and the end of
its stdin as {"end": true}, so the spy tells a client that closes the server's input from one
that kills the server, and sees a line that never ends. It never outlives LIFETIME seconds.

It runs in the client's sandbox, where the client could rewrite it: the spy treats anything
it sends that is not such a frame as the client's doing (lab/checks/client_checks.py).
"""

import contextlib
import json
import os
import socket
import sys
import threading
import time

LIFETIME = 20.0


def frame(message: dict) -> bytes:
    return json.dumps(message).encode("ascii") + b"\n"


def forward_input(connection: socket.socket) -> None:
    with contextlib.suppress(OSError):
        pending = b""
        while chunk := os.read(0, 65536):  # as it arrives: a line that never ends is seen too
            *lines, pending = (pending + chunk).split(b"\n")
            frames = [frame({"line": (line + b"\n").decode("utf-8", "surrogateescape")}) for line in lines]
            if pending:
                frames.append(frame({"unended": len(pending)}))
            # All at once: a client that stops on the reply to one of them (and kills this relay)
            # has the lines it wrote with it recorded all the same, however busy the host.
            connection.sendall(b"".join(frames))
        if pending:
            connection.sendall(frame({"line": pending.decode("utf-8", "surrogateescape")}))
        connection.sendall(frame({"end": True}))


def outlive_nothing() -> None:
    time.sleep(LIFETIME)  # never outlive a killed client
    os._exit(3)


def main() -> None:
    threading.Thread(target=outlive_nothing, daemon=True).start()
    connection = socket.create_connection(("127.0.0.1", int(os.environ["LAB_SPY_SERVER_PORT"])), timeout=LIFETIME)
    threading.Thread(target=forward_input, args=(connection,), daemon=True).start()
    with contextlib.suppress(OSError):
        while chunk := connection.recv(65536):
            sys.stdout.buffer.write(chunk)
            sys.stdout.buffer.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
