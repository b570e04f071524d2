"""Runs the student's server.py with server part 1 lent: send, reply and fail are the lesson's.

Usage: python lent_server.py, run in a folder holding the student's server.py. When the whole
server's output breaks part 1's rule (a bug in send or fail), parts 2 and 3 are still judged,
over stdio, on this run: one mistake costs part 1's checks, not the whole server's. Everything
else is the student's: its initialize, its gate and dispatch, its loop (main), as
`python server.py` runs them.
"""

import importlib.util
import os
import sys

from jsonrpc_lines import todo_line, use_utf8_stdio
from lab_lent_part1 import fail, reply, send  # the reference's part 1, written beside by the kit (parts.write_lent_server)


def main() -> None:
    spec = importlib.util.spec_from_file_location("server", os.path.join(os.getcwd(), "server.py"))
    server = importlib.util.module_from_spec(spec)
    sys.modules["server"] = server
    spec.loader.exec_module(server)
    server.send, server.reply, server.fail = send, reply, fail
    use_utf8_stdio()
    try:
        server.main()
    except NotImplementedError as part:  # a part still to write: one line, no traceback
        sys.exit(todo_line(part))


if __name__ == "__main__":
    main()
