"""Error control over a family of decisions: a campaign's pairs.

An ADOPT is an intersection-union test: quality non-inferior *and* speed above its bar, each
one-sided at level alpha/2 (quality: 1 / the betting test's e-value, anytime-valid; speed: the
Student t tail of the drift-widened log speed-up at the bar). Its p-value is the larger of the
two (Berger R. L. (1982), Technometrics 24:295-300): no adjustment is needed inside a pair.
Across the pairs of a campaign (candidates x stages x load levels), Holm's step-down procedure
controls the family-wise error of the ADOPTs (Holm S. (1979), Scand. J. Statist. 6:65-70);
Benjamini-Hochberg controls the false-discovery rate instead, for users who ask for it
(Benjamini Y. & Hochberg Y. (1995), JRSS B 57:289-300; valid here under positive dependence,
which pairs sharing a baseline have: Benjamini Y. & Yekutieli D. (2001), Ann. Statist. 29).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Family = Literal["holm", "bh", "none"]


@dataclass(frozen=True)
class Adjusted:
    """One hypothesis of a family: its p-value, the level it was held to, and the decision."""

    p_value: float
    threshold: float
    rejected: bool


def adjust(p_values: Sequence[float], alpha: float, family: Family = "holm") -> list[Adjusted]:
    """Which of the family's null hypotheses are rejected at family level ``alpha``.

    ``holm``: sorted ascending, the k-th smallest (from 0) is held to alpha / (m - k) and the
    procedure stops at the first that fails. ``bh``: the largest k with p_(k) <= (k + 1) alpha
    / m rejects it and every smaller one. ``none``: each against alpha (no family control).
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    out: list[Adjusted | None] = [None] * m
    if family == "none":
        return [Adjusted(p, alpha, p <= alpha) for p in p_values]
    if family == "holm":
        going = True
        for k, i in enumerate(order):
            level = alpha / (m - k)
            going = going and p_values[i] <= level
            out[i] = Adjusted(p_values[i], level, going)
    elif family == "bh":
        last = -1
        for k, i in enumerate(order):
            if p_values[i] <= (k + 1) * alpha / m:
                last = k
        for k, i in enumerate(order):
            out[i] = Adjusted(p_values[i], (k + 1) * alpha / m, k <= last)
    else:
        raise ValueError(f"family {family!r}: expected holm, bh or none")
    return [a for a in out if a is not None]
