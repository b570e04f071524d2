"""The answers file is graded against the reference server, forgiving spellings, naming the wrong cell."""

from __future__ import annotations

import click
import pytest

from checks_helpers import failed, run_some
from lab.report import render
from lab.checks.answers_checks import reading

GOOD = """
[mots_cles]
poignee_de_main = "la requête initialize"
etat = "PRÊT"
negocier = "2025-03-26"

[trois_clients]
"2024-11-05" = "Un résultat en 2024-11-05"
"2025-03-26" = "2025-03-26"
"1999-01-01" = "Erreur -32602 avec les deux listes"

[six_reponses]
1 = "-32600"
2 = -32602
3 = "Result"
4 = "erreur -32600, toujours pas prêt"
5 = "resultat"
6 = -32601
"""


def grade(tmp_path, text: str, lang: str = "en"):
    (tmp_path / "answers.toml").write_text(text, encoding="utf-8")
    return run_some(tmp_path, "answers.", lang=lang)


@pytest.mark.parametrize("cell, expected", [
    (-32602, ("error", -32602)), ("Erreur -32600, Pas initialisé", ("error", -32600)),
    ("Résultat en 2024-11-05", ("result", "2024-11-05")), ("résultat", ("result", None)),
    ("", ("?", "")), ("tools", ("?", "tools")),
])
def test_a_cell_is_read_whatever_its_spelling(cell, expected):
    assert reading(cell) == expected


def test_reasonable_spellings_pass(tmp_path):
    report = grade(tmp_path, GOOD)
    assert [(r.id, r.status) for r in report.results] == [
        ("answers.keywords", "passed"), ("answers.three-clients", "passed"), ("answers.six-replies", "passed")]


@pytest.mark.parametrize("old, new, check_id, message", [
    ('poignee_de_main = "la requête initialize"', 'poignee_de_main = "ping"', "answers.keywords",
     "Cell mots_cles.poignee_de_main (keywords: handshake): that is not the request that moves the server out of the new state."),
    ('etat = "PRÊT"', 'etat = "fermé"', "answers.keywords",
     "Cell mots_cles.etat (keywords: state): that is not one of the server's states."),
    ('negocier = "2025-03-26"', 'negocier = "2025-11-25"', "answers.keywords",
     "Cell mots_cles.negocier (keywords: negotiate): the server does not accept this version: write one from its VERSIONS list."),
    ('"2025-03-26" = "2025-03-26"', '"2025-03-26" = "résultat en 2024-11-05"', "answers.three-clients",
     'Cell trois_clients."2025-03-26" (three clients ask: "2025-03-26"): that is not what the server answers.'),
    ('"2024-11-05" = "Un résultat en 2024-11-05"', '"2024-11-05" = "résultat"', "answers.three-clients",
     'Cell trois_clients."2024-11-05" (three clients ask: "2024-11-05"): also say in which version.'),
    ("4 = \"erreur -32600, toujours pas prêt\"", "4 = \"résultat\"", "answers.six-replies",
     "Cell six_reponses.4 (the six replies: 4): that is not what the server answers."),
    ("6 = -32601", '6 = ""', "answers.six-replies", "Cell six_reponses.6 (the six replies: 6): it is empty."),
    ('"1999-01-01" = "Erreur -32602 avec les deux listes"', '"1999-01-01" = "une erreur"', "answers.three-clients",
     'Cell trois_clients."1999-01-01" (three clients ask: "1999-01-01"): it is an error indeed: also say its code.'),
    ('6 = -32601', '6 = "{}"', "answers.six-replies",
     "Cell six_reponses.6 (the six replies: 6): that is not what the server answers."),
])
def test_a_wrong_cell_is_named(tmp_path, old, new, check_id, message):
    assert GOOD.count(old) == 1
    report = grade(tmp_path, GOOD.replace(old, new))
    assert failed(report) == {check_id}
    result = next(r for r in report.results if r.id == check_id)
    assert result.message == message


def test_every_wrong_cell_is_listed(tmp_path):
    report = grade(tmp_path, GOOD.replace("1 = \"-32600\"", "1 = -32601").replace("6 = -32601", "6 = 0"), lang="fr")
    result = next(r for r in report.results if r.id == "answers.six-replies")
    assert result.message == ("Cellule six_reponses.1 : ce n’est pas ce que répond le serveur. "
                              "Autres cellules fausses : six_reponses.6.")
    assert result.actual == "-32601"


def test_a_missing_or_broken_file_says_so(tmp_path):
    report = run_some(tmp_path, "answers.keywords", lang="fr")
    assert report.results[0].message == "Il n’y a pas de fichier answers.toml."
    report = grade(tmp_path, "[mots_cles\n")
    assert report.results[0].message == (
        "answers.toml does not read, line 1: the table's name is not closed with ] (tomllib says: “Expected ']' at "
        "the end of a table declaration (at line 1, column 11)”).")
    french = grade(tmp_path, "[mots_cles\n", lang="fr")
    assert french.results[0].message == (
        "answers.toml ne se lit pas, ligne 1 : le nom de la table n’est pas refermé par ] (tomllib dit, en anglais : "
        "« Expected ']' at the end of a table declaration (at line 1, column 11) »).")


