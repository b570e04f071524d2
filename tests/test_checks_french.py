"""French mode speaks French everywhere (click's own words, every check and watch text),
and English mode stays English: the kit's own text is scanned for words of the other
language. What the student's code printed (expected, actual and output values) is not
the kit's text and is left out of the scan."""

from __future__ import annotations

import re
import subprocess
import sys

import click
import pytest

from checks_helpers import FIXTURES, mutate
from conftest import ROOT
from lab.report import render
from lab.results import CheckResult, Report

COMMANDS = [[], ["run"], ["check"], ["exercises"], ["grade"], ["gradescope-bundle"]]
USAGE_ERRORS = [["check", "--nope"], ["grade", "--jobs", "x", "y"], ["nope"], ["run", "nowhere"],
                ["check", "exercises", "--lang", "de"]]

ENGLISH = re.compile(r"(?<![\w-])(Usage:|Options:|Commands|Command|Show|exit|default|Error|such|Try|Missing|Invalid|"
                     r"within|EOF|the|and|with|not|is|Waiting|Checking|expected|actual|hint|output|skipped|also|"
                     r"failing|Fix|again|stopped|Score:|Line|did|does|no|reply|replies|wrote|nothing|written|"
                     r"INTEGER|FLOAT|DIRECTORY|FILE|TEXT|DIR|SUBMISSION|ARGS|Usage)(?![\w-])")
FRENCH = re.compile(r"(?<![\w-])(Utilisation :|Usage :|Options :|Commandes|Affiche|défaut|Erreur|Essayez|Vérification|attendu|"
                    r"obtenu|piste|sortie|ignoré|échouent|Corrigez|relancez|Aucune|réponse|serveur|les|des|est|pas|"
                    r"une|dans|sans|J’attends|DOSSIER|TRAVAIL|ENTIER|NOMBRE)(?![\w-])")
VALUE_LABELS = ("attendu :", "obtenu  :", "sortie  :", "expected:", "actual:", "output:")


def lab(*args: str, lang: str) -> str:
    env = {"PATH": "/usr/bin:/bin", "LAB_LANG": lang, "HOME": "/tmp", "AI_URL": "http://127.0.0.1:9"}
    result = subprocess.run([sys.executable, "-m", "lab", *args], capture_output=True, text=True, cwd=ROOT,
                            env=env, timeout=120)
    return result.stdout + result.stderr


def kit_text(output: str) -> str:
    """The kit's own words: no values the student's code produced, no ids, file names or options."""
    kept, in_value = [], False
    for line in click.unstyle(output).splitlines():
        stripped = line.strip()
        if stripped.startswith(VALUE_LABELS):
            in_value = True
            continue
        if in_value and line.startswith(" " * 15):  # a value's next lines, lined up under it
            continue
        in_value = False
        kept.append(line)
    text = "\n".join(kept)
    text = re.sub(r"\[[a-z0-9.-]+\]|\b[a-z]+\.[a-z0-9_.-]+\b|--?[a-z][\w-]*|\S+/\S*|'[^']*'|«[^»]*»|`[^`]*`", " ", text)
    return text


def mistakes_folder(folder):
    """Lesson-style answers with one mistake each: debug print, no `<- `, an exception, a wrong cell."""
    server = (FIXTURES / "lesson_server.py").read_text(encoding="utf-8")
    (folder / "server.py").write_text(mutate(server, "for ligne in sys.stdin:\n",
                                             "for ligne in sys.stdin:\n    print('reçu', ligne.strip())\n"))
    client = (FIXTURES / "lesson_client.py").read_text(encoding="utf-8")
    (folder / "client.py").write_text(mutate(client, '    print("<- " + ligne)\n', "    print(ligne)\n"))
    model = (FIXTURES / "lesson_model.py").read_text(encoding="utf-8")
    (folder / "model.py").write_text(mutate(model, "    except Exception as erreur:\n",
                                            "    except openai.APIStatusError as erreur:\n"))
    answers = (FIXTURES / "lesson_answers.toml").read_text(encoding="utf-8")
    (folder / "answers.toml").write_text(mutate(answers, "etat = \"prêt\"", "etat = \"fini\""), encoding="utf-8")
    return folder


