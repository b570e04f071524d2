"""`lab grade`'s last lines say how many submissions an earlier run into --out had finished:
a rerun that reuses them says so ("3 graded in 0.4 s, 2 of them reused"), in fr and en."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

DONE = {
    "fr": r"(\d+) travail\(s\) noté\(s\) en \d+\.\d s(?:, dont (\d+) repris d’une notation précédente)? "
          r"\(\d+\.\d\d (?:noté\(s\) )?par seconde\)\. Résumé : .*summary\.csv",
    "en": r"(\d+) submission\(s\) graded in \d+\.\d s(?:, (\d+) of them reused from an earlier run)? "
          r"\(\d+\.\d\d (?:graded )?per second\)\. Summary: .*summary\.csv",
}


def blank(folder: Path) -> Path:
    """A submission of blank files: graded at once (nothing to run)."""
    folder.mkdir(parents=True)
    for name in ("server.py", "client.py", "model.py", "answers.toml"):
        (folder / name).write_text("\n", encoding="utf-8")
    return folder


def done_line(lang: str, submissions: list[Path], out: Path) -> tuple[str, str | None]:
    done = subprocess.run([sys.executable, "-m", "lab", "--lang", lang, "grade", *map(str, submissions),
                           "--out", str(out)], capture_output=True, text=True, timeout=120, cwd=out.parent,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    lines = done.stderr.strip().splitlines()
    found = re.fullmatch(DONE[lang], lines[-3])
    assert found, lines[-3]
    return found.group(1), found.group(2)


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_rerun_says_how_many_it_reused(tmp_path: Path, lang: str) -> None:
    first, second, third = (blank(tmp_path / name) for name in ("ana", "ben", "cy"))
    out = tmp_path / "out"
    assert done_line(lang, [first, second], out) == ("2", None)  # nothing to reuse: not said
    assert done_line(lang, [first, second, third], out) == ("3", "2")
