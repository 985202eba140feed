"""A sequential campaign's looks when a server start is dear: fewer, larger looks.

A look extends every open execution. Where the host cannot keep every configuration's server up
between looks (``engine.launch.servers`` below the configurations of a stage and load level, or
``sessions: execution``), each look starts each configuration's server again, and with a start
of minutes the looks' starts cost more than the samples they save. The batch is then raised,
before the first sample, so that a look's starts take at most ``START_SHARE`` of its engine
time: with ``R`` starts a look, ``S`` seconds a start, ``E`` executions a look and ``t`` engine
seconds a sample, a look of ``B`` samples per execution holds ``R S`` seconds of starts against
``E B t`` of measuring, so ``B >= R S (1 - share) / (share E t)``, rounded up to whole batches
and at most the selection (one look: the fixed design).

``S`` and ``t`` come from the registry, never from this campaign's measured samples: the median
start of the executions stored on the same engine command, model and quantization (one segment
each, so one start each), and the baseline's measured seconds per sample at the same load
level. Without both the batch stays as asked, and the log says so. The design stays declared
before the first sample: the raised batch is recorded in the design (``declared_batch``,
``why``) and a resumed campaign keeps it (design note 042).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import median

from specverdict.campaign.plan import Plan
from specverdict.campaign.spec import RunSpec
from specverdict.records import RunRecord

#: the share of a look's engine time its server starts may take
START_SHARE = 0.2


@dataclass(frozen=True)
class StartCost:
    """What a start and a sample cost on this engine, read from stored executions."""

    start_s: float
    starts: int
    sample_s: float
    baselines: int


def _same_engine(runs: Sequence[RunRecord], spec: RunSpec) -> list[RunRecord]:
    """The completed ones of ``runs`` on ``spec``'s engine command, model and quantization."""
    return [
        r
        for r in runs
        if r.status == "completed"
        and r.spec.engine == spec.engine
        and r.spec.model == spec.model
        and r.spec.quantization == spec.quantization
    ]


def _per_sample(same: Sequence[RunRecord], spec: RunSpec) -> list[float]:
    """The baselines' measured seconds per sample at ``spec``'s load level, one per run."""
    found = []
    for r in same:
        if r.spec.speculation.method != "none" or r.spec.load.level != spec.load.level:
            continue
        samples = sum(seg.samples for seg in r.manifest.segments)
        if samples:
            found.append(sum(seg.wall_s for seg in r.manifest.segments) / samples)
    return found


def start_cost(runs: Sequence[RunRecord], spec: RunSpec) -> StartCost | None:
    """The median start and the baseline's engine seconds per sample at ``spec``'s load, from
    the completed ones of ``runs`` (the registry's) on the same engine command, model and
    quantization; None without either."""
    same = _same_engine(runs, spec)
    starts = [
        t.startup_s
        for r in same
        if (t := r.manifest.engine_time) is not None
        and t.startup_s
        and len(r.manifest.segments) == 1
    ]
    per_sample = _per_sample(same, spec)
    if not starts or not per_sample:
        return None
    return StartCost(median(starts), len(starts), median(per_sample), len(per_sample))


def suite_sample_s(runs: Sequence[RunRecord], spec: RunSpec) -> float | None:
    """As ``start_cost``'s seconds per sample, from the baselines of ``spec``'s suite only
    (suites' samples differ in length: a function is not an agent episode); None without
    one."""
    same = [r for r in _same_engine(runs, spec) if r.spec.suite == spec.suite]
    per_sample = _per_sample(same, spec)
    return median(per_sample) if per_sample else None


def look_starts(plan: Plan, spec: RunSpec) -> tuple[int, int]:
    """For ``spec``'s stage and load level: the server starts each look makes (0 when every
    configuration's server stays up between looks, or on attached servers) and the executions
    each look extends."""
    group = [r for r in plan.runs if (r.stage, r.load) == (spec.stage, spec.load)]
    campaign = plan.campaign
    executions = sum(
        campaign.load.baseline_executions(campaign.blocked())
        if r.speculation.method == "none"
        else campaign.load.repeats
        for r in group
    )
    launch = campaign.engine.launch
    if spec.engine.base_url is not None or launch is None:
        return 0, executions
    if launch.sessions == "round" and launch.servers >= len(group):
        return 0, executions
    return (len(group) if launch.sessions == "round" else executions), executions


def dear_batch(batch: int, n: int, starts: int, executions: int, cost: StartCost) -> int:
    """The batch whose look's starts take at most ``START_SHARE`` of its engine time: ``batch``
    when it already does, else the next whole multiple of it that does, at most ``n``."""
    if starts == 0 or cost.sample_s <= 0:
        return batch
    need = starts * cost.start_s * (1 - START_SHARE) / (START_SHARE * executions * cost.sample_s)
    if need <= batch:
        return batch
    return min(n, math.ceil(need / batch) * batch)
