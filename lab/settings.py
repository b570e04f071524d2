"""The kit's settings: the environment first, then a .env file found from the current directory."""

from __future__ import annotations

import os
from functools import lru_cache

LANGUAGES = ("fr", "en")


def find_env_file() -> str | None:
    """The nearest .env from the current directory up (as find_dotenv(usecwd=True) finds it)."""
    folder = os.getcwd()
    while not os.path.isfile(os.path.join(folder, ".env")):
        if os.path.dirname(folder) == folder:
            return None
        folder = os.path.dirname(folder)
    return os.path.join(folder, ".env")


@lru_cache(maxsize=None)
def load_dotenv_once() -> None:
    # Most runs have no .env: look for one first, and import python-dotenv (with the
    # logging module it pulls in, a good share of `lab --help`) only when there is one.
    path = find_env_file()
    if path:
        from dotenv import load_dotenv

        load_dotenv(path)  # never overrides a variable already set: the environment wins


def language(explicit: str | None = None) -> str:
    """`--lang` if given, else LAB_LANG, else French (the lesson's language)."""
    if explicit is None:
        load_dotenv_once()
        explicit = os.environ.get("LAB_LANG", "fr")
    return "en" if explicit.strip().lower().startswith("en") else "fr"
