"""Expected tokens per step, predicted speed-up, and claim checks."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from specverdict.stats import (
    claim_check,
    expected_tokens,
    expected_tokens_iid,
    position_rates,
    predict_speedup,
    speculative_step_cost,
)

probabilities = st.floats(0.0, 1.0)


@settings(deadline=None)
@given(a=probabilities, k=st.integers(0, 12))
def test_closed_form_equals_product_form_for_iid_acceptance(a: float, k: int) -> None:
    assert expected_tokens([a] * k) == pytest.approx(expected_tokens_iid(a, k), rel=1e-9)


def test_limits_of_expected_tokens() -> None:
    assert expected_tokens_iid(1.0, 3) == 4.0
    assert expected_tokens_iid(0.0, 3) == 1.0
    assert expected_tokens([]) == 1.0
    assert expected_tokens([0.8, 0.5]) == pytest.approx(1 + 0.8 + 0.4)


@settings(deadline=None)
@given(st.lists(st.integers(0, 500), min_size=1, max_size=6), st.integers(1, 500))
def test_expectation_from_conditional_rates_is_the_measured_mal(raw: list[int], extra: int) -> None:
    # §5 and §6 agree: E built from the conditional rates of a run is that run's MAL.
    counts = sorted(raw, reverse=True)
    rates = position_rates(counts, counts[0] + extra)
    assert expected_tokens(rates.conditional) == pytest.approx(rates.mal, rel=1e-9)


def test_predicted_speedup_is_expected_tokens_over_step_cost() -> None:
    cost = speculative_step_cost(3, c_verify=1.2, c_draft=0.05)
    assert cost == pytest.approx(1.35)
    prediction = predict_speedup([0.8, 0.75, 0.7], cost)
    expected = 1 + 0.8 + 0.8 * 0.75 + 0.8 * 0.75 * 0.7
    assert prediction.expected_tokens == pytest.approx(expected)
    assert prediction.speedup == pytest.approx(expected / 1.35)


def test_two_x_at_k1_with_step_cost_1_1_is_unattainable() -> None:
    check = claim_check(2.0, k=1, step_cost=1.1)
    assert check.expected_needed == pytest.approx(2.2)
    assert not check.attainable and check.decidable
    assert check.why.startswith("unattainable:")


def test_attainable_claims_are_judged_by_measured_acceptance() -> None:
    plausible = claim_check(1.8, k=3, step_cost=1.2, position_rates=[0.8, 0.6, 0.45])
    assert plausible.attainable and plausible.plausible and plausible.decidable
    assert plausible.expected_measured == pytest.approx(2.85)
    implausible = claim_check(1.8, k=3, step_cost=1.2, position_rates=[0.5, 0.2, 0.1])
    assert implausible.attainable and implausible.plausible is False
    assert implausible.why.startswith("implausible:")
    unmeasured = claim_check(1.8, k=3, step_cost=1.2)
    assert unmeasured.plausible is None and not unmeasured.decidable


def test_invalid_expectation_inputs_are_refused() -> None:
    with pytest.raises(ValueError, match="entries for k = 3"):
        claim_check(1.5, k=3, step_cost=1.1, position_rates=[0.5, 0.4])
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        expected_tokens([0.5, 1.2])
    with pytest.raises(ValueError, match="c_draft"):
        speculative_step_cost(2, 1.1, -0.1)
