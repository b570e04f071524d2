"""The model's sentence: the facts the model is told (model_setup.facts) for any capabilities
a server may announce, and the post-check (model_setup.doubts), judged from the capabilities
alone. `lab run` end to end, with a fake endpoint, is in test_run.py."""

from __future__ import annotations

import pytest

from lab.checks import reference

SETUP = reference.load("model_setup")


@pytest.mark.parametrize("lang", ["fr", "en"])
@pytest.mark.parametrize("tools", [{"listChanged": False}, {}, {"listChanged": "yes"}, None])
def test_listchanged_false_absent_or_not_true_promises_no_notice(lang: str, tools: object) -> None:
    assert SETUP.facts({"tools": tools}, lang) == SETUP.facts({"tools": {"listChanged": False}}, lang)


def test_the_lessons_capabilities_told_as_the_right_answer_in_french_and_english() -> None:
    assert SETUP.facts({"tools": {"listChanged": False}}, "fr") == {"role": "system", "content": (
        "Réponse juste : « Un serveur qui annonce ces capacités propose au client des outils d’action ; "
        "il ne préviendra pas le client quand cette liste change. »")}
    assert SETUP.facts({"tools": {"listChanged": False}}, "en")["content"] == (
        'Right answer: "A server that announces these capabilities offers the client action tools; '
        'it will not tell the client when that list changes."')


def test_a_rich_server_is_told_what_each_is_and_one_notice_for_all_its_lists() -> None:
    assert SETUP.facts(RICH, "fr")["content"] == (
        "Réponse juste : « Un serveur qui annonce ces capacités propose au client des outils d’action, des ressources "
        "de données et des modèles de prompts ; il préviendra le client quand ces listes changent. »")
    assert SETUP.facts(RICH, "en")["content"] == (
        'Right answer: "A server that announces these capabilities offers the client action tools, data resources '
        'and prompt templates; it will tell the client when those lists change."')
    for lang in ("fr", "en"):  # the right answer passes the kit's own post-check
        said = SETUP.facts(RICH, lang)["content"]
        assert doubts(said[said.index(" ", 14):], RICH, lang) == []


def test_every_capability_a_server_may_announce_is_stated_in_its_order() -> None:
    announced = {"resources": {"listChanged": True, "subscribe": True}, "logging": {}, "prompts": {},
                 "experimental": {"x": {}}}
    assert SETUP.facts(announced, "fr")["content"] == (
        "Réponse juste : « Un serveur qui annonce ces capacités propose au client des ressources de données et des "
        "modèles de prompts ; il peut envoyer au client des messages de journal ; il annonce « experimental », une "
        "capacité que ce client ne connaît pas ; il préviendra le client quand la liste des ressources de données "
        "change ; il ne préviendra pas le client quand la liste des modèles de prompts change. »")
    assert SETUP.facts(announced, "en")["content"] == (
        'Right answer: "A server that announces these capabilities offers the client data resources and prompt '
        'templates; it can send the client log messages; it announces "experimental", a capability this client does '
        'not know; it will tell the client when the list of data resources changes; it will not tell the client when '
        'the list of prompt templates changes."')
    assert SETUP.facts({"logging": {}}, "fr")["content"] == (
        "Réponse juste : « Un serveur qui annonce ces capacités peut envoyer au client des messages de journal. »")


@pytest.mark.parametrize("announced", [{}, [], "tools", None])
def test_no_capabilities_or_a_value_that_is_not_an_object_announces_nothing(announced: object) -> None:
    assert SETUP.facts(announced, "fr")["content"] == "Le serveur n’annonce aucune capacité."


def test_the_facts_speak_lab_lang_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LAB_LANG", "en")
    assert SETUP.facts({"tools": {}})["content"].startswith('Right answer: "A server')
    monkeypatch.setenv("LAB_LANG", "fr")
    assert SETUP.facts({"tools": {}})["content"].startswith("Réponse juste : « Un serveur")


LESSON = {"tools": {"listChanged": False}}
RICH = {"tools": {"listChanged": True}, "resources": {"listChanged": True}, "prompts": {"listChanged": True}}


def doubts(sentence: str, capabilities: dict, lang: str = "fr", lines: bool = False, cut: bool = False) -> list[str]:
    return SETUP.doubts(sentence, capabilities, lang, lines, cut)


@pytest.mark.parametrize("sentence", [
    "Il peut lister des outils, et il ne dit pas que sa liste va changer.",  # the recorded sample
    "Le serveur a des outils que le client peut lister et appeler ; il ne préviendra pas si la liste change.",
    "Il propose des outils que le client peut appeler, sans prévenir quand leur liste est modifiée.",
    "Il a des outils, mais il n’enverra pas de notification si la liste change.",
])
def test_right_sentences_about_the_lessons_server_raise_no_doubt(sentence: str) -> None:
    assert doubts(sentence, LESSON) == []


@pytest.mark.parametrize("sentence, reasons", [
    ("Il prévient le client quand la liste des outils change.",
     ["elle dit que la liste change, ce que listChanged ne promet pas"]),
    ("Un serveur peut annoncer que certaines capacités ont été modifiées.",
     ["elle ne nomme pas les outils", "elle dit que la liste change, ce que listChanged ne promet pas"]),
    ("Il liste des outils et des ressources, sans changement annoncé.",
     ["elle nomme les ressources, que le serveur n’annonce pas"]),
    ("It can list tools and it will not say when the list changes.", ["elle n’est pas en français"]),
])
def test_wrong_sentences_are_doubted_with_their_reasons(sentence: str, reasons: list[str]) -> None:
    assert doubts(sentence, LESSON) == reasons


def test_a_rich_server_needs_each_capability_named_and_may_say_that_lists_change() -> None:
    assert doubts("It has tools (actions), resources (data) and prompts (message templates), and it will tell "
                  "the client when their lists change.", RICH, "en") == []
    assert doubts("It has tools (actions) and prompts (templates) that can change.", RICH, "en") == [
        "it does not name resources"]


def test_a_rich_server_needs_each_capability_said_what_it_is() -> None:
    assert doubts("Il liste des outils, des ressources et des prompts, et prévient quand ces listes changent.", RICH) == [
        "elle ne dit pas ce que sont les outils", "elle ne dit pas ce que sont les ressources",
        "elle ne dit pas ce que sont les prompts"]
    assert doubts("Its tools are actions to call, its resources data to read, its prompts message templates; "
                  "it will tell the client when their lists change.", RICH, "en") == []
    assert doubts("It has tools, resources and prompts.", {"tools": {}, "resources": {}}, "en") == [
        "it names prompts, which the server does not announce", "it does not say what tools are",
        "it does not say what resources are"]


def test_several_lines_and_a_cut_answer_are_doubted_last() -> None:
    assert doubts("Il a des outils, sans changement…", LESSON, lines=True, cut=True) == [
        "elle tenait sur plusieurs lignes", "elle a été coupée"]


def test_the_capabilities_are_read_from_the_last_user_messages_json() -> None:
    question = {"role": "user", "content": 'En une phrase … : {"tools":{"listChanged":false}} merci'}
    assert SETUP.asked_about([SETUP.facts(LESSON, "fr"), question]) == LESSON
    assert SETUP.asked_about([{"role": "user", "content": "Que peut faire ce serveur ?"}]) is None
    assert SETUP.asked_about([{"role": "user", "content": "{not json"}]) is None
    assert SETUP.asked_about([{"role": "user", "content": 42}, "not a message"]) is None
    assert SETUP.asked_about([]) is None
