"""The checks' student-facing reasons, one table: a key and its fields, rendered once, at the edge.

A check (or a probe, or a real MCP client) says why it failed as a key of `TEXTS` and plain
fields (numbers, file names, task ids): that is what a result carries (`CheckResult.reason`,
`CheckResult.fields`, kept in --json and report.json) and what lab/grading/causes.py reads.
`say(lang, key, **fields)` writes the sentence in the run's language; nothing else translates.

A field named in `WORDS` is itself rendered in the language: `task` (a lesson part's id) as
its title, `who` as a key of this table ("who.server" → "Le serveur"), `cpu` (seconds) as the
language writes a decimal number. A field whose value is itself a reason, {"reason": key,
"fields": {...}} (a real client's, inside a check's), is written as that sentence. Every key
exists in French and English with the same fields (tests/test_texts.py walks the table).
Each check's title and hint are in lab/checks/titles.py, the same shape, by check id; `say`
reads both. To add a reason: a key here in both languages, then
`Failed(expected, actual, reason="the.key", fields={...})` in the check.
"""

from __future__ import annotations

import re
import string
from typing import Any, Callable

from lab.checks.titles import TITLES

TEXTS: dict[str, dict[str, str]] = {
    "fr": {
        # The engine's own (lab/checks/engine.py).
        "part.unwritten": "Cette partie est encore à écrire (« {task} »).",
        "part.not_yet": "pas encore vérifiable : il faut d’abord écrire « {task} »",
        "part.waits_for": "pas encore vérifiable : il faut d’abord que « {title} » réussisse",
        "kit.error": "Erreur du kit, pas de votre code : {what}",
        "kit.probe_late": "Erreur du kit, pas de votre code : la sonde {name!r} n’a pas fini en {limit:g} s",
        # A student file, or its program, that gives nothing to judge.
        "file.missing": "Il n’y a pas de fichier {file}.",
        "who.server": "Le serveur",
        "who.bonus": "Le serveur bonus",
        "run.silent": "{who} n’a rien écrit en {seconds:g} s.",
        "run.spun": "{who} a utilisé tout son temps de calcul ({cpu} s de CPU) sans rien écrire, une boucle sans fin "
                    "sans doute.",
        "run.stopped_silent": "{who} s’est arrêté (code {code}) sans rien écrire.",
        # Why a real MCP client (lab/real_clients.py) did not connect; `said` is the client's or
        # the server's own words, shown as they are.
        "client.said": "{said}",
        "client.no_answer": "aucune réponse en {seconds:g} s",
        "client.inspector_no_answer": "l’Inspector n’a reçu aucune réponse en {seconds:g} s",
        "client.sdk_missing": "le SDK mcp n’est pas installé ({missing}) : pip install -e '.[test]'",
        "client.sdk_late": "le client du SDK n’a pas fini en {seconds:g} s",
        "client.sdk_stopped": "le client du SDK s’est arrêté avec le code {code}",
        "client.no_npx": "npx n’est pas dans le PATH (Node.js n’est pas installé)",
        "client.not_cached": "{package} n’est pas dans le cache de npx, et cette exécution ne le télécharge pas",
        "client.fetch_late": "npx n’a pas téléchargé et lancé {package} en {seconds:g} s",
        "client.no_json": "l’Inspector n’a affiché aucun JSON : {output}",
        "client.npx_failed": "npx n’a pas pu lancer {package} : {said}",
        "client.mcp_error": "erreur MCP {code} : {message}",
        "client.not_a_file": "{file} n’est pas un fichier ordinaire (un lien ou un dossier) : pas lancé",
        # The bonus checks that read a real client's run (lab/checks/bonus.py).
        "bonus.client_unavailable": "ignoré : ce client ne peut pas tourner ici ({why})",
        "bonus.client_failed": "Le client n’a pas pu se connecter et lister les outils.",
        "bonus.client_sees_wrong": "Le client s’est connecté, mais ne voit pas ce qu’il faut.",
    },
    "en": {
        "part.unwritten": "This part is still to write (“{task}”).",
        "part.not_yet": "not checkable yet: “{task}” must be written first",
        "part.waits_for": "not checkable yet: “{title}” must pass first",
        "kit.error": "Kit error, not your code's: {what}",
        "kit.probe_late": "Kit error, not your code's: the probe {name!r} did not finish within {limit:g} s",
        "file.missing": "There is no {file} file.",
        "who.server": "The server",
        "who.bonus": "The bonus server",
        "run.silent": "{who} wrote nothing in {seconds:g} s.",
        "run.spun": "{who} used up its CPU time ({cpu} s) without writing, an endless loop most likely.",
        "run.stopped_silent": "{who} stopped (code {code}) without writing.",
        "client.said": "{said}",
        "client.no_answer": "no answer within {seconds:g} s",
        "client.inspector_no_answer": "the Inspector got no answer within {seconds:g} s",
        "client.sdk_missing": "the mcp SDK is not installed ({missing}): pip install -e '.[test]'",
        "client.sdk_late": "the SDK client did not finish within {seconds:g} s",
        "client.sdk_stopped": "the SDK client stopped with code {code}",
        "client.no_npx": "npx is not on PATH (Node.js is not installed)",
        "client.not_cached": "{package} is not in npx's cache, and this run does not fetch it",
        "client.fetch_late": "npx did not fetch and run {package} within {seconds:g} s",
        "client.no_json": "the Inspector printed no JSON: {output}",
        "client.npx_failed": "npx could not run {package}: {said}",
        "client.mcp_error": "MCP error {code}: {message}",
        "client.not_a_file": "{file} is not a regular file (a link or a folder): not started",
        "bonus.client_unavailable": "skipped: this client cannot run here ({why})",
        "bonus.client_failed": "The client could not connect and list the tools.",
        "bonus.client_sees_wrong": "The client connected, but does not see what it should.",
    },
}


