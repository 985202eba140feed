"""Run-to-run drift: pooled between-execution variance, and the speed-up interval that holds it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from specverdict.stats import speedup_ratio_of_means
from specverdict.stats.speed import execution_drift, interval_with_drift


def test_pooled_variance_of_log_execution_means() -> None:
    groups = [[1.0, math.e**0.1], [2.0], [3.0, 3.0 * math.e**-0.2, 3.0 * math.e**0.2]]
    drift = execution_drift(groups)
    assert drift is not None
    # group 1: logs 0, 0.1 -> SS 0.005; group 3: logs -0.2, 0, 0.2 around 0 -> SS 0.08
    assert drift.df == 1 + 2 and drift.configurations == 2 and drift.executions == 5
    assert drift.variance == pytest.approx((0.005 + 0.08) / 3)
    assert execution_drift([[1.0], [2.0]]) is None  # nothing executed twice
    with pytest.raises(ValueError, match="positive"):
        execution_drift([[1.0, 0.0]])


def test_the_interval_widens_by_whole_executions_with_students_t() -> None:
    rng = np.random.default_rng(0)
    base = 0.02 * np.exp(rng.normal(0, 0.05, 400))
    est = speedup_ratio_of_means(base, base / 1.5, rng)
    assert est.interval is not None
    none = execution_drift([[1.0, 1.0], [2.0, 2.0]])
    assert none is not None and none.variance == 0
    same = interval_with_drift(est, none, 2, 1)
    assert same is not None and same.drift_share == 0
    assert same.interval.lower == pytest.approx(est.interval.lower, rel=0.01)
    drift = execution_drift([[1.0, math.exp(0.03 * math.sqrt(2))]])  # sd 3%, df 1
    assert drift is not None and math.sqrt(drift.variance) == pytest.approx(0.03)
    wide = interval_with_drift(est, drift, 2, 1)
    assert wide is not None and wide.drift_share > 0.9 and wide.df < 1.5
    # about t(0.975, 1) = 12.7 times sd * sqrt(1/2 + 1) on the log scale
    half = (math.log(wide.interval.upper) - math.log(wide.interval.lower)) / 2
    assert half == pytest.approx(12.706 * 0.03 * math.sqrt(1.5), rel=0.05)
    pooled = execution_drift([[1.0, math.exp(0.03 * math.sqrt(2))]] * 6)  # df 6
    assert pooled is not None
    narrow = interval_with_drift(est, pooled, 2, 1)
    assert narrow is not None and narrow.interval.lower > wide.interval.lower
