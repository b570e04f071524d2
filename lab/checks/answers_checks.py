"""The lesson's fill-in cells (answers.toml), each judged by running the reference server on the
question it asks (no answer is written here). Spellings are forgiven (accents, case, extra
words); a cell that gives two answers is wrong; a key the lesson lacks is named."""

from __future__ import annotations

import difflib
import json
import re
import sys
import unicodedata
from functools import partial
from typing import Any, Callable, Iterable

from lab import time_limits
from lab.checks.engine import Check, Context, Failed, Probe
from lab.checks.reference import encode_lines, load, new_session, reference_replies, scenario_messages, states
from lab.checks.server_session import MISSING
from lab.checks.texts import own_words, say
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
    return ascii_letters(str(value)).strip()


def ascii_letters(text: str) -> str:
    """`text` in lower-case ASCII, accents dropped; each character maps alone (the combining marks
    whose order NFKD may change are dropped), so a text's mapping is its pieces' put together."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()


NO_FILE = ("file.missing", {"file": FILE})  # a reason and its fields


def read_answers(context: Context) -> dict | tuple[str, dict]:
    """The file's tables; else why it cannot be read: a reason and its fields."""
    data = read_student_file(context.folder / FILE)
    if data is None:
        return NO_FILE
    # Windows Notepad's "UTF-8 with BOM" starts the file with U+FEFF, which TOML does not allow;
    # its "Unicode" is UTF-16, with its own BOM: both are read as the text they hold.
    encoding = "utf-16" if data.startswith((b"\xff\xfe", b"\xfe\xff")) else "utf-8-sig"
    try:
        text = data.decode(encoding)
        if slow := too_slow_to_read(text):
            return "answers.not_toml", {"file": FILE, "said": slow}
        tables = tomllib.loads(text)
    except UnicodeDecodeError as error:
        return "answers.not_utf8", {"file": FILE, "byte": error.start}
    except RecursionError:  # tomllib reads nested arrays by recursion: a file nested thousands deep
        return "answers.not_toml", {"file": FILE, "said": "nested too deep"}
    except tomllib.TOMLDecodeError as error:
        # tomllib speaks English only: its place is said by the sentence, its commonest words by TOML_MISTAKES.
        said = str(error)
        where = AT.search(said)
        if where and said.endswith(where[0]):
            said, line = said[:where.start()].rstrip(), int(where[1])
            written = data.decode(encoding, "replace").splitlines()[line - 1:line] or [""]
            what = next((key for start, key in TOML_MISTAKES if said.startswith(start)), "answers.toml_other")
            name = written[0].strip().lstrip("[").partition("]")[0].strip()
            if what == "answers.toml_table" and re.search(r"[^\w.-]", name, re.ASCII):
                what = "answers.toml_table_letter"  # an accent, a space: what a name without quotes does not take
            what = VALUE_SLIPS.get((what, written[0].partition("=")[2].strip()[:1]), what)
            if what == "answers.toml_after_value" and written[0].partition("#")[0].rstrip().endswith(","):
                what = "answers.toml_comma"  # a list's or Python's habit: "etat = "attente","
            elif what == "answers.toml_after_value" and re.match(r"-?\d+[ ,.]\d", written[0].partition("=")[2].strip()):
                what = "answers.toml_number_split"  # French thousands: -32 600
            return "answers.not_toml_at", {"file": FILE, "said": said, "line": line, "column": int(where[2]),
                                           "what": {"reason": what}, "text": written[0].strip()[:120]}
        return "answers.not_toml", {"file": FILE, "said": said}
    except ValueError as error:  # a decimal integer past Python's limit of digits (TOML has none)
        return "answers.not_toml", {"file": FILE, "said": str(error)}
    refused = unprintable_integer(tables)
    return ("answers.not_toml", {"file": FILE, "said": refused}) if refused else tables


# tomllib walks the current [table]'s name again for each line under it: its time grows with the
# lines times the name's parts, and past this product a small file holds the check run for seconds.
TOML_STEPS = 1_000_000