def first_failure(tmp_path, text: str, lang: str) -> list[str]:
    """The ✗ line of `lab check`'s view of the answers, and the lines under it."""
    (tmp_path / "answers.toml").write_text(text, encoding="utf-8")
    lines = click.unstyle(render(run_some(tmp_path, "answers.", lang=lang))).splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith("    ✗"))
    return [line.strip() for line in lines[start:start + 5]]


@pytest.mark.parametrize("old, new, fr, en", [
    ('4 = "erreur -32600, toujours pas prêt"', '4 = "-32600 ou résultat"',
     "Cellule six_reponses.4 : une case, une seule réponse : celle-ci en donne plusieurs (-32600, résultat).",
     "Cell six_reponses.4 (the six replies: 4): one cell, one answer: this one gives several (-32600, résultat)."),
    ('1 = "-32600"', '1 = "-32600 or -32601"',
     "Cellule six_reponses.1 : une case, une seule réponse : celle-ci en donne plusieurs (-32600, -32601).",
     "Cell six_reponses.1 (the six replies: 1): one cell, one answer: this one gives several (-32600, -32601)."),
    ('6 = -32601', '6 = [-32601, -32600]',
     "Cellule six_reponses.6 : une case, une seule réponse : celle-ci en donne plusieurs (-32601, -32600).",
     "Cell six_reponses.6 (the six replies: 6): one cell, one answer: this one gives several (-32601, -32600)."),
    ('"2024-11-05" = "Un résultat en 2024-11-05"', '"2024-11-05" = "2024-11-05 ou 1999-01-01"',
     'Cellule trois_clients."2024-11-05" : une case, une seule réponse : celle-ci en donne plusieurs (2024-11-05, '
     '1999-01-01).',
     'Cell trois_clients."2024-11-05" (three clients ask: "2024-11-05"): one cell, one answer: this one gives several '
     '(2024-11-05, 1999-01-01).'),
    ('etat = "PRÊT"', 'etat = "attente ou prêt"',
     "Cellule mots_cles.etat : une case, une seule réponse : celle-ci en donne plusieurs (attente, prêt).",
     "Cell mots_cles.etat (keywords: state): one cell, one answer: this one gives several (attente, prêt)."),
    ('poignee_de_main = "la requête initialize"', 'poignee_de_main = "initialize ou ping"',
     "Cellule mots_cles.poignee_de_main : une case, une seule réponse : celle-ci en donne plusieurs (initialize, ping).",
     "Cell mots_cles.poignee_de_main (keywords: handshake): one cell, one answer: this one gives several "
     "(initialize, ping)."),
    ('3 = "Result"', '3 = "résultat ou erreur"',
     "Cellule six_reponses.3 : une case, une seule réponse : celle-ci en donne plusieurs (erreur, résultat).",
     "Cell six_reponses.3 (the six replies: 3): one cell, one answer: this one gives several (erreur, résultat)."),
    ('negocier = "2025-03-26"', 'negocier = "2025-03-26 ou 2024-11-05"',
     "Cellule mots_cles.negocier : une case, une seule réponse : celle-ci en donne plusieurs (2025-03-26, 2024-11-05).",
     "Cell mots_cles.negocier (keywords: negotiate): one cell, one answer: this one gives several (2025-03-26, "
     "2024-11-05)."),
])
def test_a_cell_that_hedges_is_wrong_whatever_its_answers(tmp_path, old, new, fr, en):
    assert GOOD.count(old) == 1
    for lang, message in (("fr", fr), ("en", en)):
        assert first_failure(tmp_path, GOOD.replace(old, new), lang)[1] == message


def test_an_error_with_its_details_is_one_answer(tmp_path):
    report = grade(tmp_path, GOOD.replace("2 = -32602", '2 = "Erreur -32602, pas de résultat : 2025-03-26 et 2024-11-05"')
                   .replace('5 = "resultat"', '5 = "un résultat, sans erreur"')
                   .replace('poignee_de_main = "la requête initialize"',
                            'poignee_de_main = "initialize, puis notifications/initialized"'))
    assert failed(report) == set()


@pytest.mark.parametrize("lang, expected", [
    ("fr", ["✗ Mots clés : les exemples",
            "Cellule mots_cles.poignee_de_main : elle manque, et la table a une clé « poigne_de_main » que la leçon "
            "n’a pas : une faute de frappe pour poignee_de_main ?"]),
    ("en", ["✗ Keywords: the examples",
            "Cell mots_cles.poignee_de_main (keywords: handshake): it is missing, and the table has a key "
            "“poigne_de_main” the lesson does not have: a typo for poignee_de_main?"]),
])
def test_a_misspelt_key_is_named_with_the_cell_it_was_meant_for(tmp_path, lang, expected):
    text = GOOD.replace('poignee_de_main = "la requête initialize"', 'poigne_de_main = "initialize"')
    assert first_failure(tmp_path, text, lang)[:2] == expected


