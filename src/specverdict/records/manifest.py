"""A run's manifest: what the runner recorded about one execution, typed.

The runner writes it in steps (the speculative flags as sent, the launch, the probes, the
audits, each measured segment, an interruption); the verdicts, reports and the CLI read it. A
renamed or misspelt field is an error where it is written, not a gate that silently stops
firing where it is read: ``ManifestUpdate`` lists the fields a step may write (checked by mypy
at the call), and every write is validated against ``RunManifest`` (unknown keys refused).

Raw engine JSON stays raw where it is received (``engine_version``, ``models``,
``acceptance_probe``): the engine owns its shape.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal, TypedDict

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from specverdict.records.audits import LoaderAudit, OverrideAudit, OverrideResult


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ExecutionOrder(_Frozen):
    """Where the execution stood in the campaign's schedule (round, position in its group)."""

    round: int = Field(ge=0)
    position: int = Field(ge=0)


class BlockDesign(_Frozen):
    """The execution took turns with the other configurations of its stage and load level in
    blocks of ``size`` requests (``load.blocks``); each sample records its block in
    ``extra.block``, and the speed gate's units are the blocks."""

    size: int = Field(ge=2)
    order: Literal["ABBA"] = "ABBA"


class ServerIdentity(_Frozen):
    """What an attached server said about itself before the execution (``engines.preflight.
    server_facts``): a re-run against a server whose digest changed measures a new execution."""

    digest: str
    facts: dict[str, JsonValue] = Field(default_factory=dict)


class Interruption(_Frozen):
    cause: str
    at: float


class Segment(_Frozen):
    """One stretch of measured requests (a first pass, or a resume): what was sent and how.
    Exactly one of ``concurrency`` (closed loop) and ``request_rate`` (open loop) is set."""

    requests: int = Field(ge=0, description="requests sent, warm-ups excluded")
    answered: int = Field(ge=0, description="requests that got an answer (ok or an HTTP error)")
    samples: int = Field(ge=0, description="samples sent (an agent episode is one sample)")
    failed: int = Field(ge=0)
    wall_s: float = Field(ge=0)
    concurrency: int | None = None
    request_rate: float | None = None
    host_load: float | None = Field(
        default=None,
        description="the host's 1-minute load average per core when the segment ended: above "
        "1 the client and engine shared the CPU with other work while timed",
    )
    window: bool = Field(
        default=True,
        description="the engine's counters were read before this segment: a counter window "
        "starts here and runs to the last segment (a later block of a blocked design "
        "continues its run's window)",
    )


