"""Smaller versions of benchmarks/error_rates.py: the verdict's error rates by simulation.

Rates are counted over a few hundred simulated pairs; each bound is the target plus a margin a
correct rule stays under with high probability at that count (binomial tail < 0.5%), and
the rule these replaced fails it (recorded in the comments)."""

from __future__ import annotations

from benchmarks.error_rates import GATES, Truth, fixed, pooled


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
