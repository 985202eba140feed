"""The quality gate on resampled evidence: per-sample pass probabilities, two strata.

After a vacuous or inconclusive gate, the discordant samples (all of them) and a seeded random
subset of the concordant ones are re-run several times on both configurations. Each sample i then
has pass probabilities p_b,i and p_c,i (passes / runs) and a per-sample drop d_i = p_b,i − p_c,i.
The suite-level drop is the stratified mean

    Δ = ( Σ_{i∈D} d_i  +  (N_C / n_C) · Σ_{i∈S} d_i ) / N,

D the discordant samples, S the n_C concordant samples drawn out of N_C, N the number of paired
samples. Its interval is a stratified percentile bootstrap: units are resampled with replacement
inside each stratum (Davison A.C. & Hinkley D.V. (1997), *Bootstrap Methods and their
Application*, section 3.7). The decision follows the non-inferiority rule: ``reject`` if the
lower bound is above 0, ``pass`` if the upper bound is under the margin, else ``inconclusive``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from specverdict.stats._common import Interval, check_unit_open
from specverdict.stats.bootstrap import MIN_RESAMPLES
from specverdict.stats.noninferiority import Decision


@dataclass(frozen=True, slots=True, kw_only=True)
class ResampledDrop:
    """The stratified drop in pass probability and its decision against the margin."""

    drop: float
    interval: Interval
    n_discordant: int
    n_concordant_drawn: int
    n_concordant_total: int
    n_total: int
    margin: float
    decision: Decision
    why: str


def stratified_drop(
    discordant: Sequence[float],
    concordant: Sequence[float],
    n_concordant_total: int,
    margin: float,
    rng: np.random.Generator,
    *,
    alpha: float = 0.05,
    n_resamples: int = MIN_RESAMPLES,
) -> ResampledDrop:
    """``discordant``/``concordant``: per-sample drops d_i in [−1, 1] of the two strata."""
    margin = check_unit_open("margin", margin)
    alpha = check_unit_open("alpha", alpha)
    d = np.asarray(discordant, dtype=float)
    c = np.asarray(concordant, dtype=float)
    if np.any(np.abs(d) > 1) or np.any(np.abs(c) > 1):
        raise ValueError("per-sample drops must lie in [-1, 1]")
    if n_concordant_total < len(c):
        raise ValueError(
            f"n_concordant_total {n_concordant_total} is smaller than the {len(c)} drawn"
        )
    if len(c) == 0 and n_concordant_total > 0:
        raise ValueError(
            "concordant samples exist but none was drawn: the estimate would be biased"
        )
    n_total = len(d) + n_concordant_total
    if n_total == 0:
        raise ValueError("no samples")
    weight = n_concordant_total / len(c) if len(c) else 0.0

    def estimate(dd: np.ndarray, cc: np.ndarray) -> Any:
        return (dd.sum(axis=-1) + weight * cc.sum(axis=-1)) / n_total

    point = float(estimate(d, c))
    draws_d = (
        d[rng.integers(0, len(d), (n_resamples, len(d)))] if len(d) else np.zeros((n_resamples, 0))
    )
    draws_c = (
        c[rng.integers(0, len(c), (n_resamples, len(c)))] if len(c) else np.zeros((n_resamples, 0))
    )
    boot = estimate(draws_d, draws_c)
    lower, upper = (float(x) for x in np.quantile(boot, [alpha / 2, 1 - alpha / 2]))
    lower, upper = min(lower, point), max(upper, point)
    decision: Decision
    if lower > 0:
        decision = "reject"
        why = f"drop {100 * point:.1f} pp, lower bound {100 * lower:.1f} pp > 0"
    elif upper < margin:
        decision = "pass"
        why = f"upper bound {100 * upper:.1f} pp < margin {100 * margin:.1f} pp"
    else:
        decision = "inconclusive"
        why = f"interval [{100 * lower:.1f}, {100 * upper:.1f}] pp spans 0 or the margin {100 * margin:.1f} pp"
    return ResampledDrop(
        drop=point,
        interval=Interval(lower, upper),
        n_discordant=len(d),
        n_concordant_drawn=len(c),
        n_concordant_total=n_concordant_total,
        n_total=n_total,
        margin=margin,
        decision=decision,
        why=why,
    )
