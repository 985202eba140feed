"""Paired speed-up estimates with bootstrap intervals, and the baseline's noise floor.

Every ratio here is oriented so that > 1 means the candidate is faster. Samples are paired by
position (same prompt, same load level); a pair with a missing value on either side (``None`` or
NaN: a failed request, a one-token output with no TPOT) is dropped and counted, never imputed.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np

from specverdict.stats._common import (
    FloatArray,
    Interval,
    Samples,
    as_float_array,
    confidence_label,
    paired_complete,
)
from specverdict.stats.bootstrap import (
    Method,
    VectorStatistic,
    check_bootstrap_args,
    paired_bootstrap,
)
from specverdict.stats.signed_rank import p_above, signed_rank

RatioKind = Literal["ratio_of_means", "geometric_mean", "throughput_ratio"]


@dataclass(frozen=True, slots=True, kw_only=True)
class RatioEstimate:
    """A paired speed ratio, its bootstrap interval, and what it rests on.

    ``point`` is None when no pair survived; ``interval`` is None below two pairs.
    ``dropped`` counts pairs removed for a missing value.
    """

    kind: RatioKind
    point: float | None
    interval: Interval | None
    n: int
    dropped: int
    confidence: float
    method: Method
    decidable: bool
    why: str


def _ratio_of_means(base: FloatArray, cand: FloatArray, axis: int = -1) -> Any:
    return np.mean(base, axis=axis) / np.mean(cand, axis=axis)


def _geometric_mean(base: FloatArray, cand: FloatArray, axis: int = -1) -> Any:
    return np.exp(np.mean(np.log(base) - np.log(cand), axis=axis))


def _throughput(
    base_tokens: FloatArray,
    base_latency: FloatArray,
    cand_tokens: FloatArray,
    cand_latency: FloatArray,
    axis: int = -1,
) -> Any:
    cand = np.sum(cand_tokens, axis=axis) / np.sum(cand_latency, axis=axis)
    base = np.sum(base_tokens, axis=axis) / np.sum(base_latency, axis=axis)
    return cand / base


_LABELS: dict[RatioKind, str] = {
    "ratio_of_means": "speed-up (ratio of mean TPOT)",
    "geometric_mean": "speed-up (geometric mean of per-sample TPOT ratios)",
    "throughput_ratio": "throughput ratio",
}


def _estimate(
    kind: RatioKind,
    named: Sequence[tuple[str, Samples]],
    statistic: VectorStatistic,
    rng: np.random.Generator,
    n_resamples: int,
    confidence: float,
    method: Method,
) -> RatioEstimate:
    check_bootstrap_args(n_resamples, confidence, method)
    data, dropped = paired_complete(named)
    for (name, _), arr in zip(named, data, strict=True):
        bad = arr[arr <= 0.0]
        if bad.size:
            raise ValueError(f"{name} must be positive, got {float(bad[0])!r}")
    n = len(data[0])
    label = _LABELS[kind]
    lost = f", {dropped} pairs dropped for missing values" if dropped else ""
    if n == 0:
        return RatioEstimate(
            kind=kind,
            point=None,
            interval=None,
            n=0,
            dropped=dropped,
            confidence=confidence,
            method=method,
            decidable=False,
            why=f"no complete pairs: no {label}{lost}",
        )
    point = float(statistic(*data, axis=-1))
    interval = paired_bootstrap(
        data, statistic, rng, n_resamples=n_resamples, confidence=confidence, method=method
    )
    if interval is None:
        why = f"{label} {point:.3f}x from {n} pair(s): too few for an interval{lost}"
    else:
        why = (
            f"{label} {point:.3f}x, {confidence_label(confidence)} CI "
            f"[{interval.lower:.3f}, {interval.upper:.3f}] over {n} pairs{lost}"
        )
    return RatioEstimate(
        kind=kind,
        point=point,
        interval=interval,
        n=n,
        dropped=dropped,
        confidence=confidence,
        method=method,
        decidable=interval is not None,
        why=why,
    )


def speedup_ratio_of_means(
    base_tpot: Samples,
    cand_tpot: Samples,
    rng: np.random.Generator,
    *,
    n_resamples: int = 2000,
    confidence: float = 0.95,
    method: Method = "percentile",
) -> RatioEstimate:
    """Speed-up S = mean TPOT(baseline) / mean TPOT(candidate), paired bootstrap interval.

    The ratio of means weighs every output token's time alike; it is the figure a user's
    decode time scales with. Interval: paired bootstrap over samples
    (:func:`specverdict.stats.bootstrap.paired_bootstrap`; Efron B. & Tibshirani R. (1993),
    *An Introduction to the Bootstrap*, chapters 13-14).
    """
    return _estimate(
        "ratio_of_means",
        (("base_tpot", base_tpot), ("cand_tpot", cand_tpot)),
        _ratio_of_means,
        rng,
        n_resamples,
        confidence,
        method,
    )


def speedup_geometric_mean(
    base_tpot: Samples,
    cand_tpot: Samples,
    rng: np.random.Generator,
    *,
    n_resamples: int = 2000,
    confidence: float = 0.95,
    method: Method = "percentile",
) -> RatioEstimate:
    """Geometric mean of per-sample ratios, exp(mean_i log(TPOT_base,i / TPOT_cand,i)).

    Every prompt counts once whatever its length, so a few long outputs cannot dominate; a
    ratio of means far from this figure says the speed-up depends on the prompt.
    Reference: Fleming P.J. & Wallace J.J. (1986), "How not to lie with statistics: the correct
    way to summarize benchmark results", CACM 29:218-221.
    """
    return _estimate(
        "geometric_mean",
        (("base_tpot", base_tpot), ("cand_tpot", cand_tpot)),
        _geometric_mean,
        rng,
        n_resamples,
        confidence,
        method,
    )


def throughput_ratio(
    base_tokens: Samples,
    base_latency: Samples,
    cand_tokens: Samples,
    cand_latency: Samples,
    rng: np.random.Generator,
    *,
    n_resamples: int = 2000,
    confidence: float = 0.95,
    method: Method = "percentile",
) -> RatioEstimate:
    """Output-throughput ratio (candidate / baseline) at one load level, from per-sample data.

    Each arm's throughput is Σ output tokens / Σ end-to-end latency over its samples: tokens per
    second of request time. At a fixed concurrency C a server delivers C times that (Little's
    law), and C cancels in the ratio, so

        T = (Σ tokens_cand / Σ latency_cand) / (Σ tokens_base / Σ latency_base).

    Per-sample data rather than per-run wall-clock throughputs, because a load level has only a
    handful of repeats and a bootstrap over two repeats says nothing; resampling prompts does.
    Call once per load level. Reference: Little J.D.C. (1961), "A proof for the queuing formula
    L = λW", Operations Research 9:383-387; intervals as in :func:`speedup_ratio_of_means`.
    """
    return _estimate(
        "throughput_ratio",
        (
            ("base_tokens", base_tokens),
            ("base_latency", base_latency),
            ("cand_tokens", cand_tokens),
            ("cand_latency", cand_latency),
        ),
        _throughput,
        rng,
        n_resamples,
        confidence,
        method,
    )


@dataclass(frozen=True, slots=True)
class RepeatRatio:
    """Mean TPOT of repeat ``first`` over that of repeat ``second`` on their common samples."""

    first: int
    second: int
    ratio: float


@dataclass(frozen=True, slots=True, kw_only=True)
class NoiseFloor:
    """How far two runs of the same baseline disagree; None below two comparable repeats."""

    floor: float | None
    n_repeats: int
    ratios: tuple[RepeatRatio, ...]
    decidable: bool
    why: str


def noise_floor(repeat_tpots: Sequence[Samples]) -> NoiseFloor:
    """Spread between repeats of the baseline: the largest relative change between any two.

        floor = max over pairs i < j of  max(r_ij, 1/r_ij) − 1,
        r_ij = mean TPOT of repeat i / mean TPOT of repeat j,

    each mean taken over the samples present in both repeats (repeats run the same prompts, in
    the same order). Taking max(r, 1/r) makes the floor independent of the order of the
    repeats. Reported beside a verdict (the A/A check); the decision holds run-to-run drift
    through :func:`execution_drift` instead.
    """
    repeats = [as_float_array(f"repeat_tpots[{i}]", r) for i, r in enumerate(repeat_tpots)]
    if len({len(r) for r in repeats}) > 1:
        lengths = ", ".join(str(len(r)) for r in repeats)
        raise ValueError(f"baseline repeats must cover the same samples, got lengths {lengths}")
    for i, r in enumerate(repeats):
        if np.any(r <= 0.0):
            raise ValueError(f"repeat_tpots[{i}] must be positive")
    ratios: list[RepeatRatio] = []
    for i, j in itertools.combinations(range(len(repeats)), 2):
        both = np.isfinite(repeats[i]) & np.isfinite(repeats[j])
        if np.any(both):
            ratio = float(np.mean(repeats[i][both]) / np.mean(repeats[j][both]))
            ratios.append(RepeatRatio(i, j, ratio))
    if not ratios:
        return NoiseFloor(
            floor=None,
            n_repeats=len(repeats),
            ratios=(),
            decidable=False,
            why=f"no noise floor: {len(repeats)} baseline repeat(s) with common samples < 2",
        )
    floor = max(max(r.ratio, 1.0 / r.ratio) - 1.0 for r in ratios)
    return NoiseFloor(
        floor=floor,
        n_repeats=len(repeats),
        ratios=tuple(ratios),
        decidable=True,
        why=f"noise floor {100.0 * floor:.2f}% from {len(ratios)} pair(s) of baseline repeats",
    )


@dataclass(frozen=True, slots=True)
class ExecutionDrift:
    """How much whole executions of one configuration differ: the pooled variance of the log
    of an execution's mean TPOT, with its degrees of freedom (executions minus configurations).

    A per-sample bootstrap inside executions cannot see this: every request of an execution
    shares its host state (a warm or cold cache, other load, clock), so executions, not
    requests, are the unit of speed noise.
    """

    variance: float
    df: int
    configurations: int
    executions: int
    #: of ``executions``, those of a calibration (``specverdict calibrate``) pooled in
    calibration: int = 0
    #: how a calibration was read (``pool_drift``): pooled with the campaign's own drift,
    #: alone (no own A/A), or refused (the own drift larger); None: no calibration
    calibration_use: Literal["pooled", "alone", "refused"] | None = None
    #: the reading in words, with the figures
    note: str | None = None


#: the level of the check that a campaign's own drift is not larger than its calibration's
CALIBRATION_CHECK_LEVEL = 0.05


def pool_drift(
    own: ExecutionDrift | None,
    calibration: ExecutionDrift | None,
    level: float = CALIBRATION_CHECK_LEVEL,
) -> ExecutionDrift | None:
    """The campaign's drift ``own`` with a stored calibration's (A/A executions of the same
    engine, model, quantization and load, ``specverdict calibrate``) pooled in: variances
    weighted by their degrees of freedom, the degrees of freedom added, as two more groups of
    ``execution_drift``'s pooled estimate would be.

    A calibration is a prior estimate: the host may have changed since. It is checked against
    the campaign's own A/A executions by the one-sided F test of s2_own / s2_cal at ``level``
    (F(df_own, df_cal)): when the campaign's own drift is significantly larger, pooling would
    narrow the interval wrongly, and the campaign's own estimate stands alone. A campaign with
    no own A/A takes the calibration unchecked. An own drift within the check pools: a
    smaller one is widened by the calibration, a larger one narrowed. The ``note`` says which."""
    from scipy.stats import f as f_dist

    if calibration is None:
        return own
    cal = f"calibration drift {100 * np.sqrt(calibration.variance):.1f}% (df {calibration.df})"
    if own is None:
        return ExecutionDrift(
            calibration.variance,
            calibration.df,
            calibration.configurations,
            calibration.executions,
            calibration=calibration.executions,
            calibration_use="alone",
            note=f"{cal} read alone: the campaign ran no configuration twice to check it against",
        )
    mine = f"the campaign's own {100 * np.sqrt(own.variance):.1f}% (df {own.df})"
    if calibration.variance > 0:
        p = float(f_dist.sf(own.variance / calibration.variance, own.df, calibration.df))
    else:
        p = 0.0 if own.variance > 0 else 1.0
    if p < level:
        return replace(
            own,
            calibration_use="refused",
            note=f"{cal} not pooled: {mine} is larger (F test p = {p:.3g} < {level:g}); the "
            "host has changed since: calibrate again",
        )
    df = own.df + calibration.df
    variance = (own.df * own.variance + calibration.df * calibration.variance) / df
    return ExecutionDrift(
        variance,
        df,
        own.configurations + calibration.configurations,
        own.executions + calibration.executions,
        calibration=calibration.executions,
        calibration_use="pooled",
        note=f"{cal} pooled with {mine}",
    )


def execution_drift(
    groups: Sequence[Sequence[Sequence[float]]], linked: Sequence[int] | None = None
) -> ExecutionDrift | None:
    """Pooled between-execution variance of log TPOT: the variance component of executions in
    a two-way layout (execution x sample) per configuration, pooled over configurations.

    ``groups[g]`` holds configuration g's executions, each the TPOTs of the same n_g samples in
    the same order. On L = log TPOT (k_g x n_g), with execution means m_e, sample means c_i and
    the grand mean,

        MS_exec = n Σ_e (m_e − m)² / (k − 1),   MS_res = Σ (L − m_e − c_i + m)² / ((k − 1)(n − 1)),
        s²_g = max(0, (MS_exec − MS_res) / n),

    so that the requests' own noise, already in the per-sample bootstrap, is not counted again
    (it would inflate the drift most on small stages). Pooled: s² = Σ (k_g − 1) s²_g / Σ (k_g − 1),
    with Σ (k_g − 1) degrees of freedom. Configurations executed once add nothing; None when no
    configuration ran twice on at least two common samples.

    ``linked[g]``: groups with the same label shared their executions' server starts (one
    launched session served several stages, ``engine.launch.sessions: round``), so their
    drifts are one host state seen several times, not independent
    estimates: they count as one group, their s²_g averaged (weighted by k_g − 1) at the
    largest k_g − 1 of them, not the sum.
    """
    if linked is not None and len(linked) != len(groups):
        raise ValueError(f"linked has {len(linked)} labels for {len(groups)} groups")
    found: dict[int, list[tuple[float, int, int]]] = {}
    for g, group in enumerate(groups):
        rows = [as_float_array(f"groups[{g}][{e}]", list(r)) for e, r in enumerate(group)]
        if len(rows) < 2:
            continue
        if len({len(r) for r in rows}) > 1:
            raise ValueError(f"groups[{g}]: executions must cover the same samples")
        table = np.vstack(rows)
        table = table[:, np.all(np.isfinite(table), axis=0)]
        if np.any(table <= 0):
            raise ValueError(f"groups[{g}] must hold positive TPOTs")
        k, n = table.shape
        if n < 2:
            continue
        logs = np.log(table)
        m_e = logs.mean(axis=1)
        c_i = logs.mean(axis=0)
        grand = float(logs.mean())
        ms_exec = n * float(np.sum((m_e - grand) ** 2)) / (k - 1)
        resid = logs - m_e[:, None] - c_i[None, :] + grand
        ms_res = float(np.sum(resid**2)) / ((k - 1) * (n - 1))
        label = g if linked is None else linked[g]
        found.setdefault(label, []).append((max(0.0, (ms_exec - ms_res) / n), k - 1, k))
    weighted, df, used, executions = 0.0, 0, 0, 0
    for parts in found.values():
        dfs = sum(d for _, d, _ in parts)
        variance = sum(v * d for v, d, _ in parts) / dfs
        weighted += max(d for _, d, _ in parts) * variance
        df += max(d for _, d, _ in parts)
        used += len(parts)
        executions += sum(k for _, _, k in parts)
    if df == 0:
        return None
    return ExecutionDrift(weighted / df, df, used, executions)


@dataclass(frozen=True, slots=True)
class DriftInterval:
    """A speed-up interval that holds whole executions' drift as well as the samples'."""

    interval: Interval
    se_log: float
    df: float
    drift_share: float  # of the log variance, the part from execution drift


def interval_with_drift(
    estimate: RatioEstimate,
    drift: ExecutionDrift,
    base_executions: int,
    cand_executions: int,
    confidence: float | None = None,
) -> DriftInterval | None:
    """Widen a per-sample speed-up interval by execution drift, on the log scale:

        SE² = SE_samples² + s² (1/k_base + 1/k_cand),
        interval = exp(log point ± t_{1−(1−c)/2, ν} SE),

    SE_samples read from the bootstrap interval's half-width (normal quantile), ν the degrees of
    freedom of s² (conservative when the sample part is not negligible). Each arm's estimate
    averages its k executions, hence 1/k. ``confidence`` c of the widened interval defaults to
    the estimate's; a sequential look asks for more (its share of alpha, ``stats.looks``), read
    off the same standard error rather than off the bootstrap's far tails, which a few thousand
    resamples estimate poorly.
    """
    from scipy.stats import norm
    from scipy.stats import t as student_t

    if confidence is None:
        confidence = estimate.confidence
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if estimate.interval is None or estimate.point is None or estimate.point <= 0:
        return None
    if estimate.interval.lower <= 0 or base_executions < 1 or cand_executions < 1:
        return None
    z = float(norm.ppf(0.5 + estimate.confidence / 2))
    half = (np.log(estimate.interval.upper) - np.log(estimate.interval.lower)) / 2
    # the bootstrap's spread is the plug-in one, sqrt((n-1)/n) of the unbiased: put it back
    se_samples = float(half / z) * float(np.sqrt(estimate.n / max(1, estimate.n - 1)))
    drift_var = drift.variance * (1.0 / base_executions + 1.0 / cand_executions)
    total = se_samples**2 + drift_var
    if total <= 0:
        return None
    # Student's t at the drift's own degrees of freedom: Welch-Satterthwaite would add degrees
    # of freedom for the sample part, and is too optimistic at one or two (simulated: 4.2%
    # false passes at the bar for 2.5% intended, with one baseline executed twice). Also when
    # the drift is estimated at 0: from a few executions that is an estimate, not a drift
    # known to be 0 (the truncated estimator gives 0 whenever the executions happened to
    # agree); read as the normal quantile it left the interval at the samples' width, and at
    # concurrency 16, where requests share engine steps, one baseline executed twice covered
    # 0.91 (benchmarks/error_rates.py)
    # ... and never more degrees of freedom than the samples have: where the drift is exactly
    # 0 at many degrees of freedom (the modelled device clock, a configuration's executions
    # timed alike), the interval is the samples' alone, and read with the normal quantile at
    # the 20-sample floor it passed a candidate at the bar 3.05-3.85% of the time for 2.5%
    df = float(min(drift.df, max(1, estimate.n - 1)))
    z_c = float(norm.ppf(0.5 + confidence / 2))
    q = float(student_t.ppf(0.5 + confidence / 2, df)) if np.isfinite(df) else z_c
    se = float(np.sqrt(total))
    center = float(np.log(estimate.point))
    return DriftInterval(
        Interval(float(np.exp(center - q * se)), float(np.exp(center + q * se))),
        se,
        df,
        drift_var / total,
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class BlockedEstimate:
    """A speed-up from interleaved blocks: the blocks, not the requests, are the units.

    ``point`` is exp of the Hodges-Lehmann centre of the blocks' log ratios
    d_j = log(mean baseline / mean candidate) within block j; ``interval`` exp of their
    Wilcoxon signed-rank interval (None below the blocks that level needs: 6 at 95%);
    ``sd_log`` the blocks' robust spread (the normal-consistent median absolute deviation of
    the d_j, log scale), the noise a further block adds; ``diffs`` the d_j themselves, for the
    test at a bar (``stats.signed_rank.p_above``). ``df`` is blocks - 1, the units' count as
    the report names it.
    """

    point: float | None
    interval: Interval | None
    sd_log: float | None
    df: int
    blocks: int
    n: int
    dropped: int
    confidence: float
    diffs: tuple[float, ...] = ()
    #: how the blocks were read: ``signed-rank`` from ``RANK_MIN_BLOCKS`` blocks, ``t`` below
    rule: Literal["signed-rank", "t"] = "signed-rank"

    def p_above(self, bar: float) -> float | None:
        """One-sided p-value that the speed-up exceeds ``bar``, dual to ``interval``: the
        signed-rank test of the blocks' log ratios against log(bar), or the t test below
        ``RANK_MIN_BLOCKS`` blocks; None without an interval."""
        from scipy.stats import t as student_t

        if not self.diffs or self.interval is None:
            return None
        d = np.asarray(self.diffs)
        if self.rule == "signed-rank":
            return p_above(d, float(np.log(bar)))
        se = float(d.std(ddof=1)) / float(np.sqrt(len(d)))
        if se <= 0:
            return 0.0 if float(d.mean()) > np.log(bar) else 1.0
        t = (float(d.mean()) - float(np.log(bar))) / se
        return float(student_t.sf(t, len(d) - 1))


#: from this many blocks they are read by rank (Hodges-Lehmann, signed-rank interval); below,
#: by the paired t interval: with few blocks the rank interval's ends are the extreme Walsh
#: averages (none at all under 6 at 95%: a true 0.8x at concurrency 16 from 100 requests, 4
#: blocks of 32, was never REJECT), and a starved block cannot be told from the spread anyway
RANK_MIN_BLOCKS = 12


def blocked_speedup(
    blocks: Sequence[tuple[Samples, Samples]], confidence: float = 0.95
) -> BlockedEstimate:
    """Speed-up from B-request blocks that alternate between the arms in time (ABBA...).

    Block j holds the same prompts on both arms, measured one after the other, so a drift
    slower than a block (a server warming, a neighbour's load, a machine heating) lands on both
    sides of its pair and cancels; what is left (the prompts' noise, a drift within the block,
    the requests sharing engine steps at concurrency > 1) is in the spread of the blocks'
    log ratios d_j = log(mean TPOT_base,j / mean TPOT_cand,j). The blocks are the experimental
    units, as in a randomised block design (Box, Hunter & Hunter (2005), *Statistics for
    Experimenters*, ch. 4), and the speed-up is read from their d_j by rank:

        log S = median of the Walsh averages (d_i + d_j) / 2   (Hodges-Lehmann),
        interval = the signed-rank interval at ``confidence``  (exact under symmetry),

    from ``RANK_MIN_BLOCKS`` blocks (below, by the paired t interval over the d_j at J - 1
    degrees of freedom), not by the t interval: on a wall clock shared with other work one
    starved segment puts a block's ratio off by several times, which drags a mean and
    inflates a standard deviation (seen on a two-core host: one arm's blocks 10x off, a
    slower draft model read as 1.13x [0.67, 1.92]), and moves a rank by one. Coverage is
    checked by simulation under four noise models, starved segments among them
    (``benchmarks/error_rates.py --blocked``). Pairs with a missing value are dropped and
    counted; a block with no complete pair is dropped.
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    diffs: list[float] = []
    n = dropped = 0
    for j, (base, cand) in enumerate(blocks):
        data, lost = paired_complete(((f"blocks[{j}].base", base), (f"blocks[{j}].cand", cand)))
        dropped += lost
        b, c = data
        if np.any(b <= 0) or np.any(c <= 0):
            raise ValueError(f"blocks[{j}] must hold positive values")
        if len(b) == 0:
            continue
        n += len(b)
        diffs.append(float(np.log(np.mean(b)) - np.log(np.mean(c))))
    count = len(diffs)
    if count == 0:
        return BlockedEstimate(
            point=None, interval=None, sd_log=None, df=0, blocks=0, n=0, dropped=dropped,
            confidence=confidence,
        )  # fmt: skip
    d = np.asarray(diffs)
    if count < RANK_MIN_BLOCKS:
        return _blocked_t(d, n, dropped, confidence)
    est = signed_rank(d, confidence)
    interval = None
    if est.interval is not None:
        interval = Interval(float(np.exp(est.interval.lower)), float(np.exp(est.interval.upper)))
    return BlockedEstimate(
        point=float(np.exp(est.center)),
        interval=interval,
        sd_log=est.spread,
        df=count - 1,
        blocks=count,
        n=n,
        dropped=dropped,
        confidence=confidence,
        diffs=tuple(diffs),
        rule="signed-rank",
    )


def _blocked_t(d: FloatArray, n: int, dropped: int, confidence: float) -> BlockedEstimate:
    """Fewer than ``RANK_MIN_BLOCKS`` blocks: the paired t interval over their log ratios."""
    from scipy.stats import t as student_t

    count = len(d)
    center = float(d.mean())
    if count < 2:
        return BlockedEstimate(
            point=float(np.exp(center)), interval=None, sd_log=None, df=0, blocks=count, n=n,
            dropped=dropped, confidence=confidence, diffs=tuple(float(x) for x in d), rule="t",
        )  # fmt: skip
    sd = float(d.std(ddof=1))
    se = sd / float(np.sqrt(count))
    q = float(student_t.ppf(0.5 + confidence / 2, count - 1))
    return BlockedEstimate(
        point=float(np.exp(center)),
        interval=Interval(float(np.exp(center - q * se)), float(np.exp(center + q * se))),
        sd_log=sd,
        df=count - 1,
        blocks=count,
        n=n,
        dropped=dropped,
        confidence=confidence,
        diffs=tuple(float(x) for x in d),
        rule="t",
    )


def blocks_needed(
    sd_log: float, gap_log: float, confidence: float, most: int = 10_000
) -> int | None:
    """The fewest blocks J whose interval, at a spread ``sd_log`` of the blocks' log ratios,
    has a half-width under ``gap_log`` (the distance of the estimate from the bar it must
    clear): what would decide the gate if the estimate held. Below ``RANK_MIN_BLOCKS`` the t
    interval's half-width; from there the signed-rank interval's, the t half-width widened by
    sqrt(pi/3) (its asymptotic width at normal data, its efficiency 3/pi). None when even
    ``most`` blocks would not (a gap of about 0)."""
    from scipy.stats import t as student_t

    if gap_log <= 0 or not np.isfinite(sd_log):
        return None
    if sd_log <= 0:
        return 2
    widen = float(np.sqrt(np.pi / 3.0))
    j = np.arange(2, most + 1)
    scale = np.where(j >= RANK_MIN_BLOCKS, widen, 1.0)
    half = student_t.ppf(0.5 + confidence / 2, j - 1) * scale * sd_log / np.sqrt(j)
    found = np.flatnonzero(half < gap_log)
    return int(j[found[0]]) if found.size else None
