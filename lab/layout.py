"""Where the kit's own files are, in a checkout and in an installed wheel alike, and which
files a student's folder holds."""

from __future__ import annotations

from pathlib import Path

DISTRIBUTION = "mcp-handshake-lab"  # the kit's name for pip and importlib.metadata
PACKAGE = Path(__file__).resolve().parent
KIT_PARENT = PACKAGE.parent  # the folder that holds `lab/`: how a trusted child finds the kit
STUDENT_FILES = ("server.py", "client.py", "model.py")  # what a submission holds
# The given modules beside them (identical in exercises/): for server.py (and client.py,
# bonus_server.py), for client.py, for model.py. Each imports only those before it.
HELPERS = ("jsonrpc_lines.py", "server_replies.py", "model_setup.py")


def solutions_dir() -> Path:
    """The reference solutions.

    A wheel carries them inside the package (`lab/solutions/`, see pyproject.toml); a checkout,
    whether installed editable or not, keeps them in `solutions/` beside `lab/`.
    """
    packaged = PACKAGE / "solutions"
    return packaged if packaged.is_dir() else PACKAGE.parent / "solutions"


def exercises_dir() -> Path:
    """Where `lab exercises` writes the student files: the checkout's exercises/ when the kit
    runs from one, else exercises/ in the current folder (a kit installed from a wheel)."""
    root = PACKAGE.parent
    in_checkout = (root / "pyproject.toml").is_file() and (root / "solutions").is_dir()
    return root / "exercises" if in_checkout else Path("exercises")
