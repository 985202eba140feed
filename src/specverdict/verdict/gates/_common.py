"""What every gate reads and writes, and small helpers the gates share.

A gate is one step of a pair's verdict (``Gate``): it reads the ``Pair`` (both arms, the
campaign's gates, the look, the drift, the speed metric) and adds to the ``Findings``: its
reasons, and for the three gates the verdict is composed from, a typed result (``Quality``,
``Speed``, ``Acceptance``). ``verdict.gates.GATES`` runs them in order."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from specverdict.campaign.model import Gates
from specverdict.campaign.spec import RunSpec
from specverdict.records import RunManifest, SampleRecord
from specverdict.records.acceptance import AcceptanceSummary
from specverdict.stats.looks import LookShare
from specverdict.stats.speed import (
    ExecutionDrift,
)
from specverdict.verdict.model import DiscordantSample, Reason


@dataclass(frozen=True)
class Arm:
    """One side of a comparison: its spec, the completed executions (repeats) used, their
    samples (one tuple per execution, in the same order) and the acceptance of the first."""

    spec: RunSpec
    run_ids: tuple[str, ...]
    samples: tuple[tuple[SampleRecord, ...], ...]
    acceptance: AcceptanceSummary | None = None
    #: per execution, in ``run_ids`` order: acceptance and run manifest (audits live there)
    acceptances: tuple[AcceptanceSummary | None, ...] = ()
    manifests: tuple[RunManifest, ...] = ()
    #: earlier executions of the same fingerprint outside this arm: (run_id, acceptance rate)
    history: tuple[tuple[str, float | None], ...] = ()

    @property
    def first(self) -> tuple[SampleRecord, ...]:
        return self.samples[0] if self.samples else ()


def find_reason(reasons: Sequence[Reason], gate: str) -> Reason | None:
    return next((r for r in reasons if r.gate == gate), None)


def pp(x: float) -> str:
    return f"{100.0 * x:.1f} pp"


def clock_of(base: Arm, cand: Arm) -> str | None:
    """The clock the pair's answered samples were timed on (``host`` or ``device``), or
    ``mixed``; None when nothing was answered."""
    seen = {s.clock for arm in (base, cand) for run in arm.samples for s in run if s.status == "ok"}
    if not seen:
        return None
    return seen.pop() if len(seen) == 1 else "mixed"


def reject_level(gates: Gates, look: LookShare | None = None) -> float:
    """The two-sided level of each test that can REJECT a candidate on quality or output
    distribution: alpha/2, so that McNemar and the score interval (the same drop, alpha/4 each
    in the harmful direction) and the finish-reason test (alpha/2) share one budget of alpha.
    At a look of a sequential campaign, the look's share of it (``stats.looks``): over the
    declared looks the shares add up to the same budget. 0 past the declared looks."""
    return gates.alpha / 2 * (1.0 if look is None else look.share)


def level_text(level: float) -> str:
    return f"{level:.3g}"


def audit_findings(manifests: Sequence[RunManifest]) -> list[str]:
    """One line per audit finding recorded in the runs' manifests."""
    return list(dict.fromkeys(line for m in manifests for line in m.audits.findings()))


def look_data(look: LookShare) -> dict[str, object]:
    """A look as the gates' data record it."""
    data: dict[str, object] = {"index": look.index, "declared": look.declared, "share": look.share}
    if look.undeclared:
        data["undeclared"] = True
    return data


def look_said(look: LookShare) -> bool:
    """Whether a gate's message names the look: every look of a sequential design, and the
    re-runs of a fixed one (its first reading, the usual case, only in the gates' data)."""
    return not look.undeclared or look.index > 1


@dataclass(frozen=True)
class Pair:
    """The inputs of a pair's gates."""

    base: Arm
    cand: Arm
    gates: Gates
    rng: np.random.Generator
    metric: str
    drift: ExecutionDrift | None = None
    look: LookShare | None = None
    look_note: str = ""
    expected_acceptance: float | None = None


Outcome = str  #: "pass", "reject" or "inconclusive": what a deciding gate says for the verdict


@dataclass(frozen=True)
class Quality:
    """The quality gate's result: its outcome, the discordant samples shown beside an
    undecided or rejecting verdict, and each arm's pass rate."""

    outcome: Outcome
    supplement: tuple[DiscordantSample, ...] = ()
    base_rate: float | None = None
    cand_rate: float | None = None


@dataclass(frozen=True)
class Speed:
    """The speed gate's result: its outcome, the speed-up's point and interval, and the arms'
    mean speeds (the acceptance decomposition reads them)."""

    outcome: Outcome
    point: float | None = None
    interval: tuple[float, float] | None = None
    means: tuple[float, float] | None = None


@dataclass(frozen=True)
class Acceptance:
    """The acceptance gate's result: the candidate's acceptance rate and mean accepted length."""

    rate: float | None = None
    mal: float | None = None


@dataclass
class Findings:
    """What the gates found so far, in gate order."""

    reasons: list[Reason] = field(default_factory=list)
    quality: Quality = field(default_factory=lambda: Quality("inconclusive"))
    speed: Speed = field(default_factory=lambda: Speed("inconclusive"))
    acceptance: Acceptance = field(default_factory=Acceptance)

    def add(self, *reasons: Reason | None) -> None:
        self.reasons.extend(r for r in reasons if r is not None)


@dataclass(frozen=True)
class Gate:
    """One gate: its name, and the step that reads the pair and adds to the findings."""

    name: str
    judge: Callable[[Pair, Findings], None]
