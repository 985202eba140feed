"""From a campaign's verdicts to a policy per stage and load level, and to the expectations
``watch`` pins. Pure: the verdicts and the registry's evidence come in, models go out.

Rules: a cell (stage x load level) runs the candidate that is ADOPT there with the highest
lower bound of its speed-up interval (ties: the smaller k); no ADOPT candidate means speculation
off. Engine flags come from the engine's adapter (``speculative_args``, ``launch_files``), the
same ones a run was launched with. For vLLM, when a stage's ADOPT cells differ only in k over
concurrency levels, they are also folded into one ``--speculative-config`` with vLLM's
``num_speculative_tokens_per_batch_size`` (inclusive ranges ``[start, end, K]``, the first from 1,
K = 0 for speculation off, the global ``num_speculative_tokens`` the largest K).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from specverdict.campaign.plan import Pair, Plan
from specverdict.campaign.spec import RunSpec, Speculation
from specverdict.engines.registry import adapter_for
from specverdict.engines.vllm import ADAPTIVE_KEY, K_SCHEDULE_KEY, vllm_speculative_config
from specverdict.policy import madrule
from specverdict.policy.model import (
    Cell,
    Considered,
    Expectation,
    Expectations,
    MadRuleComparison,
    OverridesTarget,
    PairEvidence,
    Policy,
    StagePolicy,
)
from specverdict.verdict.model import PairVerdict

#: methods vLLM's documentation says its per-batch-size K schedule was tested with
VLLM_SCHEDULE_TESTED = ("eagle", "eagle3", "dflash")
#: the verdict's reason status that decided it, by verdict
_DECIDING = {"REJECT": "reject", "INCONCLUSIVE": "inconclusive", "INVALID": "invalid"}

PairKey = tuple[str, str, str]  # stage, load label, candidate label


def pair_key(v: PairVerdict) -> PairKey:
    return (v.stage, v.load, v.candidate)


def deciding(v: PairVerdict) -> str:
    """``gate: message`` of the reason that decided a verdict other than ADOPT ('' for ADOPT)."""
    status = _DECIDING.get(v.verdict)
    if status is None:
        return ""
    r = next((r for r in v.reasons if r.status == status), None)
    return "" if r is None else f"{r.gate}: {r.message}"


def gate_kind(gate: str) -> str:
    """What kind of rule a gate is, in the words a policy uses for a disagreement."""
    if gate.startswith("quality") or gate.startswith("identity"):
        return "quality gate"
    if gate.startswith(("speed", "noise", "family")):
        return "interval"
    return "validity"


def _lower(v: PairVerdict) -> float:
    if v.speedup_interval is not None:
        return v.speedup_interval[0]
    return v.speedup if v.speedup is not None else float("-inf")


def run_dir_name(stage: str, load: str) -> str:
    short = load.replace("concurrency=", "c").replace("rate=", "r").replace("/s", "ps")
    return re.sub(r"[^A-Za-z0-9_.-]", "_", f"{stage}-{short}")


def _engine(spec: RunSpec, run_dir: str) -> tuple[tuple[str, ...], dict[str, str]]:
    adapter = adapter_for(spec.engine.kind)
    return tuple(adapter.speculative_args(spec, run_dir)), adapter.launch_files(spec)


def _mad_comparison(
    chosen: str,
    rows: Sequence[tuple[PairVerdict, Pair]],
    evidence: Mapping[PairKey, PairEvidence],
    batch: int,
) -> MadRuleComparison | None:
    points: list[madrule.SweepPoint] = []
    base_done = False
    for v, pair in rows:
        ev = evidence.get(pair_key(v))
        if ev is None:
            continue
        if not base_done and ev.baseline_throughputs:
            points += [madrule.SweepPoint(batch, "none", 0, t) for t in ev.baseline_throughputs]
            base_done = True
        k = pair.candidate.speculation.k or 0
        points += [madrule.SweepPoint(batch, v.candidate, k, t) for t in ev.candidate_throughputs]
    if not points:
        return None
    rule = madrule.select(points)[batch]
    by_label = {v.candidate: v for v, _ in rows}
    cons = {m.configuration: m for m in madrule.measurements(points)}
    if rule.configuration == chosen:
        return MadRuleComparison(
            choice=chosen, conservative_objective=rule.conservative, agrees=True
        )
    picked = by_label.get(rule.configuration)
    if picked is not None and picked.verdict != "ADOPT":
        why = deciding(picked)
        gate = why.partition(":")[0]
        text = (
            f"{gate_kind(gate)}: the rule picks {rule.configuration} on throughput alone "
            f"({rule.conservative:.1f} tok/s after its MAD penalty); its verdict is "
            f"{picked.verdict} ({why or 'no deciding reason'})"
        )
    elif picked is None:  # the rule keeps speculation off, the policy runs a candidate
        ours = by_label[chosen]
        base = cons.get("none")
        mine = cons.get(chosen)
        ci = ours.speedup_interval
        text = (
            "interval: the rule keeps speculation off "
            f"(baseline {base.conservative if base else float('nan'):.1f} tok/s vs {chosen} "
            f"{mine.conservative if mine else float('nan'):.1f} after the MAD penalty, unpaired, "
            "1% tie band to the smaller k), while the paired speed-up interval "
            + (f"[{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "")
            + " clears 1, the noise floor and min_speedup with quality non-inferior"
        )
    else:  # both ADOPT: different rankings
        adopted = by_label.get(chosen)
        text = (
            f"interval: {chosen} and {rule.configuration} are both ADOPT; the policy ranks by "
            "the lower bound of the paired speed-up interval "
            f"({_lower(adopted) if adopted else float('nan'):.2f} vs {_lower(picked):.2f}), the rule by "
            "median - 1.4826 MAD throughput with a 1% tie band to the smaller k"
        )
    if chosen == "none" and picked is not None and picked.verdict != "ADOPT":
        text += "; no candidate is ADOPT here, so speculation stays off"
    return MadRuleComparison(
        choice=rule.configuration,
        conservative_objective=rule.conservative,
        agrees=False,
        why=text,
    )


def _cell(
    stage: str,
    load: str,
    rows: Sequence[tuple[PairVerdict, Pair]],
    evidence: Mapping[PairKey, PairEvidence],
) -> Cell:
    baseline = rows[0][1].baseline
    concurrency = baseline.load.concurrency
    considered = tuple(
        Considered(
            configuration=v.candidate,
            verdict=v.verdict,
            deciding=deciding(v),
            engine_k=v.engine_k,
            speedup=v.speedup,
            speedup_interval=v.speedup_interval,
        )
        for v, _ in rows
    )
    adopt = [(v, p) for v, p in rows if v.verdict == "ADOPT"]
    run_dir = run_dir_name(stage, load)
    if not adopt:
        args, files = _engine(baseline, run_dir)
        why = "no candidate is ADOPT here: " + "; ".join(
            f"{v.candidate_label} {c.verdict}" + (f" ({c.deciding})" if c.deciding else "")
            for c, (v, _) in zip(considered, rows, strict=True)
        )
        chosen, spec, v = "none", Speculation(), None
        run_ids: tuple[str, ...] = ()
        base_ids = rows[0][0].baseline_run_ids
    else:
        v, pair = max(adopt, key=lambda vp: (_lower(vp[0]), -(vp[1].candidate.speculation.k or 0)))
        args, files = _engine(pair.candidate, run_dir)
        chosen, spec = v.candidate, pair.candidate.speculation
        lo = _lower(v)
        why = (
            f"ADOPT with the highest lower bound of its speed-up interval ({lo:.2f}) among "
            f"{len(adopt)} ADOPT candidate(s) of {len(rows)}"
        )
        run_ids, base_ids = v.candidate_run_ids, v.baseline_run_ids
    ev = evidence.get(pair_key(v)) if v is not None else None
    batch = concurrency if concurrency is not None else 0
    return Cell(
        load=load,
        concurrency=concurrency,
        choice=chosen,
        speculation=spec,
        why=why,
        speedup=v.speedup if v else None,
        speedup_interval=v.speedup_interval if v else None,
        acceptance=ev.acceptance if ev else None,
        mean_accepted_length=ev.mean_accepted_length if ev else None,
        baseline_run_ids=base_ids,
        candidate_run_ids=run_ids,
        engine_args=args,
        engine_files=files,
        run_dir=run_dir if files else "",
        considered=considered,
        mad_rule=_mad_comparison(chosen, rows, evidence, batch),
    )


def vllm_schedule(
    cells: Sequence[Cell], specs: Mapping[str, RunSpec]
) -> tuple[dict[str, object] | None, list[str]]:
    """One vLLM ``--speculative-config`` covering every concurrency level of a stage, or None
    with the reason in the notes."""
    notes: list[str] = []
    on = [c for c in cells if c.choice != "none"]
    if not on:
        return None, ["speculation off at every load level: no --speculative-config"]
    if any(c.concurrency is None for c in cells):
        return None, ["load levels are request rates: vLLM's schedule is per batch size"]
    if any(c.speculation.adaptive_verification for c in on):
        return _adaptive_config(cells, on, specs)
    if any(c.speculation.k_schedule is not None for c in on):
        return None, [
            "an ADOPT configuration has its own k schedule: its flags carry it; no other "
            "schedule is folded from the load levels"
        ]
    shapes = {c.speculation.model_copy(update={"k": None}) for c in on}
    ks = {c.speculation.k for c in on}
    if len(shapes) > 1:
        labels = ", ".join(sorted({c.choice for c in on}))
        return None, [
            f"the ADOPT configurations differ in more than k across load levels ({labels}): no "
            "single engine configuration covers them; run the one of the level you serve at"
        ]
    if len(ks) == 1 and len(on) == len(cells):
        return None, ["one configuration at every load level: its flags need no schedule"]
    ordered = sorted(cells, key=lambda c: c.concurrency or 0)
    top = max(on, key=lambda c: c.speculation.k or 0)
    config = vllm_speculative_config(specs[top.choice])
    assert config is not None
    schedule: list[list[int]] = []
    for i, c in enumerate(ordered):
        start = 1 if i == 0 else c.concurrency or 1
        end = (ordered[i + 1].concurrency or 1) - 1 if i + 1 < len(ordered) else c.concurrency or 1
        k = c.speculation.k or 0 if c.choice != "none" else 0
        if schedule and schedule[-1][2] == k:
            schedule[-1][1] = end
        else:
            schedule.append([start, end, k])
    config[K_SCHEDULE_KEY] = schedule
    if (ordered[0].concurrency or 1) > 1:
        notes.append(
            f"the first range starts at 1 (vLLM requires it) below the lowest measured "
            f"concurrency {ordered[0].concurrency}: batch sizes under it were not measured"
        )
    notes.append(
        f"batch sizes above {ordered[-1].concurrency} were not measured: vLLM keeps the last "
        "range's K there"
    )
    method = top.speculation.method
    if method not in VLLM_SCHEDULE_TESTED:
        notes.append(
            f"vLLM documents num_speculative_tokens_per_batch_size as tested with "
            f"{', '.join(VLLM_SCHEDULE_TESTED)}; method {method} may not support it: use the "
            "per-level flags if it fails"
        )
    notes.append("vLLM turns the schedule off with data parallelism (--data-parallel-size > 1)")
    return config, notes


def _expectation(
    stage: str, load: str, label: str, k: int | None, ev: PairEvidence | None, v: PairVerdict
) -> Expectation | None:
    if ev is None or k is None or ev.acceptance is None or ev.mean_accepted_length is None:
        return None
    return Expectation(
        stage=stage,
        configuration=label,
        load=load,
        k=k,
        engine_k=v.engine_k,
        acceptance=ev.acceptance,
        mean_accepted_length=ev.mean_accepted_length,
        run_ids=v.candidate_run_ids,
        baseline_run_ids=v.baseline_run_ids,
        dispersion=ev.dispersion,
        verdict=v.verdict,
    )


def pinned_anyway(
    plan: Plan,
    verdicts: Sequence[PairVerdict],
    evidence: Mapping[PairKey, PairEvidence],
    labels: Sequence[str],
) -> tuple[list[Expectation], list[str]]:
    """The expectations of the configurations named (``policy --configuration``), in every
    stage and load level they were measured at, whatever their verdicts, and one warning per
    cell where the verdict is not ADOPT or nothing could be pinned. A label no candidate has is
    a ``ValueError`` naming the known ones."""
    known = sorted({p.candidate.speculation.label for p in plan.pairs})
    for label in labels:
        if label not in known:
            raise ValueError(
                f"--configuration {label!r}: no candidate of the campaign; known: "
                + ", ".join(known)
            )
    pairs = {
        (p.candidate.stage, p.candidate.load.label, p.candidate.speculation.label): p
        for p in plan.pairs
    }
    out: list[Expectation] = []
    warnings: list[str] = []
    for v in verdicts:
        if v.candidate not in labels:
            continue
        pair = pairs[pair_key(v)]
        where = f"{v.candidate_label} in stage {v.stage} at {v.load}"
        e = _expectation(
            v.stage, v.load, v.candidate, pair.candidate.speculation.k, evidence.get(pair_key(v)), v
        )
        if e is None:
            warnings.append(
                f"{where}: no per-request acceptance was measured, nothing to pin (measure it "
                "with an engine that reports acceptance per request)"
            )
            continue
        if v.verdict != "ADOPT":
            why = deciding(v)
            warnings.append(
                f"{where} is {v.verdict}" + (f" ({why})" if why else "") + ": pinned anyway, "
                "as asked; watch checks that it keeps what it measured, not that it pays"
            )
        out.append(e)
    return out, warnings


def _adaptive_config(
    cells: Sequence[Cell], on: Sequence[Cell], specs: Mapping[str, RunSpec]
) -> tuple[dict[str, object] | None, list[str]]:
    """An ADOPT configuration that verifies adaptively: its own flags (with
    ``enable_adaptive_verification``) for the stage, no k schedule folded over it."""
    if len({c.speculation for c in on}) > 1:
        labels = ", ".join(sorted({c.choice for c in on}))
        return None, [
            f"the ADOPT configurations differ across load levels ({labels}), one of them "
            "verifying adaptively: no single engine configuration covers them; run the one of "
            "the level you serve at"
        ]
    config = vllm_speculative_config(specs[on[0].choice])
    notes = [
        f"{on[0].choice} verifies adaptively ({ADAPTIVE_KEY}: true): vLLM sizes each step's "
        "verify length to its load, so no k schedule is folded over it"
    ]
    off = [c.load for c in cells if c.choice == "none"]
    if off:
        notes.append(
            f"it was not ADOPT at {', '.join(off)}: where you serve at those levels, serve "
            "without speculation"
        )
    return config, notes


def build_policy(
    plan: Plan,
    verdicts: Sequence[PairVerdict],
    evidence: Mapping[PairKey, PairEvidence],
    overrides: OverridesTarget | None = None,
    pin: Sequence[str] = (),
) -> tuple[Policy, Expectations]:
    """The policy of a campaign and the expectations it pins: ADOPT cells, and the
    configurations ``pin`` names wherever they were measured (``pinned_anyway``)."""
    pairs = {
        (p.candidate.stage, p.candidate.load.label, p.candidate.speculation.label): p
        for p in plan.pairs
    }
    stages: list[StagePolicy] = []
    pinned: list[Expectation] = []
    for stage in plan.campaign.stages:
        rows = [(v, pairs[pair_key(v)]) for v in verdicts if v.stage == stage]
        if not rows:
            continue
        loads = list(dict.fromkeys(v.load for v, _ in rows))
        cells = tuple(
            _cell(stage, load, [r for r in rows if r[0].load == load], evidence) for load in loads
        )
        specs = {v.candidate: p.candidate for v, p in rows}
        config: dict[str, object] | None = None
        notes: list[str] = []
        if plan.campaign.engine.kind == "vllm":
            config, notes = vllm_schedule(cells, specs)
        elif all(c.choice == "none" for c in cells):
            notes = ["speculation off at every load level"]
        stages.append(
            StagePolicy(
                stage=stage,
                suite=rows[0][0].suite,
                cells=cells,
                vllm_speculative_config=config,
                notes=tuple(notes),
            )
        )
        adopted = {(v.load, v.candidate): v for v, _ in rows if v.verdict == "ADOPT"}
        for c in cells:
            v = adopted.get((c.load, c.choice))
            ev = evidence.get((stage, c.load, c.choice))
            e = None if v is None else _expectation(stage, c.load, c.choice, c.speculation.k, ev, v)
            if e is not None:
                pinned.append(e)
    if pin:
        extra, _ = pinned_anyway(plan, verdicts, evidence, pin)
        have = {(e.stage, e.load, e.configuration) for e in pinned}
        pinned += [e for e in extra if (e.stage, e.load, e.configuration) not in have]
    name, kind = plan.campaign.name, plan.campaign.engine.kind
    policy = Policy(campaign=name, engine=kind, stages=tuple(stages))
    return policy, Expectations(
        campaign=name, engine=kind, expectations=tuple(pinned), overrides=overrides
    )


def overrides_target(plan: Plan, base: Path) -> OverridesTarget | None:
    """The campaign's override audit with its paths made absolute against ``base``."""
    cfg = plan.campaign.audits.overrides
    if cfg is None:
        return None
    root = None if cfg.root is None else str((base / cfg.root).resolve())
    if cfg.via is None and root is None:
        root = str(base.resolve())
    return OverridesTarget(manifest=str((base / cfg.manifest).resolve()), root=root, via=cfg.via)
