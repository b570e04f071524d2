"""The answers file is graded against the reference server, forgiving spellings, naming the wrong cell."""

from __future__ import annotations

import pytest

from checks_helpers import failed, run_some
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
     "Cell mots_cles.negocier (keywords: negotiate): the server does not accept this version (write a date YYYY-MM-DD)."),
    ('"2025-03-26" = "2025-03-26"', '"2025-03-26" = "résultat en 2024-11-05"', "answers.three-clients",
     'Cell trois_clients."2025-03-26" (three clients ask: "2025-03-26"): that is not what the server answers.'),
    ('"2024-11-05" = "Un résultat en 2024-11-05"', '"2024-11-05" = "résultat"', "answers.three-clients",
     'Cell trois_clients."2024-11-05" (three clients ask: "2024-11-05"): also say in which version.'),
    ("4 = \"erreur -32600, toujours pas prêt\"", "4 = \"résultat\"", "answers.six-replies",
     "Cell six_reponses.4 (the six replies: 4): that is not what the server answers."),
    ("6 = -32601", '6 = ""', "answers.six-replies", "Cell six_reponses.6 (the six replies: 6): it is empty."),
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
    assert report.results[0].message.startswith("answers.toml is not valid TOML: ")
    french = grade(tmp_path, "[mots_cles\n", lang="fr")
    assert french.results[0].message == (
        "answers.toml n’est pas du TOML valide ligne 1, colonne 11 : regardez les crochets, les guillemets et le "
        "signe = de cette ligne (tomllib dit, en anglais : « Expected ']' at the end of a table declaration "
        "(at line 1, column 11) »).")


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