def too_slow_to_read(text: str) -> str:
    """Why tomllib would take seconds to read `text`, or "": its lines times the parts of its
    longest [table] name (dots counted, in quotes and comments too: never fewer than it has)."""
    lines = text.split("\n")  # TOML's own line ends
    parts = max((line.count(".") + 1 for line in lines if line.lstrip(" \t").startswith("[")), default=0)
    if parts * len(lines) <= TOML_STEPS:
        return ""
    return f"a [table] name of up to {parts} parts above {len(lines)} lines: too slow to read"


def unprintable_integer(tables: dict) -> str:
    """Python's refusal to write an integer of the file as text (a hexadecimal one past its limit
    of digits), or "": every check reads a cell as text, and would fail as the kit's error."""
    pending: list[Any] = [tables]
    while pending:  # no recursion: arrays may be nested as deep as tomllib reads them
        value = pending.pop()
        if isinstance(value, dict):
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
        elif isinstance(value, int):
            try:
                str(value)
            except ValueError as error:
                return str(error)
    return ""


# tomllib's words (how they start) -> what the student wrote wrong, a reason of `REASONS` below.
TOML_MISTAKES = (
    ("Invalid value", "answers.toml_value"),
    ("Expected newline or end of document", "answers.toml_after_value"),
    ("Expected '=' after a key", "answers.toml_no_equals"),
    ("Illegal character '\\n'", "answers.toml_open_quote"),
    ("Unterminated string", "answers.toml_open_quote"),
    ("Cannot overwrite a value", "answers.toml_twice"),
    ("Cannot declare", "answers.toml_table_twice"),
    ("Expected ']' at the end of a table", "answers.toml_table"),
)


# A value that does not read, by how it starts: quotes TOML does not know, or an apostrophe inside
# 'single quotes', which ends the text there.
VALUE_SLIPS = {("answers.toml_value", quote): "answers.toml_curly_quotes" for quote in "“”«‘’"} | {
    ("answers.toml_after_value", "'"): "answers.toml_apostrophe"}


PROBES = {"answers.file": Probe(read_answers, time_limits.ANSWERS_READ, ignores=("*.py",))}


# "résultat" or "erreur" as an answer, not "pas de résultat" (said of an error) or "sans erreur".
NOT = r"(?<!pas de )(?<!pas d'un )(?<!pas d')(?<!pas d)(?<!sans )(?<!aucun )(?<!aucune )(?<!no )(?<!not a )(?<!not an )"
RESULT = re.compile(NOT + r"result")
ERROR = re.compile(NOT + r"err(?:eu|o)r")
# The server's error messages (fr, en), written in a cell without their code: "Pas initialisé".
ERROR_MESSAGE = re.compile(r"initiali[sz]|inconnue|unknown|prise en charge|unsupported|analyse|parse|invalid")


def answers_given(cell: Any) -> list[str]:
    """The answers a cell gives, as written: its codes (or the word error) and "résultat", else its
    versions; more than one is a cell that hedges."""
    text = str(cell)

    def words(pattern: str, said: re.Pattern) -> list[str]:  # the first, as written, when said as an answer
        # The first word whose text up to it says one (`said`): up to the end of the first saying of the
        # whole text, as `ascii_letters` maps each character alone (read once: again per word is quadratic).
        saying = said.search(ascii_letters(text))
        if saying is None:
            return []
        read, position = 0, 0
        for match in re.finditer(pattern, text, re.IGNORECASE):
            read, position = read + len(ascii_letters(text[position:match.end()])), match.end()
            if read >= saying.end():
                return [match.group()]
        return []

    codes = list(dict.fromkeys(CODE.findall(text))) or words(r"err(?:eu|o)r\w*", ERROR)
    results = words(r"r[ée]sult\w*", RESULT)
    if codes:
        return codes + results
    return list(dict.fromkeys(VERSION.findall(text))) or results


def reading(cell: Any) -> tuple[str, Any]:
    """What a cell says: ("error", code), ("result", version or None), or ("?", text)."""
    text = normalize(cell)
    if code := CODE.search(text):
        return "error", int(code.group())
    if version := VERSION.search(text):
        return "result", version.group()
    if "result" in text or text.startswith("{"):  # result, résultat, resultat, or the result's JSON
        return "result", None
    return "?", text


