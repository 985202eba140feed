"""Error spent over the looks of a sequential design: which share of alpha a look may use.

A sequential campaign declares its looks in advance: samples are added in batches of B up to a
maximum N, so there are K = ceil(N / B) looks, the j-th at information fraction t_j = j / K.
A test that is fixed-n (the speed interval, McNemar, the score interval, Fisher) may be read at
each look only with a share of the level: look j spends

    alpha_j = alpha * (f(t_j) - f(t_{j-1})),   f(t) = ln(1 + (e - 1) t),

the Pocock-type spending function of Lan & DeMets (1983, "Discrete sequential boundaries for
clinical trials", Biometrika 70:659-663). The shares sum to 1 over the K looks, so by the union
bound (Bonferroni's inequality over the looks) the chance that any look's test errs is at most
alpha, whatever the dependence between the looks' statistics: the speed statistic holds an
estimated run-to-run drift with few degrees of freedom, whose joint law across looks is not
the independent-increments normal the exact group-sequential boundaries assume, so the exact
recursive boundaries are not used. Pocock's shape spends more of alpha at the early looks than
Bonferroni's equal shares (f(t) = t), which is where a clear candidate is decided.

A look past the K declared (samples added after the design was used up) has no error left:
its share is 0 and a fixed-n test can decide nothing there. The betting test of
non-inferiority needs no share: it is anytime-valid.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


def pocock_spending(t: float) -> float:
    """f(t) = ln(1 + (e - 1) t) for t in [0, 1]: the share of alpha spent by fraction t."""
    if not 0.0 <= t <= 1.0:
        raise ValueError(f"information fraction must be in [0, 1], got {t}")
    return math.log1p((math.e - 1.0) * t)


@dataclass(frozen=True, slots=True, kw_only=True)
class LookShare:
    """Look ``index`` (1-based) of ``declared`` and the share of alpha its tests may spend."""

    index: int
    declared: int
    share: float

    @property
    def beyond(self) -> bool:
        """A look past the declared ones: no error left to spend."""
        return self.index > self.declared

    def describe(self) -> str:
        if self.beyond:
            return (
                f"look {self.index}, past the {self.declared} declared: no error left for "
                "fixed-n tests"
            )
        return (
            f"look {self.index} of {self.declared}, Lan-DeMets Pocock-type spending over the "
            f"looks (union bound): {100 * self.share:.1f}% of alpha at this look"
        )


def look_share(index: int, declared: int) -> LookShare:
    """The share of alpha look ``index`` of ``declared`` may spend (0 past the declared)."""
    if declared < 1:
        raise ValueError(f"declared looks must be at least 1, got {declared}")
    if index < 1:
        raise ValueError(f"look index must be at least 1, got {index}")
    if index > declared:
        return LookShare(index=index, declared=declared, share=0.0)
    share = pocock_spending(index / declared) - pocock_spending((index - 1) / declared)
    return LookShare(index=index, declared=declared, share=share)


def declared_looks(max_samples: int, batch: int) -> int:
    """K = ceil(max_samples / batch): the looks a design of batches up to a maximum takes."""
    if batch < 1 or max_samples < 1:
        raise ValueError(f"batch and max_samples must be positive, got {batch}, {max_samples}")
    return -(-max_samples // batch)


def look_sizes(max_samples: int, batch: int) -> list[int]:
    """The samples seen at each look: B, 2B, ..., capped at the maximum."""
    k = declared_looks(max_samples, batch)
    return [min(j * batch, max_samples) for j in range(1, k + 1)]
