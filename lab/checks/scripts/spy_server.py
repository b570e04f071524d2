"""Stands in for the student's server.py while their client is checked: a dumb relay.

It connects to the spy server of the checks (127.0.0.1:LAB_SPY_SERVER_PORT, served by the
checks from outside the client's sandbox, where the reference server answers and what
arrives is written down), passes its stdin there line by line, and what comes back to its
stdout. Each line goes as a JSON string (its bytes as Latin-1) and the end of its stdin as
`null`, so the spy tells a client that closes the server's input from one that kills the
server. It never outlives LIFETIME seconds.
"""

import json
import os
import socket
import sys
import threading

LIFETIME = 20.0


def forward_input(connection: socket.socket) -> None:
    try:
        for line in sys.stdin.buffer:
            connection.sendall(json.dumps(line.decode("latin-1")).encode() + b"\n")
        connection.sendall(b"null\n")
    except OSError:
        pass


def main() -> None:
    timer = threading.Timer(LIFETIME, os._exit, (3,))  # never outlive a killed client
    timer.daemon = True
    timer.start()
    connection = socket.create_connection(("127.0.0.1", int(os.environ["LAB_SPY_SERVER_PORT"])), timeout=LIFETIME)
    threading.Thread(target=forward_input, args=(connection,), daemon=True).start()
    try:
        while chunk := connection.recv(65536):
            sys.stdout.buffer.write(chunk)
            sys.stdout.buffer.flush()
    except (OSError, BrokenPipeError):
        pass
    os._exit(0)


if __name__ == "__main__":
    main()
