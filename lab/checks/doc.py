"""docs/checks.md, the list of graded checks, written from their declarations.

    python -m lab.checks.doc          # rewrite docs/checks.md
    python -m lab.checks.doc --check  # exit 1 when docs/checks.md differs (tests/test_checks_doc.py)
"""

from __future__ import annotations

import sys
from pathlib import Path

from lab.checks import OPT_IN_TASKS, registry, task_title

DOC = Path(__file__).resolve().parents[2] / "docs" / "checks.md"

HEADER = """# The graded checks / Les vérifications notées

Written by `python -m lab.checks.doc` from the checks' declarations (the `CHECKS` lists of
`lab/checks/*.py`); a test fails when this file and the declarations differ.

How a failure reads. Each part shows one failure: a root cause if one failed (marked
*cause* below: the process stopped, its output is not JSON, a notification was answered,
nothing was flushed, the client never closed the server's input), else the part's first
failure; the other failing checks of the part are named on one line. JSON values show only
the key paths that differ (`--json` keeps them whole); a traceback shows only the student's
own files and lines (in the run's language: `server.py, ligne 12, dans handle`), a sentence
that says what Python's error means (`PYTHON_ERRORS` in `lab/checks/tracebacks.py`), then
Python's own error line, with a student file's path cut to its name. A check whose prerequisites (*needs*) did not pass is
not checkable yet (–), and so is a check of a written part that needs a part still to write.

Each part is judged as soon as it is written. Until server part 3 (the loop) exists, parts 1
and 2 are judged by calling `reply`, `fail` and `initialize` directly, in the same sandbox
(lab/checks/parts.py); until client part 2 exists, client part 1 by calling `scenario()`. A
mistake of server part 1 that spoils the whole output (in `send` or `fail`) costs part 1's
checks: parts 2 and 3 are judged on a run with part 1 lent (the lesson's `send`, `reply` and
`fail`), part 2 by its calls when the server stops on a later line; an `initialize` that
raises costs part 2's checks: part 3 is judged on a run with the lesson's `initialize` lent
(run in the student's module, with its `VERSIONS`); a client that sends
nothing keeps part 1's checks by `scenario()`, and a `scenario()` that is not the lesson's
costs part 1's checks: parts 2 and 3 are judged on a run with the lesson's `scenario()` lent;
a client part 2 that fails its checks (unflushed, say) costs those: part 3 is judged on a run
with the lesson's part 2 lent (a call in its place, the lent code at the file's end, so that a
traceback's lines are the student's). A correct part earns its points whatever the
state of the others. Tasks marked *opt-in* run only with `lab check --bonus`.

Comment lire un échec. Chaque partie montre un échec : une cause (marquée *cause*) si l’une a
échoué, sinon le premier ; les autres vérifications en échec sont nommées sur une ligne. Le
JSON ne montre que les clés qui diffèrent ; une pile d’appels, seulement votre fichier et sa
ligne, et l’erreur. Une vérification dont un prérequis n’a pas réussi, ou qui attend une partie
encore à écrire, n’est pas encore vérifiable (–). Chaque partie est jugée dès qu’elle est
écrite : tant que la boucle (serveur, partie 3) manque, les parties 1 et 2 sont jugées en
appelant directement leurs fonctions ; de même client, partie 1 avec scenario(). Une erreur
de la partie 1 du serveur (dans send ou fail) ne coûte que ses vérifications : les parties 2
et 3 sont jugées avec la partie 1 de la leçon prêtée ; un initialize qui lève une exception ne
coûte que la partie 2 : la partie 3 est jugée avec l’initialize de la leçon prêté. Côté
client, un scenario() qui n’est pas celui de la leçon ne coûte que la partie 1 : les parties 2
et 3 sont jugées avec le scenario() de la leçon prêté.
"""

def cell(value: str) -> str:
    return value.replace("|", "\\|").replace("\n", " ")


def markdown() -> str:
    checks, _, tasks = registry()
    lines = [HEADER]
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
