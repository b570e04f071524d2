"""A student's traceback, trimmed to their own files: where it broke in their code, and why.

Python prints every frame, the standard library's included (json/decoder.py, ...). A
student needs the frames of their own files (file name and line, with the line's
code) and the error line; the rest is noise under a check.
"""

from __future__ import annotations

import re

FRAME = re.compile(r'^\s*File "(?P<path>[^"]+)", line (?P<line>\d+)(?:, in (?P<where>.+))?$')
HEADER = "Traceback (most recent call last):"


def is_marker(line: str) -> bool:
    return bool(line.strip()) and set(line.strip()) <= set("^~")


def trimmed(stderr: str, files: tuple[str, ...], tail: int = 8) -> str:
    """The last traceback in `stderr` with only the frames of `files` (base names, e.g.
    "server.py"), and its error line; without a traceback, the last `tail` lines."""
    lines = stderr.splitlines()
    starts = [index for index, line in enumerate(lines) if line.startswith(HEADER)]
    if not starts:
        return "\n".join(lines[-tail:])
    block = lines[starts[-1] + 1:]
    kept: list[str] = []
    error: list[str] = []
    index = 0
    while index < len(block):
        line = block[index]
        frame = FRAME.match(line)
        if frame:
            code = block[index + 1].strip() if index + 1 < len(block) and not FRAME.match(block[index + 1]) else ""
            name = re.split(r"[\\/]", frame["path"])[-1]
            if name in files:
                where = f", in {frame['where']}" if frame["where"] and frame["where"] != "<module>" else ""
                kept.append(f"{name}, line {frame['line']}{where}")
                if code:
                    kept.append(f"    {code}")
            index += 2 if code else 1
            while index < len(block) and is_marker(block[index]):
                index += 1  # the ^^^^ under the code
            continue
        if line and not line.startswith(" "):
            error = [line]  # the last unindented line is the error (earlier ones: chained notes)
        index += 1
    return "\n".join(kept + error) if kept or error else "\n".join(lines[-tail:])
