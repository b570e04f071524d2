"""A synthetic class for the class report's tests and benchmark, written to disk in seconds.

Each student's Report is made from the real check list (lab.checks), with statuses drawn
from a seeded generator, except the answers.toml checks, which really run on an answers
file written for that student (so their expected/actual/message are the checks' own). The
runs that did not finish carry the grader's own messages (hung, out of CPU, crashed,
stopped) or an error it has no message for (a kit error). Everything is written through
classroom.write_one, formats.summary_csv and class_report.record_grading, as `lab grade`
writes them.
"""

from __future__ import annotations

import random
import tempfile
from dataclasses import replace
from pathlib import Path

from lab.checks import registry, selected_checks
from lab.checks.engine import run
from lab.grading import class_report, formats
from lab.grading.catalogue import Catalogue
from lab.grading.classroom import SUMMARY_NAME, output_names, write_one
from lab.grading.runner import Limits
from lab.results import FAILED, PASSED, Report

# Folder names a student might choose, no "/" (see test_class_report.py for "</script>" in a
# name): named in the output folder as lab grade names them (output_names).
HOSTILE_NAMES = [
    "<img src=x onerror=alert(1)>",
    "<script>alert(1)",
    "\x1b[31mred\x1b[0m & <b>bold",
    '=HYPERLINK("evil.invalid","x")',
    "\u202egnp.exe",
    "o'brien \"quoted\"",
]
RIGHT = {
    "mots_cles": {"poignee_de_main": "initialize", "etat": "attente", "negocier": "2024-11-05"},
    "trois_clients": {"2024-11-05": "résultat en 2024-11-05", "2025-03-26": "résultat en 2025-03-26",
                      "1999-01-01": "-32602"},
    "six_reponses": {"1": "-32600", "2": "-32602", "3": "résultat", "4": "-32600", "5": "résultat", "6": "-32601"},
}
WRONG = {  # common mistakes, per cell
    ("trois_clients", "1999-01-01"): ["-32600", "résultat en 2024-11-05", "-32601"],
    ("trois_clients", "2025-03-26"): ["-32602", "résultat"],
    ("six_reponses", "4"): ["résultat", "-32601"],
    ("six_reponses", "1"): ["-32601"],
    ("mots_cles", "etat"): ["initialisé", ""],
}
# Out of every 30 submissions: how each run ended.
ENDINGS = ["done"] * 24 + ["hung", "cpu", "crashed", "stopped", "kit_error", "done"]
LIMITS = Limits(timeout=90.0)


def answers_toml(rng: random.Random) -> str:
    lines = []
    for table, cells in RIGHT.items():
        lines.append(f"[{table}]")
        for cell, right in cells.items():
            choices = WRONG.get((table, cell))
            value = rng.choice(choices) if choices and rng.random() < 0.25 else right
            lines.append(f'"{cell}" = "{value}"')
    return "\n".join(lines) + "\n"


def answers_results(folder: Path, lang: str, rng: random.Random) -> list:
    """The answers checks, really run on an answers.toml written for this student."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "answers.toml").write_text(answers_toml(rng), encoding="utf-8")
    checks = [check for check in selected_checks() if check.task == "answers"]
    return run(folder, lang, checks, registry()[1]).results


def ended_run(catalogue: Catalogue, ending: str, lang: str, name: str) -> Report:
    """A run that did not finish, as the grader records it: its message key and fields."""
    if ending == "kit_error":  # an error the grader has no message for
        return catalogue.failed(name, lang, "RuntimeError: can't start new thread")
    key, fields = {
        "hung": ("grade.timeout", {"seconds": LIMITS.timeout}),
        "cpu": ("grade.crashed", {"code": -24, "stderr": ""}),
        "crashed": ("grade.crashed", {"code": 1, "stderr": "Traceback (most recent call last):\n  SyntaxError"}),
        "stopped": ("grade.too_much_output", {"limit": 4}),
    }[ending]
    return catalogue.stopped(name, lang, key, **fields)


def student_report(catalogue: Catalogue, index: int, lang: str, scratch: Path, rng: random.Random) -> Report:
    ending = ENDINGS[index % len(ENDINGS)]
    name = f"student-{index:03d}"
    if ending != "done":
        report = ended_run(catalogue, ending, lang, name)
        report.duration = LIMITS.timeout if ending == "hung" else round(rng.uniform(0.5, 30), 3)
        return report
    answers = {result.id: result for result in answers_results(scratch / name, lang, rng)}
    skill = rng.random()
    results = []
    for position, template in enumerate(catalogue.checks):
        if template.id in answers:
            results.append(replace(answers[template.id], points=template.points))
            continue
        difficulty = (position % 7) / 10
        passed = rng.random() < 0.2 + skill * 1.3 - difficulty / 2
        results.append(replace(template, status=PASSED if passed else FAILED,
                               expected="" if passed else "ok", actual="" if passed else "nope",
                               message="" if passed else "…", duration=0.01))
    return Report(target=name, lang=lang, results=results, duration=round(rng.uniform(2, 12), 3))


def build_class(out: Path, count: int, fmt: str = "gradescope", lang: str = "fr", seed: int = 15,
                hostile: bool = True) -> list[tuple[str, Report]]:
    """Write a graded class of `count` submissions into `out`, and return its (name, report) rows.

    With `hostile`, the first names are folder names a student might choose to attack the page.
    """
    rng = random.Random(seed)
    catalogue = Catalogue.from_engine(lang)
    assert catalogue is not None and catalogue.checks
    chosen = [HOSTILE_NAMES[index] if hostile and index < len(HOSTILE_NAMES) else f"student-{index:03d}"
              for index in range(count)]
    rows = []
    with tempfile.TemporaryDirectory(prefix="lab-class-") as scratch:
        for index, name in enumerate(output_names([Path(scratch, name) for name in chosen])):
            rows.append((name, student_report(catalogue, index, lang, Path(scratch), rng)))
    write_class(out, rows, fmt, lang)
    return rows


def write_class(out: Path, rows: list[tuple[str, Report]], fmt: str, lang: str) -> None:
    """Each report in its folder (with its record), summary.csv and grading.json, as `lab grade` writes them."""
    for name, report in rows:
        write_one(out, name, report, fmt)
    (out / SUMMARY_NAME).write_text(formats.summary_csv(rows), encoding="utf-8")
    class_report.record_grading(out, rows, {
        "format": fmt, "lang": lang, "bonus": False, "sandbox": "bubblewrap", "jobs": 4, "preload": True,
        "limits": {"timeout": LIMITS.timeout, "memory_bytes": LIMITS.memory_bytes, "cpu_seconds": LIMITS.cpu_seconds,
                   "output_bytes": LIMITS.output_bytes, "file_bytes": LIMITS.file_bytes}})
