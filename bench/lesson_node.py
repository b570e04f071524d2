"""The lesson's own Node files (model.js, serveur2.js, client2.js), for comparison.

The lesson writes them with shell commands of this shape:

    docker exec -w /home/node/project agent sh -c "printf '%s\\n' '<line>' '<line>' > serveur2.js"

We never run those commands. We read them: shlex undoes the two levels of quoting, and
we write the lines ourselves into a scratch folder outside the repository. The files are
the lesson's, not ours, so they are never committed.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

LESSON_NAME = "000_7e2693740b31327d.txt"
NODE_FILES = ("model.js", "serveur2.js", "client2.js")

# `sh -c "..."` up to the last double quote: the lesson's page glues a caption
# ("Affichée ici, non exécutée…") right after the closing quote.
SHELL_COMMAND = re.compile(r'^docker exec .*? sh -c (".*")')


def find_lesson(repo: Path) -> Path | None:
    """The lesson in LAB_LESSON, or beside the repository (../shared/lesson/), if it is there."""
    if os.environ.get("LAB_LESSON"):  # a checkout that is not beside the lesson (a git worktree)
        path = Path(os.environ["LAB_LESSON"])
        return path if path.is_file() else None
    path = repo.resolve().parent / "shared" / "lesson" / LESSON_NAME
    return path if path.is_file() else None


def node_sources(lesson_text: str) -> dict[str, str]:
    """File name -> contents, replaying every `printf '%s\\n' ... > file` (or >> file) in order."""
    sources: dict[str, list[str]] = {}
    for line in lesson_text.splitlines():
        match = SHELL_COMMAND.match(line)
        if not match:
            continue
        (command,) = shlex.split(match.group(1))  # the host shell's double quotes
        words = shlex.split(command)  # the inner shell's single quotes
        if words[:2] != ["printf", "%s\\n"] or len(words) < 4 or words[-2] not in (">", ">>"):
            raise ValueError(f"not a printf command of the expected shape: {command[:80]}")
        *lines, redirection, name = words[2:]
        if redirection == ">":
            sources[name] = []
        sources.setdefault(name, []).extend(lines)
    return {name: "".join(line + "\n" for line in lines) for name, lines in sources.items()}


def write_node_files(lesson: Path, folder: Path) -> Path:
    """Write the lesson's Node files into `folder`; raise if one of the three is missing."""
    sources = node_sources(lesson.read_text(encoding="utf-8"))
    missing = [name for name in NODE_FILES if name not in sources]
    if missing:
        raise ValueError(f"the lesson does not write {', '.join(missing)}")
    for name, text in sources.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder
