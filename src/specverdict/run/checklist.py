"""The pre-flight checklist: what must hold before a campaign's figures can decide anything.

Each item is ``ok``, ``missing`` (the campaign cannot support a decision: ``specverdict run``
refuses to start without ``--force``) or ``unknown`` (cannot be told before running, or a
safeguard that is advised but not required), with why. The items follow the procedure: a stage
chosen; a baseline of the same engine and quantization (and, once run, stored); the stage's
quality observable; acceptance recordable on this engine; a rule that keeps quality drops out of
production; completion and agent workloads not mixed; external claims checked, never used as
expectations; loader and override audits configured.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from specverdict.campaign.plan import Plan
from specverdict.engines.registry import adapter_for
from specverdict.errors import ConfigError
from specverdict.plugins import ENGINES
from specverdict.run.feasibility import feasibility
from specverdict.store.base import Store
from specverdict.suites import Suite, suite_for

Status = Literal["ok", "missing", "unknown"]


@dataclass(frozen=True)
class Item:
    name: str
    status: Status
    why: str


def has_scorer(suite: Suite) -> bool:
    return suite.scores()


def evaluate(plan: Plan, store: Store | None = None) -> list[Item]:
    """The checklist of a campaign, item by item (see the module docstring)."""
    c = plan.campaign
    unscored, mixed = _suite_problems(plan)
    g = c.gates
    explicit = "gates" in c.model_fields_set
    return [
        Item("stage chosen", "ok", f"stages: {', '.join(sorted(c.stages))}; each judged alone"),
        _baseline(plan, store),
        Item(
            "quality observable",
            "missing" if unscored else "ok",
            "no quality breakdown for: " + "; ".join(unscored)
            if unscored
            else "every stage's suite scores its outputs with a failure breakdown",
        ),
        _engine_can_run(plan),
        _acceptance_recordable(c.engine.kind),
        Item(
            "quality drops kept out",
            "ok",
            f"{'' if explicit else 'default '}gates: non-inferiority margin {100 * g.margin:g} pp "
            f"at alpha {g.alpha:g}; a significant drop rejects however fast",
        ),
        Item(
            "workloads not mixed",
            "missing" if mixed else "ok",
            "; ".join(mixed) if mixed else "one suite per stage, each of its own stage's kind",
        ),
        Item("claims are not expectations", "ok", _claims(plan, store)),
        _audits(plan),
    ]


def _baseline(plan: Plan, store: Store | None) -> Item:
    c = plan.campaign
    if c.baseline is None:
        return Item(
            "baseline", "missing", "the campaign has no baseline (baseline: null): no pairs"
        )
    done: set[str] = set()
    if store is not None:
        done = {r.fingerprint for r in store.list_runs() if r.status == "completed"}
    base_specs = {p.baseline.fingerprint: p.baseline for p in plan.pairs}
    stored = [f for f in base_specs if f in done]
    same = f"same engine ({c.engine.kind}) and quantization ({c.quantization}) by construction"
    if base_specs and len(stored) == len(base_specs):
        return Item("baseline", "ok", f"{len(stored)} baseline run(s) stored; {same}")
    return Item(
        "baseline",
        "unknown",
        f"{len(stored)} of {len(base_specs)} baseline run(s) stored yet (a run measures them "
        f"first); {same}",
    )


def _suite_problems(plan: Plan) -> tuple[list[str], list[str]]:
    """The stages whose suite scores nothing, and those running another stage's kind of suite."""
    unscored, mixed = [], []
    first = {r.stage: r for r in reversed(plan.runs)}
    for stage in plan.campaign.stages:
        spec = first[stage]
        try:
            suite = suite_for(spec)
        except (KeyError, ConfigError) as exc:
            unscored.append(f"{stage} ({spec.suite}: {exc})")
            continue
        if spec.synthetic is not None:
            unscored.append(f"{stage} (synthetic: judged on speed and acceptance only)")
        elif not has_scorer(suite):
            unscored.append(f"{stage} ({spec.suite} has no scorer)")
        if not stage.startswith("side:") and suite.stage != stage:
            mixed.append(f"stage {stage} runs {spec.suite}, a {suite.stage} suite")
    return unscored, mixed


def _engine_can_run(plan: Plan) -> Item:
    problems = feasibility(plan).errors
    return Item(
        "engine can run it",
        "missing" if problems else "ok",
        "; ".join(problems)
        if problems
        else f"every run's method, options and load are ones {plan.campaign.engine.kind} can run",
    )


def _acceptance_recordable(kind: str) -> Item:
    adapter = adapter_for(kind)
    if adapter.acceptance_recordable == "none":
        own = [k for k in ENGINES.names() if adapter_for(k).acceptance_recordable == "probed"]
        return Item(
            "acceptance recordable",
            "missing",
            f"engine kind {kind} exposes no acceptance: use the engine's own kind "
            f"({', '.join(own)})",
        )
    if adapter.acceptance_recordable == "fixed":
        return Item("acceptance recordable", "ok", "per-request metrics and counters")
    return Item(
        "acceptance recordable",
        "unknown",
        f"{kind}: the source is probed at the start of each run and recorded; runs without one "
        "are reported without acceptance",
    )


def _audits(plan: Plan) -> Item:
    c = plan.campaign
    audits = []
    if c.audits.loader is not None or c.engine.kind == "reference":
        audits.append("loader")
    if c.audits.overrides is not None:
        audits.append("overrides")
    return Item(
        "audits configured",
        "ok" if len(audits) == 2 else "unknown",
        f"configured: {', '.join(audits) or 'none'}"
        + (
            ""
            if len(audits) == 2
            else "; unaudited paths can fail silently (a skipped draft tensor, overrides lost "
            "with a container)"
        ),
    )


def _claims(plan: Plan, store: Store | None) -> str:
    """Each external claim checked by ``expect`` against a measured run of its method and k
    when one is stored; claims are never used as targets or expectations."""
    from specverdict.errors import SpecverdictError
    from specverdict.verdict.expect import expect, inputs_from_run, resolve_inputs

    claims = plan.campaign.claims
    if not claims:
        return "no external claims in the campaign"
    done: dict[tuple[str, int | None], str] = {}
    if store is not None:
        for r in store.list_runs():
            if r.status == "completed" and r.spec.campaign == plan.campaign.name:
                done.setdefault((r.spec.speculation.method, r.spec.speculation.k), r.run_id)
    parts = []
    for claim in claims:
        run_id = done.get((claim.method, claim.k))
        label = f"{claim.source}: {claim.method} k={claim.k} {claim.speedup:g}x"
        if run_id is None or store is None:
            parts.append(f"{label}: no measured run yet to check it against")
            continue
        try:
            e = expect(resolve_inputs(run=inputs_from_run(store, run_id)), claim.speedup)
        except (SpecverdictError, ValueError) as exc:
            parts.append(f"{label}: cannot be checked ({exc})")
            continue
        parts.append(f"{label}: {e.claim_verdict} (run {run_id})")
    return "checked by expect, never targets; " + "; ".join(parts)


def blocking(items: list[Item]) -> list[Item]:
    return [i for i in items if i.status == "missing"]
