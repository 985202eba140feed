"""The run registry: runs, samples (one row per request) and metric snapshots.

The records it stores live in ``specverdict.records``; this package persists them. A registry
is a SQLite file or a ``postgresql://`` URL (``open_store``); both behind ``Store``.
"""

from __future__ import annotations

from pathlib import Path

from specverdict.store.base import RunOrigin, SampleExistsError, Store
from specverdict.store.sqlite import MIGRATIONS, SQLiteStore

__all__ = [
    "MIGRATIONS",
    "RunOrigin",
    "SQLiteStore",
    "SampleExistsError",
    "Store",
    "is_registry_url",
    "open_store",
]


def is_registry_url(location: str | Path) -> bool:
    """A ``postgresql://`` (or ``postgres://``) URL rather than a SQLite file."""
    text = str(location)
    return text.startswith(("postgresql://", "postgres://"))


def open_store(location: str | Path, origin: RunOrigin | None = None) -> Store:
    """The registry at ``location``: a PostgreSQL URL, else a SQLite file (created if new).
    The store class comes from ``plugins.STORES`` by URL scheme."""
    from specverdict.plugins import STORES

    if is_registry_url(location):
        cls = STORES.get("postgresql")
        store: Store = cls(str(location), origin=origin)
        return store
    return SQLiteStore(location, origin=origin)
