"""What a verdict is: one decision per stage, pair and load level, with machine-readable reasons.

Verdicts, most severe first: ``INVALID`` (the comparison broke a rule: pairing, polluted
acceptance, failed requests), ``REJECT`` (quality dropped, or no worthwhile speed gain),
``INCONCLUSIVE`` (a deciding gate was vacuous or underpowered, or evidence is missing), ``ADOPT``
(a speed-up clear of 1, of the noise floor and of ``min_speedup``, and quality decided
non-inferior). There is never a verdict across stages.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    computed_field,
    model_validator,
)

if TYPE_CHECKING:
    from specverdict.records.acceptance import AcceptanceSummary

Verdict = Literal["ADOPT", "REJECT", "INCONCLUSIVE", "INVALID"]
GateStatus = Literal["pass", "reject", "inconclusive", "vacuous", "invalid", "info"]

#: most severe first: the order in which verdicts decide a CI job's exit code
SEVERITY: tuple[Verdict, ...] = ("INVALID", "REJECT", "INCONCLUSIVE", "ADOPT")
EXIT_CODES: dict[Verdict, int] = {"ADOPT": 0, "REJECT": 1, "INCONCLUSIVE": 3, "INVALID": 4}


class Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Reason(Frozen):
    """One gate's finding: ``gate`` is dotted (``quality.mcnemar``), ``status`` what it says for
    the verdict, ``message`` the one line a person reads, ``data`` the numbers behind it."""

    gate: str
    status: GateStatus
    message: str
    data: dict[str, Any] = Field(default_factory=dict)

    def __str__(self) -> str:
        return f"{self.gate}: {self.message}"


class Figures(BaseModel):
    """The typed view of the figures a gate writes into its reason's ``data``: the gate writes
    them through the model, and every reader (report, policy, exports) reads the model, never
    ``data`` by key. Other keys of ``data`` are ignored by the view."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    @classmethod
    def of(cls, reason: Reason | None) -> Self | None:
        """The figures of ``reason``; None when there is no reason, or it carries none (a
        gate that could not compute them says so in its message)."""
        if reason is None:
            return None
        try:
            return cls.model_validate(reason.data)
        except ValidationError:
            return None


class NonInferiorityFigures(Figures):
    """``quality.noninferiority``: the candidate's drop in pass rate with its interval, and the
    margin it is held to."""

    drop: float
    lower: float
    upper: float
    margin: float


class DecompositionFigures(Figures):
    """``speed.decomposition``: speed-up = mean accepted length / step cost (in baseline
    steps)."""

    speedup: float
    mal: float
    step_cost: float


class IdentityFigures(Figures):
    """``identity``: the share of greedy answers equal to the baseline's, and where each
    divergent answer first differs (sample id -> character position)."""

    share: float | None = None
    divergences: dict[str, int] = Field(default_factory=dict)


class DeclaredKFigures(Figures):
    """``speculation.k``: the k declared, and the k the engine ran by its own counts."""

    declared_k: float | None = None
    engine_k: float | None = None


class DecidingFigures(Figures):
    """A deciding gate's p-value on the family's scale (what ``p_adopt`` takes the larger of)."""

    p_value: float


#: the gate whose reasons compare the declared k with the engine's own counts; a reason of it
#: carries the k the engine ran when that is another than the declared one
#: (``DeclaredKFigures``)
K_GATE = "speculation.k"


