"""A stored calibration's drift pooled into a campaign's own, checked against it."""

from __future__ import annotations

import numpy as np
import pytest

from specverdict.stats.speed import ExecutionDrift, execution_drift, pool_drift


def drift(sd: float, df: int, executions: int | None = None) -> ExecutionDrift:
    return ExecutionDrift(sd**2, df, 1, executions or df + 1)


def test_without_a_calibration_the_campaign_s_own_stands() -> None:
    own = drift(0.02, 3)
    assert pool_drift(own, None) is own
    assert pool_drift(None, None) is None


def test_a_campaign_with_no_a_a_reads_the_calibration_alone_and_says_so() -> None:
    got = pool_drift(None, drift(0.01, 5))
    assert got is not None and got.calibration_use == "alone"
    assert (got.df, got.executions, got.calibration) == (5, 6, 6)
    assert got.note is not None and "read alone" in got.note


def test_a_consistent_calibration_adds_its_degrees_of_freedom() -> None:
    own, cal = drift(0.012, 3), drift(0.010, 5)
    got = pool_drift(own, cal)
    assert got is not None and got.calibration_use == "pooled"
    assert got.df == 8 and got.calibration == 6 and got.executions == 4 + 6
    assert got.variance == pytest.approx((3 * 0.012**2 + 5 * 0.010**2) / 8)


def test_a_campaign_drifting_more_than_its_calibration_keeps_its_own() -> None:
    """A host that changed since the calibration (own drift 5%, calibration 1%): pooling
    would narrow the interval wrongly; the campaign's own estimate stands, and says why."""
    own, cal = drift(0.05, 3), drift(0.01, 10)
    got = pool_drift(own, cal)
    assert got is not None and got.calibration_use == "refused"
    assert (got.variance, got.df, got.calibration) == (own.variance, 3, 0)
    assert got.note is not None and "calibrate again" in got.note


def test_the_check_holds_its_level_when_the_host_did_not_change() -> None:
    """Own and calibration drawn from one drift (3%): the F check refuses about 5% of the
    time, its level, not more."""
    rng = np.random.default_rng(4)
    refused = 0
    sims = 2000
    for _ in range(sims):

        def est(k: int) -> ExecutionDrift:
            base = rng.normal(0.0, 0.1, 30)
            rows = [np.exp(base + rng.normal(0, 0.03) + rng.normal(0, 0.01, 30)) for _ in range(k)]
            found = execution_drift([[list(r) for r in rows]])
            assert found is not None
            return found

        got = pool_drift(est(3), est(6))
        refused += got is not None and got.calibration_use == "refused"
    assert 0.02 < refused / sims < 0.08
