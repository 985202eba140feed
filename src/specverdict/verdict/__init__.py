"""Verdicts per stage and pair: ``judge_pair`` (pure rules), ``campaign_verdicts`` and
``compare_runs`` (from the registry)."""

from specverdict.verdict.collect import arm_for, arm_from_runs, campaign_verdicts, compare_runs
from specverdict.verdict.judge import Arm, judge_pair
from specverdict.verdict.model import (
    EXIT_CODES,
    SEVERITY,
    DiscordantSample,
    PairVerdict,
    Reason,
    Verdict,
    worst,
)

__all__ = [
    "EXIT_CODES",
    "SEVERITY",
    "Arm",
    "DiscordantSample",
    "PairVerdict",
    "Reason",
    "Verdict",
    "arm_for",
    "arm_from_runs",
    "campaign_verdicts",
    "compare_runs",
    "judge_pair",
    "worst",
]
