"""Acceptance rate and MAL with a cluster bootstrap over requests, and totals-only figures."""

from __future__ import annotations

import math

import numpy as np
import pytest

from specverdict.stats import (
    NO_PER_REQUEST,
    acceptance_from_totals,
    acceptance_interval,
    mal_from_totals,
    mal_interval,
)


def _requests(seed: int, n: int, k: int = 4) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-request drafts D, draft tokens T = k·D and accepted A, with acceptance varying
    strongly between requests (easy and hard prompts), as it does in practice."""
    rng = np.random.default_rng(seed)
    drafts = rng.integers(5, 60, n)
    per_request_rate = rng.beta(2.0, 2.0, n)
    draft_tokens = k * drafts
    accepted = rng.binomial(draft_tokens, per_request_rate)
    return drafts, draft_tokens, accepted


def test_rate_is_ratio_of_sums_with_an_interval_around_it() -> None:
    _, draft_tokens, accepted = _requests(seed=1, n=200)
    result = acceptance_interval(accepted, draft_tokens, np.random.default_rng(2))
    assert result.point == pytest.approx(accepted.sum() / draft_tokens.sum())
    assert result.interval is not None and result.point in result.interval
    assert result.n_requests == 200 and result.decidable
    assert result.quantity == "acceptance_rate"


def test_cluster_interval_matches_the_ratio_estimator_standard_error() -> None:
    # Linearised standard error of R = ΣA/ΣT over clusters (Cochran 1977, ch. 6):
    #     se(R) = sqrt( Σ (A_i − R·T_i)² / (n(n − 1)) ) / mean(T).
    # The percentile interval's half-width should be close to z·se; a token-level binomial
    # interval, which ignores that tokens of one request move together, is much narrower.
    _, draft_tokens, accepted = _requests(seed=3, n=300)
    n = len(accepted)
    ratio = accepted.sum() / draft_tokens.sum()
    resid = accepted - ratio * draft_tokens
    se = math.sqrt((resid**2).sum() / (n * (n - 1))) / draft_tokens.mean()
    result = acceptance_interval(accepted, draft_tokens, np.random.default_rng(4))
    assert result.interval is not None
    half_width = result.interval.width / 2
    assert half_width == pytest.approx(1.96 * se, rel=0.15)
    token_level = 1.96 * math.sqrt(ratio * (1 - ratio) / draft_tokens.sum())
    assert half_width > 2 * token_level


def test_mal_is_one_plus_accepted_per_draft() -> None:
    drafts, _, accepted = _requests(seed=5, n=150)
    result = mal_interval(accepted, drafts, np.random.default_rng(6), method="bca")
    assert result.point == pytest.approx(1 + accepted.sum() / drafts.sum())
    assert result.interval is not None and result.point in result.interval
    assert 1.0 <= result.interval.lower <= result.interval.upper <= 5.0
    assert result.quantity == "mean_accepted_length"


def test_same_seed_same_interval() -> None:
    _, draft_tokens, accepted = _requests(seed=7, n=60)
    first = acceptance_interval(accepted, draft_tokens, np.random.default_rng(1))
    assert first == acceptance_interval(accepted, draft_tokens, np.random.default_rng(1))


def test_requests_without_drafts_or_counts_are_set_aside_and_counted() -> None:
    accepted = [3, 0, None, 5, 2]
    drafted = [8, 0, 4, 10, 6]
    result = acceptance_interval(accepted, drafted, np.random.default_rng(0))
    assert result.point == pytest.approx(10 / 24)
    assert result.n_requests == 3 and result.no_drafts == 1 and result.missing == 1


def test_no_drafted_tokens_means_no_acceptance_figure() -> None:
    result = acceptance_interval([0, 0], [0, 0], np.random.default_rng(0))
    assert result.point is None and result.interval is None and not result.decidable
    assert "unavailable" in result.why
    single = mal_interval([3], [2], np.random.default_rng(0))
    assert single.point == 2.5 and single.interval is None


def test_totals_give_a_point_and_say_why_there_is_no_interval() -> None:
    # The counters of tests/unit/engines/test_prometheus.py: 45 draft tokens, 15 drafts, 18 accepted.
    rate = acceptance_from_totals(18.0, 45.0)
    assert rate.point == pytest.approx(0.4) and rate.interval is None
    assert rate.why == NO_PER_REQUEST == "no per-request data: no interval"
    mal = mal_from_totals(18.0, 15.0)
    assert mal.point == pytest.approx(2.2) and mal.interval is None and mal.why == NO_PER_REQUEST
    empty = acceptance_from_totals(0.0, 0.0)
    assert empty.point is None and not empty.decidable


@pytest.mark.parametrize(
    ("accepted", "drafted", "message"),
    [
        ([5, 1], [4, 2], "more tokens than it drafted"),
        ([1, 1], [0, 2], "no drafted"),
        ([-1, 1], [2, 2], "non-negative integer"),
        ([1.5, 1], [2, 2], "non-negative integer"),
        ([1, 1], [2], "equal lengths"),
    ],
)
def test_impossible_counts_are_refused(
    accepted: list[float], drafted: list[float], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        acceptance_interval(accepted, drafted, np.random.default_rng(0))  # type: ignore[arg-type]


def test_impossible_totals_are_refused() -> None:
    with pytest.raises(ValueError, match="exceeds"):
        acceptance_from_totals(50.0, 45.0)
    with pytest.raises(ValueError, match="non-negative"):
        mal_from_totals(-1.0, 3.0)
    with pytest.raises(ValueError, match="no drafts"):
        mal_from_totals(3.0, 0.0)
