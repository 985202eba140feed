"""The quality gate on resampled evidence: per-sample pass probabilities, two strata.

After a vacuous or inconclusive gate, the discordant samples (all of them) and a seeded random
subset of the concordant ones are re-run several times on both configurations. Each sample i then
has pass probabilities p_b,i and p_c,i (passes / runs) and a per-sample drop d_i = p_b,i − p_c,i.
The suite-level drop is the stratified mean

    Δ = ( Σ_{i∈D} d_i  +  (N_C / n_C) · Σ_{i∈S} d_i ) / N,

D the discordant samples, S the n_C concordant samples drawn out of N_C, N the number of paired
samples. The d_i come from re-runs at fresh seeds only: the original answers chose the strata.

Its standard error is the design-based one of a stratified estimator (Cochran W.G. (1977),
*Sampling Techniques*, 3rd ed., sections 5.3 and 10.2: a census stratum, a simple random
sample without replacement in the other, each unit measured with error):

    SE² = ( n_D s_D²  +  N_C² (1 − n_C / N_C) s_C² / n_C ) / N²,

s_D² and s_C² the variances of the d_i inside each stratum. In the census stratum only the
re-runs' noise is error, which n_D s_D² bounds from above in expectation; in the drawn stratum
s_C² holds both the choice of samples and the re-runs' noise. The interval is Δ ± t_ν SE with ν
by Welch-Satterthwaite over the two parts. (A stratified percentile bootstrap, used before,
passed about three times its share at the small levels the resample budget reads it at: with 20
concordant samples its tails are too light.) The decision follows the non-inferiority rule:
``reject`` if the lower bound is above 0, ``pass`` if the upper bound is under the margin, else
``inconclusive``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from specverdict.stats._common import Interval, check_unit_open
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
    *,
    alpha: float = 0.05,
) -> ResampledDrop:
    """``discordant``/``concordant``: per-sample drops d_i in [−1, 1] of the two strata."""
    from scipy.stats import t as student_t

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
    point = float((d.sum() + weight * c.sum()) / n_total)

    def spread(x: np.ndarray) -> float:
        # a stratum of one unit shows no spread: the bound of a value in [-1, 1] stands in
        return float(x.var(ddof=1)) if len(x) > 1 else 1.0

    part_d = len(d) * spread(d) if len(d) else 0.0
    fpc = 1.0 - len(c) / n_concordant_total if n_concordant_total else 0.0
    part_c = n_concordant_total**2 * fpc * spread(c) / len(c) if len(c) else 0.0
    se = float(np.sqrt(part_d + part_c)) / n_total
    dfs = [(part_d, max(len(d) - 1, 1)), (part_c, max(len(c) - 1, 1))]
    denom = sum(v**2 / k for v, k in dfs if v > 0)
    if se == 0.0:
        # every drop alike: no spread to read an error from, so nothing bounds it
        lower, upper = -1.0, 1.0
    else:
        q = float(student_t.ppf(1 - alpha / 2, (part_d + part_c) ** 2 / denom))
        lower, upper = point - q * se, point + q * se
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
