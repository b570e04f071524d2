"""The instructor commands, `lab grade`, `lab report` and `lab gradescope-bundle`, added to the `lab` group.

Thin on purpose, like lab/cli.py: parse the options, call classroom.grade_class or
bundle.write_bundle, print one line.
"""

from __future__ import annotations

from pathlib import Path

import click

from lab.i18n import HELP, text
from lab.settings import LANGUAGES

MiB = 1024**2
# Above the check engine's own worst case (its slowest probes give up after about 55 s), so
# its precise verdicts win; this limit catches what the engine itself could not stop.
DEFAULT_TIMEOUT = 90.0


def add_grading_commands(cli: click.Group, lang: str) -> None:
    help_text = HELP[lang]

    @cli.command(help=help_text["grade"])
    @click.argument("submissions", metavar="SUBMISSION...", nargs=-1, required=True,
                    type=click.Path(path_type=Path))
    @click.option("--format", "fmt", type=click.Choice(["gradescope", "exercism", "junit", "csv"]),
                  default="gradescope", show_default=True, help=help_text["grade.format"])
    @click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("grades"),
                  show_default=True, help=help_text["grade.out"])
    @click.option("--jobs", type=click.IntRange(min=1), default=None, help=help_text["grade.jobs"])
    @click.option("--timeout", type=click.FloatRange(min=1), default=DEFAULT_TIMEOUT, show_default=True,
                  help=help_text["grade.timeout"])
    @click.option("--memory", "memory_mib", type=click.IntRange(min=256), default=2048,
                  show_default=True, help=help_text["grade.memory"])
    @click.option("--bonus", is_flag=True, help=help_text["check.bonus"])
    @click.option("--lang", "_lang", type=click.Choice(LANGUAGES), help=help_text["lang"])
    def grade(submissions: tuple[Path, ...], fmt: str, out: Path, jobs: int | None,
              timeout: float, memory_mib: int, bonus: bool, _lang: str | None) -> None:
        from lab.grading.classroom import grade_class
        from lab.grading.progress import ProgressBar
        from lab.grading.readback import REPORT_NAME
        from lab.grading.runner import Limits

        progress = ProgressBar()
        try:
            result = grade_class(list(submissions), out, fmt=fmt, lang=lang, jobs=jobs,
                                 limits=Limits(timeout=timeout, memory_bytes=memory_mib * MiB),
                                 on_done=progress, bonus=bonus)
        finally:
            progress.close()
        if not result.checks_known:
            click.echo(text(lang, "grade.no_checks"), err=True)
        click.echo(text(lang, "grade.done", count=len(result.rows), seconds=result.elapsed,
                        rate=result.rate, path=result.summary), err=True)
        click.echo(text(lang, "report.done", path=result.summary.parent / REPORT_NAME), err=True)

    @cli.command(help=help_text["report"])
    @click.argument("out", metavar="OUT", type=click.Path(path_type=Path))
    @click.option("--lang", "_lang", type=click.Choice(LANGUAGES), help=help_text["lang"])
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
    @click.option("--timeout", type=click.FloatRange(min=1), default=DEFAULT_TIMEOUT, show_default=True,
                  help=help_text["grade.timeout"])
    @click.option("--bonus", is_flag=True, help=help_text["check.bonus"])
    @click.option("--lang", "_lang", type=click.Choice(LANGUAGES), help=help_text["lang"])
    def gradescope_bundle(out: Path, timeout: float, bonus: bool, _lang: str | None) -> None:
        from lab.grading.bundle import write_bundle

        path = write_bundle(out, lang, timeout, bonus=bonus)
        click.echo(text(lang, "gradescope_bundle.done", path=path))
