"""The stratified resampled drop: its point estimate, interval and decisions."""

from __future__ import annotations

import numpy as np
import pytest

from specverdict.stats import stratified_drop


def test_point_estimate_weights_the_concordant_draw_up_to_its_stratum() -> None:
    rng = np.random.default_rng(0)
    # 4 discordant samples, 10 concordant drawn out of 90: N = 94
    r = stratified_drop([1.0, 0.5, -0.5, 0.0], [0.1] * 10, 90, margin=0.05, rng=rng)
    assert r.drop == pytest.approx((1.0 + 0.5 - 0.5 + 0.0 + 9.0 * 1.0) / 94)
    assert r.n_total == 94 and r.n_concordant_drawn == 10
    assert r.interval.lower <= r.drop <= r.interval.upper


def test_decisions() -> None:
    rng = np.random.default_rng(1)
    # a consistent loss on every discordant sample, none on the concordant ones
    lost = stratified_drop([1.0] * 30, [0.0] * 50, 170, margin=0.05, rng=rng)
    assert lost.decision == "reject" and lost.interval.lower > 0
    # discordance that was noise: both configurations pass about equally often
    rng = np.random.default_rng(2)
    noise = list(rng.uniform(-0.2, 0.2, 6))
    fine = stratified_drop(noise, [0.0] * 100, 900, margin=0.05, rng=rng)
    assert fine.decision == "pass" and fine.interval.upper < 0.05
    rng = np.random.default_rng(3)
    wide = stratified_drop([1.0, -1.0, 1.0, -1.0], [0.0] * 5, 20, margin=0.05, rng=rng)
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
        r = stratified_drop(list(pb - pc), [0.0] * 20, 200, margin=0.05, rng=rng)
        covered += r.interval.lower <= truth <= r.interval.upper
    assert covered / trials >= 0.90


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
        stratified_drop(*args, margin=0.05, rng=np.random.default_rng(0))
