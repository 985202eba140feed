"""Where the shipped weights live inside the installed package."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

SHIPPED = ("target", "draft", "mtp", "medusa", "dflash", "eagle3", "dspark")


def shipped(name: str) -> Path:
    """Directory of a shipped checkpoint: one of ``SHIPPED``."""
    if name not in SHIPPED:
        raise ValueError(f"unknown shipped checkpoint {name!r}; known: {', '.join(SHIPPED)}")
    return Path(str(files("specverdict.reference").joinpath("weights", name)))
