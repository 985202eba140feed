"""What the audits found, as stored in a run's manifest: the loader audit (what an engine
loaded against the checkpoint) and the override audit (whether the files a deployment depends
on are in place). The audits in ``specverdict.audit`` produce these; verdicts and reports read
them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

Namespace = Literal["checkpoint", "engine"]
Status = Literal["ok", "missing", "changed", "error"]
CheckKind = Literal["sha256", "marker", "line"]


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Finding(Frozen):
    """One tensor the audit flags: ``role`` is its role, ``detail`` says what differs."""

    name: str
    role: str
    detail: str = ""


class RoleCounts(Frozen):
    checkpoint: int = 0
    not_loaded: int = 0
    left_at_init: int = 0
    unexpected: int = 0
    shape_mismatch: int = 0
    dtype_mismatch: int = 0


class ModelAudit(Frozen):
    """The comparison for one model; ``clean`` when nothing was found."""

    model: str
    checkpoint: str
    origin: str
    namespace: Namespace
    checkpoint_tensors: int
    loaded_tensors: int
    ignored: int
    roles: dict[str, RoleCounts]
    not_loaded: tuple[Finding, ...]
    left_at_init: tuple[Finding, ...]
    unexpected: tuple[Finding, ...]
    shape_mismatches: tuple[Finding, ...]
    dtype_mismatches: tuple[Finding, ...]
    #: a drafter checkpoint against the method it is served as (``audit.drafter``)
    drafter: tuple[Finding, ...] = ()
    notes: tuple[str, ...]
    clean: bool
    verdict: str


class LoaderAudit(Frozen):
    models: tuple[ModelAudit, ...]
    clean: bool
    verdicts: tuple[str, ...]


class OverrideResult(Frozen):
    path: str
    check: CheckKind
    expected: str
    status: Status
    actual: str | None = None  # the sha256 found (sha256 checks)
    detail: str = ""


class OverrideAudit(Frozen):
    target: str
    manifest: str
    entries: tuple[OverrideResult, ...]
    counts: dict[str, int]
    clean: bool
    verdict: str
