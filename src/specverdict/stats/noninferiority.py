"""Paired non-inferiority on pass/fail quality: Tango's score interval for the drop, and the gate.

The drop is Δ = (b − c)/n with b = baseline-only passes, c = candidate-only passes: positive means
the candidate is worse. The gate compares the interval for Δ with the campaign's margin m:
reject when the lower bound is above 0, pass when the upper bound is below m, inconclusive
otherwise (with the sample size that would be needed).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from specverdict.stats._common import (
    Interval,
    check_count,
    check_unit_open,
    confidence_label,
    z_two_sided,
)

Decision = Literal["pass", "reject", "inconclusive"]

_XTOL = 1e-12
# Halvings of the bracket when Δ sits on the degenerate point; 2**-200 is far below any
# interval end for n < 1e15.
_MAX_HALVINGS = 200
# Beyond this many pairs a sample size is no advice (a drop within 1e-7 of the margin).
_MAX_PAIRS = 2**50


@dataclass(frozen=True, slots=True, kw_only=True)
class NonInferiorityResult:
    """The paired non-inferiority gate on one 2x2 table.

    ``drop`` is (b − c)/n; ``lower``/``upper`` its 100(1 − alpha)% Tango score interval.
    ``n_needed`` is set only when the decision is inconclusive and a larger sample could pass.
    ``decidable`` is False when the data cannot speak: both arms at 0% pass (no quality signal),
    or an inconclusive result at an n so small that even zero discordance could not pass.
    """

    both_pass: int
    base_only: int
    cand_only: int
    both_fail: int
    n: int
    margin: float
    alpha: float
    drop: float
    lower: float
    upper: float
    decision: Decision
    n_needed: int | None
    decidable: bool
    why: str


def _restricted_q(delta: float, b: float, c: float, n: float) -> float:
    """Restricted MLE of p01 under p10 − p01 = delta: positive root of
    2n q² + (−b − c + (2n − b + c) δ) q − c δ (1 − δ) = 0."""
    qa = 2.0 * n
    qb = -b - c + (2.0 * n - b + c) * delta
    qc = -c * delta * (1.0 - delta)
    root = math.sqrt(max(qb * qb - 4.0 * qa * qc, 0.0))
    # The two algebraically equal forms of the root; pick the one without cancellation.
    if qb > 0.0:
        return -2.0 * qc / (qb + root)
    return (root - qb) / (2.0 * qa)


def _score_parts(delta: float, b: float, c: float, n: float) -> tuple[float, float]:
    """Numerator b − c − nδ and variance n(2q + δ(1 − δ)) of Tango's statistic."""
    q = _restricted_q(delta, b, c, n)
    return b - c - n * delta, max(n * (2.0 * q + delta * (1.0 - delta)), 0.0)


def tango_statistic(delta: float, b: int, c: int, n: int) -> float:
    """Tango's score statistic Z(δ) = (b − c − nδ) / sqrt(n (2q̃ + δ(1 − δ))).

    q̃ is the restricted MLE of p01 under p10 − p01 = δ. Where numerator and variance are both 0
    (δ = Δ with b = c = 0, or with Δ = ±1) the statistic is 0/0; its limit there is 0. Elsewhere a
    zero variance (δ = ±1) gives ±inf.

    Reference: Tango T. (1998), Statistics in Medicine 17:891-908, equations (3)-(5).
    """
    num, var = _score_parts(delta, b, c, n)
    if var == 0.0:
        return 0.0 if num == 0.0 else math.copysign(math.inf, num)
    return num / math.sqrt(var)


def _bound(h: Callable[[float], float], drop: float, outer: float) -> float:
    """Root of h between Δ and ``outer`` (h(outer) > 0, h < 0 just inside Δ).

    At the degenerate point h(Δ) = 0 although the root lies strictly beyond it, so the inner
    end of the bracket moves from Δ toward ``outer`` by halving until h is negative.
    """
    from scipy.optimize import brentq

    inner, gap = drop, (outer - drop) / 2.0
    for _ in range(_MAX_HALVINGS):
        if h(inner) < 0.0:
            lo, hi = (inner, outer) if inner < outer else (outer, inner)
            return float(brentq(h, lo, hi, xtol=_XTOL))
        inner, gap = drop + gap, gap / 2.0
    raise ArithmeticError(f"no bracket for Tango's interval next to drop {drop!r}")