def initialize_outcome(version: str) -> tuple[str, Any]:
    reply = new_session().handle({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                  "params": {"protocolVersion": version, "capabilities": {}}})
    if "error" in reply:
        return "error", reply["error"]["code"]
    return "result", reply["result"]["protocolVersion"]


def table(context: Context, name: str) -> dict:
    answers = context.probe("answers.file")
    if isinstance(answers, tuple):
        # The file as a whole is wrong: said under its own title, by the first table's check.
        title = FILE_TITLE if answers != NO_FILE and name == TABLES[0] else None
        raise Failed("", answers[1].get("text") or "—", reason=answers[0], fields=answers[1], hint=FILE_HINT, title=title)
    cells = answers.get(name)
    # six_reponses = [...]: a value, not a table (under the table above it, when written after one)
    values = [answers] + [value for value in answers.values() if isinstance(value, dict)]
    written = next((where[name] for where in values if name in where and not isinstance(where[name], dict)), MISSING)
    if not isinstance(cells, dict) and written is not MISSING:
        raise Failed(f"[{name}]", json.dumps(written, ensure_ascii=False)[:80], reason="answers.not_a_table",
                     hint=FILE_HINT, fields={"table": name, "file": FILE})
    if not isinstance(cells, dict):
        near = difflib.get_close_matches(name, [key for key in answers if key not in TABLES], n=1, cutoff=0.6)
        if near:
            raise Failed(f"[{name}]", f"[{near[0]}]", reason="answers.misspelt_table", hint=FILE_HINT,
                         fields={"table": name, "written": near[0], "file": FILE})
        raise Failed(f"[{name}]", "—", reason="answers.no_table", fields={"table": name, "file": FILE})
    return cells


TABLES = ("mots_cles", "trois_clients", "six_reponses")


def cell_value(cells: dict, key: str, keys: tuple[str, ...], tables: dict | None = None) -> tuple[Any, Any]:
    """What the cell `key` holds, and why it is wrong if not there: EMPTY, a key of its own close to
    it, or the same key under another of the file's `tables`."""
    if key in cells:
        return cells[key], EMPTY
    moved = [name for name, other in (tables or {}).items() if isinstance(other, dict) and other is not cells and key in other]
    if moved:
        return tables[moved[0]][key], ("answers.why_other_table", {"written": moved[0]})
    others = [k for k in cells if k not in keys]
    # Close to it, or it and more words ("1 tools/list", the lesson's table row copied whole).
    near = [k for k in others if re.split(r"[\s.:)-]", k, maxsplit=1)[0] == key] \
        or difflib.get_close_matches(key, others, n=1, cutoff=0.6)
    if near:
        return cells[near[0]], ("answers.why_misspelt", {"written": near[0], "meant": key})
    listed = list(cells)  # nothing close: a key of its own in this cell's place ("un" for 1) is named too
    place = keys.index(key) if key in keys else len(listed)
    if place < len(listed) and listed[place] in others:
        return cells[listed[place]], ("answers.why_renamed", {"written": listed[place], "meant": key})
    return "", EMPTY


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


Asks = tuple[str, dict]  # what a cell asks: a reason and its fields
Why = Any  # why a cell is wrong: a reason key (answers.why_…), or (key, fields)
Wrong = tuple[str, Asks, Any, Why]  # a wrong cell: its name, what it asks, what was written, why
EMPTY = "answers.why_empty"


def grade(cells: list[Wrong | None], lang: str) -> None:
    """Fails on the first wrong cell, naming the others (class_stats.py counts them)."""
    if wrong := [cell for cell in cells if cell]:
        cell, (asks, asked), written, why = wrong[0]
        why = {"reason": why} if isinstance(why, str) else {"reason": why[0], "fields": why[1]}
        # An empty cell is still to fill in, not wrong: the two are named apart.
        fields = {"cell": cell, "why": why,
                  "empty_cells": [w[0] for w in wrong[1:] if w[3] == EMPTY],
                  "wrong_cells": [w[0] for w in wrong[1:] if w[3] != EMPTY]}
        raise Failed(say(lang, asks, **asked), written if written != "" else "—", reason="answers.cell", fields=fields)


