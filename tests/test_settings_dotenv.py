"""lab/settings.py finds the nearest .env from the current directory up, as python-dotenv
would, and imports python-dotenv only when there is one (it is slow to import)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from lab.settings import find_env_file


def test_the_nearest_env_file_up_from_the_current_directory(tmp_path: Path, monkeypatch) -> None:
    inner = tmp_path / "a" / "b"
    inner.mkdir(parents=True)
    (tmp_path / ".env").write_text("LAB_LANG=en\n")
    monkeypatch.chdir(inner)
    assert find_env_file() == str(tmp_path / ".env")
    (tmp_path / "a" / ".env").mkdir()  # a folder named .env is no .env file
    assert find_env_file() == str(tmp_path / ".env")
    (inner / ".env").write_text("LAB_LANG=fr\n")
    assert find_env_file() == str(inner / ".env")


def lab_help(cwd: Path, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k != "LAB_LANG"}
    return subprocess.run([sys.executable, "-X", "importtime", "-m", "lab", "--help"], cwd=cwd,
                          env={**clean, **env}, capture_output=True, text=True, timeout=30)


def test_lab_reads_the_language_from_a_parents_env_and_the_environment_wins(tmp_path: Path) -> None:
    inner = tmp_path / "project"
    inner.mkdir()
    (tmp_path / ".env").write_text("LAB_LANG=en\n")
    assert "Run the scripted client" in lab_help(inner).stdout
    assert "Lance le client scripté" in lab_help(inner, LAB_LANG="fr").stdout


def test_without_a_env_file_python_dotenv_is_not_even_imported(tmp_path: Path) -> None:
    done = lab_help(tmp_path)
    assert "Lance le client scripté" in done.stdout
    imported = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()]
    assert "click" in imported  # importtime did list the imports
    assert "dotenv" not in imported
