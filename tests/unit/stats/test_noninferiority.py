"""Tango's score interval and the paired non-inferiority gate.

Oracles: the closed form at b = c = 0, published values, the score statistic at the interval's
ends, McNemar's score statistic for the reject rule, and simulated campaigns for size and power.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm  # type: ignore[import-untyped]

from specverdict.stats import (
    NonInferiorityResult,
    approximate_sample_size,
    noninferiority_sample_size,
    paired_noninferiority,
    tango_interval,
    tango_statistic,
)

Z95 = float(norm.ppf(0.975))


@st.composite
def tables(draw: st.DrawFn, max_n: int = 600) -> tuple[int, int, int]:
    n = draw(st.integers(1, max_n))
    b = draw(st.integers(0, n))
    c = draw(st.integers(0, n - b))
    return b, c, n


# --- the interval ------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "half_width"), [(500, 0.0076), (5, 0.43)])
def test_stated_values_with_no_discordance(n: int, half_width: float) -> None:
    ci = tango_interval(0, 0, n)
    assert ci.lower == pytest.approx(-half_width, abs=5e-5 if n == 500 else 5e-3)
    assert ci.upper == pytest.approx(half_width, abs=5e-5 if n == 500 else 5e-3)
    # Closed form at b = c = 0: Z(δ)² = nδ/(1 − δ) on either side, so |δ| = z²/(n + z²).
    assert ci.upper == pytest.approx(Z95**2 / (n + Z95**2), rel=1e-9)
    assert ci.lower == pytest.approx(-ci.upper, rel=1e-9)


@pytest.mark.parametrize(
    ("b", "c", "n", "lower", "upper"),
    [
        # Cavo et al. (2012), complete response before/after consolidation therapy, table
        # [[59, 6], [16, 80]]: Fagerland M.W., Lydersen S. & Laake P. (2014), "Recommended tests
        # and confidence intervals for paired binomial proportions", Statistics in Medicine
        # 33:2850-2875, and their R package contingencytables (tests/testthat/test-ch8.R,
        # Tango_asymptotic_score_CI_paired_2x2: "estimate = -0.0621 (95% CI -0.1240 to -0.0054)").
        (6, 16, 161, -0.1240, -0.0054),
        # The same test file's boundary tables: all three pairs discordant one way.
        (3, 0, 3, -0.1230, 1.0),
        (0, 3, 3, -1.0, 0.1230),
    ],
)
def test_published_values(b: int, c: int, n: int, lower: float, upper: float) -> None:
    ci = tango_interval(b, c, n)
    assert round(ci.lower, 4) == lower
    assert round(ci.upper, 4) == upper


@settings(deadline=None)
@given(table=tables(), alpha=st.sampled_from([0.01, 0.05, 0.1, 0.2]))
def test_interval_contains_drop_and_its_ends_solve_the_score_equation(
    table: tuple[int, int, int], alpha: float
) -> None:
    b, c, n = table
    ci = tango_interval(b, c, n, alpha)
    drop = (b - c) / n
    z = float(norm.ppf(1 - alpha / 2))
    assert -1.0 <= ci.lower <= drop <= ci.upper <= 1.0
    assert ci.lower < ci.upper
    if ci.lower > -1.0:
        assert tango_statistic(ci.lower, b, c, n) == pytest.approx(z, rel=1e-6)
    if ci.upper < 1.0:
        assert tango_statistic(ci.upper, b, c, n) == pytest.approx(-z, rel=1e-6)
    # Inside, the statistic stays under z (Z decreases through 0 at the drop).
    for inside in (0.5 * (ci.lower + drop), 0.5 * (drop + ci.upper)):
        assert abs(tango_statistic(inside, b, c, n)) <= z * (1 + 1e-9)


@settings(deadline=None)
@given(table=tables())
def test_swapping_arms_mirrors_the_interval(table: tuple[int, int, int]) -> None:
    b, c, n = table
    ci, mirrored = tango_interval(b, c, n), tango_interval(c, b, n)
    assert mirrored.lower == pytest.approx(-ci.upper, abs=1e-9)
    assert mirrored.upper == pytest.approx(-ci.lower, abs=1e-9)


@settings(deadline=None)
@given(table=tables())
def test_reject_iff_mcnemar_score_statistic_exceeds_z(table: tuple[int, int, int]) -> None:
    # At δ = 0 the restricted MLE is q = (b + c)/2n and Z(0) = (b − c)/sqrt(b + c): the
    # lower bound is above 0 exactly when the uncorrected McNemar statistic exceeds z.
    b, c, n = table
    result = paired_noninferiority(n - b - c, b, c, 0, margin=0.02)
    mcnemar_z = (b - c) / math.sqrt(b + c) if b + c else 0.0
    assert (result.lower > 0.0) is (mcnemar_z > Z95)
    assert (result.decision == "reject") is (mcnemar_z > Z95)


def test_degenerate_point_and_edges() -> None:
    assert tango_statistic(0.0, 0, 0, 10) == 0.0
    assert tango_statistic(1.0, 10, 0, 10) == 0.0
    assert tango_statistic(-1.0, 3, 1, 10) == math.inf
    assert tango_statistic(1.0, 3, 1, 10) == -math.inf
    all_base = tango_interval(10, 0, 10)
    assert all_base.upper == 1.0
    assert all_base.lower == pytest.approx((10 - Z95**2) / (10 + Z95**2), rel=1e-9)


@pytest.mark.parametrize(("b", "c", "n"), [(0, 0, 0), (3, 3, 5), (-1, 0, 5), (1, 0, 2.0)])
def test_interval_refuses_impossible_tables(b: int, c: int, n: int) -> None:
    with pytest.raises(ValueError):
        tango_interval(b, c, n)


# --- the gate ----------------------------------------------------------------------------


def test_pass_reject_inconclusive() -> None:
    passed = paired_noninferiority(400, 3, 4, 93, margin=0.02)
    assert passed.decision == "pass" and passed.decidable and passed.n_needed is None
    assert passed.upper < 0.02
    rejected = paired_noninferiority(450, 20, 5, 25, margin=0.05)
    # A significant drop rejects even though the observed drop (3 points) is inside the margin.
    assert rejected.drop == pytest.approx(0.03)
    assert rejected.decision == "reject" and rejected.lower > 0.0
    unsure = paired_noninferiority(450, 8, 6, 36, margin=0.02)
    assert unsure.decision == "inconclusive" and unsure.decidable
    assert unsure.n_needed is not None and unsure.n_needed > unsure.n
    assert f"about {unsure.n_needed} paired samples needed" in unsure.why


def test_drop_at_or_over_margin_needs_no_sample_size() -> None:
    result = paired_noninferiority(150, 8, 4, 38, margin=0.02)
    assert result.drop >= 0.02 and result.decision == "inconclusive"
    assert result.n_needed is None and result.decidable
    assert "no sample size can pass" in result.why


def test_both_arms_failing_everything_is_no_quality_signal() -> None:
    # At n = 5000 the interval alone would pass; the gate must not call that "retained".
    for n in (40, 5000):
        result = paired_noninferiority(0, 0, 0, n, margin=0.02)
        assert result.decision == "inconclusive"
        assert not result.decidable
        assert result.n_needed is None
        assert result.why == f"no quality signal: both arms pass 0 of {n} samples"


def test_too_few_samples_to_ever_pass_is_undecidable() -> None:
    result = paired_noninferiority(5, 0, 0, 0, margin=0.02)
    assert result.lower == pytest.approx(-0.43, abs=5e-3)
    assert result.decision == "inconclusive" and not result.decidable
    assert result.why.startswith("underpowered:")
    assert result.n_needed == math.ceil(Z95**2 * (1 - 0.02) / 0.02) == 189


def test_zero_discordance_sample_size_is_exact() -> None:
    # docs/statistics.md: with ψ = 0, n ≈ z²(1 − m)/m; for Tango's interval it is exact.
    needed = approximate_sample_size(0.0, 0.0, 0.02)
    assert needed == noninferiority_sample_size(0, 0, 100, 0.02) == 189
    assert paired_noninferiority(needed - 1, 0, 0, 0, margin=0.02).decision == "inconclusive"
    assert paired_noninferiority(needed, 0, 0, 0, margin=0.02).decision == "pass"


def test_sample_size_is_where_the_same_proportions_start_to_pass() -> None:
    # Scaling the table by k keeps the proportions; the gate must pass exactly from n_needed.
    # No drop (b = c), so growing n can never turn the result into a reject.
    base = (96, 2, 2, 0)
    needed = paired_noninferiority(*base, margin=0.02).n_needed
    assert needed is not None
    for k in range(2, 3 * needed // 100 + 2):
        n11, b, c, n00 = (k * x for x in base)
        scaled = paired_noninferiority(n11, b, c, n00, margin=0.02)
        assert (scaled.decision == "pass") is (100 * k >= needed), k


def test_approximate_sample_size_agrees_when_discordance_is_large() -> None:
    # ψ = 0.2, Δ = 0.02, m = 0.05: the Wald form is close to the score answer.
    table = (375, 55, 45, 25)
    score = noninferiority_sample_size(55, 45, 500, 0.05)
    closed = approximate_sample_size(0.02, 0.2, 0.05)
    assert score is not None and closed is not None
    assert closed == pytest.approx(score, rel=0.05)
    assert paired_noninferiority(*table, margin=0.05).n_needed == score


# --- simulated campaigns -----------------------------------------------------------------


@cache
def _gate(b: int, c: int, n: int) -> NonInferiorityResult:
    return paired_noninferiority(n - b - c, b, c, 0, margin=0.02)


def _simulate(
    p10: float, p01: float, n: int, campaigns: int, seed: int
) -> list[NonInferiorityResult]:
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(n, [p10, p01, 1.0 - p10 - p01], size=campaigns)
    return [_gate(int(b), int(c), n) for b, c, _ in counts]


def test_no_true_drop_rejects_at_most_alpha_and_covers_the_truth() -> None:
    campaigns, alpha = 1000, 0.05
    results = _simulate(0.05, 0.05, 200, campaigns, seed=20240611)
    slack = 3.0 * math.sqrt(alpha * (1 - alpha) / campaigns)
    false_rejects = sum(r.decision == "reject" for r in results) / campaigns
    assert false_rejects <= alpha + slack
    coverage = sum(r.lower <= 0.0 <= r.upper for r in results) / campaigns
    assert coverage >= 1 - alpha - slack


def test_power_for_a_five_point_drop_matches_the_normal_approximation() -> None:
    # Reject ⇔ Z(0) = (b − c)/sqrt(b + c) > z (see above), whose power for p10 − p01 = Δ and
    # p10 + p01 = ψ is, by the normal approximation (Connor 1987, Biometrics 43:207-211),
    #     power ≈ Φ( (Δ·sqrt(n) − z·sqrt(ψ)) / sqrt(ψ − Δ²) ).
    p10, p01, n, campaigns = 0.15, 0.10, 500, 1000
    drop, psi = p10 - p01, p10 + p01
    predicted = float(
        norm.cdf((drop * math.sqrt(n) - Z95 * math.sqrt(psi)) / math.sqrt(psi - drop**2))
    )
    results = _simulate(p10, p01, n, campaigns, seed=7)
    power = sum(r.decision == "reject" for r in results) / campaigns
    simulation_error = math.sqrt(predicted * (1 - predicted) / campaigns)
    assert abs(power - predicted) <= 3.0 * simulation_error
