"""What the run registry stores: frozen, versioned records.

``status`` of a sample is the outcome of its request (``ok``, ``error``, ``timeout``,
``cancelled``); an errored sample is data, kept with its error text, and aggregates count it apart.
Timings are seconds from the request's send time; ``None`` means "not observed" (e.g. no output
before an error), never zero.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from specverdict.campaign.spec import RunSpec

SCHEMA_VERSION = 1
RunStatus = Literal["running", "completed", "failed", "interrupted"]
SampleStatus = Literal["ok", "error", "timeout", "cancelled"]


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RunRecord(Record):
    schema_version: int = SCHEMA_VERSION
    run_id: str
    fingerprint: str
    spec: RunSpec
    repeat: int = Field(ge=0, description="which repeat of the fingerprint this execution is")
    status: RunStatus
    created_at: float
    finished_at: float | None = None
    manifest: dict[str, Any] = Field(
        default_factory=dict,
        description="engine version and models, launch command, speculative config as sent, "
        "tool and platform versions, audit results",
    )


class Score(Record):
    """A suite's judgement of one output. ``outcome`` is the failure class (``passed``,
    ``failed``, ``error``, ``syntax_error``, ``timeout``, ...); ``passed`` is what quality gates
    pair on."""

    passed: bool
    outcome: str
    detail: str | None = None


class SampleRecord(Record):
    schema_version: int = SCHEMA_VERSION
    run_id: str
    sample_id: str
    attempt: int = Field(default=0, ge=0, description="a retry is another attempt, never silent")
    status: SampleStatus
    text: str = ""
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    ttft_s: float | None = None
    e2e_s: float | None = None
    chunk_arrivals_s: tuple[float, ...] = ()
    error: str | None = None
    acceptance: dict[str, Any] | None = Field(
        default=None, description="per-request acceptance as the engine reported it, if it did"
    )
    score: Score | None = Field(
        default=None, description="the suite's score of the output; None when it has no scorer"
    )
    extra: dict[str, Any] = Field(default_factory=dict, description="tool calls, token ids, ...")


def snapshot_key(phase: str, source: str = "/metrics") -> str:
    """How snapshots are addressed: ``before``/``after`` for ``/metrics``, else ``"PHASE SOURCE"``."""
    return phase if source == "/metrics" else f"{phase} {source}"


class MetricsSnapshot(Record):
    run_id: str
    phase: str = Field(
        pattern=r"^(before|after|poll-[0-9]{6})$",
        description="before/after the measured requests, or the n-th poll during them",
    )
    taken_at: float
    text: str = Field(description="the raw body (exposition text or JSON), kept for re-parsing")
    source: str = Field(default="/metrics", description="the path the body was read from")

    @property
    def key(self) -> str:
        return snapshot_key(self.phase, self.source)
