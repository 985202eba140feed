"""What speed-up acceptance can buy, and whether a published claim is within reach.

E = expected tokens per speculative step; R(k) = cost of a step with k drafts in units of one
baseline decode step; predicted S = E / R(k). Claims are checked, never used as targets.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from specverdict.stats._common import check_count, check_positive


def _check_probability(name: str, value: float) -> float:
    x = float(value)
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"{name} must be in [0, 1], got {x}")
    return x


def expected_tokens(conditional: Sequence[float]) -> float:
    """E = 1 + Σ_{i=1..k} Π_{j<=i} a_j, with a_j = P(draft j accepted | drafts before it were).

    The product is the chance that the first i drafts all survive; the 1 is the token the
    verify pass always yields. Reference: Leviathan Y., Kalman M. & Matias Y. (2023), "Fast
    inference from transformers via speculative decoding", ICML, equation (1), generalised to
    position-dependent acceptance.
    """
    total, survive = 1.0, 1.0
    for j, a in enumerate(conditional, start=1):
        survive *= _check_probability(f"conditional[{j}]", a)
        total += survive
    return total


def expected_tokens_iid(acceptance: float, k: int) -> float:
    """Closed form for i.i.d. acceptance a: E = (1 − a^{k+1}) / (1 − a), and k + 1 at a = 1.

    Reference: Leviathan, Kalman & Matias (2023), equation (1).
    """
    a = _check_probability("acceptance", acceptance)
    k = check_count("k", k)
    if a == 1.0:
        return float(k + 1)
    return (1.0 - a ** (k + 1)) / (1.0 - a)


def speculative_step_cost(k: int, c_verify: float, c_draft: float) -> float:
    """R(k) = c_verify(k) + k · c_draft, in units of one baseline decode step.

    ``c_verify`` is the target's verify pass over k + 1 positions at this k (1 would mean free);
    ``c_draft`` one drafter forward. Both measured, or given.
    """
    k = check_count("k", k)
    verify = check_positive("c_verify", c_verify)
    if not (math.isfinite(c_draft) and c_draft >= 0.0):
        raise ValueError(f"c_draft must be a non-negative finite number, got {c_draft}")
    return verify + k * float(c_draft)


@dataclass(frozen=True, slots=True, kw_only=True)
class SpeedupPrediction:
    """S = E / R for one draft length."""

    expected_tokens: float
    step_cost: float
    speedup: float


def predict_speedup(conditional: Sequence[float], step_cost: float) -> SpeedupPrediction:
    """Predicted speed-up S = E / R(k) from conditional acceptance a_1..a_k and R(k).

    Reference: Leviathan, Kalman & Matias (2023), Theorem 3.8, with R(k) measured rather than
    modelled as k·c + 1.
    """
    e = expected_tokens(conditional)
    r = check_positive("step_cost", step_cost)
    return SpeedupPrediction(expected_tokens=e, step_cost=r, speedup=e / r)


@dataclass(frozen=True, slots=True, kw_only=True)
class ClaimCheck:
    """Whether a claimed speed-up is attainable at k, and plausible given measured acceptance.

    ``plausible`` is None when no measured rates were given; ``decidable`` is False only then
    (and only if the claim is attainable, since an unattainable claim needs no measurement).
    """

    claimed_speedup: float
    k: int
    step_cost: float
    expected_needed: float
    attainable: bool
    expected_measured: float | None
    plausible: bool | None
    decidable: bool
    why: str


def claim_check(
    claimed_speedup: float,
    k: int,
    step_cost: float,
    position_rates: Sequence[float] | None = None,
) -> ClaimCheck:
    """Check a claim S* at draft length k against R(k) and, optionally, measured acceptance.

        E* = S* · R(k);   attainable iff E* <= k + 1;
        plausible iff E_measured = 1 + Σ r_i >= E*,

    with r_i = A_i / D the measured per-position rates at this k (the figures vLLM's counters
    give; see :func:`specverdict.stats.decomposition.position_rates`).
    """
    s = check_positive("claimed_speedup", claimed_speedup)
    k = check_count("k", k)
    r = check_positive("step_cost", step_cost)
    needed = s * r
    attainable = needed <= k + 1
    head = f"{s:.2f}x at k={k} with R={r:.2f} needs {needed:.2f} tokens per step"
    measured: float | None = None
    plausible: bool | None = None
    if position_rates is not None:
        rates = [
            _check_probability(f"position_rates[{i}]", x) for i, x in enumerate(position_rates)
        ]
        if len(rates) != k:
            raise ValueError(f"position_rates has {len(rates)} entries for k = {k}")
        measured = 1.0 + math.fsum(rates)
        plausible = attainable and measured >= needed
    if not attainable:
        why = f"unattainable: {head} > k+1 = {k + 1}"
    elif measured is None:
        why = f"attainable: {head} <= k+1 = {k + 1}; no measured acceptance to judge plausibility"
    elif plausible:
        why = f"plausible: {head}; measured acceptance gives {measured:.2f}"
    else:
        why = f"implausible: {head}; measured acceptance gives only {measured:.2f}"
    return ClaimCheck(
        claimed_speedup=s,
        k=k,
        step_cost=r,
        expected_needed=needed,
        attainable=attainable,
        expected_measured=measured,
        plausible=plausible,
        decidable=not attainable or plausible is not None,
        why=why,
    )
