"""Stands in for the student's server.py while their client is checked: a dumb relay.

It connects to the spy server of the checks (127.0.0.1:LAB_SPY_SERVER_PORT, served by the
checks from outside the client's sandbox, where the reference server answers and what
arrives is written down), passes its stdin there line by line, and what comes back to its
stdout. Each line goes as its bytes in hexadecimal on a line of its own, and the end of its
stdin as a line "-", so the spy tells a client that closes the server's input from one that
kills the server. It never outlives LIFETIME seconds.

It imports only modules built into the interpreter (`_socket`, `_thread`): every client check
starts one, and `socket`, `threading` and `json` would double its start-up (they load `enum`
and `re`).
"""

import _socket
import _thread
import os
import sys
import time

LIFETIME = 20.0
END = b"-\n"  # not hexadecimal: no line can be mistaken for it


def forward_input(connection: _socket.socket) -> None:
    try:
        for line in sys.stdin.buffer:
            connection.sendall(line.hex().encode() + b"\n")
        connection.sendall(END)
    except OSError:
        pass


def outlive_nothing() -> None:
    time.sleep(LIFETIME)  # never outlive a killed client
    os._exit(3)


def main() -> None:
    _thread.start_new_thread(outlive_nothing, ())
    connection = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    connection.settimeout(LIFETIME)
    connection.connect(("127.0.0.1", int(os.environ["LAB_SPY_SERVER_PORT"])))
    _thread.start_new_thread(forward_input, (connection,))
    try:
        while chunk := connection.recv(65536):
            sys.stdout.buffer.write(chunk)
            sys.stdout.buffer.flush()
    except OSError:
        pass
    os._exit(0)


if __name__ == "__main__":
    main()
