"""S = MAL / R and per-position rates from counters."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from specverdict.stats import decompose_speedup, mal_from_rates, position_rates

times = st.floats(1e-4, 1.0)


@settings(deadline=None)
@given(tpot_base=times, tpot_cand=times, mal=st.floats(1.0, 9.0))
def test_speedup_is_mal_over_step_cost(tpot_base: float, tpot_cand: float, mal: float) -> None:
    d = decompose_speedup(tpot_base, tpot_cand, mal)
    assert d.step_cost == pytest.approx(tpot_cand * mal / tpot_base, rel=1e-12)
    assert d.speedup == pytest.approx(d.mal / d.step_cost, rel=1e-12)
    assert d.speedup == pytest.approx(tpot_base / tpot_cand, rel=1e-12)


def test_high_acceptance_eaten_by_step_cost() -> None:
    # 2.5 tokens per step, yet only 1.25x: each speculative step costs two baseline steps.
    d = decompose_speedup(tpot_base=0.020, tpot_cand=0.016, mal=2.5)
    assert d.speedup == pytest.approx(1.25)
    assert d.step_cost == pytest.approx(2.0)


def test_position_rates_from_counters() -> None:
    # The counters of tests/unit/engines/test_prometheus.py summed over engines: 15 drafts,
    # 18 accepted, per position 11, 6, 1.
    rates = position_rates([11, 6, 1], 15)
    assert rates.rates == pytest.approx((11 / 15, 6 / 15, 1 / 15))
    assert rates.mal == pytest.approx(1 + 18 / 15)
    assert rates.conditional == pytest.approx((11 / 15, 6 / 11, 1 / 6))
    assert mal_from_rates(rates.rates) == rates.mal


@settings(deadline=None)
@given(st.lists(st.integers(0, 1000), min_size=1, max_size=8), st.integers(1, 1000))
def test_mal_equals_one_plus_accepted_per_draft(raw: list[int], extra: int) -> None:
    counts = sorted(raw, reverse=True)
    drafts = counts[0] + extra
    rates = position_rates(counts, drafts)
    assert rates.mal == pytest.approx(1 + sum(counts) / drafts)
    assert 1.0 <= rates.mal <= len(counts) + 1


def test_a_position_never_reached_has_conditional_rate_zero() -> None:
    assert position_rates([4, 0, 0], 10).conditional == (0.4, 0.0, 0.0)


@pytest.mark.parametrize(
    ("counts", "drafts", "message"),
    [([3, 5], 10, "must not increase"), ([11], 10, "exceeds 10"), ([1], 0, "drafts is 0")],
)
def test_counts_that_cannot_come_from_one_run_are_refused(
    counts: list[int], drafts: int, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        position_rates(counts, drafts)


@pytest.mark.parametrize(
    ("args", "message"),
    [((0.02, 0.01, 0.9), "at least 1"), ((0.0, 0.01, 2.0), "tpot_base"), ((0.02, -1, 2.0), "tpot")],
)
def test_decomposition_refuses_impossible_inputs(
    args: tuple[float, float, float], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        decompose_speedup(*args)
