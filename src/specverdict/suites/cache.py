"""The one cache every suite keeps its prepared data in: ground truth, downloaded datasets,
sdists and wheels, each in a folder of its own below ``cache_root()``."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """``$SPECVERDICT_CACHE_DIR``, else ``$XDG_CACHE_HOME/specverdict``, else
    ``~/.cache/specverdict``."""
    explicit = os.environ.get("SPECVERDICT_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "specverdict"