def _upper_bound(b: float, c: float, n: float, z: float) -> float:
    """Upper end of Tango's interval; b and c may be expected (non-integer) counts."""
    drop = (b - c) / n
    if drop >= 1.0:
        return 1.0

    def above(delta: float) -> float:
        num, var = _score_parts(delta, b, c, n)
        return -num - z * math.sqrt(var)

    return _bound(above, drop, 1.0)


def tango_interval(b: int, c: int, n: int, alpha: float = 0.05) -> Interval:
    """Tango's 100(1 − alpha)% score interval for the paired difference Δ = (b − c)/n.

    The interval is {δ : |Z(δ)| <= z_{1−alpha/2}} (see :func:`tango_statistic`). Each end is found
    by Brent's method on its own side of Δ: the lower end solves (b − c − nδ) = z·sd(δ) on
    [−1, Δ], the upper end (b − c − nδ) = −z·sd(δ) on [Δ, 1]. Written without the division, the
    functions stay finite at δ = ±1 where the variance vanishes. Δ = −1 (resp. 1) is its own
    lower (resp. upper) end.

    With b = c = 0 the ends are ±z²/(n + z²) (±0.0076 at n = 500, ±0.43 at n = 5).

    Reference: Tango T. (1998), "Equivalence test and confidence interval for the difference in
    proportions for the paired-sample design", Statistics in Medicine 17:891-908.
    """
    b = check_count("b", b)
    c = check_count("c", c)
    n = check_count("n", n)
    alpha = check_unit_open("alpha", alpha)
    if n == 0:
        raise ValueError("n must be positive: no paired samples")
    if b + c > n:
        raise ValueError(f"b + c = {b + c} discordant pairs exceed n = {n}")
    z = z_two_sided(alpha)
    drop = (b - c) / n

    def below(delta: float) -> float:
        num, var = _score_parts(delta, b, c, n)
        return num - z * math.sqrt(var)

    lower = -1.0 if b - c == -n else _bound(below, drop, -1.0)
    return Interval(lower, _upper_bound(b, c, n, z))


def approximate_sample_size(
    drop: float, discordance: float, margin: float, alpha: float = 0.05
) -> int | None:
    """Closed-form number of pairs for the upper bound to fall under the margin (planning).

    With drop Δ < m and discordance ψ = d/n assumed to hold at the larger n:

        n ≈ z² (ψ − Δ²) / (m − Δ)²,   and with ψ = 0:   n ≈ z² (1 − m) / m,

    z = z_{1−alpha/2}; None when Δ >= m (no sample size can pass). The first is the Wald
    variance of the paired difference, (ψ − Δ²)/n, and underestimates what Tango's interval
    needs when ψ is small (ψ = 0.01, m = 0.02: 97 against 242); the second is exact for Tango's
    interval at b = c = 0. Use it to plan a campaign before any data exist;
    :func:`noninferiority_sample_size` answers from an observed table.

    Reference: Connor R.J. (1987), "Sample size for testing differences in proportions for the
    paired-sample design", Biometrics 43:207-211.
    """
    margin = check_unit_open("margin", margin)
    alpha = check_unit_open("alpha", alpha)
    if drop >= margin:
        return None
    z = z_two_sided(alpha)
    if discordance == 0.0:
        return math.ceil(z * z * (1.0 - margin) / margin)
    return math.ceil(z * z * max(discordance - drop * drop, 0.0) / (margin - drop) ** 2)


def noninferiority_sample_size(
    base_only: int, cand_only: int, n: int, margin: float, alpha: float = 0.05
) -> int | None:
    """Smallest number of pairs N at which Tango's upper bound falls under the margin, if the
    observed proportions p̂10 = b/n and p̂01 = c/n held at N.

    Solved on the score interval itself (expected counts N·p̂10, N·p̂01 in Tango's formula) by
    doubling then bisection on N; the upper bound decreases with N toward Δ. At b = c = 0 this
    is ceil(z² (1 − m) / m), the formula of docs/statistics.md; for large discordance it approaches the
    Wald form of :func:`approximate_sample_size`. None when Δ >= m (no sample size can pass)
    or when more than 2**50 pairs would be needed.
    """
    b = check_count("base_only", base_only)
    c = check_count("cand_only", cand_only)
    n = check_count("n", n)
    margin = check_unit_open("margin", margin)
    alpha = check_unit_open("alpha", alpha)
    if n == 0 or b + c > n:
        raise ValueError(f"need 0 < n and b + c <= n, got b={b}, c={c}, n={n}")
    if (b - c) / n >= margin:
        return None
    z = z_two_sided(alpha)
    p10, p01 = b / n, c / n

    def passes(size: int) -> bool:
        return _upper_bound(p10 * size, p01 * size, float(size), z) < margin

    hi = 1
    while not passes(hi):
        if hi > _MAX_PAIRS:
            return None
        hi *= 2
    lo = hi // 2  # 0 or a size that does not pass
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if passes(mid) else (mid, hi)
    return hi


