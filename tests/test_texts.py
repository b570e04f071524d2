"""One shape for the checks' reasons: a key of a module's REASONS and its fields, in French and
English with the same fields; a check's title and hint in its declaration, in both languages with
the same fields; the real clients report keys, never sentences; the modules moved to the tables
keep no text of their own in the older shapes."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from conftest import ROOT
from lab.checks import reasons, registry
from lab.checks.texts import field_names, say

TEXTS = reasons()  # every module's REASONS, gathered

# Modules whose texts all live in the tables or in the checks' declarations, and the class
# report's figures that read them.
MOVED = ("lab/checks/engine.py", "lab/checks/texts.py", "lab/checks/__init__.py",
         "lab/checks/tracebacks.py",
         "lab/checks/server_checks.py", "lab/checks/server_session.py", "lab/checks/parts.py", "lab/checks/bonus.py",
         "lab/checks/client_checks.py", "lab/checks/model_checks.py", "lab/checks/answers_checks.py",
         "lab/checks/real_clients.py", "lab/grading/class_stats.py")
SAME_IN_BOTH = {"real.said", "bonus.inspector.hint"}  # the client's own words; a command line


def declared_words() -> dict[str, dict[str, str]]:
    """The checks' titles and hints as declared (templates), and the lesson parts' names, by key."""
    checks, _, tasks = registry()
    table: dict[str, dict[str, str]] = {"fr": {}, "en": {}}
    for check in checks:
        for lang, (title, hint) in (("fr", check.fr), ("en", check.en)):
            table[lang].update({f"{check.id}.title": title, f"{check.id}.hint": hint})
    for task, names in tasks.items():
        for lang in table:
            table[lang][f"task.{task}"] = names[lang]
    return table


@pytest.mark.parametrize("table", [TEXTS, declared_words()], ids=["texts", "declared"])
def test_every_key_is_in_french_and_english_with_the_same_fields(table: dict[str, dict[str, str]]) -> None:
    assert set(table) == {"fr", "en"}
    assert sorted(table["fr"]) == sorted(table["en"])
    for key in table["fr"]:
        assert table["fr"][key] and table["en"][key], key
        assert field_names(table["fr"][key]) == field_names(table["en"][key]), key
        assert table["fr"][key] != table["en"][key] or key in SAME_IN_BOTH, key


def test_every_check_and_part_has_its_words_in_its_declaration() -> None:
    checks, _, tasks = registry()
    for check in checks:
        assert len(check.fr) == len(check.en) == 2, check.id  # (title, hint)
        assert set(check.words) >= field_names("".join(check.fr)), check.id
    assert all(set(names) == {"fr", "en"} for names in tasks.values())


def reason_keys_in(path: Path) -> set[str]:
    """Every literal `reason="..."` a module passes, and every ("key", ...) pair it assigns."""
    keys = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.keyword) and node.arg == "reason" and isinstance(node.value, ast.Constant):
            keys.add(node.value.value)
        if isinstance(node, ast.Tuple) and len(node.elts) == 2 and isinstance(node.elts[0], ast.Constant) \
                and isinstance(node.elts[0].value, str) and re.fullmatch(r"[a-z_]+\.[a-z_]+", node.elts[0].value) \
                and isinstance(node.elts[1], ast.Dict):
            keys.add(node.elts[0].value)
    return keys - {""}


def test_the_shapes_test_finds_each_older_shape() -> None:
    older = 'who = ("Le serveur", "The server")\nmessage = {"fr": "Bonjour", "en": "Hello"}\nraise Failed(fr="a", en="b")\n'
    assert len(sentence_pairs(older)) == 1 and sentence_pairs('x = ("legacy", "auto")\n') == []
    assert [line for line in older.splitlines() for shape in INLINE if shape.search(line)] == older.splitlines()[1:]
    branches = 'asks = pair[0 if context.lang == "fr" else 1]\nif lang != "en":\nif lang in TEXTS:\n'
    assert [line for line in branches.splitlines() for shape in LANG_BRANCHES if shape.search(line)] == \
        branches.splitlines()[:2]


def test_the_real_clients_report_only_keys_of_the_table() -> None:
    keys = reason_keys_in(ROOT / "lab" / "checks" / "real_clients.py")
    assert {"real.no_answer", "real.mcp_error", "real.no_npx", "real.not_a_file"} <= keys
    assert keys <= set(TEXTS["en"])


def test_every_reason_a_check_passes_is_a_key_of_a_table() -> None:
    from lab.i18n import MESSAGES

    for path in sorted((ROOT / "lab").rglob("*.py")):
        for key in reason_keys_in(path):
            if "." in key and not key.startswith("grade.limit"):
                assert key in TEXTS["fr"] or key in MESSAGES["fr"], (path.name, key)


# A French or English literal in one of the older shapes: {"fr": "…"}, fr="…" / en="…".
INLINE = [re.compile(r'\{\s*"(?:fr|en)"\s*:\s*f?["\']'), re.compile(r"\b(?:fr|en)\s*=\s*f?[\"']")]
# A sentence chosen by the run's language in the code: `if lang == "fr"`, `pair[0 if lang == "fr" else 1]`.
LANG_BRANCHES = [re.compile(r"""lang\s*[!=]=\s*["'](?:fr|en)["']""")]


def sentence_pairs(source: str) -> list[str]:
    """("Le serveur", "The server")-style pairs: a tuple of two different literal sentences."""
    def sentence(node: ast.expr) -> str:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.JoinedStr):
            return "".join(part.value for part in node.values if isinstance(part, ast.Constant))
        return ""
    pairs = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Tuple) and len(node.elts) == 2:
            first, second = map(sentence, node.elts)
            if first != second and all(re.search(r"[A-Za-zÀ-ÿ]{2,} [A-Za-zÀ-ÿ]{2,}", t) for t in (first, second)):
                pairs.append(f"{first!r}, {second!r}")
    return pairs


