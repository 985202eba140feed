"""The domain records every package shares: runs, samples, scores and metric snapshots.

They are frozen, versioned pydantic models; the store persists them, engines and suites produce
them, verdicts and reports read them. Nothing here imports the store.
"""

from specverdict.records.acceptance import RequestAcceptance
from specverdict.records.audits import LoaderAudit, OverrideAudit
from specverdict.records.core import (
    OUTPUT_SCHEMA_VERSION,
    SCHEMA_VERSION,
    EpisodeExtra,
    MetricsSnapshot,
    NewerRecordError,
    Record,
    RunRecord,
    RunStatus,
    SampleExtra,
    SampleRecord,
    SampleStatus,
    Score,
    TurnTiming,
    snapshot_key,
)
from specverdict.records.manifest import (
    Audits,
    BlockDesign,
    EngineTime,
    ExecutionOrder,
    Interruption,
    LoaderOutcome,
    ManifestUpdate,
    OverrideDrift,
    OverridesOutcome,
    RunManifest,
    Segment,
    ServerIdentity,
    override_drift,
)

__all__ = [
    "OUTPUT_SCHEMA_VERSION",
    "SCHEMA_VERSION",
    "Audits",
    "BlockDesign",
    "EngineTime",
    "EpisodeExtra",
    "ExecutionOrder",
    "Interruption",
    "LoaderAudit",
    "LoaderOutcome",
    "ManifestUpdate",
    "MetricsSnapshot",
    "NewerRecordError",
    "OverrideAudit",
    "OverrideDrift",
    "OverridesOutcome",
    "Record",
    "RequestAcceptance",
    "RunManifest",
    "RunRecord",
    "RunStatus",
    "SampleExtra",
    "SampleRecord",
    "SampleStatus",
    "Score",
    "Segment",
    "ServerIdentity",
    "TurnTiming",
    "override_drift",
    "snapshot_key",
]