def _pp(x: float) -> str:
    return f"{100.0 * x:.2f}"


def paired_noninferiority(
    both_pass: int,
    base_only: int,
    cand_only: int,
    both_fail: int,
    margin: float,
    alpha: float = 0.05,
) -> NonInferiorityResult:
    """Paired non-inferiority of the candidate's pass rate against the baseline's.

    Δ = (b − c)/n with b = ``base_only``, c = ``cand_only``; [lower, upper] is Tango's
    100(1 − alpha)% score interval (:func:`tango_interval`). Decision against margin m:

    - ``reject`` if lower > 0 (a significant drop rejects even inside the margin);
    - ``pass`` if upper < m;
    - ``inconclusive`` otherwise, with ``n_needed`` from :func:`noninferiority_sample_size`
      (the n at which the observed proportions would pass), or None when Δ >= m.

    Both arms at 0% pass is "no quality signal": inconclusive and not decidable, whatever the
    interval says. Reference: Tango T. (1998), Statistics in Medicine 17:891-908.
    """
    n11 = check_count("both_pass", both_pass)
    b = check_count("base_only", base_only)
    c = check_count("cand_only", cand_only)
    n00 = check_count("both_fail", both_fail)
    margin = check_unit_open("margin", margin)
    alpha = check_unit_open("alpha", alpha)
    n = n11 + b + c + n00
    if n == 0:
        raise ValueError("no paired samples: all four counts are 0")
    ci = tango_interval(b, c, n, alpha)
    drop = (b - c) / n
    z = z_two_sided(alpha)
    level = confidence_label(1.0 - alpha)
    stated = f"drop {_pp(drop)} pp, {level} CI [{_pp(ci.lower)}, {_pp(ci.upper)}] pp"

    def result(
        decision: Decision, n_needed: int | None, decidable: bool, why: str
    ) -> NonInferiorityResult:
        return NonInferiorityResult(
            both_pass=n11,
            base_only=b,
            cand_only=c,
            both_fail=n00,
            n=n,
            margin=margin,
            alpha=alpha,
            drop=drop,
            lower=ci.lower,
            upper=ci.upper,
            decision=decision,
            n_needed=n_needed,
            decidable=decidable,
            why=why,
        )

    if n11 + b + c == 0:
        return result(
            "inconclusive",
            None,
            False,
            f"no quality signal: both arms pass 0 of {n} samples",
        )
    if ci.lower > 0.0:
        return result("reject", None, True, f"reject: {stated} excludes 0")
    if ci.upper < margin:
        return result("pass", None, True, f"pass: {stated}, upper bound < margin {_pp(margin)} pp")
    needed = noninferiority_sample_size(b, c, n, margin, alpha)
    if needed is not None:
        no_n_passes = f"about {needed} paired samples needed"
    elif drop >= margin:
        no_n_passes = f"observed drop >= margin {_pp(margin)} pp, no sample size can pass"
    else:
        no_n_passes = (
            f"observed drop is so close to margin {_pp(margin)} pp that no sample size can pass"
        )

    best_upper = z * z / (n + z * z)
    if best_upper >= margin:
        return result(
            "inconclusive",
            needed,
            False,
            f"underpowered: with n = {n} even zero discordant pairs give an upper bound of "
            f"{_pp(best_upper)} pp >= margin {_pp(margin)} pp; {no_n_passes}",
        )
    if needed is None:
        return result("inconclusive", None, True, f"inconclusive: {stated}; {no_n_passes}")
    return result(
        "inconclusive",
        needed,
        True,
        f"inconclusive: {stated} reaches margin {_pp(margin)} pp; "
        f"about {needed} paired samples needed (have {n})",
    )