def _figure(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def engine_ks(reasons: Sequence[Reason]) -> tuple[float, ...]:
    """The k each candidate execution's engine ran by its own counts, as the judge read them
    (the ``speculation.k`` reasons, in run order), each figure once: the number of per-position
    counters, else drafted tokens per verify step (for a method drafting "up to k", n-gram or
    suffix, a cap and not a fixed width). A figure equal to the declared k is left out. Empty
    when the engine drafts as declared, or gave no counts to tell."""
    found: list[float] = []
    for r in reasons:
        figures = DeclaredKFigures.of(r) if r.gate == K_GATE else None
        if figures is None or figures.engine_k is None:
            continue
        k = figures.engine_k
        if k != figures.declared_k and k not in found:
            found.append(k)
    return tuple(found)


def k_text(k: float) -> str:
    """A k as a person reads it: ``3`` for a count, ``2.97`` for drafted tokens per step."""
    return f"{k:g}" if float(k).is_integer() else f"{k:.2f}"


def engine_note(ks: Sequence[float]) -> str:
    """What follows a configuration's label when its engine ran another k: `` (engine: 3)``
    (several executions that disagree: `` (engine: 3, 4)``); empty when none is known."""
    return f" (engine: {', '.join(k_text(k) for k in ks)})" if ks else ""


def drafted_per_step(acc: AcceptanceSummary | None) -> float | None:
    """Drafted tokens per verify step of one run, by the engine's own counts (draft tokens /
    drafts); None without clean counts (none given, nothing drafted, or other traffic moved the
    counters). For a method that drafts k tokens at every step, the k the engine ran."""
    if acc is None or acc.polluted or not acc.drafts or not acc.draft_tokens:
        return None
    return acc.draft_tokens / acc.drafts


def run_engine_k(acc: AcceptanceSummary | None) -> int | None:
    """The k one run's engine ran by its own per-position counters: their number (the width
    the engine drafts to, as the judge reads it); None when it keeps none or its counts are
    not clean (``drafted_per_step`` then says what it drafted per step)."""
    if drafted_per_step(acc) is None:
        return None
    assert acc is not None
    return len(acc.accepted_per_pos) or None


class DiscordantSample(Frozen):
    """A sample the two configurations judged differently, with both outputs."""

    sample_id: str
    base_passed: bool
    cand_passed: bool
    base_outcome: str
    cand_outcome: str
    base_text: str
    cand_text: str


class PairVerdict(Frozen):
    """The decision for one candidate against its baseline, in one stage at one load level."""

    stage: str
    suite: str
    load: str
    baseline: str
    candidate: str
    baseline_run_ids: tuple[str, ...]
    candidate_run_ids: tuple[str, ...]
    #: the slice this verdict is restricted to (``category=filter``, ``prompt_tokens<1024``),
    #: None for the whole stage
    slice: str | None = None
    verdict: Verdict
    reasons: tuple[Reason, ...]
    speedup: float | None = None
    speedup_interval: tuple[float, float] | None = None
    #: what the speed-up is of (``campaign.model.SpeedMetric``): the stage's speed metric
    speed_metric: str = "tpot"
    #: which clock timed the speeds: ``host`` (the client's wall clock), ``device`` (the
    #: engine's modelled device clock), None when no sample was answered
    clock: str | None = None
    base_pass_rate: float | None = None
    cand_pass_rate: float | None = None
    acceptance_rate: float | None = None
    mean_accepted_length: float | None = None
    #: one-sided p-value of the pair's ADOPT (the larger of quality's and speed's), None when
    #: either gate has none; the campaign's family control holds it to an adjusted level
    p_adopt: float | None = None
    supplement: tuple[DiscordantSample, ...] = ()

    @model_validator(mode="before")
    @classmethod
    def _computed_are_not_inputs(cls, data: Any) -> Any:
        """A dumped verdict reads back: its computed figures are read again from its reasons."""
        if isinstance(data, dict) and "engine_k" in data:
            data = {k: v for k, v in data.items() if k != "engine_k"}
        return data

    @computed_field  # type: ignore[prop-decorator]
    @property
    def engine_k(self) -> float | None:
        """The k the candidate's engine ran, when its own counts show another than the declared
        one (``engine_ks``; the first execution's when several disagree); None when it drafts
        as declared or gave no counts."""
        ks = engine_ks(self.reasons)
        return ks[0] if ks else None

    @property
    def candidate_label(self) -> str:
        """The candidate's label with the k its engine ran beside the declared one, when that
        is another: ``draft_model k=8 (engine: 3)``."""
        return self.candidate + engine_note(engine_ks(self.reasons))

    def reason(self, gate: str) -> Reason | None:
        return next((r for r in self.reasons if r.gate == gate), None)

    @property
    def speed_gate(self) -> Reason | None:
        """The deciding speed reason (gate ``speed.<metric>``), whatever the metric."""
        return self.reason(f"speed.{self.speed_metric}")


def worst(verdicts: list[Verdict]) -> Verdict | None:
    """The most severe verdict of a list (None for an empty list)."""
    for v in SEVERITY:
        if v in verdicts:
            return v
    return None
