"""Stratified sampling: a seeded subset that keeps the categories' proportions.

``allocate`` splits ``n`` samples over categories of the given sizes by the largest-remainder
(Hamilton) method: category c of size n_c out of N gets floor(n * n_c / N), and the samples left
go one each to the largest fractional parts (ties: the larger category, then the name). When
``n`` is at least the number of categories, every category gets at least one: a category left
at zero takes one from the category whose allocation most exceeds its quota (never below one).
``stratified`` then draws each category's share with a seeded generator of its own (the seed and
the category's name), so one category's draw does not depend on the others', and returns the
chosen samples in suite order.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Protocol, TypeVar


class Labelled(Protocol):
    """What stratifying reads of a sample (``suites.base.Sample`` is one): its labels."""

    @property
    def labels(self) -> Mapping[str, str]: ...


S = TypeVar("S", bound=Labelled)

#: the stratum of a sample without a category
UNLABELLED = ""


def allocate(sizes: Mapping[str, int], n: int) -> dict[str, int]:
    """How many of ``n`` samples each category gets (see the module docstring)."""
    total = sum(sizes.values())
    if not 0 <= n <= total:
        raise ValueError(f"cannot take {n} of {total} samples")
    quota = {c: n * k / total for c, k in sizes.items()}
    out = {c: math.floor(q) for c, q in quota.items()}
    left = n - sum(out.values())
    order = sorted(sizes, key=lambda c: (-(quota[c] - out[c]), -sizes[c], c))
    for c in order[:left]:
        out[c] += 1
    if n >= len(sizes):
        for c in sorted((c for c in sizes if out[c] == 0), key=lambda c: (-sizes[c], c)):
            donor = max(
                (d for d in sizes if out[d] > 1), key=lambda d: (out[d] - quota[d], sizes[d], d)
            )
            out[donor] -= 1
            out[c] += 1
    return out


def stratified(samples: Sequence[S], n: int, seed: int) -> list[S]:
    """``n`` of ``samples``, the categories (``labels["category"]``) in proportion."""
    groups: dict[str, list[int]] = {}
    for i, s in enumerate(samples):
        groups.setdefault(s.labels.get("category", UNLABELLED), []).append(i)
    shares = allocate({c: len(ix) for c, ix in groups.items()}, n)
    chosen: list[int] = []
    for c, ix in groups.items():
        chosen.extend(random.Random(f"{seed}:{c}").sample(ix, shares[c]))
    return [samples[i] for i in sorted(chosen)]
