"""Pure statistics for specverdict's gates: formulas, references and rules in docs/statistics.md.

Every function takes numbers or arrays (and, where it resamples, a seeded
``numpy.random.Generator``) and returns a frozen result; nothing here reads files, clocks or the
environment, or prints. Gate results carry ``decidable`` and a one-line ``why``.

    quality   mcnemar_exact, paired_noninferiority, tango_interval, noninferiority_sample_size
    speed     speedup_ratio_of_means, speedup_geometric_mean, throughput_ratio,
              noise_floor, execution_drift, interval_with_drift
    accept    acceptance_interval, mal_interval, acceptance_from_totals, mal_from_totals
    explain   decompose_speedup, position_rates, expected_tokens, claim_check
    identity  greedy_identity
    rates     wilson_interval
    resample  stratified_drop
"""

from specverdict.stats._common import Interval
from specverdict.stats.acceptance import (
    NO_PER_REQUEST,
    AcceptanceEstimate,
    acceptance_from_totals,
    acceptance_interval,
    mal_from_totals,
    mal_interval,
)
from specverdict.stats.bootstrap import MIN_RESAMPLES, Method, paired_bootstrap
from specverdict.stats.decomposition import (
    Decomposition,
    PositionRates,
    decompose_speedup,
    mal_from_rates,
    position_rates,
)
from specverdict.stats.expectation import (
    ClaimCheck,
    SpeedupPrediction,
    claim_check,
    expected_tokens,
    expected_tokens_iid,
    predict_speedup,
    speculative_step_cost,
)
from specverdict.stats.identity import Divergence, GreedyIdentity, first_divergence, greedy_identity
from specverdict.stats.mcnemar import McNemarResult, mcnemar_exact, min_attainable_p
from specverdict.stats.noninferiority import (
    Decision,
    NonInferiorityResult,
    approximate_sample_size,
    noninferiority_sample_size,
    paired_noninferiority,
    tango_interval,
    tango_statistic,
)
from specverdict.stats.proportion import wilson_interval
from specverdict.stats.resampled import ResampledDrop, stratified_drop
from specverdict.stats.speed import (
    NoiseFloor,
    RatioEstimate,
    RepeatRatio,
    execution_drift,
    interval_with_drift,
    noise_floor,
    speedup_geometric_mean,
    speedup_ratio_of_means,
    throughput_ratio,
)

__all__ = [
    "MIN_RESAMPLES",
    "NO_PER_REQUEST",
    "AcceptanceEstimate",
    "ClaimCheck",
    "Decision",
    "Decomposition",
    "Divergence",
    "GreedyIdentity",
    "Interval",
    "McNemarResult",
    "Method",
    "NoiseFloor",
    "NonInferiorityResult",
    "PositionRates",
    "RatioEstimate",
    "RepeatRatio",
    "ResampledDrop",
    "SpeedupPrediction",
    "acceptance_from_totals",
    "acceptance_interval",
    "approximate_sample_size",
    "claim_check",
    "decompose_speedup",
    "execution_drift",
    "expected_tokens",
    "expected_tokens_iid",
    "first_divergence",
    "greedy_identity",
    "interval_with_drift",
    "mal_from_rates",
    "mal_from_totals",
    "mal_interval",
    "mcnemar_exact",
    "min_attainable_p",
    "noise_floor",
    "noninferiority_sample_size",
    "paired_bootstrap",
    "paired_noninferiority",
    "position_rates",
    "predict_speedup",
    "speculative_step_cost",
    "speedup_geometric_mean",
    "speedup_ratio_of_means",
    "stratified_drop",
    "tango_interval",
    "tango_statistic",
    "throughput_ratio",
    "wilson_interval",
]
