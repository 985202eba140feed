"""The blocked speed-up: the paired t interval over blocks, against scipy and by simulation."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from specverdict.stats.speed import blocked_speedup, blocks_needed


def test_the_interval_is_scipy_s_one_sample_t_on_the_blocks_log_ratios() -> None:
    rng = np.random.default_rng(0)
    blocks = [(rng.lognormal(0, 0.1, 8), rng.lognormal(-0.2, 0.1, 8)) for _ in range(12)]
    est = blocked_speedup(blocks, 0.9)
    d = np.array([np.log(b.mean()) - np.log(c.mean()) for b, c in blocks])
    lo, hi = stats.t.interval(0.9, len(d) - 1, loc=d.mean(), scale=stats.sem(d))
    assert est.point == pytest.approx(np.exp(d.mean()))
    assert est.interval is not None
    assert (est.interval.lower, est.interval.upper) == pytest.approx((np.exp(lo), np.exp(hi)))
    assert (est.df, est.blocks, est.n) == (11, 12, 96)
    assert est.sd_log == pytest.approx(d.std(ddof=1))


def test_missing_values_drop_pairs_and_empty_blocks() -> None:
    nan = float("nan")
    est = blocked_speedup([([1.0, nan], [0.5, 0.5]), ([nan], [1.0]), ([2.0, 2.0], [1.0, 1.0])])
    assert (est.blocks, est.n, est.dropped) == (2, 3, 2)
    assert est.point == pytest.approx(2.0) and est.interval is not None
    one = blocked_speedup([([1.0], [0.5])])
    assert one.point == pytest.approx(2.0) and one.interval is None and one.df == 0
    assert blocked_speedup([]).point is None
    with pytest.raises(ValueError, match=r"blocks\[0\] must hold positive values"):
        blocked_speedup([([0.0], [1.0])])


def test_abba_blocks_cancel_a_drift_that_makes_whole_executions_lie() -> None:
    """A 30% slowdown over the campaign's time: measured baseline-then-candidate in whole
    executions it looks like a large speed-up of an equal candidate; in ABBA blocks the
    interval holds 1 and covers it at its level."""
    rng = np.random.default_rng(1)
    n, size, sims, covered = 160, 8, 400, 0
    for _ in range(sims):
        level = rng.lognormal(np.log(0.02), 0.1, n)
        base, cand = np.empty(n), np.empty(n)
        t = 0
        for j in range(n // size):
            part = slice(j * size, (j + 1) * size)
            for arm in (base, cand) if j % 2 == 0 else (cand, base):
                clock = 1.0 - 0.3 * (t + np.arange(size)) / (2 * n)  # faster as time goes on
                arm[part] = level[part] * clock * rng.lognormal(0, 0.03, size)
                t += size
        est = blocked_speedup([(base[j : j + size], cand[j : j + size]) for j in range(0, n, size)])
        assert est.interval is not None
        covered += est.interval.lower <= 1.0 <= est.interval.upper
    assert covered / sims >= 0.93


def test_blocks_needed_is_the_smallest_count_whose_half_width_clears_the_gap() -> None:
    need = blocks_needed(0.05, 0.02, 0.95)
    assert need is not None
    half = lambda j: stats.t.ppf(0.975, j - 1) * 0.05 / np.sqrt(j)  # noqa: E731
    assert half(need) < 0.02 <= half(need - 1)
    assert blocks_needed(0.05, 0.0, 0.95) is None
    assert blocks_needed(0.0, 0.01, 0.95) == 2
