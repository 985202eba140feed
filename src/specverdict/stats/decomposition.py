"""Where a speed-up comes from: tokens per step (MAL) against the cost of a speculative step (R).

S = MAL / R, with R = (candidate step time) / (baseline step time) = TPOT_cand · MAL / TPOT_base.
A high MAL eaten by a large R (a verify pass over k+1 tokens on a MoE target that touches more
experts) is the pattern this split exposes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from specverdict.stats._common import check_count, check_positive


@dataclass(frozen=True, slots=True, kw_only=True)
class Decomposition:
    """S = MAL / R: ``speedup`` S, ``mal`` tokens per step, ``step_cost`` R."""

    speedup: float
    mal: float
    step_cost: float


def decompose_speedup(tpot_base: float, tpot_cand: float, mal: float) -> Decomposition:
    """Split a measured speed-up into what acceptance buys and what a step costs.

        R = TPOT_cand · MAL / TPOT_base,    S = MAL / R  (= TPOT_base / TPOT_cand).

    A candidate step emits MAL tokens in TPOT_cand · MAL seconds; a baseline step emits one
    token in TPOT_base seconds. Reference: Leviathan Y., Kalman M. & Matias Y. (2023), "Fast
    inference from transformers via speculative decoding", ICML, Theorem 3.8 (walltime
    improvement = expected tokens per step / cost of a step).
    """
    base = check_positive("tpot_base", tpot_base)
    cand = check_positive("tpot_cand", tpot_cand)
    m = check_positive("mal", mal)
    if m < 1.0:
        raise ValueError(f"mal counts the bonus token and is at least 1, got {m}")
    r = cand * m / base
    return Decomposition(speedup=m / r, mal=m, step_cost=r)


@dataclass(frozen=True, slots=True, kw_only=True)
class PositionRates:
    """Per-position acceptance from a run's counters.

    ``rates[i]`` = A_i / D = P(draft positions 0..i all accepted); ``conditional[i]`` =
    P(position i accepted | positions before it accepted) = rates[i] / rates[i-1] (0 once a
    position is never reached); ``mal`` = 1 + Σ rates.
    """

    rates: tuple[float, ...]
    conditional: tuple[float, ...]
    mal: float


def mal_from_rates(rates: Sequence[float]) -> float:
    """MAL = 1 + Σ_i r_i: one bonus token plus the expected number of accepted drafts."""
    return 1.0 + math.fsum(rates)


def position_rates(accepted_per_pos: Sequence[int], drafts: int) -> PositionRates:
    """Rates r_i = A_i / D from per-position accepted counts A_i and the number of drafts D.

    A_i counts steps whose drafts were accepted up to and including position i, so
    D >= A_0 >= A_1 >= ... and MAL = 1 + Σ r_i = 1 + A / D (A = Σ A_i). Counts that break the
    order are not a run's counters (a delta across a restart, or foreign series) and are refused.
    """
    d = check_count("drafts", drafts)
    counts = [check_count(f"accepted_per_pos[{i}]", a) for i, a in enumerate(accepted_per_pos)]
    if d == 0:
        raise ValueError("drafts is 0: no per-position rates")
    previous = d
    for i, a in enumerate(counts):
        if a > previous:
            raise ValueError(
                f"accepted_per_pos[{i}] = {a} exceeds {previous} "
                "(drafts or the previous position): counts must not increase with position"
            )
        previous = a
    rates = tuple(a / d for a in counts)
    conditional: list[float] = []
    reached = float(d)
    for a in counts:
        conditional.append(a / reached if reached else 0.0)
        reached = float(a)
    return PositionRates(rates=rates, conditional=tuple(conditional), mal=mal_from_rates(rates))
