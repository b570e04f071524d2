"""The `lab` command, thin: each command parses its options and calls a function. The commands
are built for one language (`make_cli(lang)`), chosen before click parses anything.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from pathlib import Path
from typing import Iterator

import click

from lab.click_words import localize, speak
from lab.i18n import HELP, text
from lab.layout import DISTRIBUTION, STUDENT_FILES, solutions_dir
from lab.settings import LANGUAGES, language
from lab.time_limits import LAB_RUN, WORKER_STOP


def find_file(folder: str, name: str, lang: str) -> Path:
    """DIR/name, or a clear error in the user's language."""
    path = Path(folder)
    if not path.is_dir():
        raise click.UsageError(text(lang, "no_folder", path=folder))
    if not (path / name).is_file():
        raise click.UsageError(text(lang, "no_file", path=path / name))
    return path / name


# `lab run --server NAME`: which server file beside client.py the scenario runs against.
SERVER_FILES = {"lesson": "server.py", "bonus": "bonus_server.py"}


def run_scenario(client: Path, lang: str, timeout: float, server_file: str = "server.py") -> int:
    """`python client.py SERVER` in this terminal, as a student would run it."""
    from lab.process.groups import stop, wait_for
    from lab.process.launch import HERE
    from lab.process.student import start_student

    env = {**os.environ, "LAB_LANG": lang}
    process, _ = start_student(HERE, client, (server_file,), cwd=Path.cwd(), env=env, terminal=True)
    try:
        code = wait_for(process, timeout)
    finally:
        stop(process)  # what it started and left running goes with it, Ctrl-C too
    if code is None:
        click.echo(text(lang, "run.timeout", seconds=timeout), err=True)
        return 124
    return code


def check_folder(folder: Path, lang: str, watch: bool, as_json: bool, bonus: bool = False,
                 launch_json: str | None = None) -> int:
    """`launch_json`: the launch context `lab grade` gives its check runs (lab/process/launch.py)."""
    import json

    from lab.checks import run_checks
    from lab.checks.engine import ProbeMemo
    from lab.process.launch import HERE, Launch
    from lab.report import render

    if not as_json and not launch_json and not any((folder / name).is_file() for name in STUDENT_FILES):
        # A mistyped folder would read as nine parts of missing files: say first what is likely.
        click.echo(text(lang, "check.no_student_files", target=folder, files=", ".join(STUDENT_FILES)), err=True)
    memo = ProbeMemo() if watch else None  # a save runs again only the probes it concerns
    launch = [Launch.from_json(launch_json) if launch_json else HERE]

    def run_once() -> int:
        report = run_checks(folder, lang, bonus, memo, launch[-1])
        click.echo(json.dumps(report.to_dict()) if as_json else render(report, watching=watch))
        return 0 if report.all_passed else 1

    if not watch:
        return run_once()
    from lab.checks.watch import watch as watch_folder

    outcome = []
    with warm_model_runner(launch):
        watch_folder(folder, lambda: outcome.append(run_once()),
                     lambda: click.echo("\n" + text(lang, "check.watching", target=folder), err=True))
    return outcome[-1] if outcome else 1


@contextlib.contextmanager
def warm_model_runner(launch: list) -> Iterator[None]:
    """Under --watch: a preloader with openai imported forks each model runner, so that a save of
    model.py is judged without paying that import again (Linux; elsewhere, and until it is ready,
    the runner starts as a new interpreter). Once ready, its address is in the launch context
    appended to `launch` (the last one is the run's)."""
    import dataclasses

    stop = threading.Event()

    def keep_warm() -> None:
        try:
            from lab.process.preloader import ZYGOTE, preloader  # POSIX modules: absent on Windows

            # Limits for each fork: generous, this is the student's own machine and own code.
            with preloader(cpu=600, memory=4 << 30, file_size=1 << 30, env=dict(os.environ),
                           preload=dataclasses.replace(ZYGOTE, zygote=False)) as address:
                here = launch[-1]
                if address:
                    launch.append(dataclasses.replace(here, preloader=address))
                stop.wait()
                launch.append(here)
        except Exception:
            return  # no warm process: each model runner starts as a new interpreter, slower, no worse

    warming = threading.Thread(target=keep_warm, daemon=True)
    warming.start()
    try:
        yield
    finally:
        stop.set()
        warming.join(timeout=WORKER_STOP)