class EngineTime(_Frozen):
    """Where an execution's engine time went, in seconds (``time.monotonic``), summed over its
    segments (blocks, resumes, looks): ``startup_s`` (launch: from starting the server process
    until its health said ready; None: attached, never started by the harness), ``warmup_s``
    (the warm-up requests), ``measured_s`` (the measured requests: the segments' wall time) and
    ``idle_s`` (up, the harness sending nothing: probes, audits, snapshots, registry writes,
    the shutdown wait). ``engine_s`` is the span they split: from the server's start (attached:
    the first request) to its stop (attached: the last answer); docs/engine-time.md."""

    engine_s: float = Field(default=0.0, ge=0)
    startup_s: float | None = Field(default=None, ge=0)
    warmup_s: float = Field(default=0.0, ge=0)
    measured_s: float = Field(default=0.0, ge=0)
    idle_s: float = Field(default=0.0, ge=0)

    @classmethod
    def of(
        cls, engine_s: float, startup_s: float | None, warmup_s: float, measured_s: float
    ) -> EngineTime:
        """The split of a span of ``engine_s``: idle is what the other phases leave of it."""
        busy = (startup_s or 0.0) + warmup_s + measured_s
        return cls(
            engine_s=max(engine_s, busy),
            startup_s=startup_s,
            warmup_s=warmup_s,
            measured_s=measured_s,
            idle_s=max(0.0, engine_s - busy),
        )

    def plus(self, other: EngineTime) -> EngineTime:
        """Both spans' figures added (a later segment of the same execution, or another one)."""
        startup = (
            None
            if self.startup_s is None and other.startup_s is None
            else (self.startup_s or 0.0) + (other.startup_s or 0.0)
        )
        return EngineTime(
            engine_s=self.engine_s + other.engine_s,
            startup_s=startup,
            warmup_s=self.warmup_s + other.warmup_s,
            measured_s=self.measured_s + other.measured_s,
            idle_s=self.idle_s + other.idle_s,
        )

    @classmethod
    def total(cls, times: Iterable[EngineTime | None]) -> EngineTime:
        """The figures of several executions added (None: an execution without them)."""
        out = cls()
        for t in times:
            if t is not None:
                out = out.plus(t)
        return out

    def share(self, seconds: float | None) -> float:
        """``seconds`` as a share of ``engine_s`` (0 when there is none)."""
        return (seconds or 0.0) / self.engine_s if self.engine_s > 0 else 0.0

    def busy_line(self, whose: str = "the campaign's") -> str:
        """``engine busy 71% of the campaign's engine time: starts 14%, warm-ups 3%, idle
        12%``: the measured share as busy, the rest by phase."""
        return (
            f"engine busy {self.share(self.measured_s):.0%} of {whose} engine time: "
            f"starts {self.share(self.startup_s):.0%}, warm-ups {self.share(self.warmup_s):.0%}, "
            f"idle {self.share(self.idle_s):.0%}"
        )

    def split_line(self) -> str:
        """``engine up 312.4 s: startup 120.0 s, warm-up 2.1 s, measured 150.2 s, idle
        40.1 s`` (attached: ``engine up 5.0 s, attached: ...``, no startup); whole seconds
        from 100 s."""

        def s(x: float) -> str:
            return f"{x:.1f} s" if x < 100 else f"{x:.0f} s"

        start = ", attached:" if self.startup_s is None else f": startup {s(self.startup_s)},"
        return (
            f"engine up {s(self.engine_s)}{start} warm-up {s(self.warmup_s)}, measured "
            f"{s(self.measured_s)}, idle {s(self.idle_s)}"
        )


class Look(_Frozen):
    """One look of a sequential campaign at a pair (``run --until-decided``): the samples of
    the stage's selection added so far, the executions judged, and the verdict read there."""

    index: int = Field(ge=1, description="1-based; the design declares how many")
    samples: int = Field(ge=1, description="the first this many samples of the selection")
    baseline_run_ids: tuple[str, ...] = ()
    candidate_run_ids: tuple[str, ...] = ()
    verdict: str | None = Field(default=None, description="the pair's verdict at this look")
    at: float = Field(default=0.0, description="when the look was taken (epoch seconds)")


class ResampleLook(_Frozen):
    """One ``specverdict resample`` analysis of a pair, recorded on its candidate run: each
    analysis on new data (other seeds, or other concordant samples) is one look, and spends its
    share of the alpha the campaign keeps for resampling (``gates.resample_share``)."""

    index: int = Field(ge=1, description="1-based; gates.resample_looks declares how many")
    seeds: int = Field(ge=1)
    concordant: int = Field(ge=1)
    alpha: float = Field(gt=0.0, description="the two-sided level this look's interval spent")
    decision: str = Field(description="pass, reject or inconclusive")
    at: float = Field(default=0.0, description="when the look was taken (epoch seconds)")


class SequentialDesign(_Frozen):
    """A sequential campaign's pre-declared design and the looks taken at this run's pair:
    batches of ``batch`` samples up to ``max_samples``, ``looks`` looks at most."""

    batch: int = Field(ge=1)
    max_samples: int = Field(ge=1)
    looks: int = Field(
        ge=1, description="declared: max(1, floor(max_samples / batch)); the last takes the rest"
    )
    taken: tuple[Look, ...] = ()
    stopped: str | None = Field(
        default=None, description="why the pair stopped taking samples (its verdict, or the max)"
    )
    declared_batch: int | None = Field(
        default=None,
        ge=1,
        description="the batch asked for, when the start cost raised it (``batch`` is then the "
        "one used; ``why`` says how), before the first sample",
    )
    why: str | None = Field(default=None, description="why the batch is not the one asked for")


