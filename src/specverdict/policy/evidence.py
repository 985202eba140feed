"""The registry side of ``policy``: for each pair, the candidate's acceptance and MAL with
their cluster-bootstrap intervals over requests, the design effect of its verify steps, and
each execution's output throughput (the sweep data the median - MAD rule reads)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from specverdict.measure.results import run_results
from specverdict.policy.build import PairKey, pair_key
from specverdict.policy.model import Figure, PairEvidence
from specverdict.records import RequestAcceptance
from specverdict.stats.acceptance import AcceptanceEstimate, acceptance_interval, mal_interval
from specverdict.stats.steps import design_effect
from specverdict.store.base import Store
from specverdict.verdict.model import PairVerdict


def _figure(est: AcceptanceEstimate) -> Figure | None:
    if est.point is None:
        return None
    if est.interval is None:
        return Figure(point=est.point)
    return Figure(point=est.point, lower=est.interval.lower, upper=est.interval.upper)


def _throughputs(store: Store, run_ids: Sequence[str]) -> tuple[float, ...]:
    out = []
    for run_id in run_ids:
        t = run_results(store, run_id).summary.tokens_per_s
        if t is not None:
            out.append(t)
    return tuple(out)


def pair_evidence(store: Store, v: PairVerdict, k: int | None, seed: int = 0) -> PairEvidence:
    accepted: list[int] = []
    drafted: list[int] = []
    steps: list[int] = []
    for run_id in v.candidate_run_ids:
        for s in store.samples(run_id):
            if s.status != "ok" or not s.acceptance:
                continue
            m = RequestAcceptance.parse(s)
            accepted.append(m.num_accepted_draft_tokens)
            drafted.append(m.num_draft_tokens)
            if m.num_spec_steps is not None:
                steps.append(m.num_spec_steps)
            elif k:
                steps.append(-(-m.num_draft_tokens // k))
    acceptance = mal = None
    dispersion = 1.0
    if accepted and k:
        rng = np.random.default_rng(seed)
        acceptance = _figure(acceptance_interval(accepted, drafted, rng))
        if len(steps) == len(accepted):
            mal = _figure(mal_interval(accepted, steps, rng))
            dispersion = design_effect(accepted, steps, k)
    return PairEvidence(
        acceptance=acceptance,
        mean_accepted_length=mal,
        dispersion=dispersion,
        baseline_throughputs=_throughputs(store, v.baseline_run_ids),
        candidate_throughputs=_throughputs(store, v.candidate_run_ids),
    )


def collect_evidence(
    store: Store, verdicts: Sequence[PairVerdict], ks: dict[PairKey, int | None], seed: int = 0
) -> dict[PairKey, PairEvidence]:
    return {pair_key(v): pair_evidence(store, v, ks.get(pair_key(v)), seed) for v in verdicts}
