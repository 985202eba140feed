"""From the run registry to the arms of each comparison: the only part of ``verdict`` that reads.

An arm is every completed execution (repeat) of one fingerprint, in repeat order; runs that are
still running, failed or interrupted are left out, so a verdict never rests on a partial run.

A pair of a sequential campaign (``run --until-decided``) is judged as its data stood at its
last recorded look (the first n samples of the stage's selection, the run-to-run drift pooled
over every configuration's first n), so that re-reading the verdict later, after its baseline
went on for other candidates, is the same look and not a new one. Samples or executions added
outside the recorded looks count as one more look (design note 022). A pair without a design
is read at the look its re-runs make it (``verdict.history``, design note 032).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from specverdict.campaign.model import Gates
from specverdict.campaign.plan import Pair, Plan, speculations
from specverdict.campaign.spec import RunSpec
from specverdict.measure.results import run_acceptance, run_results
from specverdict.records import RunRecord
from specverdict.records.failures import failed_run_message
from specverdict.records.manifest import Look, SequentialDesign
from specverdict.stats.looks import LookShare, look_share, look_size, rerun_share
from specverdict.stats.multiplicity import adjust
from specverdict.stats.speed import ExecutionDrift, execution_drift, pool_drift
from specverdict.store.base import Store
from specverdict.suites import Sample, suite_for
from specverdict.verdict.calibration import calibration_groups
from specverdict.verdict.history import describe as describe_looks
from specverdict.verdict.history import earlier_looks
from specverdict.verdict.judge import Arm, execution_speeds, judge_pair
from specverdict.verdict.model import PairVerdict, Reason
from specverdict.verdict.slices import groups, restrict, slice_of


def latest_per_repeat(runs: Sequence[RunRecord]) -> list[RunRecord]:
    """The completed executions that stand, one per repeat in repeat order: the newest of each
    repeat (an execution measured again, ``run --remeasure`` or a server whose identity
    changed, replaces the earlier one)."""
    newest: dict[int, RunRecord] = {}
    for r in sorted((r for r in runs if r.status == "completed"), key=lambda r: r.created_at):
        newest[r.repeat] = r
    return [newest[k] for k in sorted(newest)]


def arm_from_runs(store: Store, runs: Sequence[RunRecord]) -> Arm | None:
    """The arm made of these stored executions (all of one fingerprint), or None if empty."""
    done = latest_per_repeat(runs)
    if not done:
        return None
    samples = tuple(tuple(store.samples(r.run_id)) for r in done)
    acceptances = tuple(run_acceptance(store, r, s) for r, s in zip(done, samples, strict=True))
    return Arm(
        spec=done[0].spec,
        run_ids=tuple(r.run_id for r in done),
        samples=samples,
        acceptance=acceptances[0],
        acceptances=acceptances,
        manifests=tuple(r.manifest for r in done),
    )


def _failed(store: Store, runs: Sequence[RunRecord], spec: RunSpec, role: str) -> str | None:
    """Why the ``role`` arm has no completed run, when its last execution failed (no request
    answered): the count and first error, or None."""
    failed = [r for r in runs if r.fingerprint == spec.fingerprint and r.status == "failed"]
    if not failed:
        return None
    run = failed[-1]
    latest = {s.sample_id: s for s in store.samples(run.run_id)}
    line = failed_run_message(
        run.run_id, spec.speculation.label, spec.engine.base_url, list(latest.values()), 0.0
    )
    if line is None:
        why = run.manifest.error or "no request answered"
        line = f"run {run.run_id} ({spec.speculation.label}) failed: {why}"
    return f"the {role}'s {line}; fix the server or base_url and run the campaign again"


def arm_for(store: Store, spec: RunSpec, runs: Sequence[RunRecord] | None = None) -> Arm | None:
    """The arm of ``spec`` among ``runs`` (default: every stored run): its executions, not
    the calibration's (``specverdict calibrate``), which feed the drift only."""
    every = store.list_runs() if runs is None else runs
    return arm_from_runs(
        store,
        [r for r in every if r.fingerprint == spec.fingerprint and not r.manifest.calibration],
    )


