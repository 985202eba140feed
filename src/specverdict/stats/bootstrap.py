"""The paired (cluster) bootstrap behind every speed and acceptance interval.

One resampling unit is one sample (a prompt run by both arms) or one request: its values in all
arrays are drawn together, so the pairing, and any correlation inside a request, is kept.
Resampling is ``scipy.stats.bootstrap(paired=True)`` driven by the caller's seeded
``numpy.random.Generator``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Literal

import numpy as np

from specverdict.stats._common import FloatArray, Interval, check_unit_open

Method = Literal["percentile", "bca"]
VectorStatistic = Callable[..., FloatArray]
"""``statistic(*arrays, axis=-1)``: one value per resample along ``axis``."""

MIN_RESAMPLES = 2000
_METHODS = ("percentile", "bca")
_FLAT_RTOL = 1e-12


def check_bootstrap_args(n_resamples: int, confidence: float, method: str) -> None:
    """Refuse settings that would make an interval less honest than the project promises."""
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int):
        raise ValueError(f"n_resamples must be an integer, got {n_resamples!r}")
    if n_resamples < MIN_RESAMPLES:
        raise ValueError(f"n_resamples must be at least {MIN_RESAMPLES}, got {n_resamples}")
    check_unit_open("confidence", confidence)
    if method not in _METHODS:
        raise ValueError(f"method must be one of {list(_METHODS)}, got {method!r}")


def paired_bootstrap(
    data: tuple[FloatArray, ...],
    statistic: VectorStatistic,
    rng: np.random.Generator,
    *,
    n_resamples: int,
    confidence: float,
    method: Method,
) -> Interval | None:
    """Two-sided bootstrap interval for ``statistic`` over paired units (rows of ``data``).

    Percentile: the alpha/2 and 1 − alpha/2 quantiles of the resampled statistic. BCa: those
    quantiles shifted by the bias correction z0 and the jackknife acceleration a
    (Efron B. (1987), "Better bootstrap confidence intervals", JASA 82:171-185; Efron B. &
    Tibshirani R. (1993), *An Introduction to the Bootstrap*, chapters 13-14).

    Returns None with fewer than two units. When the statistic does not move under resampling
    (every unit carries the same ratio, say) BCa's acceleration is 0/0; the interval is then the
    range of the resampled values, a point up to rounding, as the percentile method gives.
    """
    from scipy.stats import bootstrap

    check_bootstrap_args(n_resamples, confidence, method)
    if len(data[0]) < 2:
        return None
    common = {"vectorized": True, "paired": True, "confidence_level": confidence, "rng": rng}
    res = bootstrap(data, statistic, n_resamples=n_resamples, method="percentile", **common)
    dist = np.asarray(res.bootstrap_distribution, dtype=np.float64)
    low, high = float(dist.min()), float(dist.max())
    if not (math.isfinite(low) and math.isfinite(high)):
        return None
    # Rounding can scatter a constant statistic over a few ulps; BCa on that is noise.
    if high - low <= _FLAT_RTOL * max(abs(low), abs(high), 1.0):
        return Interval(low, high)
    if method == "bca":
        # Same resamples, BCa quantiles: n_resamples=0 reuses the distribution above.
        res = bootstrap(
            data, statistic, n_resamples=0, method="BCa", bootstrap_result=res, **common
        )
    return Interval(float(res.confidence_interval.low), float(res.confidence_interval.high))
