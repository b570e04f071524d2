"""GitHub Classroom: what its autograding reporter (classroom-resources/autograding-grading-reporter,
v1) does with the kit's output, for a pass, a failure and a kit error; `lab grade --format
classroom` writes a file whatever happens; the sandbox's start-up error names the setting of the
distribution it runs on; the shipped workflow installs bubblewrap and lifts Ubuntu's restriction."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from lab.grading import classroom, formats
from lab.grading.classroom import SandboxUnavailable, userns_setting
from lab.results import CheckResult, Report
from test_grade_formats import crashed_report, mixed_report


class Reporter:
    """The reporter's logic, line for line (src/main.js, console-results.js, notify-classroom.js,
    helpers/test-helpers.js): it reads the runner's base64 JSON from LAB_RESULTS, prints each
    test, prints (passed / tests) × max_score as the runner's total, sends the sum of the tests'
    scores over max_score as "Points x/y" (nothing when max_score is 0), and fails the step on a
    top-level status of fail or error."""

    def __init__(self, encoded: str) -> None:
        self.results = json.loads(base64.b64decode(encoded).decode("utf-8"))  # JSON.parse: throws on ""
        self.lines: list[str] = []
        self.notices: list[str] = []
        self.failed = ""
        self.console()
        self.notify()
        if self.results["status"] == "fail":
            self.failed = "Some tests failed."
        elif self.results["status"] == "error":
            self.failed = "Some tests errored."

    def console(self) -> None:
        results = self.results
        max_score = results.get("max_score") or 0
        passed = sum(1 for test in results["tests"] if test["status"] == "pass")
        score = passed / len(results["tests"]) * max_score
        for test in results["tests"]:
            line = "" if test.get("line_no") == 0 else f" - line {test.get('line_no', 'undefined')}"
            if test["status"] == "pass":
                self.lines.append(f"✅ {test['name']}{line}")
            elif test["status"] == "error":
                self.lines.append(f"Error: {test.get('message') or 'Failed to run test ' + repr(test['name'])}")
            else:
                self.lines.append(f"❌ {test['name']}{line}")
            if test.get("test_code"):
                self.lines.append(f"Test code:\n{test['test_code']}")
        if max_score != 0:
            self.lines.append(f"Total points for lab: {score:.2f}/{max_score}")
        self.console_total = (score, max_score)

    def notify(self) -> None:
        if not self.results.get("max_score"):
            return
        total = sum(test["score"] for test in self.results["tests"])
        self.notices.append(f"Points {total}/{self.results['max_score']}")


def reporter_input(report: Report) -> str:
    """What the workflow's grading step puts in LAB_RESULTS: the results file, base64."""
    return base64.b64encode(formats.render(report, "classroom", "exercises").encode("utf-8")).decode("ascii")


def passing_report() -> Report:
    return Report(target="ana", lang="fr", results=[
        CheckResult(id="server.starts", task="server-1", points=2, status="passed", title="Le serveur démarre"),
        CheckResult(id="server.version", task="server-2", points=1, status="passed", title="Refuse 1999-01-01")])


def test_a_pass_prints_every_test_and_sends_full_marks() -> None:
    seen = Reporter(reporter_input(passing_report()))
    assert seen.lines == ["✅ Le serveur démarre", "✅ Le serveur démarre · 2/2", "✅ Refuse 1999-01-01",
                          "Total points for lab: 3.00/3"]
    assert (seen.notices, seen.failed) == (["Points 3/3"], "")


def test_a_failure_prints_its_reasons_and_the_console_total_is_what_is_sent() -> None:
    seen = Reporter(reporter_input(mixed_report("en")))
    assert seen.lines == [
        "✅ Le serveur démarre", "✅ Le serveur démarre · 2/2",
        "❌ Refuse 1999-01-01",
        "Test code:\nMauvais code.\nExpected: -32602\nActual: -32600\nHint: Regarde VERSIONS.",
        "❌ Refuse 1999-01-01 · 2/3", "❌ Refuse 1999-01-01 · 3/3",
        "❌ Prêt après initialized", "Test code:\nIgnorée : server.version a échoué.",
        "❌ Prêt après initialized · 2/4", "❌ Prêt après initialized · 3/4", "❌ Prêt après initialized · 4/4",
        "Error: Le client a planté.", "Test code:\nLe client a planté.",
        "Total points for lab: 2.00/10"]
    assert (seen.notices, seen.failed) == (["Points 2/10"], "Some tests failed.")
    assert seen.console_total == (2.0, 10)


