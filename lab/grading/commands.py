"""The instructor commands (`lab grade`, `lab report`, the Gradescope ones), added to the `lab`
group: thin, like lab/cli.py."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Callable

import click

from lab.grading.formats import FORMATS, VISIBILITIES
from lab.i18n import HELP, text
from lab.settings import LANGUAGES
from lab.time_limits import SUBMISSION


def run_counts(folders: list[Path], reports: list) -> dict[str, int]:
    """Kit errors, empty submissions and timeouts; `folders`: those graded (ClassResult.folders)."""
    from lab.grading.causes import HUNG, run_kind
    from lab.grading.runner import blank_files
    from lab.layout import STUDENT_FILES

    def empty(folder: Path) -> bool:  # no student file, or only blank ones (grade.empty)
        present = any((folder / name).is_file() for name in (*STUDENT_FILES, "answers.toml", "bonus_server.py"))
        return not present or bool(blank_files(folder))

    return {"kit": sum(1 for report in reports if report.kit_error),
            "empty": sum(1 for folder in folders if empty(folder)),
            "timeouts": sum(1 for report in reports if run_kind(report.error, report.kit_error, report.reason) == HUNG)}


def writable(out: Path, lang: str) -> None:
    """--out is a folder `lab grade` can create and write in, else a clean error."""
    import tempfile

    from lab.grading.hygiene import clean_text

    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as error:
        raise click.ClickException(text(lang, "grade.out_unwritable", path=clean_text(str(out)),
                                        reason=error.strerror or type(error).__name__)) from None


def add_grading_commands(cli: click.Group, lang: str) -> None:
    help_text = HELP[lang]
    lang_option = click.option("--lang", "_lang", type=click.Choice(LANGUAGES), help=help_text["lang"])
    timeout_option = click.option("--timeout", type=click.FloatRange(min=1), default=SUBMISSION, show_default=True,
                                  help=help_text["grade.timeout"])
    bonus_option = click.option("--bonus", is_flag=True, help=help_text["check.bonus"])
    visibility_option = click.option("--visibility", type=click.Choice(VISIBILITIES), default="visible",
                                     show_default=True, help=help_text["gradescope_bundle.visibility"])

    def gradescope_options(command: Callable) -> Callable:
        """What the bundle is built with and what its run may override: the same options."""
        return timeout_option(bonus_option(visibility_option(lang_option(command))))

    @cli.command(help=help_text["grade"])
    @click.argument("submissions", metavar="SUBMISSION...", nargs=-1, required=True,
                    type=click.Path(path_type=Path))
    @click.option("--format", "fmt", type=click.Choice(FORMATS),
                  default="gradescope", show_default=True, help=help_text["grade.format"])
    @click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("grades"),
                  show_default=True, help=help_text["grade.out"])
    @click.option("--jobs", type=click.IntRange(min=1), default=None, help=help_text["grade.jobs"])
    @timeout_option
    @click.option("--memory", "memory_mib", type=click.IntRange(min=256), default=2048,
                  show_default=True, help=help_text["grade.memory"])
    @bonus_option
    @click.option("--no-sandbox", "no_sandbox", is_flag=True, help=help_text["grade.no_sandbox"])
    @click.option("--no-preload", "no_preload", is_flag=True, help=help_text["grade.no_preload"])
    @click.option("--force", is_flag=True, help=help_text["grade.force"])
    @click.option("--show", is_flag=True, help=help_text["grade.show"])
    @lang_option
    def grade(submissions: tuple[Path, ...], fmt: str, out: Path, jobs: int | None,
              timeout: float, memory_mib: int, bonus: bool, no_sandbox: bool, no_preload: bool, force: bool,
              show: bool, _lang: str | None) -> None:
        from lab.grading.capacity import holds_one_job
        from lab.grading.classroom import (SandboxUnavailable, SummaryNotWritten, grade_class, path_problems,
                                           record_kit_error, size_class)
        from lab.grading.hygiene import clean_report, clean_text
        from lab.grading.progress import ProgressBar
        from lab.grading.readback import REPORT_NAME
        from lab.grading.runner import MiB, Limits
        from lab.process.trusted import keep_out_same_user

        keep_out_same_user()  # before any student code runs: unsandboxed, it has this uid
        problems = path_problems(list(submissions), lang)
        if problems:
            raise click.UsageError("\n".join([text(lang, "grade.bad_paths"), *problems]))
        sizing = size_class(jobs, bonus)  # read once: the lines below say what the grading uses
        host, fit = sizing.host, sizing.fit
        if jobs and fit.jobs < jobs:
            click.echo(text(lang, "grade.jobs_lowered", asked=jobs, jobs=fit.jobs,
                            reason=text(lang, f"grade.limit.{fit.reason}")), err=True)
        elif fit.reason == "groups" and fit.jobs == 1:
            click.echo(text(lang, "grade.one_at_a_time", reason=text(lang, "grade.limit.groups")), err=True)
        if fit.probes_in_turn and holds_one_job(host, bonus):
            click.echo(text(lang, "grade.probes_in_turn", have=host.pids), err=True)
        if no_sandbox:
            click.echo(text(lang, "grade.unsandboxed"), err=True)
        writable(out, lang)
        progress = ProgressBar()
        reused: list[int] = []  # how many an earlier run into --out had finished (grade.resumed)

        def resumed(count: int) -> None:
            reused.append(count)
            click.echo(text(lang, "grade.resumed", count=count, path=out), err=True)

        try:
            result = grade_class(list(submissions), out, fmt=fmt, lang=lang, jobs=jobs, sizing=sizing,
                                 limits=Limits(timeout=timeout, memory_bytes=memory_mib * MiB),
                                 on_done=progress, bonus=bonus, sandboxed=not no_sandbox, force=force,
                                 preload=not no_preload, on_resume=resumed,
                                 on_start=lambda path: click.echo(path.said(lang), err=True))
        except KeyboardInterrupt as stopped:  # Ctrl-C, or SIGTERM (classroom.stopped_cleanly): never a success
            number = stopped.args[0] if stopped.args and isinstance(stopped.args[0], int) else signal.SIGINT
            click.echo("\n" + text(lang, "grade.interrupted", signal=number, path=clean_text(str(out))), err=True)
            raise SystemExit(128 + number) from None
        except SandboxUnavailable as problem:
            record_kit_error(list(submissions), out, fmt, lang, str(problem), bonus)
            raise click.ClickException(str(problem)) from None
        except SummaryNotWritten as problem:  # each graded submission's file is kept: a rerun resumes
            raise click.ClickException(text(lang, "summary.not_written", reason=problem)) from None
        except Exception as error:  # a kit bug: the platform still gets a file that says so
            record_kit_error(list(submissions), out, fmt, lang, f"{type(error).__name__}: {error}", bonus)
            raise
        finally:
            progress.close()
        if show:
            from lab.report import render

            for _, report in result.rows:
                click.echo(render(clean_report(report)) + "\n")
        if not result.checks_known:
            click.echo(text(lang, "grade.no_checks"), err=True)
        kept = sum(reused)  # the rate is of the submissions graded this time, not of those read back
        rate = (len(result.rows) - kept) / result.elapsed if result.elapsed else 0.0
        click.echo(text(lang, "grade.done_reused" if kept else "grade.done", count=len(result.rows), reused=kept,
                        seconds=result.elapsed, rate=rate, path=clean_text(str(result.summary))), err=True)
        click.echo(text(lang, "grade.counts", **run_counts(result.folders, [r for _, r in result.rows])), err=True)
        if result.report_problem:
            raise click.ClickException(text(lang, "report.not_written", reason=result.report_problem))
        click.echo(text(lang, "report.done", path=clean_text(str(result.summary.parent / REPORT_NAME))), err=True)
        # Done: a signal from now on ends the process by that signal. Python's handler would raise
        # KeyboardInterrupt, which click's teardown makes exit code 0, or a finalizing interpreter loses.
        for number in (signal.SIGINT, signal.SIGTERM):
            signal.signal(number, signal.SIG_DFL)

    @cli.command("gradescope-run", hidden=True, help=help_text["gradescope_run"])
    @click.argument("upload", type=click.Path(file_okay=False, path_type=Path))
    @click.option("--results", type=click.Path(file_okay=False, path_type=Path))
    @click.option("--verdict-fd", "verdict_fd", type=click.IntRange(min=3))  # run_autograder's root-owned file
    @gradescope_options
    def gradescope_run(upload: Path, results: Path | None, verdict_fd: int | None, timeout: float, bonus: bool,
                       visibility: str, _lang: str | None) -> None:
        import os

        from lab.grading.bundle import grade_upload

        if results is None and verdict_fd is None:
            raise click.UsageError("--results or --verdict-fd")
        if verdict_fd is not None:
            os.set_inheritable(verdict_fd, False)  # for the kit alone: no process it starts gets it
        data = grade_upload(upload, results, lang, timeout, bonus, visibility, verdict_fd=verdict_fd)
        click.echo(data["output"])  # run_autograder's stdout: the instructor's log on Gradescope

    @cli.command("gradescope-finish", hidden=True)
    @click.argument("verdict", type=click.Path(dir_okay=False, path_type=Path))
    @click.argument("results", type=click.Path(file_okay=False, path_type=Path))
    def gradescope_finish(verdict: Path, results: Path) -> None:
        """run_autograder's last step, as root: results.json from the verdict, never through a link."""
        from lab.grading.bundle import finish

        if not finish(verdict, results):
            raise SystemExit(1)

    @cli.command(help=help_text["report"])
    @click.argument("out", metavar="OUT", type=click.Path(path_type=Path))
    @lang_option
    def report(out: Path, _lang: str | None) -> None:
        from lab.grading.class_report import write_report
        from lab.grading.readback import NoResults

        try:
            path = write_report(out, lang)
        except NoResults as problem:
            raise click.ClickException(text(lang, f"report.{problem.reason}", path=out)) from None
        click.echo(text(lang, "report.done", path=path))

    # --lang is also accepted after the command name: main() has already read it.
    @cli.command("gradescope-bundle", help=help_text["gradescope_bundle"])
    @click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
                  default=Path("autograder.zip"), show_default=True,
                  help=help_text["gradescope_bundle.out"])
    @gradescope_options
    def gradescope_bundle(out: Path, timeout: float, bonus: bool, visibility: str, _lang: str | None) -> None:
        from lab.grading.bundle import write_bundle
        from lab.grading.hygiene import clean_text

        try:
            path = write_bundle(out, lang, timeout, bonus=bonus, visibility=visibility)
        except FileNotFoundError:
            raise click.ClickException(text(lang, "gradescope_bundle.no_folder",
                                            path=clean_text(str(out.parent)))) from None
        click.echo(text(lang, "gradescope_bundle.done", path=path))
