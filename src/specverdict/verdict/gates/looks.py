"""Sequential looks: the look a verdict is read at, a re-run's share of the level, and futility."""

from __future__ import annotations

from collections.abc import Sequence

from specverdict.campaign.model import Gates
from specverdict.stats.looks import LookShare
from specverdict.verdict.gates._common import (
    Findings,
    Gate,
    Pair,
    find_reason,
    level_text,
    look_data,
    look_said,
    reject_level,
)
from specverdict.verdict.model import Reason


def _futility(
    look: LookShare | None,
    reasons: Sequence[Reason],
    q_outcome: str,
    s_outcome: str,
    metric: str = "tpot",
) -> Reason | None:
    """At a look of a sequential campaign, whether more samples are futile: speed cannot be
    decided at any look left (the run-to-run drift alone keeps the interval over the bar),
    so there is no ADOPT and no speed REJECT to wait for, and quality points to no REJECT
    either (the observed drop is not above 0). The pair may stop as INCONCLUSIVE."""
    if look is None or look.undeclared or s_outcome != "inconclusive" or q_outcome == "reject":
        return None
    speed, quality = (
        find_reason(reasons, f"speed.{metric}"),
        find_reason(reasons, "quality.noninferiority"),
    )
    if speed is None or not speed.data.get("futile"):
        return None
    drop = quality.data.get("drop") if quality is not None else None
    if drop is not None and float(drop) > 0:
        return None
    return Reason(
        gate="sequential.futility",
        status="info",
        message="more samples cannot settle this pair: the run-to-run drift alone keeps the "
        "speed interval over the bar at every look left, and quality shows no drop to reject "
        "on; more executions (load.repeats, load.baseline_repeats) would narrow it",
        data={"look": look.index},
    )


def _rerun_reason(look: LookShare, gates: Gates, note: str) -> Reason:
    """A fixed design's re-run read as one more look: which, and what it spends."""
    msg = (
        f"re-run: {look.describe()}; the fixed-n gates (speed, the score tests) at "
        f"{100 * look.share:.1f}% of their level (the speed interval at "
        f"{100 * (1 - gates.alpha * look.share):.2f}%); declare the looks before the first "
        "sample (run --until-decided) to spend alpha by design"
    )
    if note:
        msg += f" ({note})"
    return Reason(gate="looks", status="info", message=msg, data=look_data(look))


def _look_reason(look: LookShare, gates: Gates, note: str) -> Reason:
    """Which look of a sequential campaign the verdict is read at, and its boundary."""
    if look.undeclared:
        return _rerun_reason(look, gates, note)
    speed = gates.alpha / 2 * look.share
    if look.beyond:
        rule = (
            "no error left for the fixed-n gates (speed, McNemar, the score interval, Fisher): "
            "they describe, they do not decide"
        )
    else:
        rule = (
            f"speed ADOPT and REJECT each one-sided at {level_text(speed)} (the interval at "
            f"{100 * (1 - gates.alpha * look.share):.2f}%), quality REJECT tests two-sided at "
            f"{level_text(reject_level(gates, look))}"
        )
    msg = (
        f"sequential: {look.describe()}; {rule}; quality non-inferiority by betting, "
        "anytime-valid at every look"
    )
    if note:
        msg += f" ({note})"
    return Reason(
        gate="sequential",
        status="info",
        message=msg,
        data={
            "index": look.index,
            "declared": look.declared,
            "share": look.share,
            "speed_level": speed,
            "reject_level": reject_level(gates, look),
            "spending": "lan-demets-pocock, union bound",
        },
    )


def _judge_look(pair: Pair, found: Findings) -> None:
    if pair.look is not None and look_said(pair.look):
        found.add(_look_reason(pair.look, pair.gates, pair.look_note))


def _judge_futility(pair: Pair, found: Findings) -> None:
    found.add(
        _futility(pair.look, found.reasons, found.quality.outcome, found.speed.outcome, pair.metric)
    )


LOOK = Gate("look", _judge_look)
FUTILITY = Gate("futility", _judge_futility)
