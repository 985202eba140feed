"""The blocked speed-up: the Hodges-Lehmann estimate and signed-rank interval over blocks,
against brute force, scipy and by simulation."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from specverdict.stats.signed_rank import (
    EXACT_MOST,
    lower_critical,
    min_count,
    null_cdf,
    p_above,
    signed_rank,
)
from specverdict.stats.speed import RANK_MIN_BLOCKS, blocked_speedup, blocks_needed


def test_the_null_distribution_is_the_count_over_every_sign_pattern() -> None:
    n = 10
    sums = [sum(r for r, s in zip(range(1, n + 1), signs, strict=True) if s)
            for signs in itertools.product((0, 1), repeat=n)]  # fmt: skip
    for t in range(0, n * (n + 1) // 2 + 1, 3):
        assert null_cdf(n, t) == pytest.approx(np.mean(np.asarray(sums) <= t), abs=1e-12)


def test_the_interval_is_the_walsh_averages_between_the_critical_ranks() -> None:
    # six values: at 95% the critical count is 0 (P(T+ = 0) = 1/64 <= 0.025), so the interval
    # is the least and the greatest Walsh average; five values have none (1/32 > 0.025)
    x = np.array([0.3, -0.1, 0.2, 0.5, 0.1, 0.4])
    est = signed_rank(x, 0.95)
    walsh = sorted((a + b) / 2 for a, b in itertools.combinations_with_replacement(x, 2))
    assert est.center == pytest.approx(np.median(walsh))
    assert est.interval is not None
    assert (est.interval.lower, est.interval.upper) == pytest.approx((min(x), max(x)))
    assert signed_rank(x[:5], 0.95).interval is None
    assert min_count(0.95) == 6 and min_count(0.99) == 8
    assert lower_critical(20, 0.025) == 52  # the tables' two-sided 5% critical value at n = 20


def test_the_p_value_is_scipy_s_exact_wilcoxon_and_dual_to_the_interval() -> None:
    rng = np.random.default_rng(3)
    for _ in range(20):
        x = rng.normal(0.1, 0.2, 20)
        for shift in (-0.1, 0.0, 0.05, 0.2):
            want = stats.wilcoxon(x - shift, alternative="greater", method="exact").pvalue
            assert p_above(x, shift) == pytest.approx(want, rel=1e-9)
        est = signed_rank(x, 0.9)
        assert est.interval is not None
        for shift in np.linspace(-0.3, 0.5, 41):
            assert (est.interval.lower > shift) == (p_above(x, float(shift)) <= 0.05)


def test_above_the_exact_range_the_normal_approximation_takes_over_smoothly() -> None:
    n = EXACT_MOST
    mean = n * (n + 1) / 4
    sd = np.sqrt(n * (n + 1) * (2 * n + 1) / 24)
    for z in (-2.5, -1.96, -1.0):
        t = mean + z * sd
        approx = stats.norm.cdf((np.floor(t) + 0.5 - mean) / sd)
        assert null_cdf(n, t) == pytest.approx(approx, abs=2e-4)
    big = np.random.default_rng(4).normal(0.0, 1.0, EXACT_MOST + 50)
    est = signed_rank(big, 0.95)
    assert est.interval is not None and est.interval.lower < 0.0 < est.interval.upper
    t = lower_critical(EXACT_MOST + 50, 0.025)
    assert null_cdf(EXACT_MOST + 50, t) <= 0.025 < null_cdf(EXACT_MOST + 50, t + 1)


def test_the_estimate_is_exp_of_the_hodges_lehmann_centre_of_the_blocks_log_ratios() -> None:
    rng = np.random.default_rng(0)
    blocks = [(rng.lognormal(0, 0.1, 8), rng.lognormal(-0.2, 0.1, 8)) for _ in range(12)]
    est = blocked_speedup(blocks, 0.9)
    d = np.array([np.log(b.mean()) - np.log(c.mean()) for b, c in blocks])
    rank = signed_rank(d, 0.9)
    assert est.point == pytest.approx(np.exp(rank.center))
    assert est.interval is not None and rank.interval is not None
    assert (est.interval.lower, est.interval.upper) == pytest.approx(
        (np.exp(rank.interval.lower), np.exp(rank.interval.upper))
    )
    assert (est.df, est.blocks, est.n) == (11, 12, 96)
    assert est.sd_log == pytest.approx(1.4826 * np.median(np.abs(d - np.median(d))), rel=1e-4)
    assert est.p_above(1.0) == pytest.approx(p_above(d, 0.0))


@pytest.mark.parametrize("starved", ["either arm", "the baseline"])
def test_a_few_starved_segments_do_not_turn_a_slower_candidate_into_an_undecided_one(
    starved: str,
) -> None:
    """30 blocks of a candidate at 0.6x the baseline's speed, in some of which the host starved
    one arm's segment (10x slower). Five segments of either arm: the signed-rank interval
    rejects nearly always and covers the truth at its level. Four of the baseline's (the
    contamination all on one side, as once seen on a two-core host running the whole suite):
    the paired t interval over the blocks no longer excludes 1 in most pairs; the signed-rank
    interval still does in nearly all."""
    rng = np.random.default_rng(5)
    sims, rejected, t_rejected, covered = 400, 0, 0, 0
    for _ in range(sims):
        level = rng.lognormal(np.log(0.02), 0.1, 30 * 8)
        base = level * rng.lognormal(0, 0.05, 30 * 8)
        cand = level / 0.6 * rng.lognormal(0, 0.05, 30 * 8)
        for j in rng.choice(30, 5 if starved == "either arm" else 4, replace=False):
            arm = base if starved == "the baseline" or rng.random() < 0.5 else cand
            arm[j * 8 : (j + 1) * 8] *= 10.0
        blocks = [(base[j : j + 8], cand[j : j + 8]) for j in range(0, 30 * 8, 8)]
        est = blocked_speedup(blocks)
        assert est.interval is not None
        rejected += est.interval.upper < 1.0
        covered += est.interval.lower <= 0.6 <= est.interval.upper
        d = np.array([np.log(b.mean()) - np.log(c.mean()) for b, c in blocks])
        hi = d.mean() + stats.t.ppf(0.975, len(d) - 1) * stats.sem(d)
        t_rejected += hi < 0.0
    assert rejected / sims >= 0.95, rejected
    if starved == "either arm":
        assert covered / sims >= 0.93, covered
    else:
        assert t_rejected / sims < 0.5, t_rejected


def test_missing_values_drop_pairs_and_empty_blocks() -> None:
    nan = float("nan")
    est = blocked_speedup([([1.0, nan], [0.5, 0.5]), ([nan], [1.0]), ([2.0, 2.0], [1.0, 1.0])])
    assert (est.blocks, est.n, est.dropped) == (2, 3, 2)
    assert est.point == pytest.approx(2.0) and est.interval is not None and est.rule == "t"
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
    def half(j: int, sd: float) -> float:
        widen = np.sqrt(np.pi / 3) if j >= RANK_MIN_BLOCKS else 1.0  # read by rank from there
        return float(stats.t.ppf(0.975, j - 1) * widen * sd / np.sqrt(j))

    for sd, gap in ((0.05, 0.02), (0.05, 0.1), (0.2, 0.05)):
        need = blocks_needed(sd, gap, 0.95)
        assert need is not None
        assert half(need, sd) < gap and all(half(j, sd) >= gap for j in range(2, need))
    assert blocks_needed(0.05, 0.0, 0.95) is None
    assert blocks_needed(0.0, 0.01, 0.95) == 2


def test_under_twelve_blocks_the_interval_is_scipy_s_one_sample_t() -> None:
    rng = np.random.default_rng(0)
    blocks = [(rng.lognormal(0, 0.1, 8), rng.lognormal(-0.2, 0.1, 8)) for _ in range(8)]
    est = blocked_speedup(blocks, 0.9)
    d = np.array([np.log(b.mean()) - np.log(c.mean()) for b, c in blocks])
    lo, hi = stats.t.interval(0.9, len(d) - 1, loc=d.mean(), scale=stats.sem(d))
    assert est.rule == "t" and est.point == pytest.approx(np.exp(d.mean()))
    assert est.interval is not None
    assert (est.interval.lower, est.interval.upper) == pytest.approx((np.exp(lo), np.exp(hi)))
    assert est.sd_log == pytest.approx(d.std(ddof=1))
    want = stats.ttest_1samp(d, np.log(1.05), alternative="greater").pvalue
    assert est.p_above(1.05) == pytest.approx(want)
