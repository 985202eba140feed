"""Exact McNemar against scipy's binomial test, and vacuity at the boundary."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest  # type: ignore[import-untyped]

from specverdict.stats import mcnemar_exact, min_attainable_p


@settings(deadline=None)
@given(b=st.integers(0, 400), c=st.integers(0, 400))
def test_p_value_equals_scipy_binomtest(b: int, c: int) -> None:
    result = mcnemar_exact(b, c)
    if b + c == 0:
        assert result.p_value == 1.0
    else:
        expected = binomtest(min(b, c), b + c, 0.5).pvalue
        assert result.p_value == pytest.approx(expected, rel=1e-9, abs=1e-300)
    assert result.d == b + c
    assert 0.0 <= result.p_value <= 1.0


def test_vacuous_exactly_when_d_at_most_5_at_alpha_005() -> None:
    for d in range(31):
        for b in range(d + 1):
            result = mcnemar_exact(b, d - b)
            assert result.vacuous is (d <= 5), (b, d - b)
            assert result.decidable is (d > 5)
            if result.vacuous:
                assert not result.significant


@settings(deadline=None)
@given(d=st.integers(0, 60), alpha=st.floats(1e-4, 0.5))
def test_vacuous_iff_no_table_with_d_discordant_pairs_can_reject(d: int, alpha: float) -> None:
    results = [mcnemar_exact(b, d - b, alpha) for b in range(d + 1)]
    smallest_p = min(r.p_value for r in results)
    assert all(r.min_attainable_p == pytest.approx(smallest_p, rel=1e-12) for r in results)
    assert all(r.vacuous is (2.0 * 0.5**d > alpha) for r in results)
    if abs(smallest_p - alpha) > 1e-12:
        assert all(r.vacuous is (smallest_p > alpha) for r in results)


def test_min_attainable_p_values() -> None:
    assert min_attainable_p(0) == 1.0
    assert min_attainable_p(1) == 1.0
    assert min_attainable_p(3) == 0.25
    assert min_attainable_p(5) == 0.0625
    assert min_attainable_p(6) == 0.03125


def test_why_names_the_vacuity() -> None:
    result = mcnemar_exact(3, 0)
    assert result.why == "vacuous: 3 discordant pairs, min attainable p = 0.25 > alpha 0.05"


def test_significant_difference_and_non_rejection() -> None:
    assert mcnemar_exact(10, 0).significant
    assert mcnemar_exact(10, 0).why.startswith("difference:")
    unmoved = mcnemar_exact(6, 5)
    assert not unmoved.significant and unmoved.decidable
    assert "not evidence of equality" in unmoved.why


@pytest.mark.parametrize(
    ("b", "c", "alpha"),
    [(-1, 0, 0.05), (0, -2, 0.05), (1.5, 0, 0.05), (True, 0, 0.05), (1, 1, 0.0), (1, 1, 1.0)],
)
def test_invalid_inputs_are_refused(b: object, c: object, alpha: float) -> None:
    with pytest.raises(ValueError, match=r"must be"):
        mcnemar_exact(b, c, alpha)  # type: ignore[arg-type]