def not_one_answer(written: Any, why: Why, given: Callable[[str], list[str]]) -> Why | None:
    """Why a cell gives no single answer: empty, written under another key, or giving several."""
    if written == "" or why != EMPTY:
        return why
    answers = given(str(written))
    return ("answers.why_two_answers", {"answers": ", ".join(answers)}) if len(answers) > 1 else None


KEYWORDS = ("poignee_de_main", "etat", "negocier")


def keyword(cells: dict, tables: dict, key: str, asks: str, given: Callable[[str], list[str]], right: Callable[[str], bool],
            wrong_why: str, spellings: Iterable[str] = ()) -> Wrong | None:
    """One cell of [mots_cles]; `spellings`: the words it may be a misspelling of."""
    written, why = cell_value(cells, key, KEYWORDS, tables)
    name = f"mots_cles.{key}"
    if why := not_one_answer(written, why, given):
        return name, (asks, {}), written, why
    if right(str(written)):
        return None
    # A letter or two from a right answer (initialise for initialize): a spelling, said as one.
    near = [(word, close[0]) for word in words(str(written)) for close in [difflib.get_close_matches(word, list(spellings), 1, 0.8)]
            if close and right(close[0])]
    if not near:
        return name, (asks, {}), written, wrong_why
    word, spelt = near[0]
    why = "answers.why_just_the_word" if normalize(word) == normalize(spelt) else "answers.why_almost"
    return name, (asks, {}), written, (why, {"word": word, "right": spelt})


def words(text: str) -> list[str]:
    return list(dict.fromkeys(re.findall(r"[a-z/_]+", normalize(text))))


def named(text: str, among: set[str]) -> list[str]:
    return list({normalize(w): w for w in re.findall(r"[\w/]+", text) if normalize(w) in among}.values())


def keywords(context: Context) -> None:
    cells, tables = table(context, "mots_cles"), context.probe("answers.file")
    requests = {m["method"] for m in scenario_messages() if "id" in m} | {"ping"}  # the lesson's requests
    named_states = {normalize(state) for state in states()} | {"new", "waiting", "ready"}  # the lesson's, or in English
    wrong = [
        keyword(cells, tables, "poignee_de_main", "answers.asks_handshake", lambda text: named(text, requests),
                lambda text: any(opens_session(word) for word in words(text)), "answers.why_not_the_opening", requests),
        keyword(cells, tables, "etat", "answers.asks_state", lambda text: named(text, named_states),
                lambda text: normalize(text) in named_states, "answers.why_not_a_state", named_states),
        keyword(cells, tables, "negocier", "answers.asks_version", lambda text: list(dict.fromkeys(VERSION.findall(text))),
                lambda text: (version := VERSION.search(text)) is not None
                and initialize_outcome(version.group()) == ("result", version.group()),
                "answers.why_version_refused"),
    ]
    grade(wrong, context.lang)


def opens_session(method: str) -> bool:
    session = new_session()
    before = session.state
    reply = session.handle({"jsonrpc": "2.0", "id": 1, "method": method,
                            "params": {"protocolVersion": load("server").VERSIONS[-1], "capabilities": {}}})
    return isinstance(reply, dict) and "result" in reply and session.state != before


def compare(cell: str, value: tuple[Any, Why], expected: tuple[str, Any], asks: Asks) -> Wrong | None:
    written, why = value
    if why := not_one_answer(written, why, answers_given):
        return cell, asks, written, why
    said = reading(written)
    if said == expected:
        return None
    if expected[0] == "result" and said == ("result", None):
        return cell, asks, written, "answers.why_say_version"
    if expected[0] == "error" and said[0] == "?" and (ERROR.search(said[1]) or ERROR_MESSAGE.search(said[1])):
        unsigned = re.search(r"(?<![-\d])\d{5}(?!\d)", said[1])  # a code written without its minus sign
        return cell, asks, written, "answers.why_minus" if unsigned else "answers.why_say_code"
    return cell, asks, written, "answers.why_not_the_reply"


