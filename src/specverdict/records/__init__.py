"""The domain records every package shares: runs, samples, scores and metric snapshots.

They are frozen, versioned pydantic models; the store persists them, engines and suites produce
them, verdicts and reports read them. Nothing here imports the store.
"""

from specverdict.records.core import (
    SCHEMA_VERSION,
    MetricsSnapshot,
    Record,
    RunRecord,
    RunStatus,
    SampleRecord,
    SampleStatus,
    Score,
    snapshot_key,
)

__all__ = [
    "SCHEMA_VERSION",
    "MetricsSnapshot",
    "Record",
    "RunRecord",
    "RunStatus",
    "SampleRecord",
    "SampleStatus",
    "Score",
    "snapshot_key",
]