def test_the_console_total_equals_what_is_sent_for_a_whole_real_catalogue() -> None:
    """Checks of 1 and 2 points, some passed: the reporter's two totals agree (they did not)."""
    from lab.grading.catalogue import Catalogue

    checks = Catalogue.from_engine("fr", bonus=True).checks
    assert {check.points for check in checks} == {1, 2}
    results = [CheckResult(**{**check.__dict__, "status": "passed" if index % 3 else "failed"})
               for index, check in enumerate(checks)]
    report = Report("x", "fr", results)
    seen = Reporter(reporter_input(report))
    assert seen.notices == [f"Points {report.score}/{report.max_score}"]
    assert seen.lines[-1] == f"Total points for lab: {report.score}.00/{report.max_score}"  # toFixed(2)


def test_a_kit_error_is_shown_as_one_and_sends_no_points() -> None:
    seen = Reporter(reporter_input(crashed_report()))
    assert seen.lines == ["Error: Erreur du kit, pas une note : Les vérifications n’ont pas fini en 5 s."]
    assert (seen.notices, seen.failed) == ([], "Some tests errored.")
    # The student's own hang is a result: its points are sent.
    own = Reporter(reporter_input(crashed_report(kit_error=False)))
    assert own.notices == ["Points 0/3"]


def test_without_a_sandbox_lab_grade_still_writes_a_file_the_reporter_reads(tmp_path: Path) -> None:
    """bwrap refused (as on ubuntu-latest before the workflow's sysctl): exit 1 with the
    reason, and a kit-error results file, so the reporter shows the reason, not a JSON error."""
    work = tmp_path / "exercises"
    shutil.copytree(ROOT / "exercises", work)
    out = tmp_path / "grades"
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    (fake_bin / "bwrap").write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    (fake_bin / "bwrap").chmod(0o755)
    env = {"PATH": f"{fake_bin}:/usr/bin:/bin", "LAB_LANG": "fr", "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "lab", "grade", str(work), "--format", "classroom", "--out", str(out)],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
    assert done.returncode == 1
    assert "bwrap: setting up uid map: Permission denied" in done.stderr
    encoded = base64.b64encode((out / "exercises" / "results.json").read_bytes()).decode("ascii")
    seen = Reporter(encoded)
    assert (seen.notices, seen.failed) == ([], "Some tests errored.")
    assert len(seen.lines) == 1 and seen.lines[0].startswith("Error: Erreur du kit, pas une note : lab grade isole")
    assert "bwrap: setting up uid map" in seen.lines[0]
    import csv

    with (out / "summary.csv").open(newline="", encoding="utf-8") as handle:
        [row] = list(csv.DictReader(handle))
    assert (row["submission"], row["score"], row["status"], row["cause"]) == ("exercises", "", "kit-error", "kit-error")


def fake_proc(root: Path, values: dict[str, str]) -> Path:
    for name, value in values.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(value + "\n")
    return root


def test_the_sandbox_error_names_the_setting_of_the_distribution(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ubuntu = fake_proc(tmp_path / "ubuntu", {"kernel/apparmor_restrict_unprivileged_userns": "1",
                                             "user/max_user_namespaces": "63000"})
    debian = fake_proc(tmp_path / "debian", {"kernel/unprivileged_userns_clone": "0"})
    nowhere = tmp_path / "missing"
    release = tmp_path / "os-release"
    release.write_text('NAME="Ubuntu"\nID=ubuntu\nID_LIKE=debian\n')
    assert userns_setting(ubuntu, nowhere) == "kernel.apparmor_restrict_unprivileged_userns=0"
    assert userns_setting(debian, nowhere) == "kernel.unprivileged_userns_clone=1"
    assert userns_setting(nowhere, release) == "kernel.apparmor_restrict_unprivileged_userns=0"
    release.write_text('ID=debian\n')
    assert userns_setting(nowhere, release) == "kernel.unprivileged_userns_clone=1"
    # A simulated Ubuntu restriction: bwrap refuses its uid map, and the message says what to lift.
    monkeypatch.setattr(classroom.sandbox_module, "find", lambda: (None, "broken:bwrap: setting up uid map: Permission denied"))
    monkeypatch.setattr(classroom, "userns_setting", lambda: userns_setting(ubuntu, nowhere))
    with pytest.raises(SandboxUnavailable) as raised:
        classroom.find_sandbox("en")
    assert "(bwrap: setting up uid map: Permission denied)" in str(raised.value)
    assert "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0" in str(raised.value)


def workflow() -> str:
    return (ROOT / "docs" / "classroom-workflow.yml").read_text(encoding="utf-8")


def test_the_workflow_installs_bubblewrap_lifts_the_restriction_and_always_reports() -> None:
    import yaml  # noqa: PLC0415 (only this test reads YAML)

    data = yaml.safe_load(workflow())
    steps = data["jobs"]["run-autograding-tests"]["steps"]
    runs = "\n".join(step.get("run", "") for step in steps)
    assert "apt-get install -y bubblewrap" in runs
    assert "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0" in runs
    grading = next(step for step in steps if step.get("id") == "lab")
    assert "--format classroom" in grading["run"]
    reporter = steps[-1]
    assert reporter["uses"].startswith("classroom-resources/autograding-grading-reporter@")
    assert reporter["if"] == "always()" and reporter["env"]["LAB_RESULTS"] == "${{ steps.lab.outputs.result }}"


def test_the_workflows_grading_step_runs_as_written(tmp_path: Path) -> None:
    """The grading step's shell, with `lab` failing before it writes anything: the step still
    gives the reporter a results file it reads (a kit error), and ends with lab's exit code."""
    import yaml  # noqa: PLC0415

    steps = yaml.safe_load(workflow())["jobs"]["run-autograding-tests"]["steps"]
    script = next(step for step in steps if step.get("id") == "lab")["run"]
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    (fake_bin / "lab").write_text("#!/bin/sh\necho 'lab: broken' >&2\nexit 3\n")
    (fake_bin / "lab").chmod(0o755)
    output = tmp_path / "github_output"
    done = subprocess.run(["bash", "-e", "-c", script], capture_output=True, text=True, timeout=30, cwd=tmp_path,
                          env={"PATH": f"{fake_bin}:/usr/bin:/bin", "GITHUB_OUTPUT": str(output)})
    assert done.returncode == 3
    encoded = output.read_text(encoding="utf-8").strip().removeprefix("result=")
    seen = Reporter(encoded)
    assert (seen.notices, seen.failed) == ([], "Some tests errored.")
    assert seen.lines[0].startswith("Error: ")


def test_the_workflow_passes_a_github_actions_linter() -> None:
    """zizmor (PyPI), offline: no finding at its default level (actions pinned to commits,
    no credentials left in the checkout, no template injection)."""
    import os

    found = shutil.which("zizmor", path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("zizmor is missing: it is in the [test] extras")
        pytest.skip("zizmor is not installed (pip install zizmor)")
    done = subprocess.run([found, "--offline", "--no-progress", "--format", "json", str(ROOT / "docs" / "classroom-workflow.yml")],
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, json.loads(done.stdout)) == (0, []), done.stderr


@pytest.mark.parametrize("lang, start", [("fr", "Erreur : Impossible d’écrire les résultats dans "),
                                         ("en", "Error: Cannot write the results in ")])
def test_an_unwritable_out_is_a_clean_error(tmp_path: Path, lang: str, start: str) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    done = subprocess.run([sys.executable, "-m", "lab", "--lang", lang, "grade", str(ROOT / "solutions"),
                           "--out", str(blocker / "grades")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.startswith(start + str(blocker / "grades")) and "Traceback" not in done.stderr
    assert done.stderr.rstrip().endswith("--out.")