THREE_CLIENTS = ("2024-11-05", "2025-03-26", "1999-01-01")  # the lesson's questions (the answers are the server's)


def three_clients(context: Context) -> None:
    cells, tables = table(context, "trois_clients"), context.probe("answers.file")
    wrong = [compare(f"trois_clients.\"{version}\"", cell_value(cells, version, THREE_CLIENTS, tables),
                     initialize_outcome(version), ("answers.asks_initialize", {"version": version}))
             for version in THREE_CLIENTS]
    grade(wrong, context.lang)


def six_replies(context: Context) -> None:
    cells, tables = table(context, "six_reponses"), context.probe("answers.file")
    replies = reference_replies(encode_lines(scenario_messages()), context.lang)
    keys = tuple(str(reply["id"]) for reply in replies)
    wrong = []
    for reply in replies:
        expected = ("error", reply["error"]["code"]) if "error" in reply else ("result", None)
        value = cell_value(cells, str(reply["id"]), keys, tables)
        if expected[0] == "result" and reading(value[0])[0] == "result":
            # "résultat" is enough here (the details are in the reply), and so is its version
            expected = reading(value[0])
        wrong.append(compare(f"six_reponses.{reply['id']}", value, expected,
                             ("answers.asks_reply", {"id": reply["id"]})))
    grade(wrong, context.lang)


answers_check = partial(Check, task="answers", probes=("answers.file",))

CHECKS = [
    answers_check(id="answers.keywords", run=keywords,
                  fr=("Mots clés : les exemples",
                      "Un exemple par mot : la requête qui ouvre la session, un état du serveur, une version négociable."),
                  en=("Keywords: the examples",
                      "One example per word: the request that opens the session, a state of the server, a version to agree on.")),
    answers_check(id="answers.three-clients", run=three_clients,
                  fr=("Trois clients demandent : ce que répond le serveur",
                      "La version est-elle dans la liste du serveur ? Alors « résultat en <version> », sinon le code d’erreur."),
                  en=("Three clients ask: what the server answers",
                      "Is the version in the server's list? Then \"result in <version>\", otherwise the error code.")),
    answers_check(id="answers.six-replies", run=six_replies,
                  fr=("Les six réponses : le code ou « résultat »",
                      "Lancez votre client contre votre serveur (`lab run exercises`) et lisez chaque ligne `<- ` : error.code, ou result. Relisez le tableau des codes de la leçon."),
                  en=('The six replies: the code or "result"',
                      "Run your client against your server (`lab run exercises`) and read each `<- ` line: error.code, or result. Read the lesson's table of codes again.")),
]

