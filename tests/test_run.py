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
    assert sent["json"]["messages"] == [{"role": "user", "content": QUESTION}]
    assert sent["json"]["max_tokens"] == 60


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