def session_links(arms: Sequence[Arm]) -> list[int]:
    """Per arm, a label that arms share when any of their executions shared a launched
    server's start (``RunManifest.session``), transitively: ``execution_drift``'s ``linked``.
    Executions timed on the engine's modelled device clock link nothing: their times are the
    device model's, which no host state moves."""
    parent = list(range(len(arms)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[str, int] = {}
    for g, arm in enumerate(arms):
        for manifest, samples in zip(arm.manifests, arm.samples, strict=False):
            timed = {s.clock for s in samples if s.status == "ok"}
            if timed == {"device"}:
                continue
            served = manifest.sessions or ((manifest.session,) if manifest.session else ())
            for session in served:
                if session in owner:
                    parent[root(g)] = root(owner[session])
                else:
                    owner[session] = g
    return [root(g) for g in range(len(arms))]


def campaign_verdicts(store: Store, plan: Plan) -> list[PairVerdict]:
    """One verdict per planned pair (stage, load level, candidate), in plan order."""
    gates = plan.campaign.gates
    seed = plan.campaign.sampling.seed or 0
    expected = {}
    for cand in plan.campaign.candidates:
        for sp in speculations(cand, plan.campaign.engine.kind):
            expected[sp] = cand.expected_acceptance
    # The registry is listed once, and a baseline shared by several candidates is read once.
    runs = store.list_runs()
    arms: dict[str, Arm | None] = {}

    def arm(spec: RunSpec) -> Arm | None:
        if spec.fingerprint not in arms:
            arms[spec.fingerprint] = arm_for(store, spec, runs)
        return arms[spec.fingerprint]

    # Run-to-run drift pooled over every configuration the campaign executed more than once
    # (same host, same engine): its degrees of freedom add up across stages and loads. It is
    # estimated on the metric the pair's speed gate compares (each stage names its own).
    # A stored calibration of a baseline's engine (``verdict.calibration``) is pooled in,
    # checked against the campaign's own A/A (``stats.speed.pool_drift``).
    unique = list({r.fingerprint: r for r in plan.runs}.values())
    executed = [arm(spec) for spec in unique]
    pooled: dict[str, ExecutionDrift | None] = {}
    # Executions that shared a launched server's start (one session over several stages) are
    # one host state: their groups count once (``session_links``).
    calibrations = [
        a for a in (arm_from_runs(store, g) for g in calibration_groups(runs, plan)) if a
    ]
    prior: dict[str, ExecutionDrift | None] = {}

    def calibrated(metric: str) -> ExecutionDrift | None:
        if metric not in prior:
            prior[metric] = execution_drift(
                [execution_speeds(a, None, metric) for a in calibrations],
                session_links(calibrations),
            )
        return prior[metric]

    present = [a for a in executed if a is not None]
    links = session_links(present)

    def drift_on(metric: str) -> ExecutionDrift | None:
        if metric not in pooled:
            pooled[metric] = pool_drift(
                execution_drift([execution_speeds(a, None, metric) for a in present], links),
                calibrated(metric),
            )
        return pooled[metric]

    out: list[PairVerdict] = []
    stage_samples: dict[str, list[Sample]] = {}

    def selection(spec: RunSpec) -> list[str]:
        """The stage's selection, in its order: the order a sequential campaign adds samples."""
        if spec.stage not in selections:
            selections[spec.stage] = [s.id for s in suite_for(spec).select(spec.samples)]
        return selections[spec.stage]

    selections: dict[str, list[str]] = {}
    designs = _stage_designs(plan, arm)
    drifts: dict[tuple[int, str], ExecutionDrift | None] = {}

    def drift_at(index: int, metric: str) -> ExecutionDrift | None:
        """The pooled drift on ``metric`` as the data stood at look ``index``: every
        configuration on the first samples its stage had at that look (all of a stage without
        a design)."""
        if (index, metric) not in drifts:
            tables = []
            for spec, a in zip(unique, executed, strict=True):
                if a is None:
                    continue
                design = designs.get(spec.stage)
                ids = selection(spec)
                if design is not None:
                    ids = ids[: look_size(index, design.looks, design.batch, design.max_samples)]
                tables.append(execution_speeds(a, ids, metric))
            drifts[index, metric] = pool_drift(execution_drift(tables, links), calibrated(metric))
        return drifts[index, metric]

    for pair in plan.pairs:
        base_arm, cand_arm = arm(pair.baseline), arm(pair.candidate)
        look: LookShare | None = None
        note = ""
        metric = plan.campaign.speed_metric(pair.candidate.stage)
        pair_drift = drift_on(metric)
        design = _design(cand_arm)
        if design is not None and base_arm is not None and cand_arm is not None:
            last = design.taken[-1] if design.taken else None
            if last is not None and _as_recorded(base_arm, cand_arm, last, selection):
                prefix = set(selection(pair.candidate)[: last.samples])
                base_arm, cand_arm = _prefix(base_arm, prefix), _prefix(cand_arm, prefix)
                look = look_share(last.index, design.looks)
                pair_drift = drift_at(last.index, metric)
                note = f"{last.samples} samples, as recorded at that look"
            else:
                index = (last.index if last is not None else 0) + 1
                look = look_share(index, design.looks)
                note = (
                    "samples or executions added after "
                    + (f"look {last.index}" if last is not None else "the design was recorded")
                    + " outside --until-decided count as one more look"
                )
        elif design is None and cand_arm is not None:
            # a fixed design: its re-runs on other samples or seeds are its looks
            earlier = earlier_looks(runs, pair.candidate, cand_arm.run_ids)
            look = rerun_share(len(earlier) + 1)
            note = describe_looks(earlier) if earlier else ""

        def judge(
            b: Arm | None,
            c: Arm | None,
            pair: Pair = pair,
            look: LookShare | None = look,
            note: str = note,
            pair_drift: ExecutionDrift | None = pair_drift,
            metric: str = metric,
        ) -> PairVerdict:
            return judge_pair(
                b,
                c,
                gates,
                seed,
                stage=pair.candidate.stage,
                suite=str(pair.candidate.suite),
                load=pair.candidate.load.label,
                baseline_label=pair.baseline.speculation.label,
                candidate_label=pair.candidate.speculation.label,
                expected_acceptance=expected.get(pair.candidate.speculation),
                drift=pair_drift,
                look=look,
                look_note=note,
                speed_metric=metric,
            )

        verdict = judge(base_arm, cand_arm)
        failed = [
            line
            for role, spec, a in (
                ("baseline", pair.baseline, base_arm),
                ("candidate", pair.candidate, cand_arm),
            )
            if a is None and (line := _failed(store, runs, spec, role)) is not None
        ]
        if failed:  # a run that got no answer is a failure to say, not a run to start
            reason = Reason(gate="runs", status="invalid", message="; ".join(failed))
            verdict = verdict.model_copy(update={"verdict": "INVALID", "reasons": (reason,)})
        out.append(verdict)
        wanted = plan.campaign.stages[pair.candidate.stage].slices
        if not wanted or base_arm is None or cand_arm is None:
            continue
        stage = pair.candidate.stage
        if stage not in stage_samples:
            stage_samples[stage] = suite_for(pair.candidate).samples()
        for spec in wanted:
            for label, ids in groups(spec, slice_of(spec, stage_samples[stage], base_arm)).items():
                v = judge(restrict(base_arm, ids), restrict(cand_arm, ids))
                out.append(v.model_copy(update={"slice": label}))
    return family_control(out, gates)


def _design(a: Arm | None) -> SequentialDesign | None:
    """The sequential design recorded on an arm's executions (the latest looks), if any."""
    if a is None:
        return None
    found = [m.sequential for m in a.manifests if m.sequential is not None]
    return max(found, key=lambda d: len(d.taken)) if found else None


def _stage_designs(plan: Plan, arm: Callable[[RunSpec], Arm | None]) -> dict[str, SequentialDesign]:
    """Per stage, the design its candidates recorded (one design per stage and campaign)."""
    out: dict[str, SequentialDesign] = {}
    for pair in plan.pairs:
        d = _design(arm(pair.candidate))
        if d is not None and pair.candidate.stage not in out:
            out[pair.candidate.stage] = d
    return out


def _as_recorded(
    base: Arm, cand: Arm, last: Look, selection: Callable[[RunSpec], list[str]]
) -> bool:
    """Whether the pair's data are those of its last recorded look: the same executions, and
    the candidate's samples within the look's first n of the selection (the baseline may have
    gone on for other candidates: it is cut back to them)."""
    if tuple(cand.run_ids) != last.candidate_run_ids:
        return False
    if tuple(base.run_ids) != last.baseline_run_ids:
        return False
    prefix = set(selection(cand.spec)[: last.samples])
    return all(s.sample_id in prefix for run in cand.samples for s in run)


def _prefix(a: Arm, ids: set[str]) -> Arm:
    """The arm on ``ids`` only. Its acceptance stays the executions' own: counters cover
    whole executions, and the declared-against-actual check holds for any part of one."""
    return replace(
        a, samples=tuple(tuple(s for s in run if s.sample_id in ids) for run in a.samples)
    )


#: what each family option controls, in words for the reasons
FAMILY_WORDS = {"holm": "Holm (family-wise error)", "bh": "Benjamini-Hochberg (false discoveries)"}


def family_control(verdicts: list[PairVerdict], gates: Gates) -> list[PairVerdict]:
    """Hold every ADOPT of a campaign to the family's level: the family is every pair judged
    (candidates x stages x load levels, and every slice of a stage that asks for slices), each
    one-sided at alpha/2; a pair that is not ADOPT on
    its own counts as a hypothesis not rejected (p = 1). An ADOPT that does not survive becomes
    INCONCLUSIVE and says at which level it would have; one that does says so too."""
    m = len(verdicts)
    level = gates.alpha / 2.0
    ps = [v.p_adopt if v.verdict == "ADOPT" and v.p_adopt is not None else 1.0 for v in verdicts]
    if gates.family == "none":
        return [
            v.model_copy(
                update={
                    "reasons": (
                        *v.reasons,
                        Reason(
                            gate="family",
                            status="info",
                            message=f"no family control (gates.family: none): {m} pair(s) "
                            f"each at one-sided {level:g}",
                            data={"pairs": m},
                        ),
                    )
                }
            )
            if v.verdict == "ADOPT"
            else v
            for v in verdicts
        ]
    decided = adjust(ps, level, gates.family)
    out = []
    for v, a in zip(verdicts, decided, strict=True):
        if v.verdict != "ADOPT":
            out.append(v)
            continue
        how = f"{FAMILY_WORDS[gates.family]} over the campaign's {m} pair(s)"
        data = {"p_value": a.p_value, "level": a.threshold, "pairs": m, "family": gates.family}
        if a.rejected:
            reason = Reason(
                gate="family",
                status="pass",
                message=f"holds after {how}: p = {a.p_value:.2g} <= {a.threshold:.2g}",
                data=data,
            )
            out.append(v.model_copy(update={"reasons": (*v.reasons, reason)}))
        else:
            reason = Reason(
                gate="family",
                status="inconclusive",
                message=f"ADOPT for this pair alone (p = {a.p_value:.2g}), not after {how} "
                f"(its level {a.threshold:.2g}): more samples, fewer candidates, or a wider "
                "margin",
                data=data,
            )
            out.append(
                v.model_copy(
                    update={
                        "verdict": "INCONCLUSIVE",
                        "reasons": (*v.reasons, reason),
                    }
                )
            )
    return out


def compare_runs(
    store: Store, base_run: RunRecord, cand_run: RunRecord, gates: Gates | None = None
) -> PairVerdict:
    """Judge two stored executions; the baseline's other completed repeats give the noise floor."""
    repeats = [
        r
        for r in store.list_runs()
        if r.fingerprint == base_run.fingerprint and r.run_id != base_run.run_id
    ]
    base = arm_from_runs(store, [base_run, *repeats])
    if base is not None and base.run_ids[0] != base_run.run_id:
        # keep the named execution first: it is the one paired sample by sample
        first = base.run_ids.index(base_run.run_id)
        order = [first, *(i for i in range(len(base.run_ids)) if i != first)]
        base = replace(
            base,
            run_ids=tuple(base.run_ids[i] for i in order),
            samples=tuple(base.samples[i] for i in order),
            acceptance=base.acceptances[first],
            acceptances=tuple(base.acceptances[i] for i in order),
            manifests=tuple(base.manifests[i] for i in order),
        )
    cand = arm_from_runs(store, [cand_run])
    if cand is not None:  # earlier executions of the candidate's configuration, for triage
        earlier = [
            r
            for r in store.list_runs()
            if r.fingerprint == cand_run.fingerprint
            and r.run_id != cand_run.run_id
            and r.status == "completed"
            and r.created_at < cand_run.created_at
        ]
        history = tuple(
            (r.run_id, run_results(store, r.run_id).acceptance.acceptance_rate) for r in earlier
        )
        cand = replace(cand, history=history)
    return judge_pair(base, cand, gates or Gates(), cand_run.spec.sampling.seed or 0)
