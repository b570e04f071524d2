"""A real llama-server and a real small model, by hand: building llama-server takes 730 to
1,500 CPU-seconds, more than CI can spend (docs/docker.md, "The local model, measured").

    LAB_LLAMA_SERVER=/path/to/llama-server LAB_MODEL_GGUF=/path/to/model.gguf \
        python -m pytest tests/test_model_real.py -n0

Without both variables the test is skipped, with that reason. It serves the model with
docker-compose.yml's ai-local flags through bench/model_sentence.py and runs `lab run` once:
the model answers (no recorded sample) with one sentence line. Whether the sentence is right
is the bench's count, not this test's: a sampled answer is not the same twice.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

SERVER, MODEL = os.environ.get("LAB_LLAMA_SERVER", ""), os.environ.get("LAB_MODEL_GGUF", "")


@pytest.mark.skipif(not (SERVER and MODEL), reason="set LAB_LLAMA_SERVER and LAB_MODEL_GGUF (by hand: see docstring)")
def test_a_real_model_served_with_the_compose_flags_answers_lab_run_with_one_sentence() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "model_sentence.py"), "--llama-server", SERVER,
                           "--model", MODEL, "--runs", "1"], capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"serving: {SERVER} --model {MODEL} --host 127.0.0.1 --port ")
    assert "--temp 0.2" in lines[0] and "--no-repack" in lines[0]
    row = lines[-1].split(" | ")
    assert row[1:4] == ["fr", "lesson", "1"]
    assert row[7] == "0"  # fallback: the model answered
    verdict = lines[1].split()[1]
    assert verdict in ("right", "strict", "doubtful")
    assert Path(MODEL).name in lines[-1]
