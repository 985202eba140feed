"""Resampling a pair whose quality gate could not decide: sample-level evidence.

The discordant samples of a pair (every one) and a seeded subset of its concordant samples are
re-run ``seeds`` times on both configurations, each time with another sampling seed. Each
re-run is an ordinary stored run (its spec differs from the original in the seed and the sample
ids, so it has its own fingerprint, and a repeated ``resample`` reuses what is done). Per sample,
the pass probability of each configuration counts the original answer and the re-runs; the gate
is then :func:`specverdict.stats.stratified_drop` against the campaign's margin.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np

from specverdict.campaign.model import Ids
from specverdict.campaign.plan import Plan
from specverdict.campaign.spec import RunSpec
from specverdict.errors import ConfigError
from specverdict.records import RunRecord
from specverdict.runner import Runner
from specverdict.stats import ResampledDrop, stratified_drop
from specverdict.store.base import Store
from specverdict.verdict import arm_for, arm_from_runs, judge_pair


@dataclass(frozen=True)
class SampleEvidence:
    sample_id: str
    discordant: bool
    base_passes: int
    base_runs: int
    cand_passes: int
    cand_runs: int

    @property
    def drop(self) -> float:
        return self.base_passes / self.base_runs - self.cand_passes / self.cand_runs


@dataclass(frozen=True)
class ResampleResult:
    baseline: str
    candidate: str
    stage: str
    seeds: int
    evidence: tuple[SampleEvidence, ...]
    gate: ResampledDrop
    run_ids: tuple[str, ...]
    notes: tuple[str, ...] = field(default_factory=tuple)


def _derived(spec: RunSpec, seed: int, ids: list[str]) -> RunSpec:
    sampling = spec.sampling.model_copy(update={"seed": seed})
    return spec.model_copy(update={"sampling": sampling, "samples": Ids(ids=ids)})


def resample(
    store: Store,
    plan: Plan,
    cand_run: RunRecord,
    runner: Runner,
    *,
    seeds: int,
    concordant: int,
) -> ResampleResult:
    """Re-run the pair's discordant samples and ``concordant`` concordant ones ``seeds`` times."""
    if seeds < 1:
        raise ConfigError(f"--seeds {seeds}: expected at least 1")
    if concordant < 1:
        raise ConfigError(
            f"--concordant {concordant}: expected at least 1 (the concordant samples stand for "
            "the rest of the suite)"
        )
    pair = next((p for p in plan.pairs if p.candidate.fingerprint == cand_run.fingerprint), None)
    if pair is None:
        raise ConfigError(
            f"run {cand_run.run_id} ({cand_run.spec.label}) is not a candidate of campaign "
            f"{plan.campaign.name!r}"
        )
    base_arm = arm_for(store, pair.baseline)
    cand_arm = arm_from_runs(store, [cand_run])
    verdict = judge_pair(base_arm, cand_arm, plan.campaign.gates)
    if base_arm is None or cand_arm is None:
        raise ConfigError(f"run {cand_run.run_id}: the pair has no completed baseline run")
    if verdict.verdict != "INCONCLUSIVE":
        # a second look at a decided pair is a second test of the same hypothesis: it would
        # spend error the verdict has already used
        raise ConfigError(
            f"run {cand_run.run_id}: the pair's verdict is {verdict.verdict}; resample is for "
            "INCONCLUSIVE pairs only"
        )
    if verdict.base_pass_rate is None:
        raise ConfigError(
            f"nothing to resample: suite {pair.candidate.suite} has no scores for this pair"
        )
    # answered on both arms, as the verdict pairs them: a failed request is no quality evidence
    base_by = {s.sample_id: s for s in base_arm.first if s.status == "ok"}
    cand_by = {s.sample_id: s for s in cand_arm.first if s.status == "ok"}
    paired = sorted(base_by.keys() & cand_by.keys())
    discordant = sorted(d.sample_id for d in verdict.supplement)
    rest = [i for i in paired if i not in set(discordant)]
    base_seed = pair.candidate.sampling.seed or 0
    drawn = sorted(random.Random(base_seed).sample(rest, min(concordant, len(rest))))
    ids = discordant + drawn
    if not ids:
        raise ConfigError("nothing to resample: the pair has no paired samples")
    notes = []
    if pair.candidate.sampling.temperature == 0.0:
        notes.append(
            "temperature 0: other seeds repeat the same greedy answers, so the re-runs only "
            "reveal nondeterminism; resampling is meant for sampled decoding"
        )
    passes = {i: [int(base_by[i].passed), int(cand_by[i].passed)] for i in ids}
    counts = {i: [1, 1] for i in ids}
    run_ids = []
    failed = 0
    for k in range(1, seeds + 1):
        for arm, spec in enumerate((pair.baseline, pair.candidate)):
            run = runner.run_one(plan, _derived(spec, base_seed + k, ids), 0)
            store.update_run(run.run_id, manifest={"resample_of": cand_run.run_id})
            run_ids.append(run.run_id)
            for s in store.samples(run.run_id):
                if s.sample_id not in passes:
                    continue
                if s.status != "ok":  # no answer, no evidence: left out and counted
                    failed += 1
                    continue
                passes[s.sample_id][arm] += s.passed
                counts[s.sample_id][arm] += 1
    if failed:
        notes.append(f"{failed} re-run requests failed and were left out of the evidence")
    evidence = tuple(
        SampleEvidence(
            i, i in set(discordant), passes[i][0], counts[i][0], passes[i][1], counts[i][1]
        )
        for i in ids
    )
    gate = stratified_drop(
        [e.drop for e in evidence if e.discordant],
        [e.drop for e in evidence if not e.discordant],
        len(rest),
        plan.campaign.gates.margin,
        np.random.default_rng(base_seed),
        alpha=plan.campaign.gates.alpha,
    )
    return ResampleResult(
        baseline=pair.baseline.speculation.label,
        candidate=pair.candidate.speculation.label,
        stage=pair.candidate.stage,
        seeds=seeds,
        evidence=evidence,
        gate=gate,
        run_ids=tuple(run_ids),
        notes=tuple(notes),
    )
