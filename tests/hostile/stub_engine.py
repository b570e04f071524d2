"""A stand-in for `lab check DIR --json`, for testing the grading runner on its own.

It runs the submission's server.py inside its own process (the worst case for the runner:
whatever the student's code does, it does to the child the runner watches), then prints a
Report as JSON, like the real engine. Three checks: 2 + 3 + 5 points.
server.py sets SCORE = "full" or "partial" to pass all checks or only the first.
"""

from __future__ import annotations

import json
import runpy
import sys
from pathlib import Path

CHECKS = [("stub.one", "server-1", 2), ("stub.two", "server-2", 3), ("stub.three", "client-1", 5)]


def main(argv: list[str]) -> int:
    folder = Path(argv[argv.index("check") + 1])
    lang = argv[argv.index("--lang") + 1] if "--lang" in argv else "fr"
    sys.path.insert(0, str(folder))  # as `python server.py` would: its jsonrpc_lines.py beside it
    names = runpy.run_path(str(folder / "server.py"), run_name="student")
    score = names.get("SCORE", "")
    passing = {"full": 3, "partial": 1}.get(score, 0)
    results = [
        {"id": check_id, "task": task, "points": points,
         "status": "passed" if index < passing else "failed",
         "title": f"{check_id} ({lang})", "hint": "", "expected": "ok",
         "actual": "ok" if index < passing else "nope", "message": "", "output": "",
         "duration": 0.01}
        for index, (check_id, task, points) in enumerate(CHECKS)
    ]
    report = {"target": str(folder), "lang": lang, "results": results, "error": "",
              "duration": 0.05}
    print(json.dumps(report))
    return 0 if passing == 3 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
