"""Intervals for one binomial proportion (a pass rate)."""

from __future__ import annotations

import math


def wilson_interval(passed: int, n: int, alpha: float) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (Wilson E.B. (1927), "Probable inference,
    the law of succession, and statistical inference", JASA 22:209-212)."""
    from scipy.stats import norm

    if n <= 0:
        raise ValueError("n must be positive")
    z = float(norm.ppf(1.0 - alpha / 2.0))
    p = passed / n
    den = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, centre - half), min(1.0, centre + half)
