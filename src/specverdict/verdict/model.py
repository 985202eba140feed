"""What a verdict is: one decision per stage, pair and load level, with machine-readable reasons.

Verdicts, most severe first: ``INVALID`` (the comparison broke a rule: pairing, polluted
acceptance, failed requests), ``REJECT`` (quality dropped, or no worthwhile speed gain),
``INCONCLUSIVE`` (a deciding gate was vacuous or underpowered, or evidence is missing), ``ADOPT``
(a speed-up clear of 1, of the noise floor and of ``min_speedup``, and quality decided
non-inferior). There is never a verdict across stages.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

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