def update_exercises(lang: str, only_check: bool) -> int:
    from lab.exercises import differences, generate, target_folder

    if only_check:
        problems = differences()
        click.echo(text(lang, "exercises.out_of_sync") if problems else text(lang, "exercises.in_sync"))
        for problem in problems:
            click.echo(f"  {problem}")
        return 1 if problems else 0
    folder, keep = target_folder()
    written = generate(exercises=folder, keep=keep)
    if written:
        click.echo(text(lang, "exercises.written", folder=folder, names=", ".join(written)))
    else:
        click.echo(text(lang, "exercises.all_there" if keep else "exercises.in_sync", folder=folder))
    return 0


def make_cli(lang: str) -> click.Group:
    help_text = HELP[lang]
    lang_option = click.option("--lang", "_lang", type=click.Choice(LANGUAGES), help=help_text["lang"])  # read by main()

    @click.group(help=help_text["lab"], context_settings={"help_option_names": ["-h", "--help"]})
    @lang_option
    @click.version_option(package_name=DISTRIBUTION)
    def cli(_lang: str | None) -> None:
        pass  # read before click runs: see main()

    @cli.command(help=help_text["run"])
    @click.argument("folder", metavar="[DIR]", required=False)
    @click.option("--timeout", default=LAB_RUN, show_default=True, help=help_text["run.timeout"])
    @click.option("--server", "server_name", type=click.Choice(list(SERVER_FILES)), default="lesson",
                  show_default=True, help=help_text["run.server"])
    @lang_option
    def run(folder: str | None, timeout: float, server_name: str, _lang: str | None) -> None:
        if folder is None:  # the reference solutions, wherever the kit is installed
            folder = str(solutions_dir())
        client = find_file(folder, "client.py", lang)
        sys.exit(run_scenario(client, lang, timeout, find_file(folder, SERVER_FILES[server_name], lang).name))

    @cli.command(help=help_text["check"])
    @click.argument("folder", metavar="[DIR]", default="exercises")
    @click.option("--watch", is_flag=True, help=help_text["check.watch"])
    @click.option("--json", "as_json", is_flag=True, help=help_text["check.json"])
    @click.option("--bonus", is_flag=True, help=help_text["check.bonus"])
    @click.option("--launch", "launch_json", hidden=True)  # from `lab grade` only: lab/process/launch.py
    @lang_option
    def check(folder: str, watch: bool, as_json: bool, bonus: bool, launch_json: str | None,
              _lang: str | None) -> None:
        if not as_json and not Path(folder).is_dir():  # --json always answers with a report
            raise click.UsageError(text(lang, "no_folder", path=folder))
        sys.exit(check_folder(Path(folder), lang, watch, as_json, bonus, launch_json))

    @cli.command(help=help_text["exercises"])
    @click.option("--check", "only_check", is_flag=True, help=help_text["exercises.check"])
    @lang_option
    def exercises(only_check: bool, _lang: str | None) -> None:
        sys.exit(update_exercises(lang, only_check))

    from lab.grading.commands import add_grading_commands

    add_grading_commands(cli, lang)  # lab grade, lab gradescope-bundle
    localize(cli, lang)  # click's own metavars (INTEGER, DIRECTORY, ...)

    return cli


def language_from_argv(argv: list[str]) -> str | None:
    """The value of `--lang X` or `--lang=X`, if the command line has one."""
    for index, arg in enumerate(argv):
        if arg == "--lang" and index + 1 < len(argv):
            return argv[index + 1]
        if arg.startswith("--lang="):
            return arg.split("=", 1)[1]
    return None


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    asked = language_from_argv(argv)
    # A --lang click will refuse (--lang de) does not choose the language of its own error.
    lang = language(asked if asked in LANGUAGES else None)
    speak(lang)  # click's own words (Usage, Options, its errors) before it builds anything
    make_cli(lang)(args=argv, prog_name="lab")
