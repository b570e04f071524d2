"""Hostile output from a student's programs: no check may become a kit error, no view a traceback.

    python bench/fuzz_outputs.py [--only NAME ...] [--keep DIR] [--lang fr|en]

Each mutation rewrites one line of a copy of solutions/: what the server writes (each reply
line), what the bonus server writes, what the client sends or prints, what the model helper
returns or raises. Each copy is checked as a student checks it (`lab check --json`, with
`--bonus` for the bonus server), then shown (`lab check`): the line printed is its score, its
first failure and any kit error. It exits 1 when a check was a kit error ("error") or the view
stopped on a traceback: anything a student can write is the student's failure or success, never
the kit's (docs/isolation.md). A round takes about 5 minutes on 2 cores; its findings are in
bench/RESULTS.md (the attack table).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOLUTIONS = REPO / "solutions"

# Where each kind of mutation goes: (file, the line it follows or replaces, how its code is placed).
SENT = '    sys.stdout.write(to_json({"jsonrpc": "2.0", **message}) + "\\n")\n'
BONUS_SENT = '    return ENCODER.encode(reply).encode("utf-8", "backslashreplace") + b"\\n"\n'
CLIENT_SENDS = '        line = to_json({"jsonrpc": "2.0", **message})\n'
CLIENT_PRINTS = '        print("<- " + line, flush=True)\n'
ANSWER = '        return model_answer(response, messages, sample, settings.lang)  # Answer(text, recorded=False)\n'

# A reply line (`line`, a str) made hostile: written by server.py, or by bonus_server.py.
LINES = {
    "surrogate": 'line = line[:-1] + \',"x":"\\\\ud800"}\'',
    "capability_surrogate": 'line = line.replace(\'"capabilities":{\', \'"capabilities":{"\\\\ud800":{},\', 1)',
    "nan": 'line = line[:-1] + \',"x":NaN}\'',
    "huge_int": 'line = line[:-1] + \',"x":\' + "9" * 5000 + "}"',
    "deep_result": 'line = line.replace(\'"result":\', \'"result":\' + "[" * 5000 + "]" * 5000 + \',"z":\', 1)',
    "deep_line": 'line = "[" * 100_000',
    "long_key": 'line = line[:-1] + \',"\' + "k" * 200_000 + \'":1}\'',
    "many_keys": 'line = line[:-1] + "," + ",".join(\'"k%d":%d\' % (i, i) for i in range(20_000)) + "}"',
    "huge_line": 'line = line[:-1] + \',"x":"\' + "y" * 5_000_000 + \'"}\'',
    "escape_sequence": 'line = line[:-1] + \',"x":"\\\\u001b[2J\\\\u001b[H Score: 39/39"}\'',
    "u2028": 'line = line[:-1] + \',"x":"a\\u2028b"}\'',
    "true_id": 'line = line.replace(\'"id":1,\', \'"id":true,\', 1)',
    "stderr_deep": 'sys.stderr.write("[" * 100_000 + "\\n")',
    "stderr_huge": 'sys.stderr.write("x" * 10_000_000)',
}
CLIENT = {
    "send_deep": (CLIENT_SENDS, 'line = line[:-1] + \',"x":\' + "[" * 5000 + "]" * 5000 + "}"'),
    "send_nan_id": (CLIENT_SENDS, 'line = line.replace(\'"id":1,\', \'"id":NaN,\')'),
    "send_huge_line": (CLIENT_SENDS, 'line = line[:-1] + \',"x":"\' + "y" * 3_000_000 + \'"}\''),
    "send_u2028": (CLIENT_SENDS, 'line = line[:-1] + \',"x":"a\\u2028b"}\''),
    "print_deep": (CLIENT_PRINTS, 'line = "[" * 100_000'),
    "print_bad_utf8": (CLIENT_PRINTS, 'sys.stdout.buffer.write(b"\\xed\\xa0\\x80")'),
    "print_huge": (CLIENT_PRINTS, 'line = line + "z" * 5_000_000'),
}
MODEL = {
    "returns_surrogate": 'return Answer("\\ud800", recorded=False)',
    "returns_deep_list": 'x = []\nfor _ in range(100_000):\n    x = [x]\nreturn x',
    "returns_itself": 'd = {}\nd["d"] = d\nreturn d',
    "raises_deep": 'raise RuntimeError("[" * 200_000)',
    "raises_surrogate": 'raise RuntimeError("\\udfff")',
    "recursion": 'def f():\n    return f()\nreturn f()',
}


def mutate(folder: Path, file: str, after: str, code: str, replace: bool) -> None:
    """`code` placed after the line `after` (or instead of it), at its indentation."""
    path = folder / file
    source = path.read_text(encoding="utf-8")
    assert source.count(after) == 1, (file, after)
    indent = after[:len(after) - len(after.lstrip())]
    block = "".join(indent + line + "\n" for line in code.split("\n"))
    path.write_text(source.replace(after, block if replace else after + block), encoding="utf-8")


def cases() -> dict[str, tuple[str, str, str, bool]]:
    """name: (file, line, code, replace): a reply line is made hostile just before it is written."""
    found = {}
    for name, code in LINES.items():
        found[f"server.{name}"] = ("server.py", SENT, f'line = to_json({{"jsonrpc": "2.0", **message}})\n{code}\n'
                                                      'sys.stdout.write(line + "\\n")', True)
        found[f"bonus.{name}"] = ("bonus_server.py", BONUS_SENT, f'line = ENCODER.encode(reply)\n{code}\n'
                                                                 'return line.encode("utf-8", "backslashreplace") + b"\\n"', True)
    for name, (after, code) in CLIENT.items():
        found[f"client.{name}"] = ("client.py", after, code, False)
    for name, code in MODEL.items():
        found[f"model.{name}"] = ("model.py", ANSWER, code, True)
    return found


def check(folder: Path, bonus: bool, lang: str) -> str:
    extra = ["--bonus"] if bonus else []
    done = subprocess.run([sys.executable, "-m", "lab", "--lang", lang, "check", "--json", *extra, str(folder)],
                          capture_output=True, timeout=900)
    try:
        report = json.loads(done.stdout)
    except ValueError:
        return f"KIT ERROR: no report (exit {done.returncode}): {done.stderr.decode('utf-8', 'replace')[-300:]}"
    shown = subprocess.run([sys.executable, "-m", "lab", "--lang", lang, "check", *extra, str(folder)],
                           capture_output=True, timeout=900)
    errors = [f"{r['id']}: {r['message'][:120]}" for r in report["results"] if r["status"] == "error"]
    failed = next((r for r in report["results"] if r["status"] == "failed"), None)
    first = f"{failed['id']}: {failed['message'][:110]}" if failed else "all passed"
    view = "" if b"Traceback (most recent call last)" not in shown.stderr else "  VIEW TRACEBACK"
    score = sum(r["points"] for r in report["results"] if r["status"] == "passed")
    return (f"KIT ERROR: {errors}" if errors else f"{score:3d}  {first}") + view


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="mutation names (default: all)")
    parser.add_argument("--keep", type=Path, help="build the copies here and keep them")
    parser.add_argument("--lang", default="en", choices=("fr", "en"))
    options = parser.parse_args()
    chosen = {name: case for name, case in cases().items() if not options.only or name in options.only}
    root = options.keep or Path(tempfile.mkdtemp(prefix="lab-fuzz-"))
    folders = {}
    for name, (file, after, code, replace) in chosen.items():
        folders[name] = root / name
        shutil.copytree(SOLUTIONS, folders[name], ignore=shutil.ignore_patterns("__pycache__"))
        mutate(folders[name], file, after, code, replace)
    bad = 0
    with ThreadPoolExecutor(2) as pool:  # two at a time: each check runs its probes side by side
        said = pool.map(lambda name: check(folders[name], name.startswith("bonus."), options.lang), folders)
        for name, line in zip(folders, said):
            bad += "KIT ERROR" in line or "VIEW TRACEBACK" in line
            print(f"{name:32s} {line}".encode("utf-8", "backslashreplace").decode(), flush=True)  # a "\ud800" read back
    if not options.keep:
        shutil.rmtree(root, ignore_errors=True)
    print(f"{len(folders)} mutations, {bad} a kit error or a traceback")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