class LoaderOutcome(_Frozen):
    """The loader audit of one run: its result, or why it could not run."""

    audit: LoaderAudit | None = None
    error: str | None = None

    @property
    def findings(self) -> tuple[str, ...]:
        return (
            () if self.audit is None else tuple(m.verdict for m in self.audit.models if not m.clean)
        )


class OverridesOutcome(_Frozen):
    """The override audit of one run: its result, or why it could not run."""

    audit: OverrideAudit | None = None
    error: str | None = None

    @property
    def findings(self) -> tuple[str, ...]:
        return () if self.audit is None or self.audit.clean else (self.audit.verdict,)

    @property
    def entries(self) -> tuple[OverrideResult, ...]:
        return () if self.audit is None else self.audit.entries


class Audits(_Frozen):
    loader: LoaderOutcome | None = None
    overrides: OverridesOutcome | None = None

    def findings(self) -> list[str]:
        """One line per finding, named by audit; an audit that could not run says so."""
        lines: list[str] = []
        for name, outcome in (("loader", self.loader), ("overrides", self.overrides)):
            if outcome is not None:
                lines += [f"{name}: {line}" for line in outcome.findings]
        return lines


class RunManifest(_Frozen):
    """Everything recorded about one execution besides its samples. Empty until written."""

    specverdict: str | None = Field(default=None, description="the version that ran it")
    python: str | None = None
    platform: str | None = None
    engine_version: JsonValue = Field(
        default=None,
        description="the engine's version as it serves it (None: it says none; older "
        "records may hold why /version did not answer)",
    )
    engine_version_source: str | None = Field(
        default=None,
        description="where engine_version was read: /version, or the engine's own field when "
        "it serves none (llama.cpp: /props build_info; SGLang: /get_server_info version)",
    )
    models: JsonValue = Field(default=None, description="the engine's /v1/models, as served")
    acceptance_probe: dict[str, JsonValue] = Field(
        default_factory=dict, description="what the engine exposes for acceptance (adapter's)"
    )
    speculative_args: tuple[str, ...] = Field(
        default=(), description="the engine's own flags for the speculation axis, as sent"
    )
    order: ExecutionOrder | None = None
    blocks: BlockDesign | None = Field(
        default=None, description="the blocks this execution took turns in, if any"
    )
    suite_data_sha256: str | None = Field(
        default=None, description="the content hash of the suite's shipped data, as it ran"
    )
    suite_scoring: str | None = Field(
        default=None, description="what scored the answers beyond the data (a test generator)"
    )
    launch_command: tuple[str, ...] | None = None
    launch_files: dict[str, str] = Field(
        default_factory=dict,
        description="files the launch wrote into the run folder (name -> text)",
    )
    engine_logs: tuple[str, ...] = ()
    engine_pid: int | None = Field(
        default=None, description="so that an engine orphaned by a killed runner can be stopped"
    )
    engine_identity: str | None = Field(
        default=None,
        description="the engine process's boot and start time (engines.launcher."
        "process_identity): a re-run stops an engine a killed runner left behind only when the "
        "pid is still that process",
    )
    engine_log_tail: str | None = None
    error: str | None = Field(default=None, description="why the engine could not start")
    audits: Audits = Field(default_factory=Audits)
    server: ServerIdentity | None = Field(
        default=None, description="what the attached server said about itself (its identity)"
    )
    preflight: tuple[str, ...] = Field(
        default=(),
        description="what the attached server said that contradicts the configuration (kind, "
        "speculation, slots); non-empty only when measured anyway (--force)",
    )
    token_counter: str | None = Field(
        default=None,
        description="where the harness counted each answer's output tokens (engines.tokens); "
        "None: not counted, the server's usage stands alone",
    )
    segments: tuple[Segment, ...] = ()
    engine_time: EngineTime | None = Field(
        default=None,
        description="where the execution's engine time went (startup, warm-up, measured, "
        "idle), summed over its segments; None: never sent to (or recorded before this field)",
    )
    order_seed: int | None = Field(
        default=None,
        description="the seed of the betting test's sample order (verdict.order), drawn when "
        "the execution was created; None: the run id seeds it",
    )
    interruption: Interruption | None = None
    resample_of: str | None = Field(
        default=None, description="the candidate run this execution re-samples"
    )
    sequential: SequentialDesign | None = Field(
        default=None, description="a sequential campaign's design and the looks at this pair"
    )
    resamples: tuple[ResampleLook, ...] = Field(
        default=(), description="the resample analyses of this candidate's pair"
    )
    host: str | None = Field(
        default=None, description="the host name of the machine that measured it"
    )
    session: str | None = Field(
        default=None,
        description="the launched server's start that served it last (engine.launch.sessions: "
        "round): executions of one session share a start and its host state",
    )
    sessions: tuple[str, ...] = Field(
        default=(),
        description="every launched server's start that served it, in order (a look or a "
        "resume on another start adds one)",
    )
    calibration: bool = Field(
        default=False,
        description="measured by `specverdict calibrate`: an A/A execution whose drift other "
        "campaigns on the same engine, model, quantization, load and host pool",
    )

    def updated(self, changes: ManifestUpdate) -> RunManifest:
        """This manifest with ``changes`` applied, validated as a whole."""
        return RunManifest.model_validate({**self.model_dump(), **changes})