def task_word(lang: str, task: str) -> str:
    from lab.checks import task_title  # the registry imports the checks, which import this table

    return task_title(task, lang)


def decimal_word(lang: str, value: Any) -> str:
    from lab.i18n import decimal

    return decimal(float(value), lang)


WORDS: dict[str, Callable[[str, Any], str]] = {
    "task": task_word,
    "who": lambda lang, value: TEXTS[lang][f"who.{value}"],
    "cpu": decimal_word,
}


def say(lang: str, key: str, **fields: Any) -> str:
    """The sentence for `key` in `lang` (fr when the language is unknown), its fields filled in."""
    lang = lang if lang in TEXTS else "fr"
    template = TEXTS[lang][key] if key in TEXTS[lang] else TITLES[lang][key]
    return template.format(**{name: word(lang, name, value) for name, value in fields.items()})


def word(lang: str, name: str, value: Any) -> Any:
    """A field's value as the sentence shows it (see WORDS, and reasons inside reasons)."""
    if name in WORDS:
        return WORDS[name](lang, value)
    if isinstance(value, dict) and isinstance(value.get("reason"), str):
        return say(lang, value["reason"], **value.get("fields", {}))
    return value


def in_each_language(key: str, **fields: Any) -> dict[str, str]:
    """{"fr": …, "en": …}: a key written in both languages, for what is shown in either (a
    check's title, a lesson part's name)."""
    return {lang: say(lang, key, **fields) for lang in TEXTS}


def field_names(template: str) -> set[str]:
    """The {name} placeholders of a template."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


# ---------------------------------------------------------------- reading a sentence back

def pattern(template: str) -> str:
    """A template's first line as a regex, each field a named group (`{name:g}` → (?P<name>.*?))."""
    pieces = re.split(r"\{(\w+)(?:[^}]*)\}", template.split("\n")[0])
    return "".join(re.escape(piece) if index % 2 == 0 else f"(?P<{piece}>.*?)" for index, piece in enumerate(pieces))


def recognise(message: str, keys: tuple[str, ...]) -> tuple[str, dict[str, str]] | None:
    """(key, fields as written) when `message`'s first line is one of `keys`' sentences, in
    either language: for results written before reasons were kept (an older --out folder, a
    results file read back without the kit's record). Built from this table: no second copy."""
    first = message.strip().split("\n")[0]
    for key in keys:
        for lang in ("fr", "en"):
            found = re.fullmatch(pattern(TEXTS[lang][key]), first)
            if found:
                return key, found.groupdict()
    return None
