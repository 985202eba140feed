"""The run registry: runs, samples (one row per request) and metric snapshots.

The records it stores live in ``specverdict.records``; this package persists them.
"""

from specverdict.store.base import Store
from specverdict.store.sqlite import MIGRATIONS, SQLiteStore

__all__ = ["MIGRATIONS", "SQLiteStore", "Store"]