def without_declared_words(source: str) -> str:
    """The source with the words' homes blanked: a check declaration's `fr=` and `en=` (a call
    of Check or of a module's `*_check`), and the `TASKS` names."""
    spans = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "").endswith(("Check", "_check")):
            spans += [keyword.value for keyword in node.keywords if keyword.arg in ("fr", "en")]
        if isinstance(node, ast.Assign) and [getattr(target, "id", "") for target in node.targets] == ["TASKS"]:
            spans.append(node.value)
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "TASKS":
            spans.append(node.value)
    data = source.encode("utf-8")  # the AST's columns count bytes
    starts = [0] + [index + 1 for index, byte in enumerate(data) if byte == ord("\n")]
    for node in sorted(spans, key=lambda node: (node.lineno, node.col_offset), reverse=True):
        begin = starts[node.lineno - 1] + node.col_offset
        end = starts[node.end_lineno - 1] + node.end_col_offset
        data = data[:begin] + b"()" + b"\n" * data[begin:end].count(b"\n") + data[end:]
    return data.decode("utf-8")


def test_the_declared_words_are_left_out_and_nothing_else() -> None:
    source = 'x = Check(id="a", fr=("Un titre", "Une piste"), en=("A title", "A hint"))\nTASKS = {"t": {"fr": "une partie"}}\n' \
             'y = Failed(fr="a", en="b")\n'
    assert without_declared_words(source).splitlines() == ['x = Check(id="a", fr=(), en=())', "TASKS = ()",
                                                           'y = Failed(fr="a", en="b")']


@pytest.mark.parametrize("module", MOVED)
def test_the_moved_modules_keep_no_text_in_the_older_shapes(module: str) -> None:
    source = without_declared_words((ROOT / module).read_text(encoding="utf-8"))
    if module.endswith("texts.py"):
        source = source[source.index("def cell_word"):]  # the table itself is the one home
    found = [line for line in source.splitlines() for shape in INLINE + LANG_BRANCHES if shape.search(line)]
    assert found == [] and sentence_pairs(source) == []
    assert "FRENCH_REASONS" not in (ROOT / "lab" / "checks" / "bonus.py").read_text(encoding="utf-8")


def test_fields_that_are_words_are_written_in_the_runs_language() -> None:
    assert say("fr", "run.spun", who="bonus", cpu=2.5) == ("Le serveur bonus a utilisé tout son temps de calcul "
                                                           "(2,5 s de CPU) sans rien écrire, une boucle sans fin sans doute.")
    assert say("en", "run.spun", who="server", cpu=2.5) == \
        "The server used up its CPU time (2.5 s) without writing, an endless loop most likely."
    assert say("fr", "part.not_yet", task="server-3") == "pas encore vérifiable : il faut d’abord écrire « serveur, partie 3 »"
    assert say("en", "part.unwritten", task="client-1") == "This part is still to write (“client, part 1”)."
    inner = {"reason": "real.not_cached", "fields": {"package": "@x/y"}}
    assert say("fr", "bonus.client_unavailable", why=inner) == \
        "ignoré : ce client ne peut pas tourner ici (@x/y n’est pas dans le cache de npx, et cette exécution ne le télécharge pas)"
    assert say("en", "bonus.client_unavailable", why=inner) == \
        "skipped: this client cannot run here (@x/y is not in npx's cache, and this run does not fetch it)"


def test_the_answers_cell_sentence_names_the_other_cells() -> None:
    assert say("en", "answers.cell", cell="mots_cles.etat", why={"reason": "answers.why_empty"}, empty_cells=[],
               wrong_cells=["mots_cles.negocier"]) == \
        "Cell mots_cles.etat (keywords: state): it is empty. Other wrong cells: mots_cles.negocier (keywords: negotiate)."


def test_a_result_keeps_its_reason_through_json_and_only_where_there_is_one() -> None:
    from lab.results import FAILED, PASSED, CheckResult, Report

    report = Report("x", "fr", [CheckResult("server.a", "server-1", 1, PASSED, "A"),
                                CheckResult("server.b", "server-1", 1, FAILED, "B", message=say("fr", "run.silent",
                                            who="server", seconds=5.0), reason="run.silent",
                                            fields={"who": "server", "seconds": 5.0})],
                    error="", reason="", fields={})
    data = report.to_dict()
    assert "reason" not in data and "reason" not in data["results"][0] and "fields" not in data["results"][0]
    assert (data["results"][1]["reason"], data["results"][1]["fields"]) == ("run.silent", {"who": "server", "seconds": 5.0})
    again = Report.from_dict(data)
    assert again == report


def test_a_reason_said_by_two_modules_is_a_kit_bug(monkeypatch):
    """Each key has one home: a module that says another's key again stops the gathering."""
    import types

    import lab.checks as checks

    said = [types.SimpleNamespace(__name__=name, REASONS={"fr": {"x.y": name}, "en": {"x.y": name}}) for name in "ab"]
    monkeypatch.setattr(checks, "modules", lambda: said)
    checks.reasons.cache_clear()
    try:
        with pytest.raises(ValueError, match=r"b says again \['x.y'\]"):
            checks.reasons()
    finally:
        checks.reasons.cache_clear()
