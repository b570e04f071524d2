"""`lab run` against a real OpenAI-compatible server: the LiteLLM proxy, as in the docker lab.

The proxy lives in its own virtual environment (it pins its own dependencies);
`.ci/run` makes it and sets LAB_LITELLM to its `litellm` executable. Behind the
proxy, model `lab` is LiteLLM's built-in mock, so no provider key is needed.
"""

from __future__ import annotations

import os
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest

from conftest import refused_url
from lab.process.groups import Child, stop
from test_run import lab

MOCK_TEXT = "Il peut lister des outils, et sa liste ne changera pas."
CONFIG = f"""\
model_list:
  - model_name: lab
    litellm_params:
      model: openai/lab-mock
      api_key: unused
      mock_response: "{MOCK_TEXT}"
general_settings:
  master_key: lab
"""


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    executable = os.environ.get("LAB_LITELLM", "")
    if not Path(executable).is_file():
        if os.environ.get("CI"):
            pytest.fail("LAB_LITELLM must name the litellm executable in CI (see .ci/run)")
        pytest.skip("no LiteLLM proxy here: set LAB_LITELLM to a litellm executable (see .ci/run)")
    config = tmp_path_factory.mktemp("gateway") / "litellm.yaml"
    config.write_text(CONFIG)
    url = refused_url()  # a free port on 127.0.0.1
    port = url.rsplit(":", 1)[1]
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}  # no fetch from the internet
    proxy = Child.new(
        [executable, "--config", str(config), "--host", "127.0.0.1", "--port", port],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(url + "/health/liveliness", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                if proxy.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("the LiteLLM proxy did not become healthy")
                time.sleep(0.5)
        yield url
    finally:
        stop(proxy)


def test_lab_run_explains_the_capabilities_through_a_real_gateway(gateway: str) -> None:
    done = lab("run", env={"AI_URL": gateway})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == f"le modèle dit : {MOCK_TEXT}"
    assert "Échantillon" not in done.stdout


def test_a_wrong_key_at_the_real_gateway_falls_back_with_the_http_status(gateway: str) -> None:
    done = lab("run", env={"AI_URL": gateway, "AI_KEY": "not-the-key"})
    assert done.returncode == 0
    fallback = done.stdout.splitlines()[-2]
    assert fallback.startswith("Échantillon enregistré : aucun modèle n’a répondu (statut HTTP 4")
    assert done.stdout.splitlines()[-1].startswith("le modèle dit : Il peut lister des outils, et il ne dit pas")

