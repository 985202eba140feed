"""Anytime-valid non-inferiority of paired pass/fail outcomes: testing by betting.

Per paired sample t (in a fixed order), D_t = cand_t - base_t in {-1, 0, 1}. Non-inferiority at
margin delta tests H0: E[D] <= -delta. With Y_t = D_t + delta (E[Y] <= 0 under H0), the wealth

    K_t = prod_{s <= t} (1 + lambda_s Y_s),   0 <= lambda_s <= c / (1 - delta),

with each bet lambda_s chosen from Y_1..Y_{s-1} only, is a nonnegative supermartingale under H0
(1 + lambda Y >= 0 because Y >= -(1 - delta)). By Ville's inequality
P(sup_t K_t >= 1/a) <= a: rejecting H0 once the running maximum of K reaches 1/a keeps the
error at most a however often the data are looked at, samples added, or the verdict re-read.
1/max K is an anytime-valid p-value (for a family correction).

Bets follow aGRAPA (Waudby-Smith and Ramdas 2023, "Estimating means of bounded random variables
by betting", JRSS-B): lambda_t = mu_{t-1} / (sigma2_{t-1} + mu_{t-1}^2), truncated to
[0, c / (1 - delta)], with running mean and variance that start from one pseudo-observation of
Y = delta (outputs equal) and variance 1/4. The truncation c < 1 keeps one discordant loss from
wiping the wealth out. These choices move the power, never the validity.

The smallest margin these data decide is found on a grid of margins (each its own test; the
report states it, no decision is taken at it), and the samples the chosen margin would need are
projected from the bets' growth rate at the observed outcomes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: fraction of the largest safe bet 1 / (1 - delta) ever staked
BET_CAP = 0.9
#: the prior pseudo-observation's variance
PRIOR_VARIANCE = 0.25
#: the largest projected sample size worth naming: past it a projection is "none" in practice
#: (outcomes with a growth rate of 1e-35 per sample would otherwise ask for 10^36 samples)
MAX_NEEDED = 1_000_000
#: margins searched for the smallest decidable one
MARGIN_GRID = np.round(np.arange(0.001, 0.501, 0.001), 3)


@dataclass(frozen=True, slots=True)
class BettingTest:
    margin: float
    level: float
    n: int
    wealth: float  # K_n
    max_wealth: float  # max_{t <= n} K_t: the evidence against H0
    decided: bool  # max_wealth >= 1 / level: non-inferior at this margin
    p_value: float  # min(1, 1 / max_wealth), anytime-valid
    smallest_margin: float | None  # the smallest grid margin these data decide, if any
    # projected samples for ``margin`` at the observed outcomes (None past MAX_NEEDED)
    n_needed: int | None


def _paths(d: np.ndarray, margins: np.ndarray) -> np.ndarray:
    """Wealth paths, one row per margin: K_t for t = 1..n."""
    m = margins[:, None]
    y = d[None, :] + m
    n = d.shape[0]
    out = np.empty((len(margins), n))
    k = np.ones(len(margins))
    total = margins.copy()  # running sums, from the prior pseudo-observation y = delta
    sq = np.full(len(margins), PRIOR_VARIANCE)
    cap = BET_CAP / (1.0 - margins)
    for t in range(n):
        mean = total / (t + 1)
        var = sq / (t + 1)
        bet = np.clip(mean / (var + mean**2), 0.0, cap)
        k = k * (1.0 + bet * y[:, t])
        out[:, t] = k
        total = total + y[:, t]
        new_mean = total / (t + 2)
        sq = sq + (y[:, t] - new_mean) ** 2
    return out


def betting_noninferiority(differences: Sequence[int], margin: float, level: float) -> BettingTest:
    """The betting test of H0: E[cand - base] <= -margin, at ``level`` (one-sided)."""
    if not 0.0 < margin < 1.0:
        raise ValueError(f"margin must be in (0, 1), got {margin}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level}")
    d = np.asarray(differences, dtype=float)
    if d.size and not np.isin(d, (-1.0, 0.0, 1.0)).all():
        raise ValueError("differences must be -1, 0 or 1 (candidate minus baseline pass)")
    n = int(d.size)
    if n == 0:
        return BettingTest(margin, level, 0, 1.0, 1.0, False, 1.0, None, None)
    grid = np.unique(np.append(MARGIN_GRID, margin))
    paths = _paths(d, grid)
    peaks = paths.max(axis=1)
    at = int(np.searchsorted(grid, margin))
    wealth, peak = float(paths[at, -1]), float(peaks[at])
    decided = peak >= 1.0 / level
    hits = grid[peaks >= 1.0 / level]
    smallest = float(hits.min()) if hits.size else None
    return BettingTest(
        margin=margin,
        level=level,
        n=n,
        wealth=wealth,
        max_wealth=peak,
        decided=decided,
        p_value=min(1.0, 1.0 / peak),
        smallest_margin=smallest,
        n_needed=None if decided else _needed(d, margin, level, peak),
    )


def _needed(d: np.ndarray, margin: float, level: float, peak: float) -> int | None:
    """Samples to reach 1/level from here at the growth rate of the bet the observed outcomes
    call for (None when they call for none, at this margin the data lean to H0, or when more
    than ``MAX_NEEDED`` would be needed)."""
    y = d + margin
    mean, var = float(y.mean()), float(y.var())
    if mean <= 1e-12:  # a drop equal to the margin leaves a rounding error, not a lean to H1
        return None
    bet = min(mean / (var + mean**2), BET_CAP / (1.0 - margin))
    growth = float(np.mean(np.log1p(bet * y)))
    if growth <= 0:
        return None
    more = math.log(1.0 / level) - math.log(max(peak, 1.0))
    needed = len(d) + max(0, math.ceil(more / growth))
    return needed if needed <= MAX_NEEDED else None
