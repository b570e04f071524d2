"""The documentation holds up: a small front door, no broken link, tables that match the code."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "exercises").glob("*.md")])

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def links(page: Path) -> list[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return [a or b for a, b in LINK.findall(text)]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    kept = "".join(ch for ch in text if ch in " -" or unicodedata.category(ch)[0] in "LN")
    return kept.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return {slug(line.lstrip("#")) for line in text.splitlines() if re.match(r"#{1,6} ", line)}


def relative_targets(page: Path) -> list[tuple[str, Path, str]]:
    found = []
    for link in links(page):
        if re.match(r"[a-z]+:", link):
            continue  # http:, https:, mailto: are not ours to check offline
        path, _, anchor = link.partition("#")
        found.append((link, (page.parent / path).resolve() if path else page, anchor))
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for link, target, anchor in relative_targets(page):
        if not target.exists():
            broken.append(f"{link}: no such file")
        elif anchor and target.suffix == ".md" and anchor not in anchors(target):
            broken.append(f"{link}: no heading #{anchor} in {target.name}")
    assert broken == []


def test_the_link_checker_finds_a_broken_link(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# Title\n[ok](b.md#part) [gone](c.md) [bad](b.md#nowhere)\n")
    (tmp_path / "b.md").write_text("# Part\n")
    problems = [link for link, target, anchor in relative_targets(tmp_path / "a.md")
                if not target.exists() or (anchor and anchor not in anchors(target))]
    assert problems == ["c.md", "b.md#nowhere"]


def test_slug_follows_github() -> None:
    assert slug("Quick start / Démarrage rapide") == "quick-start--démarrage-rapide"
    assert slug("3. The model helper (`solutions/model.py`)") == "3-the-model-helper-solutionsmodelpy"


def test_readme_is_a_front_door() -> None:
    assert (ROOT / "README.md").stat().st_size <= 10 * 1024


def test_every_page_is_reachable_from_the_readme_in_two_links() -> None:
    readme = ROOT / "README.md"
    first = {target for _, target, _ in relative_targets(readme) if target.suffix == ".md"}
    second = {target for page in first if page.exists()
              for _, target, _ in relative_targets(page) if target.suffix == ".md"}
    docs = set((ROOT / "docs").glob("*.md"))
    assert sorted(str(p.relative_to(ROOT)) for p in docs - first - second) == []


def table_rows(text: str, first_header: str) -> list[list[str]]:
    """The rows of the first Markdown table whose first header cell is `first_header`."""
    lines = text.splitlines()
    for index, line in enumerate(lines):
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0] == first_header:
            rows = []
            for row in lines[index + 2:]:
                if not row.startswith("|"):
                    break
                rows.append([cell.strip() for cell in row.strip().strip("|").split("|")])
            return rows
    raise AssertionError(f"no table headed {first_header!r}")


def env_example() -> dict[str, str]:
    values = {}
    for line in (ROOT / ".env.example").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#") and "=" in line:
            name, _, value = line.partition("=")
            values[name] = value
    return values


def test_the_settings_table_matches_env_example() -> None:
    rows = table_rows((ROOT / "docs" / "settings.md").read_text(encoding="utf-8"), "setting")
    documented = {name.strip("`"): default.strip("`") for name, default, _ in rows}
    example = env_example()
    assert documented == {name: example[name] for name in documented}
    assert sorted(documented) == ["AI_KEY", "AI_MODEL", "AI_TIMEOUT", "AI_URL", "LAB_LANG"]


def test_the_settings_table_matches_the_model_helpers_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from lab.checks import reference

    rows = table_rows((ROOT / "docs" / "settings.md").read_text(encoding="utf-8"), "setting")
    documented = {name.strip("`"): default.strip("`") for name, default, _ in rows}
    for name in documented:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no .env to be found here
    settings = reference.load("model_setup").model_settings()
    assert {"AI_URL": settings.raw_url, "AI_KEY": settings.key, "AI_MODEL": settings.model,
            "AI_TIMEOUT": settings.raw_timeout, "LAB_LANG": settings.lang} == documented


def test_the_readme_transcript_is_what_lab_run_prints() -> None:
    """The front door's example, line for line, but for the fallback's reason (where no model
    answers depends on the machine)."""
    import subprocess
    import sys

    shown = re.search(r"```text\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S).group(1)
    env = {"PATH": "/usr/bin:/bin", "LAB_LANG": "fr", "AI_URL": "http://127.0.0.1:9"}
    done = subprocess.run([sys.executable, "-m", "lab", "run"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    printed = done.stdout.splitlines()
    expected = shown.splitlines()
    assert done.returncode == 0, done.stderr
    assert printed[:13] + printed[14:] == expected[:13] + expected[14:]
    assert [line.split("(")[0] for line in (printed[13], expected[13])] == [
        "Échantillon enregistré : aucun modèle n’a répondu "] * 2
