"""Runs the student's server.py with a part lent: the lesson's send, reply and fail (part 1),
or its initialize (part 2); when, and why, is server_checks.lent_if_needed's to say.

Usage: python lent_server.py, run in a folder holding the student's server.py. Everything else
is the student's: its gate and dispatch, its loop (main), as `python server.py` runs them.
"""

import importlib.util
import os
import sys
import types

import lab_lent_parts as lent  # the reference's functions, written beside by the kit (parts.write_lent_server)
from jsonrpc_lines import todo_line, use_utf8_stdio


def main() -> None:
    spec = importlib.util.spec_from_file_location("server", os.path.join(os.getcwd(), "server.py"))
    server = importlib.util.module_from_spec(spec)
    sys.modules["server"] = server
    spec.loader.exec_module(server)
    for name in lent.LENT:
        function = getattr(lent, name)
        if name == "initialize":  # it moves the student's state: run in the student's module, with its VERSIONS
            function = types.FunctionType(function.__code__, vars(server), name)
        setattr(server, name, function)
    use_utf8_stdio()
    try:
        server.main()
    except NotImplementedError as part:  # a part still to write: one line, no traceback
        sys.exit(todo_line(part))


if __name__ == "__main__":
    main()