def outputs(lang: str, folder) -> dict[str, str]:
    texts = {" ".join(["lab", *command, "--help"]): lab(*command, "--help", lang=lang) for command in COMMANDS}
    texts.update({" ".join(["lab", *command]): lab(*command, lang=lang) for command in USAGE_ERRORS})
    texts["lab check exercises"] = lab("check", "exercises", lang=lang)
    texts["lab check (mistakes)"] = lab("check", str(folder), lang=lang)
    return texts


@pytest.mark.parametrize(("lang", "other"), [("fr", ENGLISH), ("en", FRENCH)])
def test_no_word_of_the_other_language(tmp_path, lang, other):
    texts = outputs(lang, mistakes_folder(tmp_path))
    assert "✗" in texts["lab check (mistakes)"] and "✗" in texts["lab check exercises"]
    found = {name: sorted(set(other.findall(kit_text(text)))) for name, text in texts.items()}
    assert {name: words for name, words in found.items() if words} == {}, texts


def test_click_speaks_french_in_french_mode():
    help_text = lab("check", "--help", lang="fr")
    assert help_text.startswith("Utilisation : lab check [OPTIONS] [DOSSIER]\n")
    assert lab("--help", lang="fr").startswith("Utilisation : lab [OPTIONS] COMMANDE [ARGUMENTS]...\n")
    assert lab("check", "--help", lang="en").startswith("Usage: lab check [OPTIONS] [DIR]\n")
    assert "Options :\n" in help_text and "Affiche cette aide et s’arrête." in help_text
    assert "Commandes :\n" in lab("--help", lang="fr")
    assert "[par défaut : 120.0]" in " ".join(lab("run", "--help", lang="fr").split())
    assert lab("check", "--nope", lang="fr").endswith("Erreur : Option inconnue : '--nope'.\n")
    assert lab("check", "--nope", lang="en").endswith("Error: No such option '--nope'.\n")


def test_the_watch_loop_speaks_the_report_language():
    report = Report(target="exercises", lang="fr", results=[
        CheckResult(id="server.a", task="server-1", points=1, status="failed", title="t")])
    assert click.unstyle(render(report, watching=True)).splitlines()[-1] == (
        "Corrigez la première erreur de chaque partie et enregistrez : la vérification se relance seule.")
    report.lang = "en"
    assert click.unstyle(render(report, watching=True)).splitlines()[-1] == (
        "Fix the first error of each part and save: the checks run again by themselves.")


# Words this lesson's student does not have (the lesson says "Échantillon enregistré", not
# "repli"; it has states, not a "gate"): no check text, kit message or TODO uses them.
JARGON = {"fr": re.compile(r"\brepli\b|replier|la porte|passe la porte|tampon|\btube\b|\bvidez\b|\bvider\b|vidée|"
                           r"bac à sable|jeton|aiguillage|Bearer|POST /v1|gestionnaire", re.IGNORECASE),
          "en": re.compile(r"fallback|falling back|\bgate\b|buffer|\bpipe\b|sandbox|(?<!max_)tokens?\b|dispatch|Bearer|"
                           r"POST /v1|handler", re.IGNORECASE)}


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_the_students_texts_use_the_lessons_words(lang):
    from lab.checks import reasons, registry
    from lab.i18n import MESSAGES

    TITLES = {lang: {f"{check.id}.{part}": getattr(check, part)[lang] for check in registry()[0] for part in ("title", "hint")}}

    student_messages = {key: value for key, value in MESSAGES[lang].items() if key.startswith(("check.", "exercises."))}
    texts = {**TITLES[lang], **{key: value for key, value in reasons()[lang].items() if not key.startswith("real.")},
             **student_messages, "bundle.no_sandbox": MESSAGES[lang]["bundle.no_sandbox"] if lang == "fr" else ""}
    found = {key: JARGON[lang].findall(value) for key, value in texts.items() if JARGON[lang].search(value)}
    assert found == {}
    todos = [line for name in ("server.py", "client.py", "model.py")
             for line in (ROOT / "exercises" / name).read_text(encoding="utf-8").splitlines()
             if line.lstrip().startswith(("# TODO (", "#   "))]
    # A quoted name is the code's own identifier (TEXTS["fallback"]), not a word said to the student.
    assert todos and [line for line in todos if JARGON[lang].search(re.sub(r'"[^"]*"', "", line))] == []
