"""Confidence-scheduled verification (``enable_adaptive_verification``): how many of each
request's drafts one engine step verifies.

Every request of the step has drafted a block and scored it: ``c_i``, the drafter's estimate
that the target accepts draft i given it accepted the ones before (DSpark's confidence head).
Verifying the first L drafts of a request yields ``1 + sum_{i<=L} P_i`` tokens in expectation,
``P_i = c_1 ... c_i``, and adds L rows to the target's verify pass. The step's time is the
device model's ``T(rows)`` (overhead, the target's roofline over the rows computed, the draft
passes already run), so the rule picks the verify rows that maximise the step's expected
tokens per unit of time,

    maximise  (B + sum of the chosen P) / T(B + number chosen),

every request verifying at least its first draft (a step verifies 1..k per request). Each
request's P_i falls with i, so taking the m largest P over the batch takes a prefix of each
request: the rule is a threshold ``tau`` on cumulative confidence, the smallest P chosen.
While the pass is memory-bound an extra row costs nothing and every draft is verified
(``tau`` = 0); once the batch's rows reach the compute-bound side, a row costs
``2 * params / peak`` and is worth verifying only if its P beats the tokens per second the step
already yields times that cost, so ``tau`` rises with the batch: a full batch verifies only the
drafts the drafter is sure of.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]


@dataclass(frozen=True)
class VerifyPlan:
    """The verify length of each request and the cumulative-confidence threshold they imply
    (the smallest cumulative confidence verified beyond the first draft; 0 when every draft is
    verified, 1 when only the first drafts are)."""

    lengths: tuple[int, ...]
    threshold: float


def verify_lengths(confidences: Sequence[F64], step_seconds: Callable[[int], float]) -> VerifyPlan:
    """The verify length of each request (``len(confidences)`` requests, 0 for one that drafted
    nothing) that maximises the expected tokens per second of a step whose time for ``rows``
    target rows is ``step_seconds(rows)``."""
    batch = len(confidences)
    cum = [np.cumprod(np.clip(np.asarray(c, dtype=np.float64), 0.0, 1.0)) for c in confidences]
    lengths = [min(1, len(p)) for p in cum]
    rows = batch + sum(lengths)
    tokens = batch + sum(float(p[0]) for p in cum if len(p))
    # every draft past the first, best first; a request's own drafts in order (ties by position)
    extra = sorted(
        ((float(p[i]), i, r) for r, p in enumerate(cum) for i in range(1, len(p))),
        key=lambda e: (-e[0], e[1]),
    )
    best_m, best_rate = 0, tokens / step_seconds(rows)
    gained = tokens
    for m, (prob, _, _) in enumerate(extra, start=1):
        gained += prob
        rate = gained / step_seconds(rows + m)
        if rate > best_rate * (1.0 + 1e-12):
            best_m, best_rate = m, rate
    for _, i, r in extra[:best_m]:
        lengths[r] = max(lengths[r], i + 1)
    if not extra or best_m == len(extra):
        threshold = 0.0
    elif best_m == 0:
        threshold = 1.0
    else:
        threshold = extra[best_m - 1][0]
    return VerifyPlan(tuple(lengths), threshold)
