"""Paired bootstrap speed-ups, throughput ratios and the baseline noise floor."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from specverdict.stats import (
    Interval,
    NoiseFloor,
    RatioEstimate,
    noise_floor,
    speedup_geometric_mean,
    speedup_ratio_of_means,
    throughput_ratio,
)
from specverdict.stats.bootstrap import Method

ESTIMATORS = [speedup_ratio_of_means, speedup_geometric_mean]


def _tpots(seed: int, n: int, speedup: float, noise: float) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    base = rng.lognormal(math.log(0.020), 0.4, n)
    cand = base / speedup * rng.lognormal(0.0, noise, n)
    return base, cand


# cand = base / 1.5 * exp(N(0, 0.1²)): the geometric mean of ratios estimates 1.5, the ratio of
# means 1.5 / E[exp(N(0, 0.1²))] = 1.5 * exp(-0.005).
KNOWN = [(speedup_ratio_of_means, 1.5 * math.exp(-0.005)), (speedup_geometric_mean, 1.5)]


@pytest.mark.parametrize(("estimator", "truth"), KNOWN)
@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_known_speedup_is_recovered(estimator: object, truth: float, method: Method) -> None:
    base, cand = _tpots(seed=1, n=300, speedup=1.5, noise=0.1)
    result = estimator(base, cand, np.random.default_rng(2), method=method)  # type: ignore[operator]
    assert result.interval is not None and result.point is not None
    assert truth in result.interval
    assert result.interval.width < 0.1
    assert result.decidable and result.n == 300 and result.dropped == 0


def test_ratio_of_means_and_geometric_mean_are_what_they_say() -> None:
    base = np.array([1.0, 2.0, 4.0])
    cand = np.array([1.0, 1.0, 1.0])
    rng = np.random.default_rng(0)
    assert speedup_ratio_of_means(base, cand, rng).point == pytest.approx(7.0 / 3.0)
    assert speedup_geometric_mean(base, cand, rng).point == pytest.approx(2.0)


@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_same_seed_same_interval(estimator: object) -> None:
    base, cand = _tpots(seed=3, n=80, speedup=1.2, noise=0.2)
    first = estimator(base, cand, np.random.default_rng(11))  # type: ignore[operator]
    again = estimator(base, cand, np.random.default_rng(11))  # type: ignore[operator]
    other = estimator(base, cand, np.random.default_rng(12))  # type: ignore[operator]
    assert first == again
    assert other.interval != first.interval


@settings(deadline=None, max_examples=20)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(5, 120),
    method=st.sampled_from(["percentile", "bca"]),
)
def test_interval_contains_the_point_estimate(seed: int, n: int, method: Method) -> None:
    base, cand = _tpots(seed=seed, n=n, speedup=1.3, noise=0.2)
    for estimator in ESTIMATORS:
        result = estimator(base, cand, np.random.default_rng(seed), method=method)
        assert result.interval is not None and result.point is not None
        assert result.point in result.interval


def test_bca_corrects_the_percentile_interval_on_skewed_data() -> None:
    base, cand = _tpots(seed=8, n=40, speedup=1.5, noise=0.3)
    rng_seed = 21
    percentile = speedup_ratio_of_means(base, cand, np.random.default_rng(rng_seed))
    bca = speedup_ratio_of_means(base, cand, np.random.default_rng(rng_seed), method="bca")
    assert percentile.interval is not None and bca.interval is not None
    assert bca.method == "bca" and percentile.method == "percentile"
    # Same resamples, different quantiles: BCa moves both ends.
    assert bca.interval.lower != pytest.approx(percentile.interval.lower, rel=1e-3)
    assert bca.interval.upper != pytest.approx(percentile.interval.upper, rel=1e-3)


def test_percentile_interval_covers_the_true_ratio() -> None:
    # 200 simulated comparisons; each interval should hold the true ratio of means
    # E[base] / E[cand] = 1.3 / E[noise] about 95% of the time.
    rng = np.random.default_rng(123)
    truth = 1.3 / math.exp(0.1**2 / 2)
    trials, covered = 200, 0
    for _ in range(trials):
        base = rng.lognormal(math.log(0.02), 0.4, 50)
        cand = base / 1.3 * rng.lognormal(0.0, 0.1, 50)
        interval = speedup_ratio_of_means(base, cand, rng).interval
        assert interval is not None
        covered += truth in interval
    assert covered / trials >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / trials)


def test_missing_pairs_are_dropped_and_counted() -> None:
    base, cand = _tpots(seed=5, n=40, speedup=1.4, noise=0.1)
    holey_base: list[float | None] = [*base.tolist(), None, 0.02, math.nan]
    holey_cand: list[float | None] = [*cand.tolist(), 0.01, None, 0.01]
    holey = speedup_ratio_of_means(holey_base, holey_cand, np.random.default_rng(9))
    clean = speedup_ratio_of_means(base, cand, np.random.default_rng(9))
    assert holey.dropped == 3 and holey.n == 40
    assert holey.point == clean.point and holey.interval == clean.interval
    assert "3 pairs dropped for missing values" in holey.why


def test_constant_ratio_gives_a_point_interval_without_warnings() -> None:
    base = np.array([0.02, 0.03, 0.05, 0.04])
    for method in ("percentile", "bca"):
        result = speedup_ratio_of_means(base, base / 2.0, np.random.default_rng(0), method=method)
        assert result.interval is not None
        assert result.interval.lower == pytest.approx(2.0)
        assert result.interval.upper == pytest.approx(2.0)


def test_too_few_pairs() -> None:
    one = speedup_ratio_of_means([0.02], [0.01], np.random.default_rng(0))
    assert one.point == 2.0 and one.interval is None and not one.decidable
    none = speedup_geometric_mean([None, 0.02], [0.01, math.nan], np.random.default_rng(0))
    assert none.point is None and none.n == 0 and none.dropped == 2 and not none.decidable


@pytest.mark.parametrize(
    ("base", "cand", "kwargs", "message"),
    [
        ([0.02, 0.0], [0.01, 0.01], {}, "base_tpot must be positive"),
        ([0.02, 0.03], [0.01, -1.0], {}, "cand_tpot must be positive"),
        ([0.02, 0.03], [0.01], {}, "equal lengths"),
        ([0.02, 0.03], [0.01, 0.02], {"n_resamples": 500}, "at least 2000"),
        ([0.02, 0.03], [0.01, 0.02], {"method": "basic"}, "method must be one of"),
        ([0.02, 0.03], [0.01, 0.02], {"confidence": 1.5}, "confidence must be in"),
        (["fast", 0.03], [0.01, 0.02], {}, "must hold numbers"),
    ],
)
def test_invalid_inputs_are_refused(
    base: list[object], cand: list[object], kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        speedup_ratio_of_means(base, cand, np.random.default_rng(0), **kwargs)  # type: ignore[arg-type]


def test_throughput_ratio_is_candidate_over_baseline_tokens_per_request_second() -> None:
    rng = np.random.default_rng(4)
    tokens = rng.integers(50, 500, 120).astype(float)
    base_latency = tokens * 0.02 + rng.uniform(0.05, 0.2, 120)
    cand_tokens = tokens + rng.integers(-5, 6, 120)
    cand_latency = base_latency / 1.25 * rng.lognormal(0.0, 0.05, 120)
    result = throughput_ratio(tokens, base_latency, cand_tokens, cand_latency, rng)
    expected = (cand_tokens.sum() / cand_latency.sum()) / (tokens.sum() / base_latency.sum())
    assert result.point == pytest.approx(expected, rel=1e-12)
    assert result.interval is not None and result.point in result.interval
    assert 1.25 * math.exp(-(0.05**2) / 2) in result.interval
    exact = throughput_ratio(tokens, base_latency, tokens, base_latency / 1.25, rng)
    assert exact.point == pytest.approx(1.25)


# --- noise floor -------------------------------------------------------------------------


def test_noise_floor_is_the_largest_relative_gap_between_repeats() -> None:
    first = np.array([0.020, 0.022, 0.018])
    floor = noise_floor([first, first * 1.03, first * 0.99])
    assert floor.floor == pytest.approx(1.03 / 0.99 - 1.0)
    assert len(floor.ratios) == 3 and floor.decidable
    reversed_order = noise_floor([first * 0.99, first * 1.03, first])
    assert reversed_order.floor == pytest.approx(floor.floor)


def test_noise_floor_pairs_samples_present_in_both_repeats() -> None:
    floor = noise_floor([[0.02, None, 0.04], [0.02, 0.5, math.nan]])
    assert floor.floor == pytest.approx(0.0)


def test_noise_floor_needs_two_repeats() -> None:
    single = noise_floor([[0.02, 0.03]])
    assert single.floor is None and not single.decidable
    with pytest.raises(ValueError, match="same samples"):
        noise_floor([[0.02, 0.03], [0.02]])


def _estimate(lower: float, upper: float) -> RatioEstimate:
    return RatioEstimate(
        kind="ratio_of_means",
        point=(lower + upper) / 2,
        interval=Interval(lower, upper),
        n=100,
        dropped=0,
        confidence=0.95,
        method="percentile",
        decidable=True,
        why="",
    )


def _floor(value: float) -> NoiseFloor:
    return NoiseFloor(floor=value, n_repeats=2, ratios=(), decidable=True, why="")
