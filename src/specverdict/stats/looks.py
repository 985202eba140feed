"""Error spent over the looks of a sequential design: which share of alpha a look may use.

A sequential campaign declares its looks in advance: samples are added in batches of B up to a
maximum N, so there are K = max(1, floor(N / B)) looks, the j-th at information fraction
t_j = j / K; the last look takes the remainder (between B and 2B - 1 samples when N >= B; N
when N < B), because a look
that adds a few samples spends a whole share of alpha on them (at concurrency 16, 400 samples
in looks of 256 were two looks, the second 5 blocks, and cut the power at a true 1.12x from
85% to 74%).
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

A pair without a declared design is looked at too, whenever a user re-runs it on more samples
(``first: N`` raised) or with another seed and reads the verdict again: each such re-run is new
executions, and a fixed-n gate read at full alpha on each would err more often the more
re-runs (simulated: 27.9% false ADOPT at the speed bar when ``first: N`` is raised until
ADOPT). Those looks are undeclared, so their number is not known in advance: the first spends
1 - ``RERUN_RESERVE`` of alpha, and look j >= 2 spends ``RERUN_RESERVE`` x 6 / (pi^2 (j-1)^2),
shares that sum to 1 over any number of looks (sum of 1/j^2 = pi^2/6), so the union bound
holds however often a pair is re-run (``rerun_share``). The registry's history of a pair is
its look history (``verdict.history``).
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
    #: a look of a pair without a declared design (its re-runs): ``rerun_share``
    undeclared: bool = False

    @property
    def beyond(self) -> bool:
        """A look past the declared ones: no error left to spend."""
        return not self.undeclared and self.index > self.declared

    def describe(self) -> str:
        if self.undeclared:
            return (
                f"look {self.index} of a pair without a declared design: "
                f"{100 * self.share:.1f}% of alpha at this look ({100 * RERUN_RESERVE:g}% of "
                "alpha is kept for re-runs on other samples or seeds)"
            )
        if self.beyond:
            return (
                f"look {self.index}, past the {self.declared} declared: no error left for "
                "fixed-n tests"
            )
        return (
            f"look {self.index} of {self.declared}, Lan-DeMets Pocock-type spending over the "
            f"looks (union bound): {100 * self.share:.1f}% of alpha at this look"
        )


#: the share of alpha a pair without a declared design keeps for its re-runs (undeclared looks)
RERUN_RESERVE = 0.1


def rerun_share(index: int) -> LookShare:
    """Look ``index`` of a pair without a declared design: its first reading spends
    1 - ``RERUN_RESERVE`` of alpha, re-run j >= 2 ``RERUN_RESERVE`` x 6 / (pi^2 (j-1)^2)."""
    if index < 1:
        raise ValueError(f"look index must be at least 1, got {index}")
    if index == 1:
        share = 1.0 - RERUN_RESERVE
    else:
        share = RERUN_RESERVE * 6.0 / (math.pi**2 * (index - 1) ** 2)
    return LookShare(index=index, declared=0, share=share, undeclared=True)


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
    """K = max(1, floor(max_samples / batch)): the looks a design of batches up to a maximum
    takes, the last one taking the remainder under a batch with it."""
    if batch < 1 or max_samples < 1:
        raise ValueError(f"batch and max_samples must be positive, got {batch}, {max_samples}")
    return max(1, max_samples // batch)


def look_sizes(max_samples: int, batch: int) -> list[int]:
    """The samples seen at each look: B, 2B, ..., (K - 1)B, then the maximum."""
    k = declared_looks(max_samples, batch)
    return [j * batch for j in range(1, k)] + [max_samples]


def look_size(index: int, looks: int, batch: int, max_samples: int) -> int:
    """The samples seen at look ``index`` of a design of ``looks`` looks: the last declared
    look (and any past it) sees the maximum. A design recorded when K was ceil(N / B) reads
    the same: its last look's index x B was past the maximum."""
    return max_samples if index >= looks else min(index * batch, max_samples)
