"""The median - MAD selection rule of vLLM's ``vllm bench sweep tune_speculative_k``, restated
over this project's runs so that a policy can say where it differs from it and why.

The rule, per batch size (here: the concurrency level) and candidate K: the median of the
objective over repeated runs minus ``penalty * 1.4826 * MAD`` (1.4826 scales the median absolute
deviation to a normal standard deviation), floored at 0. Candidates within ``tolerance`` of the
best such conservative objective count as tied and the smallest K wins (K = 0 is no
speculation). It looks at speed only: no quality gate, no interval on the ratio to the baseline,
no family control. Pure: no I/O.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

#: scales a median absolute deviation to the standard deviation of a normal distribution
MAD_TO_SD = 1.4826


@dataclass(frozen=True)
class SweepPoint:
    """One run's objective (output tokens per second) at one batch size and configuration."""

    batch_size: int
    configuration: str
    k: int
    objective: float


@dataclass(frozen=True)
class RuleMeasurement:
    batch_size: int
    configuration: str
    k: int
    runs: int
    median: float
    mad: float
    conservative: float


def measure(values: list[float], penalty: float) -> tuple[float, float, float]:
    """(median, MAD, max(median - penalty * 1.4826 * MAD, 0)) of a maximized objective."""
    if not values:
        raise ValueError("no runs to measure")
    med = statistics.median(values)
    mad = statistics.median(abs(v - med) for v in values)
    return med, mad, max(med - penalty * MAD_TO_SD * mad, 0.0)


def measurements(points: Iterable[SweepPoint], penalty: float = 1.0) -> list[RuleMeasurement]:
    grouped: dict[tuple[int, str, int], list[float]] = defaultdict(list)
    for p in points:
        grouped[(p.batch_size, p.configuration, p.k)].append(p.objective)
    out = []
    for (batch, conf, k), values in sorted(grouped.items()):
        med, mad, cons = measure(values, penalty)
        out.append(RuleMeasurement(batch, conf, k, len(values), med, mad, cons))
    return out


def select(
    points: Iterable[SweepPoint], penalty: float = 1.0, tolerance: float = 0.01
) -> dict[int, RuleMeasurement]:
    """The rule's choice per batch size."""
    if not 0.0 <= tolerance < 1.0:
        raise ValueError("tolerance must be in [0, 1)")
    by_batch: dict[int, list[RuleMeasurement]] = defaultdict(list)
    for m in measurements(points, penalty):
        by_batch[m.batch_size].append(m)
    chosen: dict[int, RuleMeasurement] = {}
    for batch, cands in by_batch.items():
        best = max(c.conservative for c in cands)

        def utility(c: RuleMeasurement, best: float = best) -> float:
            if best <= 0.0:
                return 1.0
            ratio = c.conservative / best
            return 1.0 if ratio >= 1.0 - tolerance else ratio

        chosen[batch] = min(cands, key=lambda c: (-utility(c), c.k, c.configuration))
    return chosen
