"""What the run registry stores: frozen, versioned records.

``status`` of a sample is the outcome of its request (``ok``, ``error``, ``timeout``,
``cancelled``); an errored sample is data, kept with its error text, and aggregates count it apart.
Timings are seconds from the request's send time; ``None`` means "not observed" (e.g. no output
before an error), never zero.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_serializer, model_validator

from specverdict.campaign.spec import RunSpec
from specverdict.records.manifest import RunManifest

#: the version of specverdict's JSON outputs: report.json, ``verdict``/``compare --json``,
#: ``runs show --json``, ``checklist --json`` (each carries it as ``schema_version``)
OUTPUT_SCHEMA_VERSION = 1

#: 2: the run manifest is typed (``RunManifest``), audits nest their result under ``audit``
SCHEMA_VERSION = 2


class NewerRecordError(ValueError):
    """A record written by a newer specverdict than this one."""


RunStatus = Literal["running", "completed", "failed", "interrupted"]
SampleStatus = Literal["ok", "error", "timeout", "cancelled"]


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _upgrade_v1_manifest(manifest: dict[str, Any]) -> dict[str, Any]:
    """Schema 1 stored each audit flat, with a ``findings`` list added beside its fields."""
    audits = dict(manifest.get("audits") or {})
    for name in ("loader", "overrides"):
        old = audits.get(name)
        if not isinstance(old, dict):
            continue
        body = {k: v for k, v in old.items() if k not in ("findings", "error")}
        if "error" in old:
            audits[name] = {"error": old["error"]}
        else:
            audits[name] = {"audit": body}
    out = {**manifest, "audits": audits}
    if isinstance(out.get("engine_log_tail"), list):
        out["engine_log_tail"] = "\n".join(map(str, out["engine_log_tail"]))
    return out


def _versioned(data: Any, kind: str) -> Any:
    """Refuse a record newer than this schema; return older ones as they are."""
    if isinstance(data, dict):
        version = data.get("schema_version", 1)
        if isinstance(version, int) and version > SCHEMA_VERSION:
            raise NewerRecordError(
                f"a {kind} record of schema {version}, newer than this specverdict's "
                f"{SCHEMA_VERSION}: upgrade specverdict to read it"
            )
    return data


class RunRecord(Record):
    schema_version: int = SCHEMA_VERSION
    run_id: str
    fingerprint: str
    spec: RunSpec
    repeat: int = Field(ge=0, description="which repeat of the fingerprint this execution is")
    status: RunStatus
    created_at: float
    finished_at: float | None = None
    manifest: RunManifest = Field(
        default_factory=RunManifest,
        description="engine version and models, launch command, speculative config as sent, "
        "tool and platform versions, audit results, measured segments",
    )

    @model_validator(mode="before")
    @classmethod
    def _upgrade(cls, data: Any) -> Any:
        data = _versioned(data, "run")
        if isinstance(data, dict) and data.get("schema_version", 1) < 2:
            data = {
                **data,
                "schema_version": SCHEMA_VERSION,
                "manifest": _upgrade_v1_manifest(dict(data.get("manifest") or {})),
            }
        return data


class Score(Record):
    """A suite's judgement of one output. ``outcome`` is the failure class (``passed``,
    ``failed``, ``error``, ``syntax_error``, ``timeout``, ...); ``passed`` is what quality gates
    pair on."""

    passed: bool
    outcome: str
    detail: str | None = None


class Extra(BaseModel):
    """Typed, frozen, and open: the fields the harness reads are declared; any other key a
    record carries (an older specverdict's, a plugin suite's) is kept as it was stored. Stored
    without the fields left at their defaults, so a record's JSON has only what it observed."""

    model_config = ConfigDict(extra="allow", frozen=True)

    def stored(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_defaults=True)


class TurnTiming(Extra):
    """One request of an episode, on the episode's engine time (``run.episodes``)."""

    status: SampleStatus | None = None
    ttft_s: float | None = None
    e2e_s: float | None = None
    done_s: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    finish_reason: str | None = None
    tool_calls: int = 0
    acceptance: dict[str, JsonValue] | None = None


class EpisodeExtra(Extra):
    """A multi-turn sample's episode: how it ended, its turns' timings, its wall time; a suite's
    own counts (``suites.agent.episode_detail``) ride along as further keys."""

    end: str | None = None
    wall_s: float | None = None
    turn_timings: tuple[TurnTiming, ...] = ()
    changed: dict[str, str] = Field(default_factory=dict)


class SampleExtra(Extra):
    """What a sample records beside its request's figures, written by the runner."""

    tool_calls: tuple[dict[str, JsonValue], ...] = Field(
        default=(), description="the answer's tool calls, as the engine streamed them"
    )
    clock: Literal["device"] | None = Field(
        default=None, description='"device" when timed on the engine\'s modelled device clock'
    )
    device_span_s: tuple[float, float] | None = Field(
        default=None, description="(arrival, end) of the sample on the device clock"
    )
    reconnects: int | None = Field(default=None, description="closed connections sent again")
    block: int | None = Field(default=None, description="the block of a blocked design it ran in")
    counted_tokens: int | None = Field(
        default=None, description="output tokens counted by the tokenizer (speed figures)"
    )
    episode: EpisodeExtra | None = Field(default=None, description="a multi-turn sample's episode")
    prompt_sha256: str | None = Field(
        default=None, description="the digest of a prompt made at the run's start (synthetic)"
    )


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
    acceptance: dict[str, JsonValue] | None = Field(
        default=None,
        description="per-request acceptance in the canonical keys of ``RequestAcceptance``, as "
        "the adapter wrote it from the engine's answer; read through ``RequestAcceptance.parse`` "
        "(a malformed one is data that a reader reports, never a lost sample)",
    )
    score: Score | None = Field(
        default=None, description="the suite's score of the output; None when it has no scorer"
    )
    extra: SampleExtra = Field(
        default_factory=SampleExtra, description="tool calls, clock, block, episode, ..."
    )

    @field_serializer("extra")
    def _extra(self, extra: SampleExtra) -> dict[str, Any]:
        return extra.stored()

    @property
    def passed(self) -> bool:
        """Answered and scored as passed: the one rule every quality figure pairs on (an
        errored or unscored sample is not a pass)."""
        return self.status == "ok" and self.score is not None and self.score.passed

    @property
    def clock(self) -> str:
        """``"device"`` when every time of the sample is on the engine's modelled device clock
        (the reference engine's ``--device-clock virtual``), else ``"host"``."""
        return "device" if self.extra.clock == "device" else "host"

    @property
    def device_span_s(self) -> tuple[float, float] | None:
        """(arrival, end) of the sample on the device clock, when the engine sent them."""
        return self.extra.device_span_s


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
