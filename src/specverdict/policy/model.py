"""What ``specverdict policy`` produces: a recommendation per stage and load level, and the
expectations file ``specverdict watch`` reads. Frozen pydantic models; both files carry a
``schema_version``."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from specverdict.campaign.spec import Speculation
from specverdict.verdict.model import Verdict

POLICY_SCHEMA_VERSION: Literal[1] = 1
EXPECTATIONS_SCHEMA_VERSION: Literal[1] = 1


class Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Figure(Frozen):
    """A measured figure and its interval (None when the data gave none)."""

    point: float
    lower: float | None = None
    upper: float | None = None


class Considered(Frozen):
    """One candidate at one load level as the policy saw it: its verdict and what decided it."""

    configuration: str
    verdict: Verdict
    deciding: str = Field(description="the gate that decided a verdict other than ADOPT, or ''")
    engine_k: float | None = Field(
        default=None,
        description="the k the engine ran by its own counts, when another than the declared "
        "one (the verdict's engine_k)",
    )
    speedup: float | None = None
    speedup_interval: tuple[float, float] | None = None


class MadRuleComparison(Frozen):
    """The median - MAD rule of vLLM's ``vllm bench sweep tune_speculative_k`` on the same runs:
    its choice, and why the policy's differs when it does."""

    choice: str = Field(description="configuration label, 'none' for no speculation")
    conservative_objective: float | None = None
    agrees: bool
    why: str = ""


class Cell(Frozen):
    """The recommendation for one stage at one load level."""

    load: str
    concurrency: int | None
    choice: str = Field(description="the configuration to run, 'none' for speculation off")
    speculation: Speculation
    why: str
    speedup: float | None = None
    speedup_interval: tuple[float, float] | None = None
    acceptance: Figure | None = None
    mean_accepted_length: Figure | None = None
    baseline_run_ids: tuple[str, ...] = ()
    candidate_run_ids: tuple[str, ...] = ()
    engine_args: tuple[str, ...] = Field(
        default=(), description="the engine's flags for this configuration (its adapter's)"
    )
    engine_files: dict[str, str] = Field(
        default_factory=dict, description="files those flags point to (name -> text)"
    )
    run_dir: str = Field(default="", description="where engine_files go, relative to --out")
    considered: tuple[Considered, ...] = ()
    mad_rule: MadRuleComparison | None = None


class StagePolicy(Frozen):
    stage: str
    suite: str
    cells: tuple[Cell, ...]
    #: vLLM only: one ``--speculative-config`` with ``num_speculative_tokens_per_batch_size``
    #: when the stage's ADOPT cells differ only in k over concurrency levels; None otherwise
    vllm_speculative_config: dict[str, object] | None = None
    notes: tuple[str, ...] = ()


class Policy(Frozen):
    schema_version: Literal[1] = POLICY_SCHEMA_VERSION
    campaign: str
    engine: str
    stages: tuple[StagePolicy, ...]


class OverridesTarget(Frozen):
    """The campaign's override audit: the manifest and where its files are read."""

    manifest: str
    root: str | None = None
    via: str | None = None


class Expectation(Frozen):
    """What one configuration reached in one stage at one load level, pinned for ``watch``."""

    stage: str
    configuration: str
    load: str
    k: int = Field(ge=1, description="the declared k")
    engine_k: float | None = Field(
        default=None,
        gt=0,
        description="the k the engine ran by its own counts (per-position counters, else "
        "drafted tokens per verify step), when the verdict found another than the declared "
        "one; watch's configuration-change alarm compares against it. Absent: the engine "
        "drafted as declared, or gave no counts",
    )
    acceptance: Figure
    mean_accepted_length: Figure
    run_ids: tuple[str, ...] = Field(description="the candidate's runs the figures come from")
    baseline_run_ids: tuple[str, ...] = ()
    dispersion: float = Field(
        default=1.0,
        ge=1.0,
        description="variance of the per-step accepted count across requests over its "
        "independent-steps value (a design effect); widens a window's noise in watch",
    )
    verdict: Verdict = Field(
        default="ADOPT",
        description="the pair's verdict: ADOPT, or another when `policy --configuration` "
        "pinned a configuration that was measured but not adopted",
    )


class Expectations(Frozen):
    schema_version: Literal[1] = EXPECTATIONS_SCHEMA_VERSION
    campaign: str
    engine: str
    expectations: tuple[Expectation, ...]
    overrides: OverridesTarget | None = None


class PairEvidence(Frozen):
    """What the registry says about one pair beyond its verdict: the candidate's acceptance
    and MAL with intervals, the design effect of its steps, and each execution's output
    throughput (tokens/s) in both arms (the sweep data of the median - MAD rule)."""

    acceptance: Figure | None = None
    mean_accepted_length: Figure | None = None
    dispersion: float = Field(default=1.0, ge=1.0)
    baseline_throughputs: tuple[float, ...] = ()
    candidate_throughputs: tuple[float, ...] = ()
