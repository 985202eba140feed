"""Calibrations: A/A executions of a configuration stored under its engine's identity
(``specverdict calibrate``), read by other campaigns as a prior estimate of run-to-run drift.

A launched engine's executions are the speed gate's units (each start brings its own host
state), and a campaign that runs its baseline twice per stage reads the drift at a few degrees
of freedom: the t quantile at df 3 is 3.18 where df 15 gives 2.13. A calibration runs one
configuration many times once; every later campaign whose baseline has the same drift
identity (``drift_identity``: engine, model, quantization, speculation and load level, not
the prompts, the stage or the sampling) on the same host pools those executions' drift with
its own, checked against it (``stats.speed.pool_drift``). Design note 034.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

from specverdict.campaign.plan import Plan
from specverdict.campaign.spec import RunSpec
from specverdict.records import RunRecord


def drift_identity(spec: RunSpec) -> str:
    """What an execution's drift depends on: the engine (kind, address, launch arguments),
    the model, its quantization, the speculation and the load level; not the prompts, the
    stage, the suite or the sampling, which change what is measured, not how a host's state
    moves an execution's mean."""
    ident = spec.identity()
    keep = {k: ident[k] for k in ("engine", "model", "quantization", "speculation", "load")}
    canonical = json.dumps(keep, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def calibration_groups(runs: Sequence[RunRecord], plan: Plan) -> list[list[RunRecord]]:
    """The stored calibrations a campaign pools: per fingerprint, the calibration executions
    (its own baseline's, numbered after its planned repeats, or another campaign's) whose drift
    identity is that of one of the campaign's baselines, measured on the host its baselines
    were (when both recorded one), within ``gates.calibration_max_age_h`` of the baseline
    executions that stand (completed, the newest of each repeat; none before the campaign's
    baseline is measured); only groups of two or more completed executions say anything."""
    baselines = {drift_identity(p.baseline) for p in plan.pairs}
    baseline_prints = {p.baseline.fingerprint for p in plan.pairs}
    newest: dict[tuple[str, int], RunRecord] = {}
    for r in sorted(runs, key=lambda r: r.created_at):
        if (
            r.fingerprint in baseline_prints
            and r.status == "completed"
            and not r.manifest.calibration
        ):
            newest[r.fingerprint, r.repeat] = r
    measured = list(newest.values())
    if not measured:
        return []
    hosts = {r.manifest.host for r in measured if r.manifest.host is not None}
    first = min(r.created_at for r in measured)
    last = max(r.created_at for r in measured)
    max_age = plan.campaign.gates.calibration_max_age_h * 3600.0
    groups: dict[str, list[RunRecord]] = {}
    for run in runs:
        if (
            not run.manifest.calibration
            or run.status != "completed"
            or drift_identity(run.spec) not in baselines
        ):
            continue
        if hosts and run.manifest.host is not None and run.manifest.host not in hosts:
            continue
        if run.created_at < first - max_age or run.created_at > last + max_age:
            continue
        groups.setdefault(run.fingerprint, []).append(run)
    return [g for g in groups.values() if len(g) >= 2]
