"""Resampling a pair whose quality gate could not decide: sample-level evidence.

The discordant samples of a pair (every one) and a seeded subset of its concordant samples are
re-run ``seeds`` times on both configurations, each time with another sampling seed. Each
re-run is an ordinary stored run (its spec differs from the original in the seed and the sample
ids, so it has its own fingerprint, and a repeated ``resample`` reuses what is done). Per sample,
the pass probability of each configuration is estimated from the re-runs alone: the original
answers chose the strata (discordant or concordant), so counting them would bias each stratum
toward what selected it. The gate is :func:`specverdict.stats.stratified_drop` against the
campaign's margin.

Error budget (design note 024): the campaign keeps a share of the quality gate's alpha for
resampling (``gates.resample_share``; 0.2 with sampling, none with greedy decoding), which the
verdict's betting test never spends. Each resample analysis on new data (more seeds, other
concordant samples) is one look, recorded on the candidate run (``RunManifest.resamples``), and
spends a Lan-DeMets Pocock-type share of the reserve over ``gates.resample_looks`` looks; past
them, or for a pair that is not INCONCLUSIVE, resampling is refused. So verdict, resample and
raised seeds together stay at the campaign's alpha (union bound).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from specverdict.campaign.model import Ids
from specverdict.campaign.plan import Pair, Plan
from specverdict.campaign.spec import RunSpec
from specverdict.errors import ConfigError
from specverdict.records import RunRecord
from specverdict.records.manifest import ResampleLook
from specverdict.run.runner import Runner
from specverdict.stats import ResampledDrop, stratified_drop
from specverdict.stats.looks import LookShare, look_share, rerun_share
from specverdict.store.base import Store
from specverdict.verdict import Arm, PairVerdict, arm_for, arm_from_runs, judge_pair
from specverdict.verdict.history import earlier_looks


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
    look: LookShare
    #: the two-sided level of this look's interval: alpha x reserve x the look's share
    alpha: float
    notes: tuple[str, ...] = field(default_factory=tuple)


def resample_look(
    looks: tuple[ResampleLook, ...], seeds: int, concordant: int, declared: int
) -> LookShare:
    """The look an analysis with ``seeds`` and ``concordant`` is: the same data as a recorded
    look is that look again (re-reading spends nothing), new data the next one."""
    for done in looks:
        if (done.seeds, done.concordant) == (seeds, concordant):
            return look_share(done.index, declared)
    return look_share(len(looks) + 1, declared)


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
    """Re-run the pair's discordant samples and ``concordant`` concordant ones ``seeds`` times.

    The steps: the request checked against the campaign's budget (``_budget``), the pair's
    verdict read as ``verdict`` reads it (``_inconclusive``: only an undecided pair is
    resampled), the samples drawn (``_strata``), re-run (``_rerun``), and the stratified drop
    judged at the look's share of the reserve, the look recorded on the candidate's run."""
    cand_run = store.get_run(cand_run.run_id)  # its recorded looks as they stand now
    pair, reserve, look = _budget(plan, cand_run, seeds, concordant)
    base_arm, cand_arm, verdict = _inconclusive(store, plan, pair, cand_run)
    discordant, rest, ids = _strata(pair, base_arm, cand_arm, verdict, concordant)
    evidence, run_ids, notes = _rerun(
        runner, store, plan, pair, cand_run, ids, set(discordant), seeds
    )
    gates = plan.campaign.gates
    level = gates.alpha * reserve * look.share
    gate = stratified_drop(
        [e.drop for e in evidence if e.discordant],
        [e.drop for e in evidence if not e.discordant],
        len(rest),
        gates.margin,
        alpha=level,
    )
    notes.append(
        f"look {look.index} of {look.declared} (gates.resample_looks): interval at "
        f"{100 * (1 - level):.2f}%, {100 * look.share:.0f}% of the {100 * reserve:.0f}% of "
        "alpha kept for resampling"
    )
    record = ResampleLook(
        index=look.index,
        seeds=seeds,
        concordant=concordant,
        alpha=level,
        decision=gate.decision,
        at=time.time(),
    )
    _record(store, cand_run, record)
    return ResampleResult(
        baseline=pair.baseline.speculation.label,
        candidate=pair.candidate.speculation.label,
        stage=pair.candidate.stage,
        seeds=seeds,
        evidence=evidence,
        gate=gate,
        run_ids=run_ids,
        look=look,
        alpha=level,
        notes=tuple(notes),
    )


def _record(store: Store, cand_run: RunRecord, record: ResampleLook) -> None:
    """The look on the candidate's run (the same look read again replaces itself)."""
    taken = [r for r in cand_run.manifest.resamples if r.index != record.index]
    store.update_run(
        cand_run.run_id,
        manifest={"resamples": sorted([*taken, record], key=lambda r: r.index)},
    )