# Why a check failed, by key (lab/checks/texts.py `say`), in both languages with the same fields.
REASONS = {
    "fr": {
        "answers.not_utf8": "{file} n’est pas enregistré en UTF-8 (octet {byte}).",
        "answers.no_table": "La table [{table}] manque dans {file}.",
        "answers.not_a_table": "{table} est écrit dans {file} comme une seule valeur, pas comme la table [{table}] : "
                               "une ligne [{table}], puis une cellule par ligne, comme dans le fichier donné.",
        # tomllib speaks English only: what is wrong ({what}, one of the answers.toml_… reasons) and
        # its place are said in the student's language, its own words ({said}) quoted after.
        "answers.file_title": "{file} se lit comme un fichier TOML",
        "answers.not_toml_at": "{file} ne se lit pas, ligne {line} : {what} (tomllib dit, en anglais : « {said} "
                               "(at line {line}, column {column}) »).",
        "answers.toml_value": "la réponse n’est ni un nombre ni un texte entre guillemets",
        "answers.toml_after_value": "après la réponse, rien d’autre sur la ligne qu’un commentaire # (une réponse de "
                                    "plusieurs mots va entre guillemets)",
        "answers.toml_no_equals": "il manque le signe = entre la clé et la réponse",
        "answers.toml_open_quote": "un guillemet n’est pas refermé sur cette ligne",
        "answers.toml_twice": "cette clé est déjà écrite plus haut dans sa table : une seule ligne par cellule",
        "answers.toml_table_twice": "cette table est déjà ouverte plus haut : chaque [table] une seule fois, ses "
                                    "cellules dessous",
        "answers.toml_number_split": "un nombre s’écrit d’un seul tenant, sans espace ni virgule entre ses chiffres : "
                                     "-32600",
        "answers.toml_comma": "une virgule après la réponse : en TOML, une cellule par ligne, sans virgule au bout",
        "answers.toml_apostrophe": "une apostrophe dans un texte entre apostrophes le ferme là : mettez la réponse "
                                   "entre guillemets droits \"…\"",
        "answers.toml_curly_quotes": "la réponse est entre guillemets typographiques (“ ” ou « ») : TOML ne lit que "
                                     "les guillemets droits \"…\"",
        "answers.toml_table": "le nom de la table n’est pas refermé par ]",
        "answers.toml_table_letter": "le nom de la table a une lettre qu’un nom sans guillemets n’admet pas (un "
                                     "accent, une espace)",
        "answers.toml_other": "regardez les crochets, les guillemets et le signe = de cette ligne",
        "answers.not_toml": "{file} n’est pas du TOML valide (tomllib dit, en anglais : « {said} »).",
        # A wrong cell: `cell` is its name in the file, `why` one of the answers.why_… reasons,
        # `empty_cells` and `wrong_cells` the other cells (lists, maybe empty).
        "answers.cell": "Cellule {cell} : {why}{empty_cells}{wrong_cells}",
        "answers.still_empty": " Cellules encore vides : {cells}.",
        "answers.also_wrong": " Autres cellules fausses : {cells}.",
        "answers.why_empty": "elle est vide.",
        "answers.why_not_the_opening": "ce n’est pas la requête qui fait quitter au serveur l’état nouveau.",
        "answers.why_not_a_state": "ce n’est pas un des états du serveur.",
        "answers.why_version_refused": "le serveur n’accepte pas cette version : écrivez-en une de sa liste VERSIONS.",
        "answers.why_say_version": "dites aussi en quelle version.",
        "answers.why_say_code": "c’est bien une erreur : dites aussi son code.",
        "answers.why_almost": "presque : « {word} » s’écrit {right}, comme dans les messages JSON.",
        "answers.why_just_the_word": "presque : écrivez seulement « {right} », le mot de la leçon, sans rien autour.",
        "answers.why_minus": "c’est bien une erreur, mais les codes d’erreur de JSON-RPC sont négatifs : le signe "
                             "moins fait partie du code.",
        "answers.why_not_the_reply": "ce n’est pas ce que répond le serveur.",
        "answers.why_two_answers": "une case, une seule réponse : celle-ci en donne plusieurs ({answers}).",
        "answers.why_misspelt": "elle manque, et la table a une clé « {written} » que la leçon n’a pas : une faute "
                                "de frappe pour {meant} ?",
        "answers.why_other_table": "elle manque ici, et la table [{written}] a cette clé : chaque réponse va sous la "
                                   "table de sa question, comme dans le fichier donné.",
        "answers.why_renamed": "elle manque, et la table a à sa place une clé « {written} » que la leçon n’a pas : "
                               "gardez les clés du fichier donné, ici {meant}.",
        "answers.misspelt_table": "La table [{table}] manque dans {file}, qui a une table [{written}] que la leçon "
                                  "n’a pas : une faute de frappe ?",
        "answers.file_hint": "Tant que {file} ne se lit pas, aucune de ses réponses ne peut être vérifiée : chaque "
                             "table [nom] sur sa ligne, puis une cellule par ligne, clé = \"réponse\", comme dans le "
                             "fichier donné.",
        # What a cell asks (the check's "expected").
        "answers.asks_handshake": "la méthode qui ouvre la session",
        "answers.asks_state": "un état du serveur",
        "answers.asks_version": "une version que les deux côtés parlent",
        "answers.asks_initialize": "ce que répond le serveur à initialize {version}",
        "answers.asks_reply": "la réponse {id} de `lab run`",
    },
    "en": {
        "answers.not_utf8": "{file} is not saved as UTF-8 (byte {byte}).",
        "answers.no_table": "The [{table}] table is missing from {file}.",
        "answers.not_a_table": "{table} is written in {file} as one value, not as the [{table}] table: a line "
                               "[{table}], then one cell per line, as in the given file.",
        "answers.file_title": "{file} reads as a TOML file",
        "answers.not_toml_at": "{file} does not read, line {line}: {what} (tomllib says: “{said} (at line {line}, "
                               "column {column})”).",
        "answers.toml_value": "the answer is neither a number nor a text in quotes",
        "answers.toml_after_value": "after the answer, nothing else on the line but a # comment (an answer of several "
                                    "words goes in quotes)",
        "answers.toml_no_equals": "the = sign between the key and the answer is missing",
        "answers.toml_open_quote": "a quote is not closed on this line",
        "answers.toml_twice": "this key is written already further up in its table: one line per cell",
        "answers.toml_table_twice": "this table is opened already further up: each [table] once, its cells under it",
        "answers.toml_number_split": "a number is written in one piece, with no space or comma between its digits: "
                                     "-32600",
        "answers.toml_comma": "a comma after the answer: in TOML, one cell per line, with no comma at its end",
        "answers.toml_apostrophe": "an apostrophe inside a text in single quotes ends it there: put the answer in "
                                   "straight double quotes \"…\"",
        "answers.toml_curly_quotes": "the answer is in typographic quotes (“ ” or « »): TOML reads straight double "
                                     "quotes \"…\" only",
        "answers.toml_table": "the table's name is not closed with ]",
        "answers.toml_table_letter": "the table's name has a letter a name without quotes does not take (an "
                                     "accent, a space)",
        "answers.toml_other": "look at the brackets, the quotes and the = sign of this line",
        "answers.not_toml": "{file} is not valid TOML: {said}",
        "answers.cell": "Cell {cell}: {why}{empty_cells}{wrong_cells}",
        "answers.still_empty": " Cells still empty: {cells}.",
        "answers.also_wrong": " Other wrong cells: {cells}.",
        "answers.why_empty": "it is empty.",
        "answers.why_not_the_opening": "that is not the request that moves the server out of the new state.",
        "answers.why_not_a_state": "that is not one of the server's states.",
        "answers.why_version_refused": "the server does not accept this version: write one from its VERSIONS list.",
        "answers.why_say_version": "also say in which version.",
        "answers.why_say_code": "it is an error indeed: also say its code.",
        "answers.why_almost": "almost: “{word}” is spelt {right}, as in the JSON messages.",
        "answers.why_just_the_word": "almost: write only “{right}”, the lesson's word, with nothing around it.",
        "answers.why_minus": "it is an error indeed, but JSON-RPC's error codes are negative: the minus sign is "
                             "part of the code.",
        "answers.why_not_the_reply": "that is not what the server answers.",
        "answers.why_two_answers": "one cell, one answer: this one gives several ({answers}).",
        "answers.why_misspelt": "it is missing, and the table has a key “{written}” the lesson does not have: a typo "
                                "for {meant}?",
        "answers.why_other_table": "it is missing here, and the [{written}] table has this key: each answer goes "
                                   "under its question's table, as in the given file.",
        "answers.why_renamed": "it is missing, and the table has in its place a key “{written}” the lesson does not "
                               "have: keep the keys of the given file, here {meant}.",
        "answers.misspelt_table": "The [{table}] table is missing from {file}, which has a [{written}] table the "
                                  "lesson does not have: a typo?",
        "answers.file_hint": "As long as {file} does not read, none of its answers can be checked: each [name] "
                             "table on its own line, then one cell per line, key = \"answer\", as in the file given.",
        "answers.asks_handshake": "the method that opens the session",
        "answers.asks_state": "one of the server's states",
        "answers.asks_version": "a version both sides speak",
        "answers.asks_initialize": "what the server answers to initialize {version}",
        "answers.asks_reply": "reply {id} of `lab run`",
    },
}

FILE_HINT = own_words(REASONS, "answers.file_hint", file=FILE)  # what to do when the file itself is wrong
FILE_TITLE = own_words(REASONS, "answers.file_title", file=FILE)
