"""The law of accepted drafts per verify step, and the design effect of a ratio over requests.

A verify step of k drafts, each accepted with one probability a until the first rejection,
accepts X in 0..k drafts with P(X >= j) = a^j (Leviathan et al. 2023, section 3.1): a
truncated geometric law. Steps of one request are correlated, so a ratio sum(A_i) / sum(D_i)
over requests varies more than the law alone says; the design effect is that excess. Read by
the watch's drift detector and by the policy's evidence.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def per_token_rate(mean_accepted: float, k: int) -> float:
    """The per-token acceptance a whose truncated geometric law has E[X] = sum_j a^j = mean."""
    if k < 1:
        raise ValueError("k must be at least 1")
    target = min(max(mean_accepted, 0.0), float(k))
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2.0
        if sum(mid**j for j in range(1, k + 1)) < target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def step_variance(mean_accepted: float, k: int) -> float:
    """Var X for X in 0..k accepted drafts per step, truncated geometric with E[X] = mean."""
    a = per_token_rate(mean_accepted, k)
    m1 = sum(a**j for j in range(1, k + 1))
    m2 = sum((2 * j - 1) * a**j for j in range(1, k + 1))
    return max(m2 - m1 * m1, 1e-12)


def design_effect(accepted: Sequence[int], steps: Sequence[int], k: int) -> float:
    """Variance of the ratio sum(A_i) / sum(D_i) over requests i (linearised, Cochran 1977,
    section 6.3) over its value were all steps independent; at least 1."""
    a = np.asarray(accepted, dtype=float)
    d = np.asarray(steps, dtype=float)
    keep = d > 0
    a, d = a[keep], d[keep]
    n = len(a)
    if n < 2 or d.sum() == 0:
        return 1.0
    total = float(d.sum())
    r = float(a.sum()) / total
    clustered = n / (n - 1) * float(((a - r * d) ** 2).sum()) / total**2
    independent = step_variance(r, k) / total
    return max(1.0, clustered / independent)
