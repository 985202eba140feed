"""The stratified resampled drop: its point estimate, interval and decisions."""

from __future__ import annotations

import numpy as np
import pytest

from specverdict.stats import stratified_drop


def test_point_estimate_weights_the_concordant_draw_up_to_its_stratum() -> None:
    # 4 discordant samples, 10 concordant drawn out of 90: N = 94
    r = stratified_drop([1.0, 0.5, -0.5, 0.0], [0.1] * 10, 90, margin=0.05)
    assert r.drop == pytest.approx((1.0 + 0.5 - 0.5 + 0.0 + 9.0 * 1.0) / 94)
    assert r.n_total == 94 and r.n_concordant_drawn == 10
    assert r.interval.lower <= r.drop <= r.interval.upper


def test_decisions() -> None:
    rng = np.random.default_rng(1)
    # a consistent loss on every discordant sample, none on the concordant ones
    lost = stratified_drop([1.0] * 30, list(rng.uniform(-0.1, 0.1, 50)), 170, margin=0.05)
    assert lost.decision == "reject" and lost.interval.lower > 0
    # discordance that was noise: both configurations pass about equally often
    rng = np.random.default_rng(2)
    noise = list(rng.uniform(-0.2, 0.2, 6))
    fine = stratified_drop(noise, list(rng.uniform(-0.02, 0.02, 100)), 900, margin=0.05)
    assert fine.decision == "pass" and fine.interval.upper < 0.05
    rng = np.random.default_rng(3)
    wide = stratified_drop([1.0, -1.0, 1.0, -1.0], [0.0, 0.1, -0.1, 0.0, 0.1], 20, margin=0.05)
    assert wide.decision == "inconclusive"


def test_coverage_of_a_known_drop() -> None:
    """Over simulated resamples the interval covers the true drop about 95% of the time."""
    rng = np.random.default_rng(4)
    true_p_b, true_p_c = 0.6, 0.4
    n_d, n_runs, covered, trials = 40, 8, 0, 200
    truth = (true_p_b - true_p_c) * n_d / (n_d + 200)
    for _ in range(trials):
        pb = rng.binomial(n_runs, true_p_b, n_d) / n_runs
        pc = rng.binomial(n_runs, true_p_c, n_d) / n_runs
        r = stratified_drop(list(pb - pc), [0.0] * 20, 200, margin=0.05)
        covered += r.interval.lower <= truth <= r.interval.upper
    assert covered / trials >= 0.93


def test_no_spread_bounds_nothing() -> None:
    """Every drop alike (0 everywhere) gives no error estimate: nothing is decided from it."""
    r = stratified_drop([0.0] * 5, [0.0] * 20, 100, margin=0.05)
    assert r.decision == "inconclusive" and (r.interval.lower, r.interval.upper) == (-1.0, 1.0)


def test_coverage_at_a_small_level_with_a_drawn_stratum() -> None:
    """At the levels a resample look reads (alpha near 0.004) the interval still covers: a
    population of concordant samples with their own small drops, 20 of them drawn."""
    rng = np.random.default_rng(5)
    n_c, n_d, runs, trials, misses = 160, 30, 5, 1000, 0
    p_cb = rng.beta(1.2, 0.8, n_c)
    p_cc = np.clip(p_cb - 0.03, 0, 1)
    p_db, p_dc = rng.beta(1.2, 0.8, n_d), rng.beta(0.8, 1.2, n_d)
    truth = ((p_db - p_dc).sum() + (p_cb - p_cc).sum()) / (n_c + n_d)
    for _ in range(trials):
        dd = (rng.binomial(runs, p_db) - rng.binomial(runs, p_dc)) / runs
        pick = rng.choice(n_c, 20, replace=False)
        cc = (rng.binomial(runs, p_cb[pick]) - rng.binomial(runs, p_cc[pick])) / runs
        r = stratified_drop(list(dd), list(cc), n_c, margin=0.05, alpha=0.004)
        misses += not r.interval.lower <= truth <= r.interval.upper
    assert misses / trials <= 0.008  # 0.004 intended; the percentile bootstrap missed 0.011


@pytest.mark.parametrize(
    "args, match",
    [
        (([2.0], [0.0], 1), "must lie in"),
        (([0.5], [0.0, 0.0], 1), "smaller than"),
        (([0.5], [], 10), "none was drawn"),
    ],
)
def test_bad_inputs_are_refused(args: tuple[list[float], list[float], int], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        stratified_drop(*args, margin=0.05)
