"""Smaller versions of benchmarks/error_rates.py: the verdict's error rates by simulation.

Rates are counted over a few hundred simulated pairs; each bound is the target plus a margin a
correct rule stays under with high probability at that count (binomial tail < 0.5%), and
the rule these replaced fails it (recorded in the comments)."""

from __future__ import annotations

from benchmarks.error_rates import GATES, Truth, fixed, pooled, savings, sequential

from specverdict.verdict import PairVerdict


def test_run_drift_no_longer_fakes_a_speed_up_at_the_bar() -> None:
    """True S at min_speedup, 3% drift per execution, baseline executed twice: the old A/A
    floor rule adopted 25% (101/400); the drift-aware interval must stay near alpha/2."""
    truth = Truth(n=200, speedup=GATES.min_speedup, drift=0.03, base_runs=2, discordant=0.0)
    sims = 120
    hits = fixed(truth, sims, lambda v: v.verdict == "ADOPT")
    assert hits <= 8, f"{hits}/{sims} false speed ADOPTs"
    hits = pooled(truth, sims)
    assert hits <= 8, f"{hits}/{sims} false speed ADOPTs with the drift pooled over 3 baselines"


def test_a_truly_faster_candidate_is_still_adopted_under_drift() -> None:
    truth = Truth(n=200, speedup=1.5, drift=0.03, base_runs=2, discordant=0.0)
    sims = 60
    hits = pooled(truth, sims)
    assert hits >= 0.8 * sims, f"only {hits}/{sims} ADOPTs at a true 1.5x"


def test_until_decided_keeps_a_false_adopt_near_alpha_over_its_looks() -> None:
    """Every look taken until a decision (the worst case: no futility stop), a candidate truly
    worse by the margin; and at the bar on speed with 3% drift. Fixed-n re-read at each look
    without the look's share is what these bounds are against (a peeking speed gate)."""
    sims = 40
    hits, used = sequential(Truth(n=200, drop=GATES.margin), 50, sims, adopt)
    assert hits <= 4, f"{hits}/{sims} false ADOPTs worse by the margin"
    assert used > 150  # most pairs went on to the last looks: the test saw every look
    truth = Truth(n=200, speedup=GATES.min_speedup, drift=0.03, base_runs=2, discordant=0.0)
    hits, _ = sequential(truth, 50, sims, adopt)
    assert hits <= 4, f"{hits}/{sims} false speed ADOPTs at the bar"


def test_until_decided_keeps_a_false_reject_of_a_lossless_faster_candidate_under_alpha() -> None:
    sims = 40
    hits, _ = sequential(Truth(n=200, speedup=1.3), 50, sims, lambda v: v.verdict == "REJECT")
    assert hits <= 6, f"{hits}/{sims} false REJECTs"


def test_until_decided_takes_fewer_samples_for_the_same_verdicts() -> None:
    """The four-pair campaign at 1% drift: at most 60% of the fixed-n samples, with the
    verdicts the fixed design gets and no wrong decision."""
    sv = savings(200, 50, 6, run_drift=0.01)
    assert sv.sequential_samples <= 0.6 * sv.fixed_samples, sv
    assert sv.sequential_wrong == 0.0 and sv.fixed_wrong == 0.0, sv
    assert sv.sequential_right >= sv.fixed_right - 0.1, sv


def adopt(v: PairVerdict) -> bool:
    return v.verdict == "ADOPT"
