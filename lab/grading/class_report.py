"""The class report, report.html, from what `lab grade` left in its folder (readback.py), and
grading.json, the options and times no results format keeps.

The page is self-contained (a Content-Security-Policy forbids any request), reads in order
without script (which only sorts the students' table), and every text a student controls goes
through `shown()`.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import statistics
from datetime import datetime, timezone
from importlib.resources import files
from pathlib import Path
from typing import Any
from urllib.parse import quote

from lab.grading import class_stats as stats
from lab.grading.hygiene import escape
from lab.grading.readback import (GRADING_NAME, REPORT_NAME, ClassRecord, Submission, kit_version, read_class,
                                  read_grading)
from lab.i18n import decimal
from lab.results import Report

# The page's words, (French, English).
PAGE_TEXT: dict[str, tuple[str, str]] = {
    "title": ("Rapport de classe", "Class report"),
    "graded": ("Noté le", "Graded on"),
    "kit": ("Version du kit", "Kit version"),
    "format": ("Format", "Format"),
    "options": ("Options de notation", "Grading options"),
    "bonus": ("bonus", "bonus"),
    "sandbox": ("bac à sable", "sandbox"),
    "timeout": ("temps par travail", "time per submission"),
    "cpu": ("CPU par processus", "CPU per process"),
    "memory": ("mémoire par processus", "memory per process"),
    "output": ("sortie gardée", "output kept"),
    "file": ("taille de fichier", "file size"),
    "jobs": ("travaux en parallèle", "parallel jobs"),
    "preload": ("préchargement", "preloading"),
    "yes": ("oui", "yes"),
    "no": ("non", "no"),
    "unknown": ("non enregistré", "not recorded"),
    "count": ("{count} travaux, note médiane {median}/{max}, moyenne {mean}, {full} avec tous les points.",
              "{count} submissions, median score {median}/{max}, mean {mean}, {full} with full marks."),
    "mismatch": ("Attention : pour {names}, le fichier de résultats et summary.csv ne disent pas la même chose ; les notes affichées sont celles de summary.csv.",
                 "Warning: for {names}, the results file and summary.csv disagree; the scores shown are summary.csv's."),
    "scores": ("Répartition des notes", "Score distribution"),
    "scores.caption": ("Nombre de travaux par note (sur {max}).", "Number of submissions per score (out of {max})."),
    "parts": ("Parties de la leçon : qui a tous les points", "Lesson parts: who has full marks"),
    "parts.caption": ("Part des travaux qui ont tous les points de chaque partie.",
                      "Share of submissions with full marks on each part."),
    "part": ("Partie", "Part"),
    "full": ("Tous les points", "Full marks"),
    "checks": ("Vérifications, de la plus échouée à la moins échouée", "Checks, from most failed to least failed"),
    "check": ("Vérification", "Check"),
    "failed": ("Échouée", "Failed"),
    "failed.caption": ("Règle enfreinte, sur les travaux arrivés jusqu’à la vérification, le plus d’élèves d’abord. À part : pas encore écrit (fichier ou partie absents), et pas lancée (programme bloqué, planté ou qui ne compile pas, ou vérification ignorée après un échec précédent).",
                       "Rule broken, over the submissions whose work reached the check, most students first. Apart: not written yet (the file or the part is not there), and not run (the program hung, crashed or did not compile, or the check was skipped after an earlier failure)."),
    "not_written": ("Pas encore écrit", "Not written yet"),
    "not_run": ("Pas lancée", "Not run"),
    "hint": ("Piste", "Hint"),
    "cells": ("answers.toml : les mauvaises réponses les plus fréquentes",
              "answers.toml: the most common wrong answers"),
    "cell": ("Cellule", "Cell"),
    "question": ("Question", "Question"),
    "wrong": ("Élèves", "Students"),
    "values": ("Valeurs fausses les plus fréquentes (nombre)", "Most common wrong values (count)"),
    "still_empty": ("Encore vide", "Still empty"),
    "unseen": ("{count} sans valeur connue", "{count} with no value recorded"),
    "empty": ("(vide)", "(empty)"),
    "no_cells": ("Aucune cellule fausse.", "No wrong cell."),
    "cells.unreadable": ("{count} élève(s) sans answers.toml lisible (absent ou pas du TOML) : aucune cellule comptée.",
                         "{count} student(s) without a readable answers.toml (missing or not TOML): no cell counted."),
    "runs": ("Travaux à regarder : bloqués, plantés, à court de CPU, qui ne compilent pas, arrêtés, refusés, vides",
             "Submissions to look at: hung, crashed, out of CPU, not compiling, stopped, refused, empty"),
    "runs.none": ("Tous les travaux ont été vérifiés jusqu’au bout.", "Every submission was checked to the end."),
    "times": ("Temps par travail : médian {median} s, le plus long {longest} s, {total} s en tout ({known} travaux).",
              "Time per submission: median {median} s, longest {longest} s, {total} s in all ({known} submissions)."),
    "times.none": ("Temps par travail : non enregistré.", "Time per submission: not recorded."),
    "what": ("Ce qui s’est passé", "What happened"),
    "time": ("Temps (s)", "Time (s)"),
    "why": ("Raison", "Reason"),
    "kind.hung": ("bloqué (temps dépassé)", "hung (time limit)"),
    "kind.cpu": ("CPU épuisé", "out of CPU"),
    "kind.crashed": ("planté", "crashed"),
    "kind.stopped": ("arrêté (signal ou trop de sortie)", "stopped (signal or too much output)"),
    "kind.unreadable": ("dossier illisible", "unreadable folder"),
    "kind.refused": ("refusé (trop gros pour être copié)", "refused (too big to copy)"),
    "kind.empty": ("vide", "empty"),
    "kind.kit_error": ("erreur du kit", "kit error"),
    "kind.syntax": ("ne compile pas", "does not compile"),
    "cause": ("Première cause", "First cause"),
    "cause.missing": ("pas de {subject}", "no {subject}"),
    "cause.syntax": ("erreur de syntaxe dans {subject}", "syntax error in {subject}"),
    "cause.hang": ("{subject} bloqué (rien écrit)", "{subject} hung (wrote nothing)"),
    "cause.cpu": ("{subject} en boucle (CPU épuisé)", "{subject} loops (out of CPU)"),
    "cause.crash": ("{subject} planté", "{subject} crashed"),
    "cause.unwritten": ("{subject} encore à écrire", "{subject} still to write"),
    "cause.rule": ("règle : {subject}", "rule: {subject}"),
    "students": ("Élèves", "Students"),
    "students.help": ("Cliquez sur un en-tête de colonne pour trier.", "Click a column header to sort."),
    "submission": ("Travail", "Submission"),
    "score": ("Note", "Score"),
    "stuck": ("Bloqué à", "Stuck at"),
    "failing": ("Vérifications échouées", "Failing checks"),
    "failing.count": ("{count} vérifications", "{count} checks"),
    "feedback": ("Retour", "Feedback"),
    "open": ("ouvrir", "open"),
    "no_file": ("pas de fichier", "no file"),
    "none": ("aucune", "none"),
    "status": ("État", "State"),
    "ok": ("terminé", "finished"),
}
WORDS = {lang: {key: words[index] for key, words in PAGE_TEXT.items()} for index, lang in enumerate(("fr", "en"))}

# Characters that change how text reads without being seen: C0/C1 controls (new lines too),
# surrogates, zero-width ones and the bidirectional overrides (which can make a name read backwards).
INVISIBLE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]")
ERROR_SHOWN = 300  # characters of an error message shown in the page
VALUE_SHOWN = 120  # characters of a wrong answer shown
FAILING_SHOWN = 6  # failing check ids shown at once in a student's row; more are folded
# The page's style, and its script: it sorts the students' table by a column's data-sort values
# (numbers as numbers, a second click reverses, ties keep the page's order).
PAGE = files("lab.grading").joinpath("page")
STYLE = PAGE.joinpath("class_report.css").read_text(encoding="utf-8").strip()
SCRIPT = PAGE.joinpath("class_report.js").read_text(encoding="utf-8").strip()


def visible(value: object) -> str:
    """Text with every invisible character written as an escape: "\\x1b", "\\u202e"."""
    return INVISIBLE.sub(escape, str(value))


def shown(value: object, limit: int | None = None) -> str:
    """Student-controlled text, ready for HTML text or an attribute."""
    text = visible(value)
    if limit is not None and len(text) > limit:
        text = text[:limit] + "…"
    return html.escape(text, quote=True)


def record_grading(out: Path, rows: list[tuple[str, Report]], options: dict[str, Any]) -> Path:
    """out/grading.json: the date, the kit's version, the options and each run's time (a rerun
    keeps the times of the submissions it did not grade again)."""
    path = out / GRADING_NAME
    previous = read_grading(out).get("durations")
    durations = dict(previous) if isinstance(previous, dict) else {}
    durations.update({name: round(report.duration, 3) for name, report in rows})
    data = {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"), "kit_version": kit_version(),
            **options, "durations": durations}
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return path


def write_report(out: Path, lang: str) -> Path:
    """out/report.html; readback.NoResults if `out` has no results."""
    path = out / REPORT_NAME
    path.write_text(render(read_class(out), lang), encoding="utf-8")
    return path


def render(record: ClassRecord, lang: str) -> str:
    lang = lang if lang in WORDS else "fr"
    context = Page(record, lang)
    body = "\n".join([context.header(), "<main>", context.scores(), context.parts(), context.checks(),
                      context.cells(), context.runs(), context.students(), "</main>"])
    style_hash, script_hash = digest(STYLE), digest(SCRIPT)
    policy = (f"default-src 'none'; style-src '{style_hash}'; script-src '{script_hash}'; "
              "base-uri 'none'; form-action 'none'")
    return (f'<!DOCTYPE html>\n<html lang="{context.lang}">\n<head>\n<meta charset="utf-8">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{context.words['title']}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{body}\n"
            f"<script>{SCRIPT}</script>\n</body>\n</html>\n")


def digest(source: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(source.encode("utf-8")).digest()).decode()


def percent(share: float) -> str:
    return f"{round(100 * share)} %"


class Page:
    """The sections of one report, in one language."""

    def __init__(self, record: ClassRecord, lang: str) -> None:
        self.record, self.lang, self.words = record, lang, WORDS[lang]
        try:
            from lab.checks import registry

            checks, _, tasks = registry()
        except Exception:  # the page then shows what the result files carry
            checks, tasks = [], {}
        self.task_order, self.check_order = stats.lesson_order(record, [check.id for check in checks], list(tasks))
        # Check titles, hints and lesson-part titles in the page's language.
        self.titles = {check.id: check.title.get(lang, "") for check in checks}
        self.hints = {check.id: check.hint.get(lang, "") for check in checks}
        self.task_titles = {task: names.get(lang, task) for task, names in tasks.items()}

    def number(self, value: float, decimals: int = 1) -> str:
        """A decimal number as the page's language writes it (3,5 in French)."""
        return decimal(value, self.lang, f".{decimals}f")

    def task_name(self, task: str) -> str:
        return shown(self.task_titles.get(task) or task)

    def header(self) -> str:
        words, grading, submissions = self.words, self.record.grading, self.record.submissions
        scores = [submission.score for submission in submissions if submission.scored]
        top = max((submission.max_score for submission in submissions), default=0)
        full = sum(1 for s in submissions if s.scored and s.max_score and s.score == s.max_score)
        median = self.number(statistics.median(scores), 1).removesuffix(",0").removesuffix(".0") if scores else "—"
        mean = self.number(sum(scores) / len(scores)) if scores else "—"
        summary = words["count"].format(count=len(submissions), median=median, max=top, mean=mean, full=full)
        items = [(words["graded"], when(grading.get("date")) or words["unknown"]),
                 (words["kit"], shown(grading.get("kit_version") or words["unknown"])),
                 (words["format"], shown(grading.get("format") or words["unknown"])),
                 (words["options"], self.options())]
        facts = "\n".join(f"<dt>{name}</dt><dd>{value}</dd>" for name, value in items)
        warning = ""
        if self.record.mismatches:
            names = ", ".join(shown(name) for name in self.record.mismatches)
            warning = f'\n<p class="warn" role="note"><strong>⚠</strong> {words["mismatch"].format(names=names)}</p>'
        return (f'<header>\n<h1>{words["title"]}</h1>\n<p id="summary">{summary}</p>\n'
                f'<dl class="facts">\n{facts}\n</dl>{warning}\n</header>')

    def options(self) -> str:
        words, grading = self.words, self.record.grading
        if not grading:
            return words["unknown"]
        limits = grading.get("limits") if isinstance(grading.get("limits"), dict) else {}

        def flag(value: Any) -> str:
            return words["unknown"] if value is None else words["yes"] if value is True else \
                words["no"] if value is False else shown(value)

        named = [("bonus", flag(grading.get("bonus"))),
                 ("sandbox", flag(grading.get("sandbox"))),
                 ("timeout", f"{shown(number_text(limits['timeout']))} s" if "timeout" in limits else None),
                 ("cpu", f"{shown(limits['cpu_seconds'])} s" if "cpu_seconds" in limits else None),
                 ("memory", mebibytes(limits.get("memory_bytes"))),
                 ("output", mebibytes(limits.get("output_bytes"))),
                 ("file", mebibytes(limits.get("file_bytes"))),
                 ("jobs", shown(grading["jobs"]) if "jobs" in grading else None),
                 ("preload", flag(grading.get("preload")) if "preload" in grading else None)]
        return " · ".join(self.labelled(words[key], value) for key, value in named if value is not None)

    def section(self, key: str, content: str) -> str:
        return f'<section aria-labelledby="h-{key}">\n<h2 id="h-{key}">{self.words[key]}</h2>\n{content}\n</section>'

    def labelled(self, label: str, value: object) -> str:
        """"label : value" in French, "label: value" in English."""
        return f"{label} : {value}" if self.lang == "fr" else f"{label}: {value}"

    def scores(self) -> str:
        bars = stats.histogram(self.record.submissions)
        top = max((s.max_score for s in self.record.submissions), default=0)
        tallest = max((bar.count for bar in bars), default=0) or 1
        step, height, base = 22, 140, 160
        width = max(step * len(bars) + 20, 200)
        shapes = []
        for index, bar in enumerate(bars):
            x = 10 + index * step
            tall = round(height * bar.count / tallest)
            shapes.append(
                f'<g class="bar" data-low="{bar.low}" data-high="{bar.high}" data-count="{bar.count}">'
                f'<rect x="{x}" y="{base - tall}" width="{step - 4}" height="{tall}"></rect>'
                f'<text class="count" x="{x + (step - 4) / 2}" y="{base - tall - 4}">{bar.count}</text>'
                f'<text class="label" x="{x + (step - 4) / 2}" y="{base + 14}">{bar.label}</text></g>')
        caption = self.words["scores.caption"].format(max=top)
        return self.section("scores", f'<figure>\n<svg id="histogram" viewBox="0 0 {width} {base + 24}" width="{width}" '
                            f'height="{base + 24}" role="img" aria-labelledby="histogram-caption">\n' + "\n".join(shapes)
                            + f'\n</svg>\n<figcaption id="histogram-caption">{caption} '
                            + ", ".join(self.labelled(bar.label, bar.count) for bar in bars if bar.count)
                            + "</figcaption>\n</figure>")

    def parts(self) -> str:
        words = self.words
        rows = [f'<tr data-task="{shown(figure.task)}"><th scope="row">{self.task_name(figure.task)}</th>'
                f'<td class="num" data-full="{figure.full}" data-total="{figure.total}">'
                f'{figure.full}/{figure.total} ({percent(figure.share)})</td>'
                f'<td><svg width="124" height="14" aria-hidden="true"><rect class="track" x="0" y="2" width="120" '
                f'height="10"></rect><rect class="fill" x="0" y="2" width="{round(120 * figure.share)}" '
                f'height="10"></rect></svg></td></tr>' for figure in stats.parts(self.record, self.task_order)]
        hidden = f'<span class="visually-hidden">{words["full"]}</span>'
        return self.section("parts", table('id="parts"', [words["part"], words["full"], hidden], rows,
                                           words["parts.caption"]))

    def checks(self) -> str:
        words = self.words
        rows = [f'<tr data-check="{shown(figure.id)}"><th scope="row">{shown(figure.title or figure.id)}'
                f' <code>{shown(figure.id)}</code></th><td>{self.task_name(figure.task)}</td>'
                f'<td class="num" data-failed="{figure.failed}" data-total="{figure.total}">'
                f'{figure.failed}/{figure.total} ({percent(figure.rate)})</td>'
                f'<td class="num" data-not-written="{figure.not_written}">{figure.not_written}</td>'
                f'<td class="num" data-not-run="{figure.not_run}">{figure.not_run}</td>'
                f'<td>{shown(figure.hint)}</td></tr>'
                for figure in stats.check_failures(self.record, self.check_order, self.hints, self.titles)]
        headers = [words[key] for key in ("check", "part", "failed", "not_written", "not_run", "hint")]
        return self.section("checks", table('id="checks"', headers, rows, words["failed.caption"]))

    def cells(self) -> str:
        words = self.words
        figures = stats.answer_cells(self.record)
        unreadable = stats.answers_unreadable(self.record)
        heading = f'<p id="cells-unreadable" data-count="{unreadable}">' \
                  f'{words["cells.unreadable"].format(count=unreadable)}</p>\n' if unreadable else ""
        if not figures:
            return self.section("cells", heading + f'<p>{words["no_cells"]}</p>')
        rows = []
        for figure in figures:
            values = "".join(f'<li>{self.written(value)} ({count})</li>' for value, count in figure.values)
            if figure.unseen:
                values += f'<li>{words["unseen"].format(count=figure.unseen)}</li>'
            rows.append(f'<tr data-cell="{shown(figure.cell)}"><th scope="row"><code>{shown(figure.cell)}</code></th>'
                        f'<td>{shown(figure.question)}</td><td class="num" data-wrong="{figure.wrong}">{figure.wrong}</td>'
                        f'<td><ul>{values}</ul></td><td class="num" data-empty="{figure.empty}">{figure.empty}</td></tr>')
        headers = [words[key] for key in ("cell", "question", "wrong", "values", "still_empty")]
        return self.section("cells", heading + table('id="cells"', headers, rows))

    def written(self, value: str) -> str:
        """A wrong answer as the student wrote it; the checks write an empty cell as "—"."""
        if value in ("", stats.EMPTY_CELL):
            return f'<em>{self.words["empty"]}</em>'
        return f"<q>{shown(value, VALUE_SHOWN)}</q>"

    def runs(self) -> str:
        words = self.words
        problems = stats.runs(self.record)
        timing = stats.times(self.record)
        time_line = words["times"].format(median=self.number(timing.median), longest=self.number(timing.longest),
                                          total=self.number(timing.total, 0), known=timing.known) \
            if timing else words["times.none"]
        heading = f'<p id="times">{time_line}</p>\n'
        if not problems:
            return self.section("runs", heading + f'<p id="runs-none">{words["runs.none"]}</p>')
        counts = {kind: sum(1 for _, seen in problems if seen == kind) for kind in stats.LOOK_AT}
        tally = "".join(f'<li data-kind="{kind}" data-count="{count}">{self.labelled(words["kind." + kind], count)}</li>'
                        for kind, count in counts.items() if count)
        rows = [f'<tr data-kind="{kind}"><th scope="row">{self.link(submission, shown(submission.name))}</th>'
                f'<td>{words["kind." + kind]}</td><td class="num">{self.seconds(submission.duration)}</td>'
                f'<td>{self.why(submission)}</td></tr>'
                for submission, kind in problems]
        headers = [words[key] for key in ("submission", "what", "time", "why")]
        return self.section("runs", heading + f'<ul id="run-kinds">{tally}</ul>\n' + table('id="runs"', headers, rows))

    def why(self, submission: Submission) -> str:
        """The run's error, or for a program that never ran, its first cause."""
        if submission.error:
            return shown(submission.error.split("\n")[0], ERROR_SHOWN)
        return self.cause_text(stats.cause(submission))

    def cause_text(self, code: str) -> str:
        """A first-cause code (causes.py) in the page's words."""
        kind, subject = stats.split(code)
        if not kind:
            return "—"
        if kind in stats.RUN_KINDS:
            return self.words["kind." + kind]
        if kind == "rule":
            subject = self.titles.get(subject) or subject
        elif kind == "unwritten":
            subject = self.task_titles.get(subject) or subject
        template = self.words.get("cause." + kind)
        return shown(template.format(subject=subject) if template else code)

    def seconds(self, value: float | None) -> str:
        return "—" if value is None else self.number(value)

    def link(self, submission: Submission, label: str) -> str:
        if not submission.feedback:
            return label
        href = quote(submission.name, safe="") + "/" + quote(submission.feedback.rsplit("/", 1)[-1], safe="")
        return f'<a href="{html.escape(href, quote=True)}">{label}</a>'

    def students(self) -> str:
        words = self.words
        rows = []
        for index, submission in enumerate(self.record.submissions):
            failing = submission.failed_ids
            failing_text = f'<code>{shown(" ".join(failing))}</code>' if failing else words["none"]
            if len(failing) > FAILING_SHOWN:  # folded: the count first, the ids one click away
                failing_text = f'<details><summary>{words["failing.count"].format(count=len(failing))}</summary>' \
                               f'{failing_text}</details>'
            stuck = stats.first_stuck_part(submission, self.task_order)
            cause = stats.cause(submission)
            kind = stats.run_kind(submission)
            state = words["kind." + kind] if kind else words["ok"]
            share = submission.score / submission.max_score if submission.max_score else 0.0
            score = submission.score if submission.scored else ""
            feedback = self.link(submission, words["open"]) if submission.feedback else words["no_file"]
            duration = "" if submission.duration is None else f"{submission.duration:.3f}"
            rows.append(
                f'<tr data-index="{index}"><th scope="row" data-sort="{shown(submission.name)}">{shown(submission.name)}</th>'
                f'<td class="num" data-sort="{share if submission.scored else -1:.6f}" data-score="{score}" '
                f'data-max="{submission.max_score}">{score if submission.scored else "—"}/{submission.max_score}</td>'
                f'<td data-sort="{self.task_order.index(stuck) if stuck in self.task_order else len(self.task_order)}">'
                f'{self.task_name(stuck) if stuck else "—"}</td>'
                f'<td data-sort="{shown(cause)}" data-cause="{shown(cause)}">{self.cause_text(cause)}</td>'
                f'<td data-sort="{len(failing)}">{failing_text}</td>'
                f'<td data-sort="{kind or ""}">{state}</td>'
                f'<td class="num" data-sort="{duration or -1}">{self.seconds(submission.duration)}</td>'
                f'<td>{feedback}</td></tr>')
        headers = [words[key] for key in ("submission", "score", "stuck", "cause", "failing", "status", "time", "feedback")]
        return self.section("students", f'<p class="js-only" hidden>{words["students.help"]}</p>\n'
                            + table('id="students" class="sortable"', headers, rows))


def table(attributes: str, headers: list[str], rows: list[str], caption: str = "") -> str:
    caption = f"<caption>{caption}</caption>\n" if caption else ""
    head = "".join(f'<th scope="col">{header}</th>' for header in headers)
    return (f"<table {attributes}>\n{caption}<thead><tr>{head}</tr></thead>\n<tbody>\n" + "\n".join(rows)
            + "\n</tbody>\n</table>")


def when(value: Any) -> str:
    """grading.json's ISO date as "2026-12-01 04:25 UTC", in a <time> element ("" if absent)."""
    if not isinstance(value, str) or not value:
        return ""
    try:
        moment = datetime.fromisoformat(value).astimezone(timezone.utc)
    except ValueError:
        return shown(value)
    return f'<time datetime="{shown(value)}">{moment:%Y-%m-%d %H:%M} UTC</time>'


def number_text(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def mebibytes(value: Any) -> str | None:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    return f"{value / 1024**2:g} MiB"

