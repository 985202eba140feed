"""Acceptance rate and mean accepted length (MAL), with cluster-bootstrap intervals.

Definitions (vLLM's counters over a run): drafts D, draft tokens T, accepted tokens A.
Acceptance rate = A/T. MAL = 1 + A/D: tokens per verify step, bonus token included, in [1, k+1].
Tokens within one request are correlated (one hard prompt rejects many drafts), so the unit of
resampling is the request: resample requests, recompute the ratio of sums. Server-wide totals
give the point figure only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from specverdict.stats._common import (
    FloatArray,
    Interval,
    confidence_label,
    paired_complete,
)
from specverdict.stats.bootstrap import (
    Method,
    VectorStatistic,
    check_bootstrap_args,
    paired_bootstrap,
)

Quantity = Literal["acceptance_rate", "mean_accepted_length"]
Counts = Sequence[int | None] | NDArray[np.integer[Any]]
"""Per-request counts; None marks a request that reported none (it is dropped and counted)."""

NO_PER_REQUEST = "no per-request data: no interval"


@dataclass(frozen=True, slots=True, kw_only=True)
class AcceptanceEstimate:
    """An acceptance figure, its interval when per-request data exist, and what it rests on.

    ``n_requests`` counts the requests that drafted (None for server totals); ``no_drafts``
    those that drafted nothing and so say nothing about acceptance; ``missing`` those without
    counts. ``decidable`` is False when there is no figure at all.
    """

    quantity: Quantity
    point: float | None
    interval: Interval | None
    n_requests: int | None
    no_drafts: int
    missing: int
    confidence: float | None
    decidable: bool
    why: str


def _rate(accepted: FloatArray, drafted: FloatArray, axis: int = -1) -> Any:
    return np.sum(accepted, axis=axis) / np.sum(drafted, axis=axis)


def _mal(accepted: FloatArray, drafts: FloatArray, axis: int = -1) -> Any:
    return 1.0 + np.sum(accepted, axis=axis) / np.sum(drafts, axis=axis)


_LABELS: dict[Quantity, tuple[str, str]] = {
    "acceptance_rate": ("acceptance rate", "draft tokens"),
    "mean_accepted_length": ("mean accepted length", "drafts"),
}


def _cluster(
    quantity: Quantity,
    accepted: Counts,
    denominator: tuple[str, Counts],
    statistic: VectorStatistic,
    rng: np.random.Generator,
    n_resamples: int,
    confidence: float,
    method: Method,
) -> AcceptanceEstimate:
    check_bootstrap_args(n_resamples, confidence, method)
    den_name, den_values = denominator
    (acc, den), missing = paired_complete((("accepted", accepted), (den_name, den_values)))
    for name, arr in (("accepted", acc), (den_name, den)):
        if np.any(arr < 0.0) or np.any(arr != np.floor(arr)):
            raise ValueError(f"{name} must hold non-negative integer counts")
    if np.any((den == 0.0) & (acc > 0.0)):
        raise ValueError(f"a request accepted tokens with no {den_name}")
    if quantity == "acceptance_rate" and np.any(acc > den):
        raise ValueError("a request accepted more tokens than it drafted")
    drafted = den > 0.0
    # A request that drafted nothing adds 0 to both sums: it cannot move the ratio, only
    # dilute the resampling, so it is set aside and counted.
    no_drafts = int(np.count_nonzero(~drafted))
    acc, den = acc[drafted], den[drafted]
    n = len(acc)
    label, unit = _LABELS[quantity]

    def estimate(point: float | None, interval: Interval | None, why: str) -> AcceptanceEstimate:
        return AcceptanceEstimate(
            quantity=quantity,
            point=point,
            interval=interval,
            n_requests=n,
            no_drafts=no_drafts,
            missing=missing,
            confidence=confidence,
            decidable=point is not None,
            why=why,
        )

    if n == 0:
        return estimate(None, None, f"{label} unavailable: no request had {unit}")
    point = float(statistic(acc, den, axis=-1))
    interval = paired_bootstrap(
        (acc, den), statistic, rng, n_resamples=n_resamples, confidence=confidence, method=method
    )
    if interval is None:
        return estimate(point, None, f"{label} {point:.3f} from one request: no interval")
    return estimate(
        point,
        interval,
        f"{label} {point:.3f}, {confidence_label(confidence)} CI "
        f"[{interval.lower:.3f}, {interval.upper:.3f}] over {n} requests",
    )


def acceptance_interval(
    accepted: Counts,
    drafted: Counts,
    rng: np.random.Generator,
    *,
    n_resamples: int = 2000,
    confidence: float = 0.95,
    method: Method = "percentile",
) -> AcceptanceEstimate:
    """Acceptance rate ΣA_i / ΣT_i over requests i, with a cluster bootstrap interval.

    ``accepted[i]`` and ``drafted[i]`` are request i's accepted and draft-token counts.
    Reference: Davison A.C. & Hinkley D.V. (1997), *Bootstrap Methods and their Application*,
    chapter 3 (hierarchical data: resample the clusters); the ratio of sums as in Cochran W.G. (1977), *Sampling
    Techniques*, 3rd ed., chapter 6.
    """
    return _cluster(
        "acceptance_rate",
        accepted,
        ("drafted", drafted),
        _rate,
        rng,
        n_resamples,
        confidence,
        method,
    )


def mal_interval(
    accepted: Counts,
    drafts: Counts,
    rng: np.random.Generator,
    *,
    n_resamples: int = 2000,
    confidence: float = 0.95,
    method: Method = "percentile",
) -> AcceptanceEstimate:
    """Mean accepted length 1 + ΣA_i / ΣD_i, with a cluster bootstrap interval over requests.

    ``drafts[i]`` counts request i's speculative steps that proposed at least one token.
    References as for :func:`acceptance_interval`.
    """
    return _cluster(
        "mean_accepted_length",
        accepted,
        ("drafts", drafts),
        _mal,
        rng,
        n_resamples,
        confidence,
        method,
    )


def _check_total(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ValueError(f"{name} must be a non-negative number, got {value!r}")
    x = float(value)
    if not (math.isfinite(x) and x >= 0.0):
        raise ValueError(f"{name} must be a non-negative number, got {x}")
    return x


def _from_totals(quantity: Quantity, accepted: float, denominator: float) -> AcceptanceEstimate:
    label, unit = _LABELS[quantity]
    if denominator == 0.0:
        if accepted > 0.0:
            raise ValueError(f"accepted tokens with no {unit}")
        point, why = None, f"{label} unavailable: no {unit}"
    else:
        ratio = accepted / denominator
        point = ratio if quantity == "acceptance_rate" else 1.0 + ratio
        why = NO_PER_REQUEST
    return AcceptanceEstimate(
        quantity=quantity,
        point=point,
        interval=None,
        n_requests=None,
        no_drafts=0,
        missing=0,
        confidence=None,
        decidable=point is not None,
        why=why,
    )


def acceptance_from_totals(accepted: float, draft_tokens: float) -> AcceptanceEstimate:
    """Acceptance rate A/T from run totals (counter deltas); no interval without requests."""
    a = _check_total("accepted", accepted)
    t = _check_total("draft_tokens", draft_tokens)
    if a > t:
        raise ValueError(f"accepted {a:g} exceeds draft_tokens {t:g}")
    return _from_totals("acceptance_rate", a, t)


def mal_from_totals(accepted: float, drafts: float) -> AcceptanceEstimate:
    """Mean accepted length 1 + A/D from run totals; no interval without requests."""
    return _from_totals(
        "mean_accepted_length", _check_total("accepted", accepted), _check_total("drafts", drafts)
    )
