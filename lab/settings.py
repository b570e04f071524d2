"""The kit's settings: the environment first, then a .env file found from the current directory."""

from __future__ import annotations

import os
from functools import lru_cache

LANGUAGES = ("fr", "en")


@lru_cache(maxsize=None)
def load_dotenv_once() -> None:
    # python-dotenv never overrides a variable that is already set: the environment wins.
    from dotenv import find_dotenv, load_dotenv

    load_dotenv(find_dotenv(usecwd=True))


def language(explicit: str | None = None) -> str:
    """`--lang` if given, else LAB_LANG, else French (the lesson's language)."""
    if explicit is None:
        load_dotenv_once()
        explicit = os.environ.get("LAB_LANG", "fr")
    return "en" if explicit.strip().lower().startswith("en") else "fr"
