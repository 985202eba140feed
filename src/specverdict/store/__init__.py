"""The run registry: runs, samples (one row per request) and metric snapshots."""

from specverdict.store.base import Store
from specverdict.store.records import (
    SCHEMA_VERSION,
    MetricsSnapshot,
    RunRecord,
    SampleRecord,
    Score,
)
from specverdict.store.sqlite import MIGRATIONS, SQLiteStore

__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "MetricsSnapshot",
    "RunRecord",
    "SQLiteStore",
    "SampleRecord",
    "Score",
    "Store",
]
