"""`lab run` end to end: the lesson's transcript, with a model and without one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from conftest import ROOT, SOLUTIONS, refused_url

QUESTION = 'En une phrase, dites ce que peut faire un serveur qui annonce ces capacités : {"tools":{"listChanged":false}}'
FACTS = ("Réponse juste : « Un serveur qui annonce ces capacités propose au client des outils d’action ; "
         "il ne préviendra pas le client quand cette liste change. »")
SAMPLE = "Il peut lister des outils, et il ne dit pas que sa liste va changer."
DOUBT = "La phrase ci-dessous peut être fausse ({}) ; l’échantillon enregistré dit : " + SAMPLE


def lab(*args: str, env: dict[str, str] | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("AI_", "LAB_"))}
    environment.update(env or {})
    return subprocess.run([sys.executable, "-m", "lab", *args], capture_output=True, text=True,
                          timeout=60, env=environment, cwd=cwd)


def lines_starting(output: str, prefix: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith(prefix)]


def test_lab_run_without_a_model_prints_the_transcript_and_the_recorded_sample() -> None:
    done = lab("run", env={"AI_URL": refused_url()})
    assert done.returncode == 0, done.stderr
    sent = [json.loads(line[3:]) for line in lines_starting(done.stdout, "-> ")]
    received = [json.loads(line[3:]) for line in lines_starting(done.stdout, "<- ")]
    assert [message.get("id") for message in sent] == [1, 2, 3, 4, None, 5, 6]
    assert [message["method"] for message in sent] == [
        "tools/list", "initialize", "initialize", "tools/list", "notifications/initialized", "tools/list",
        "resources/list",
    ]
    assert [reply["id"] for reply in received] == [1, 2, 3, 4, 5, 6]
    assert [reply.get("error", {}).get("code") for reply in received] == [-32600, -32602, None, -32600, None, -32601]
    assert done.stdout.splitlines()[-2].startswith("Échantillon enregistré : aucun modèle n’a répondu (connexion refusée")
    assert done.stdout.splitlines()[-1] == (
        "le modèle dit : Il peut lister des outils, et il ne dit pas que sa liste va changer."
    )
    assert len(done.stdout.splitlines()) == 7 + 6 + 2


def test_lab_run_with_a_model_asks_about_the_announced_capabilities(fake_model: Any) -> None:
    endpoint = fake_model()
    done = lab("run", env={"AI_URL": endpoint.url})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "le modèle dit : Il liste des outils."
    assert "Échantillon" not in done.stdout
    [sent] = endpoint.requests
    assert sent["json"]["messages"] == [{"role": "system", "content": FACTS}, {"role": "user", "content": QUESTION}]
    assert sent["json"]["max_tokens"] == 60
    assert "temperature" not in sent["json"]  # the server's own (docker-compose.yml: --temp 0.2)


def last_lines(fake_model: Any, text: str, finish_reason: str = "stop", lang: str = "fr") -> list[str]:
    """What `lab run` prints after the transcript (7 messages sent, 6 replies) when the model answers `text`."""
    from fake_model import completion

    done = lab("--lang", lang, "run", env={"AI_URL": fake_model(body=completion(text, finish_reason)).url})
    assert done.returncode == 0, done.stderr
    printed = done.stdout.splitlines()
    assert sorted(line[:3] for line in printed[:13]) == ["-> "] * 7 + ["<- "] * 6
    return printed[13:]


def test_a_right_sentence_is_printed_alone(fake_model: Any) -> None:
    right = "Il a des outils que le client peut lister et appeler, et il ne préviendra pas si leur liste change."
    assert last_lines(fake_model, right) == ["le modèle dit : " + right]
    right = "It has tools the client can list and call; it will not say when that list changes."
    assert last_lines(fake_model, right, lang="en") == ["the model says: " + right]


def test_a_wrong_sentence_is_shown_beside_the_recorded_sample_with_the_reason(fake_model: Any) -> None:
    wrong = "Il prévient le client quand la liste des outils change."
    assert last_lines(fake_model, wrong) == [
        DOUBT.format("elle dit que la liste change, ce que listChanged ne promet pas"), "le modèle dit : " + wrong]
    wrong = "Il peut lister des outils et lire des ressources, sans annoncer de changement."
    assert last_lines(fake_model, wrong) == [
        DOUBT.format("elle nomme les ressources, que le serveur n’annonce pas"), "le modèle dit : " + wrong]
    assert last_lines(fake_model, "Il peut annoncer des capacités.") == [
        DOUBT.format("elle ne nomme pas les outils"), "le modèle dit : Il peut annoncer des capacités."]
    wrong = "It tells the client when its list of tools changes."
    assert last_lines(fake_model, wrong, lang="en") == [
        "The sentence below may be wrong (it says the list changes, which listChanged does not promise); the recorded "
        "sample says: It can list tools, and it does not say its list will change.", "the model says: " + wrong]


def test_a_multi_line_answer_is_printed_on_one_line_and_doubted(fake_model: Any) -> None:
    assert last_lines(fake_model, "Il a des outils.\n\nIl ne dit pas\nque la liste change.\n") == [
        DOUBT.format("elle tenait sur plusieurs lignes"),
        "le modèle dit : Il a des outils. Il ne dit pas que la liste change."]


def test_a_cut_answer_ends_with_an_ellipsis_and_is_doubted(fake_model: Any) -> None:
    assert last_lines(fake_model, "Il a des outils que le client peut lis", finish_reason="length") == [
        DOUBT.format("elle a été coupée"), "le modèle dit : Il a des outils que le client peut lis…"]


def test_an_answer_in_the_other_language_is_doubted_in_the_runs_language(fake_model: Any) -> None:
    english = "It can list and call tools, and it will not tell the client when the list changes."
    assert last_lines(fake_model, english) == [DOUBT.format("elle n’est pas en français"),
                                               "le modèle dit : " + english]
    french = "Il a des outils, et il ne préviendra pas le client quand la liste change."
    assert last_lines(fake_model, french, lang="en") == [
        "The sentence below may be wrong (it is not in English); the recorded sample says: "
        "It can list tools, and it does not say its list will change.", "the model says: " + french]


def test_lab_run_speaks_english_with_lang_en() -> None:
    done = lab("--lang", "en", "run", env={"AI_URL": refused_url()})
    assert done.stdout.splitlines()[-1] == "the model says: It can list tools, and it does not say its list will change."
    assert '"message":"Not initialized"' in done.stdout


def test_lab_run_takes_a_folder(tmp_path: Path) -> None:
    for name in ("client.py", "server.py", "model.py", "jsonrpc_lines.py", "server_replies.py", "model_setup.py"):
        (tmp_path / name).write_text((SOLUTIONS / name).read_text())
    done = lab("run", str(tmp_path), env={"AI_URL": refused_url()}, cwd=tmp_path)
    assert done.returncode == 0
    assert len(lines_starting(done.stdout, "<- ")) == 6


def test_lab_run_on_a_missing_folder_says_so_in_the_users_language(tmp_path: Path) -> None:
    done = lab("run", "nowhere", cwd=tmp_path)
    assert done.returncode == 2
    assert "Dossier introuvable : nowhere" in done.stderr
    done = lab("--lang", "en", "run", str(tmp_path), cwd=tmp_path)
    assert "File not found: " + str(tmp_path / "client.py") in done.stderr


def test_the_help_exists_in_both_languages() -> None:
    assert "Lance le client scripté" in lab("run", "--help").stdout
    assert "Run the scripted client" in lab("--lang", "en", "run", "--help").stdout
    assert "Run the scripted client" in lab("run", "--help", env={"LAB_LANG": "en"}).stdout
    assert "Le labo de la poignée de main MCP" in lab("--help").stdout


def test_lab_run_gives_the_clients_arguments_exit_code_and_traceback(tmp_path: Path) -> None:
    """The client is a student process like any other (start_student): `python client.py
    server.py` from the current folder, its output in this terminal, its exit code lab run's."""
    (tmp_path / "server.py").write_text("")
    client = tmp_path / "client.py"
    client.write_text("import os, sys\nprint(sys.argv[1:], os.environ['LAB_LANG'], os.getcwd(), flush=True)\n"
                      "def explain():\n    raise ValueError('no capabilities')\n\nexplain()\n")
    done = lab("--lang", "en", "run", str(tmp_path), cwd=ROOT)
    assert done.returncode == 1
    assert done.stdout == f"['server.py'] en {ROOT}\n"
    assert done.stderr == ("Traceback (most recent call last):\n"
                           f'  File "{client}", line 6, in <module>\n    explain()\n'
                           f'  File "{client}", line 4, in explain\n'
                           "    raise ValueError('no capabilities')\nValueError: no capabilities\n")
    client.write_text("import sys\nsys.exit(3)\n")
    assert lab("run", str(tmp_path)).returncode == 3


def test_past_its_time_limit_lab_run_kills_the_client_and_what_it_started(tmp_path: Path) -> None:
    from hostile import wait_until_gone

    pid_file = tmp_path / "sleeper.pid"
    (tmp_path / "server.py").write_text("")
    (tmp_path / "client.py").write_text(
        "import subprocess, sys, time\n"
        "sleeper = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(sleeper.pid))\n"
        "time.sleep(60)\n")
    done = lab("--lang", "en", "run", str(tmp_path), "--timeout", "3")  # time to start its sleeper, under load too
    assert done.returncode == 124
    assert done.stderr == "The client was still running after 3 s: stopped.\n"
    assert wait_until_gone(int(pid_file.read_text()))  # killed with the client's group
