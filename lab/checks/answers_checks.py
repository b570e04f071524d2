"""The lesson's fill-in cells (answers.toml), graded against what the reference server does.

No expected answer is written here: each cell is judged by running the reference
server's Session (solutions/server.py) on the question the cell asks. Spellings are
forgiven: codes as numbers or text, accents and case ignored, extra words allowed.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from typing import Any

from lab.checks.engine import Check, Context, Failed, Probe
from lab.checks.reference import encode_lines, load, new_session, reference_replies, scenario_messages
from lab.checks.texts import say
from lab.process.student import read_student_file

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

FILE = "answers.toml"
CODE = re.compile(r"-\d{5}")
VERSION = re.compile(r"\d{4}-\d{2}-\d{2}")
AT = re.compile(r"\(at line (\d+), column (\d+)\)")  # where tomllib's message says the error is


def normalize(value: Any) -> str:
    """Lower case, no accents, plain apostrophes: "Résultat" and "resultat" are one answer."""
    text = unicodedata.normalize("NFKD", str(value)).encode("ascii", "ignore").decode()
    return text.lower().strip()


NO_FILE = ("file.missing", {"file": FILE})  # a reason of lab/checks/texts.py and its fields


def read_answers(context: Context) -> dict | tuple[str, dict]:
    """The file's tables; else why it cannot be read: a reason of lab/checks/texts.py and its
    fields (NO_FILE, not UTF-8, not TOML with tomllib's own words)."""
    data = read_student_file(context.folder / FILE)
    if data is None:
        return NO_FILE
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        return "answers.not_utf8", {"file": FILE, "byte": error.start}
    except RecursionError:  # tomllib reads nested arrays by recursion: a file nested thousands deep
        return "answers.not_toml", {"file": FILE, "said": "nested too deep"}
    except tomllib.TOMLDecodeError as error:
        # tomllib speaks English only: its place is cut out of its words, for the sentence to say it.
        said = str(error)
        where = AT.search(said)
        if where and said.endswith(where[0]):
            return "answers.not_toml_at", {"file": FILE, "said": said[:where.start()].rstrip(),
                                           "line": int(where[1]), "column": int(where[2])}
        return "answers.not_toml", {"file": FILE, "said": said}


PROBES = {"answers.file": Probe(read_answers, 2.0, ignores=("*.py",))}


def reading(cell: Any) -> tuple[str, Any]:
    """What a cell says: ("error", code), ("result", version or None), or ("?", text)."""
    text = normalize(cell)
    if code := CODE.search(text):
        return "error", int(code.group())
    if version := VERSION.search(text):
        return "result", version.group()
    if "result" in text:  # result, résultat, resultat
        return "result", None
    return "?", text


def initialize_outcome(version: str) -> tuple[str, Any]:
    """What the reference server answers to initialize with this version."""
    reply = new_session().handle({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                  "params": {"protocolVersion": version, "capabilities": {}}})
    if "error" in reply:
        return "error", reply["error"]["code"]
    return "result", reply["result"]["protocolVersion"]


def table(context: Context, name: str) -> dict:
    answers = context.probe("answers.file")
    if isinstance(answers, tuple):
        raise Failed(FILE, "—", reason=answers[0], fields=answers[1])
    cells = answers.get(name)
    if not isinstance(cells, dict):
        raise Failed(f"[{name}]", "—", reason="answers.no_table", fields={"table": name, "file": FILE})
    return cells


# The cells keep the lesson's French names (the file's keys); in another language each is shown
# with its lesson label translated, so that the name says what the cell is about.
LABELS = {"en": {"mots_cles": "keywords", "poignee_de_main": "handshake", "etat": "state", "negocier": "negotiate",
                 "trois_clients": "three clients ask", "six_reponses": "the six replies"}}


def cell_name(cell: str, lang: str) -> str:
    """`mots_cles.etat` as the student reads it: in English, `mots_cles.etat (keywords: state)`."""
    labels = LABELS.get(lang)
    if not labels:
        return cell
    table, _, key = cell.partition(".")
    return f"{cell} ({labels.get(table, table)}: {labels.get(key, key)})"


Asks = tuple[str, dict]  # what a cell asks: a reason of lab/checks/texts.py and its fields
Wrong = tuple[str, Asks, Any, str]  # a wrong cell: its name, what it asks, what was written, why (a key)
EMPTY = "answers.why_empty"


def grade(wrong: list[Wrong], lang: str) -> None:
    """Fails on the first wrong cell, naming the others; the result keeps the cells as fields
    (lab/grading/class_stats.py counts them)."""
    if wrong:
        cell, (asks, asked), written, why = wrong[0]
        # An empty cell is still to fill in, not wrong: the two are named apart.
        fields = {"cell": cell, "why": {"reason": why},
                  "empty_cells": [w[0] for w in wrong[1:] if w[3] == EMPTY],
                  "wrong_cells": [w[0] for w in wrong[1:] if w[3] != EMPTY]}
        raise Failed(say(lang, asks, **asked), written if written != "" else "—", reason="answers.cell", fields=fields)


def keywords(context: Context) -> None:
    cells = table(context, "mots_cles")
    wrong = []
    handshake = cells.get("poignee_de_main", "")
    if not any(opens_session(word) for word in re.findall(r"[a-z/_]+", normalize(handshake))):
        wrong.append(("mots_cles.poignee_de_main", ("answers.asks_handshake", {}), handshake,
                      EMPTY if handshake == "" else "answers.why_not_the_opening"))
    state = cells.get("etat", "")
    states = {normalize(s.value) for s in load("server").State} | {s.name.lower() for s in load("server").State}
    if normalize(state) not in states:
        wrong.append(("mots_cles.etat", ("answers.asks_state", {}), state,
                      EMPTY if state == "" else "answers.why_not_a_state"))
    negotiate = cells.get("negocier", "")
    version = VERSION.search(normalize(negotiate))
    if not version or initialize_outcome(version.group()) != ("result", version.group()):
        wrong.append(("mots_cles.negocier", ("answers.asks_version", {}), negotiate,
                      EMPTY if negotiate == "" else "answers.why_version_refused"))
    grade(wrong, context.lang)


def opens_session(method: str) -> bool:
    """Sent to a new reference session, does this request get a result and move the state?"""
    session = new_session()
    before = session.state
    version = load("server").VERSIONS[-1]
    reply = session.handle({"jsonrpc": "2.0", "id": 1, "method": method,
                            "params": {"protocolVersion": version, "capabilities": {}}})
    return isinstance(reply, dict) and "result" in reply and session.state != before


def compare(cell: str, written: Any, expected: tuple[str, Any], asks: Asks) -> Wrong | None:
    if written == "":
        return cell, asks, written, EMPTY
    said = reading(written)
    if said == expected:
        return None
    if expected[0] == "result" and said == ("result", None):
        return cell, asks, written, "answers.why_say_version"
    return cell, asks, written, "answers.why_not_the_reply"


THREE_CLIENTS = ("2024-11-05", "2025-03-26", "1999-01-01")  # the lesson's questions (the answers are the server's)


def three_clients(context: Context) -> None:
    cells = table(context, "trois_clients")
    wrong = [compare(f"trois_clients.\"{version}\"", cells.get(version, ""), initialize_outcome(version),
                     ("answers.asks_initialize", {"version": version}))
             for version in THREE_CLIENTS]
    grade([w for w in wrong if w], context.lang)


def six_replies(context: Context) -> None:
    cells = table(context, "six_reponses")
    wrong = []
    for reply in reference_replies(encode_lines(scenario_messages()), context.lang):
        expected = ("error", reply["error"]["code"]) if "error" in reply else ("result", None)
        written = cells.get(str(reply["id"]), "")
        if expected[0] == "result" and reading(written)[0] == "result":
            continue  # "résultat" is enough here; the details are in the reply
        wrong.append(compare(f"six_reponses.{reply['id']}", written, expected,
                             ("answers.asks_reply", {"id": reply["id"]})))
    grade([w for w in wrong if w], context.lang)


FILE_PROBE = ("answers.file",)

CHECKS = [
    Check(id="answers.keywords", task="answers", probes=FILE_PROBE, run=keywords),
    Check(id="answers.three-clients", task="answers", probes=FILE_PROBE, run=three_clients),
    Check(id="answers.six-replies", task="answers", probes=FILE_PROBE, run=six_replies),
]
