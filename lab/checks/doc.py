"""docs/checks.md's tables of the graded checks, written from their declarations (its prose
above them is edited in the page).

    python -m lab.checks.doc          # rewrite docs/checks.md
    python -m lab.checks.doc --check  # exit 1 when docs/checks.md differs (tests/test_checks_doc.py)
"""

from __future__ import annotations

import sys
from pathlib import Path

from lab.checks import OPT_IN_TASKS, registry, task_title

DOC = Path(__file__).resolve().parents[2] / "docs" / "checks.md"


def cell(value: str) -> str:
    return value.replace("|", "\\|").replace("\n", " ")


def markdown() -> str:
    checks, _, tasks = registry()
    lines = [DOC.read_text(encoding="utf-8").partition("\n\n## ")[0]]  # the page's prose, above its first table
    for task in tasks:
        mine = [check for check in checks if check.task == task]
        if not mine:
            continue
        opt_in = " (opt-in)" if task in OPT_IN_TASKS else ""
        points = sum(check.points for check in mine)
        lines += ["", f"## {task_title(task, 'en')} / {task_title(task, 'fr')}{opt_in}: {points} points", "",
                  "| id | points | check | vérification | needs |", "|---|---|---|---|---|"]
        for check in mine:
            needs = ", ".join(f"`{need}`" for need in check.needs)
            cause = " (*cause*)" if check.cause else ""
            lines.append(f"| `{check.id}`{cause} | {check.points} | {cell(check.title['en'])} "
                         f"| {cell(check.title['fr'])} | {needs} |")
    total = sum(check.points for check in checks if check.task not in OPT_IN_TASKS)
    lines += ["", f"Total without the bonus: {total} points.", ""]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    text = markdown()
    if "--check" in argv:
        same = DOC.is_file() and DOC.read_text(encoding="utf-8") == text
        if not same:
            print(f"{DOC} is out of date: run `python -m lab.checks.doc`", file=sys.stderr)
        return 0 if same else 1
    DOC.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