@pytest.mark.parametrize("lang, expected", [
    ("fr", "La table [trois_clients] manque dans answers.toml, qui a une table [trois_client] que la leçon n’a pas : "
           "une faute de frappe ?"),
    ("en", "The [trois_clients] table is missing from answers.toml, which has a [trois_client] table the lesson does "
           "not have: a typo?"),
])
def test_a_misspelt_table_is_named(tmp_path, lang, expected):
    assert first_failure(tmp_path, GOOD.replace("[trois_clients]", "[trois_client]"), lang)[1] == expected


@pytest.mark.parametrize("encoded", [b"\xef\xbb\xbf" + GOOD.encode("utf-8"), GOOD.encode("utf-16"),
                                     GOOD.encode("utf-16-be").join([b"\xfe\xff", b""])],
                         ids=["utf-8 with bom", "utf-16 le", "utf-16 be"])
def test_a_file_saved_by_windows_notepad_is_read(tmp_path, encoded):
    (tmp_path / "answers.toml").write_bytes(encoded)
    assert failed(run_some(tmp_path, "answers.", lang="fr")) == set()


def test_the_results_json_counts_as_a_result(tmp_path):
    assert failed(grade(tmp_path, GOOD.replace('5 = "resultat"', '5 = "{\\"tools\\": []}"'))) == set()


@pytest.mark.parametrize("old, new, fr, en", [
    ('etat = "PRÊT"', "etat = prêt",
     ["answers.toml ne se lit pas, ligne 4 : la réponse n’est ni un nombre ni un texte entre guillemets (tomllib "
      "dit, en anglais : « Invalid value (at line 4, column 8) »).", "obtenu  : etat = prêt"],
     ["answers.toml does not read, line 4: the answer is neither a number nor a text in quotes (tomllib says: "
      "“Invalid value (at line 4, column 8)”).", "actual:   etat = prêt"]),
    ('1 = "-32600"', "1 = -32600 ou résultat",
     ["answers.toml ne se lit pas, ligne 13 : après la réponse, rien d’autre sur la ligne qu’un commentaire # (une "
      "réponse de plusieurs mots va entre guillemets) (tomllib dit, en anglais : « Expected newline or end of "
      "document after a statement (at line 13, column 12) »).", "obtenu  : 1 = -32600 ou résultat"],
     ["answers.toml does not read, line 13: after the answer, nothing else on the line but a # comment (an answer "
      "of several words goes in quotes) (tomllib says: “Expected newline or end of document after a statement (at "
      "line 13, column 12)”).", "actual:   1 = -32600 ou résultat"]),
])
def test_a_file_that_does_not_read_says_where_and_what_with_the_files_hint(tmp_path, old, new, fr, en):
    hints = {"fr": "piste   : Tant que answers.toml ne se lit pas, aucune de ses réponses ne peut être vérifiée : "
                   "chaque table [nom] sur sa ligne, puis une cellule par ligne, clé = \"réponse\", comme dans le "
                   "fichier donné.",
             "en": "hint:     As long as answers.toml does not read, none of its answers can be checked: each [name] "
                   "table on its own line, then one cell per line, key = \"answer\", as in the file given."}
    for lang, lines in (("fr", fr), ("en", en)):
        assert first_failure(tmp_path, GOOD.replace(old, new), lang)[1:4] == [*lines, hints[lang]]


def test_empty_cells_are_named_apart_from_wrong_ones(tmp_path):
    report = grade(tmp_path, GOOD.replace("1 = \"-32600\"", "1 = -32601").replace("6 = -32601", "6 = \"\"")
                   .replace("5 = \"resultat\"", "5 = \"\""), lang="fr")
    result = next(r for r in report.results if r.id == "answers.six-replies")
    assert result.message == ("Cellule six_reponses.1 : ce n’est pas ce que répond le serveur. "
                              "Cellules encore vides : six_reponses.5, six_reponses.6.")


def test_the_expected_answers_follow_the_reference_server(tmp_path):
    # The checker has no answer key: teach the reference a version, and the right answer changes.
    from lab.checks import reference

    versions = reference.load("server").VERSIONS  # the list the reference Session speaks by default
    versions.append("1999-01-01")
    try:
        report = grade(tmp_path, GOOD)
    finally:
        versions.remove("1999-01-01")
    result = next(r for r in report.results if r.id == "answers.three-clients")
    assert result.message == 'Cell trois_clients."1999-01-01" (three clients ask: "1999-01-01"): that is not what the server answers.'
