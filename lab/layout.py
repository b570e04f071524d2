"""Where the kit's own files are, in a checkout and in an installed wheel alike."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


def solutions_dir() -> Path:
    """The reference solutions.

    A wheel carries them inside the package (`lab/solutions/`, see pyproject.toml); a checkout,
    whether installed editable or not, keeps them in `solutions/` beside `lab/`.
    """
    packaged = PACKAGE / "solutions"
    return packaged if packaged.is_dir() else PACKAGE.parent / "solutions"


def checkout_root() -> Path | None:
    """The repository holding the kit, when it runs from one (`lab exercises` needs it)."""
    root = PACKAGE.parent
    return root if (root / "pyproject.toml").is_file() and (root / "solutions").is_dir() else None
