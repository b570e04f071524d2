"""The model's sentence: the facts the model is told (model_setup.facts) for any capabilities
a server may announce, and the post-check (model_setup.doubts), judged from the capabilities
alone. `lab run` end to end, with a fake endpoint, is in test_run.py."""

from __future__ import annotations

import pytest

from lab.checks import reference

SETUP = reference.load("model_setup")


@pytest.mark.parametrize("lang", ["fr", "en"])
@pytest.mark.parametrize("tools, shown", [({"listChanged": False}, "listChanged: false"), ({}, "absent"),
                                          ({"listChanged": "yes"}, 'listChanged: "yes"'), (None, "absent")])
def test_listchanged_false_absent_or_not_true_promises_no_notice(lang: str, tools: object, shown: str) -> None:
    words = SETUP.FACTS[lang]
    shown = words["absent"] if shown == "absent" else shown
    assert SETUP.facts({"tools": tools}, lang) == {"role": "system", "content": words["start"] + " ".join([
        words["means"].format(name="tools", fact=words["tools"]), words["means"].format(name=shown, fact=words[False])]) + words["end"]}


def test_the_lessons_capabilities_in_plain_french_and_english() -> None:
    assert SETUP.facts({"tools": {"listChanged": False}}, "fr")["content"] == (
        "Dans ces capacités, « tools » veut dire : le serveur a des outils, que le client peut lister et appeler. "
        "« listChanged: false » veut dire : il ne préviendra pas le client quand cette liste change. "
        "Dites ce que cela veut dire, sans citer le JSON.")
    assert SETUP.facts({"tools": {"listChanged": False}}, "en")["content"] == (
        'In these capabilities, "tools" means: the server has tools, which the client can list and call. '
        '"listChanged: false" means: it will not tell the client when that list changes. '
        "Say what this means, without quoting the JSON.")


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_every_capability_a_server_may_announce_is_stated_in_its_order(lang: str) -> None:
    announced = {"resources": {"listChanged": True, "subscribe": True}, "logging": {}, "prompts": {},
                 "experimental": {"x": {}}}
    words = SETUP.FACTS[lang]
    means = words["means"].format
    assert SETUP.facts(announced, lang)["content"] == words["start"] + " ".join([
        means(name="resources", fact=words["resources"]), means(name="listChanged: true", fact=words[True]),
        means(name="logging", fact=words["logging"]), means(name="prompts", fact=words["prompts"]),
        means(name=words["absent"], fact=words[False]), means(name="experimental", fact=words["other"])]) + words["end"]


@pytest.mark.parametrize("announced", [{}, [], "tools", None])
def test_no_capabilities_or_a_value_that_is_not_an_object_announces_nothing(announced: object) -> None:
    assert SETUP.facts(announced, "fr")["content"] == "Le serveur n’annonce aucune capacité."


def test_the_facts_speak_lab_lang_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LAB_LANG", "en")
    assert SETUP.facts({"tools": {}})["content"].startswith('In these capabilities, "tools" means')
    monkeypatch.setenv("LAB_LANG", "fr")
    assert SETUP.facts({"tools": {}})["content"].startswith("Dans ces capacités, « tools » veut dire")


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
