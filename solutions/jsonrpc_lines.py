"""Fourni : lire et écrire des lignes JSON-RPC, pour server.py (client.py et bonus_server.py s’en
servent aussi). Servez-vous-en ; ne le modifiez pas. server.py appelle read_message, to_json,
language, todo_line et use_utf8_stdio ; le reste sert à read_message.
Given: reading and writing JSON-RPC lines, for server.py (client.py and bonus_server.py use it
too). Use it; do not edit it. server.py calls read_message, to_json, language, todo_line and
use_utf8_stdio; the rest serves read_message.
"""

from __future__ import annotations

import json
import math
import os
import sys
from typing import Any


def language() -> str:
    """fr : "fr" (la langue de la leçon), sauf si LAB_LANG dit l’anglais.
    en: "fr" (the lesson's language) unless LAB_LANG says English."""
    return "en" if os.environ.get("LAB_LANG", "fr").lower().startswith("en") else "fr"


TODO_LINE = {"fr": "À écrire : {part}", "en": "To write: {part}"}


def todo_line(part: object) -> str:
    """fr : la ligne « À écrire : … » d’une partie encore à écrire, dans la langue choisie.
    en: the "To write: …" line of a part still to write, in the chosen language."""
    # fr : une partie se nomme dans les deux langues (« serveur, partie 1 / server, part 1 ») : en garder une.
    # en: a part names itself in both languages ("serveur, partie 1 / server, part 1"): keep one.
    names = str(part).split(" / ")
    return TODO_LINE[language()].format(part=names[-1] if language() == "en" else names[0])


class InvalidRequest(Exception):
    """fr : du JSON, mais pas une requête JSON-RPC : répondez -32600 avec cet id (None s’il n’y en a
    pas de bon). Ce n’est pas une ValueError, qui veut dire « pas du JSON » (-32700).
    en: JSON, but no JSON-RPC request: answer -32600 with this id (None without a good one).
    Not a ValueError, which means "not JSON" (-32700): the two answers never mix up."""

    def __init__(self, request_id: Any = None) -> None:
        super().__init__("invalid request")
        self.id = request_id


def json_number(text: str) -> float:
    # fr : Python lit NaN, Infinity et 1e400 (l’infini) ; JSON n’a pas ces nombres.
    # en: Python reads NaN, Infinity and 1e400 (as infinity). JSON has no such numbers, and a reply
    # that gave one back (as the -32602 error gives the version back) would not be JSON.
    number = float(text)
    if math.isinf(number) or math.isnan(number):
        raise ValueError(f"{text} is not a JSON number")
    return number


# fr : faits une fois (json.loads et json.dumps avec options en refont un à chaque appel).
# en: made once: json.loads and json.dumps with options make a new decoder or encoder at each call.
DECODER = json.JSONDecoder(parse_constant=json_number, parse_float=json_number)
ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
MAX_DEPTH = 500  # niveaux d’imbrication au plus / nesting levels at most (Python reads about 990)


def depth(value: Any) -> int:
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else None
    return 0 if children is None else 1 + max(map(depth, children), default=0)


def read_message(line: str) -> dict | None:
    """fr : une ligne reçue, lue comme une requête ou une notification ; None quand rien n’est dû
    (une ligne vide, ou une réponse). ValueError : pas du JSON. InvalidRequest : pas une requête.
    en: one input line as a request or a notification; None when nothing is owed (a blank line,
    or a reply: this server sends no request). ValueError: not JSON. InvalidRequest: no request."""
    if not line.strip():
        return None
    try:
        message = DECODER.decode(line)
        too_deep = line.count("[") + line.count("{") > MAX_DEPTH and depth(message) > MAX_DEPTH
    except RecursionError:  # si profond que Python ne peut le lire / so deep Python cannot read it
        too_deep = True
    if too_deep:
        raise ValueError("nested too deep")
    if not isinstance(message, dict):  # un nombre, un texte, une liste / a number, a string, a batch (array)
        raise InvalidRequest()
    if "method" not in message and ("result" in message or "error" in message):
        return None
    request_id = message.get("id")
    # fr : un id MCP est un texte ou un entier (pas true, pas 1.0) ; 0 et "" sont des id comme les autres.
    # en: MCP ids are strings or integers (not true, not 1.0); 0 and "" are ids like any other.
    id_ok = isinstance(request_id, str) or (isinstance(request_id, int) and not isinstance(request_id, bool))
    if ("id" in message and not id_ok) or message.get("jsonrpc") != "2.0" \
            or not isinstance(message.get("method"), str) or not isinstance(message.get("params", {}), dict):
        raise InvalidRequest(request_id if id_ok else None)
    return message


def to_json(value: Any) -> str:
    """fr : du JSON sur une ligne, compact, accents tels quels : ce qu’écrit JSON.stringify.
    en: JSON on one line, compact, accents as they are: what JavaScript's JSON.stringify writes."""
    return ENCODER.encode(value)


def use_utf8_stdio() -> None:
    """fr : l’entrée et la sortie standard en UTF-8, quel que soit le système.
    en: standard input and output in UTF-8, whatever the system."""
    # fr : un octet qui n’est pas de l’UTF-8 se lit "�" (comme dans readline de Node : la ligne
    # reçoit quand même sa réponse), et une ligne ne finit qu’à "\n".
    # en: a byte that is not UTF-8 reads as "�" (as in Node's readline: the line is still
    # answered), a line ends at "\n" only, and a lone surrogate a client sent as "\udc80" goes
    # back as that same escape.
    sys.stdin.reconfigure(encoding="utf-8", errors="replace", newline="\n")  # type: ignore[union-attr]
    sys.stdout.reconfigure(encoding="utf-8", errors="backslashreplace")  # type: ignore[union-attr]