class ManifestUpdate(TypedDict, total=False):
    """The fields one write may set (``Store.update_run(manifest=...)``); the same names and
    types as ``RunManifest`` (a test holds the two together)."""

    specverdict: str
    python: str
    platform: str
    engine_version: Any
    engine_version_source: str | None
    models: Any
    acceptance_probe: dict[str, Any]
    speculative_args: list[str] | tuple[str, ...]
    order: ExecutionOrder
    blocks: BlockDesign
    suite_data_sha256: str | None
    suite_scoring: str | None
    launch_command: list[str] | tuple[str, ...]
    launch_files: dict[str, str]
    engine_logs: list[str] | tuple[str, ...]
    engine_pid: int | None
    engine_identity: str | None
    engine_log_tail: str
    error: str
    audits: Audits
    server: ServerIdentity
    preflight: list[str] | tuple[str, ...]
    token_counter: str | None
    segments: list[Segment] | tuple[Segment, ...]
    engine_time: EngineTime | None
    order_seed: int | None
    interruption: Interruption
    resample_of: str
    sequential: SequentialDesign
    resamples: list[ResampleLook] | tuple[ResampleLook, ...]
    host: str | None
    session: str | None
    sessions: list[str] | tuple[str, ...]
    calibration: bool


class OverrideDrift(_Frozen):
    """An override in place for an earlier execution and not for a later one."""

    path: str
    was_ok_in: str
    run_id: str
    status: str


def override_drift(history: Sequence[tuple[str, RunManifest]]) -> list[OverrideDrift]:
    """Every override recorded ``ok`` by an execution and not ``ok`` by a later one, over
    ``(run_id, manifest)`` in execution order (one per path and later run)."""
    ok_in: dict[str, str] = {}
    out: list[OverrideDrift] = []
    for run_id, manifest in history:
        overrides = manifest.audits.overrides
        if overrides is None:
            continue
        for entry in overrides.entries:
            if entry.status == "ok":
                ok_in.setdefault(entry.path, run_id)
            elif entry.path in ok_in:
                out.append(
                    OverrideDrift(
                        path=entry.path,
                        was_ok_in=ok_in[entry.path],
                        run_id=run_id,
                        status=entry.status,
                    )
                )
    return out