def _budget(
    plan: Plan, cand_run: RunRecord, seeds: int, concordant: int
) -> tuple[Pair, float, LookShare]:
    """The candidate's pair, the share of alpha the campaign keeps for resampling, and the look
    these re-runs are; a request the budget does not allow is a one-line error."""
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
    gates = plan.campaign.gates
    reserve = gates.resample_reserve(pair.candidate.sampling.temperature)
    if reserve <= 0.0:
        raise ConfigError(
            f"run {cand_run.run_id}: the campaign keeps no alpha for resampling "
            f"(gates.resample_share {reserve:g}; with greedy decoding re-runs repeat the same "
            "answers): set gates.resample_share before the first verdict to keep a share"
        )
    look = resample_look(cand_run.manifest.resamples, seeds, concordant, gates.resample_looks)
    if look.beyond:
        raise ConfigError(
            f"run {cand_run.run_id}: the pair's resample budget is spent: "
            f"{gates.resample_looks} look(s) of {gates.resample_looks} taken "
            "(gates.resample_looks); more seeds would be another look at the same hypothesis"
        )
    return pair, reserve, look


def _inconclusive(
    store: Store, plan: Plan, pair: Pair, cand_run: RunRecord
) -> tuple[Arm, Arm, PairVerdict]:
    """The pair's arms and verdict, judged as ``verdict`` judges it (a fixed design at the look
    its re-runs make it); a decided pair, or one without scores, is refused: a second look at a
    decided pair would spend error the verdict has already used."""
    gates = plan.campaign.gates
    base_arm = arm_for(store, pair.baseline)
    cand_arm = arm_from_runs(store, [cand_run])
    earlier = earlier_looks(store.list_runs(), pair.candidate, [cand_run.run_id])
    verdict = judge_pair(
        base_arm,
        cand_arm,
        gates,
        speed_metric=plan.campaign.speed_metric(cand_run.spec.stage),
        look=rerun_share(len(earlier) + 1) if cand_run.manifest.sequential is None else None,
    )
    if base_arm is None or cand_arm is None:
        raise ConfigError(f"run {cand_run.run_id}: the pair has no completed baseline run")
    if verdict.verdict != "INCONCLUSIVE":
        raise ConfigError(
            f"run {cand_run.run_id}: the pair's verdict is {verdict.verdict}; resample is for "
            "INCONCLUSIVE pairs only"
        )
    if verdict.base_pass_rate is None:
        raise ConfigError(
            f"nothing to resample: suite {pair.candidate.suite} has no scores for this pair"
        )
    return base_arm, cand_arm, verdict


def _strata(
    pair: Pair, base_arm: Arm, cand_arm: Arm, verdict: PairVerdict, concordant: int
) -> tuple[list[str], list[str], list[str]]:
    """The discordant samples, the concordant rest, and the ids re-run: every discordant one
    and ``concordant`` of the rest drawn with the candidate's seed. Paired as the verdict pairs
    them: answered on both arms (a failed request is no quality evidence)."""
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
    return discordant, rest, ids


def _rerun(
    runner: Runner,
    store: Store,
    plan: Plan,
    pair: Pair,
    cand_run: RunRecord,
    ids: list[str],
    discordant: set[str],
    seeds: int,
) -> tuple[tuple[SampleEvidence, ...], tuple[str, ...], list[str]]:
    """Each arm re-run on ``ids`` with ``seeds`` new seeds: per sample, the passes and answers
    of the re-runs only (the original answers chose the strata), the re-runs' ids, and notes on
    what was left out."""
    base_seed = pair.candidate.sampling.seed or 0
    passes = {i: [0, 0] for i in ids}
    counts = {i: [0, 0] for i in ids}
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
    notes = []
    if pair.candidate.sampling.temperature == 0.0:
        notes.append(
            "temperature 0: other seeds repeat the same greedy answers, so the re-runs only "
            "reveal nondeterminism; resampling is meant for sampled decoding"
        )
    if failed:
        notes.append(f"{failed} re-run requests failed and were left out of the evidence")
    unanswered = [i for i in ids if 0 in counts[i]]
    if unanswered:
        notes.append(
            f"{len(unanswered)} sample(s) got no answered re-run on one arm and are left out, "
            f"which can bias the estimate: {', '.join(unanswered[:5])}"
        )
    evidence = tuple(
        SampleEvidence(i, i in discordant, passes[i][0], counts[i][0], passes[i][1], counts[i][1])
        for i in ids
        if 0 not in counts[i]
    )
    return evidence, tuple(run_ids), notes
