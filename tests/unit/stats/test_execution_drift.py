"""Run-to-run drift: pooled between-execution variance, and the speed-up interval that holds it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from specverdict.stats import speedup_ratio_of_means
from specverdict.stats.speed import execution_drift, interval_with_drift


def executions(
    offsets: list[float], n: int = 50, noise: float = 0.0, seed: int = 0
) -> list[list[float]]:
    """One configuration's executions of the same n samples: a sample effect, one log offset
    per execution, and per-request noise."""
    rng = np.random.default_rng(seed)
    level = 0.02 * np.exp(rng.normal(0, 0.3, n))
    return [list(level * np.exp(o + rng.normal(0, noise, n))) for o in offsets]


def test_the_variance_component_of_executions_pooled_over_configurations() -> None:
    drift = execution_drift([executions([0.0, 0.1]), [[1.0, 2.0]], executions([-0.2, 0.0, 0.2])])
    assert drift is not None
    # offsets (0, 0.1): (0.05² + 0.05²) / 1; (-0.2, 0, 0.2): 0.08 / 2; pooled over 1 + 2 df
    assert drift.df == 3 and drift.configurations == 2 and drift.executions == 5
    assert drift.variance == pytest.approx((0.005 + 2 * 0.04) / 3)
    assert execution_drift([[[1.0, 2.0]], [[2.0, 3.0]]]) is None  # nothing executed twice
    with pytest.raises(ValueError, match="positive"):
        execution_drift([[[1.0, 0.5], [0.0, 1.0]]])


def test_request_noise_is_not_counted_as_drift() -> None:
    """On a small stage the execution means move by the requests' own noise alone: that is the
    bootstrap's part, so the drift component stays near 0 (the means' spread would be ~5%)."""
    noisy_means = []
    components = []
    for seed in range(30):
        group = executions([0.0, 0.0], n=16, noise=0.2, seed=seed)
        drift = execution_drift([group])
        assert drift is not None
        components.append(drift.variance)
        noisy_means.append(np.var(np.log(np.mean(group, axis=1)), ddof=1))
    # unbiased before the clamp at 0: about half the estimates are 0, and the rest average
    # about half the naive spread of the means
    assert sum(c == 0 for c in components) >= 10 and all(m > 0 for m in noisy_means)
    assert np.mean(components) < 0.75 * np.mean(noisy_means)


def test_the_interval_widens_by_whole_executions_with_students_t() -> None:
    rng = np.random.default_rng(0)
    base = 0.02 * np.exp(rng.normal(0, 0.05, 400))
    est = speedup_ratio_of_means(base, base / 1.5 * np.exp(rng.normal(0, 0.02, 400)), rng)
    assert est.interval is not None
    none = execution_drift([executions([0.0, 0.0])])
    assert none is not None and none.variance == pytest.approx(0.0, abs=1e-20)
    same = interval_with_drift(est, none, 2, 1)
    assert same is not None and same.drift_share < 1e-9
    assert same.interval.lower == pytest.approx(est.interval.lower, rel=0.02)
    drift = execution_drift([executions([0.0, 0.03 * math.sqrt(2)])])  # sd 3%, df 1
    assert drift is not None and math.sqrt(drift.variance) == pytest.approx(0.03)
    wide = interval_with_drift(est, drift, 2, 1)
    assert wide is not None and wide.drift_share > 0.9 and wide.df < 1.5
    # about t(0.975, 1) = 12.7 times sd * sqrt(1/2 + 1) on the log scale
    half = (math.log(wide.interval.upper) - math.log(wide.interval.lower)) / 2
    assert half == pytest.approx(12.706 * 0.03 * math.sqrt(1.5), rel=0.05)
    pooled = execution_drift([executions([0.0, 0.03 * math.sqrt(2)])] * 6)  # df 6
    assert pooled is not None
    narrow = interval_with_drift(est, pooled, 2, 1)
    assert narrow is not None and narrow.interval.lower > wide.interval.lower
