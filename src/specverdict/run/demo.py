"""The demo job: ``examples/demo.yaml`` run end to end on the embedded reference engine.

The campaign runner launches one reference server per run through the launcher, measures every
sample into a fresh registry under the output folder, and the verdict rules judge each pair.
``demo.json`` holds each run's summary, a cross-check of its acceptance (per-request figures
against the ``/metrics`` counter deltas, which must agree on the reference engine) and the
verdicts; the full report (``index.html``, ``report.md``, ``report.json``) comes from
``specverdict.report``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from specverdict.campaign.plan import Plan
from specverdict.engines.prometheus import parse_spec_counters
from specverdict.measure.results import RunResults, run_results
from specverdict.records import RequestAcceptance
from specverdict.run.runner import Log, Runner
from specverdict.run.segment import Progress
from specverdict.store import SQLiteStore
from specverdict.store.base import Store
from specverdict.verdict import PairVerdict, campaign_verdicts


@dataclass(frozen=True)
class DemoResult:
    results: tuple[RunResults, ...]
    verdicts: tuple[PairVerdict, ...]
    counters_agree: dict[str, bool | None]  # run_id -> per-request sums == counter deltas
    db: Path


def counters_agree(store: Store, res: RunResults) -> bool | None:
    """Do the per-request acceptance sums equal the server's counter deltas? None if either
    source is missing (the baseline, or a server without per-request metrics)."""
    snaps = store.snapshots(res.run.run_id)
    samples = [s for s in store.samples(res.run.run_id) if s.status == "ok" and s.acceptance]
    if "before" not in snaps or "after" not in snaps or not samples:
        return None
    delta = parse_spec_counters(snaps["after"].text) - parse_spec_counters(snaps["before"].text)
    try:
        parsed = [RequestAcceptance.parse(s) for s in samples]
    except ValueError:
        return None
    accepted = sum(a.num_accepted_draft_tokens for a in parsed)
    drafted = sum(a.num_draft_tokens for a in parsed)
    return bool(delta.accepted == accepted and delta.draft_tokens == drafted)


def run_demo(
    plan: Plan, out: Path, log: Log = print, progress: Progress | None = None
) -> DemoResult:
    """Measure the campaign into ``out/runs.db`` (replaced: a demo always measures afresh)."""
    out.mkdir(parents=True, exist_ok=True)
    db = out / "runs.db"
    for stale in (db, out / "runs.db-wal", out / "runs.db-shm"):
        stale.unlink(missing_ok=True)
    store = SQLiteStore(db)
    try:
        runner = Runner(store, log=log, runs_dir=out / "runs", progress=progress)
        records = runner.run_plan(plan)
        results = tuple(run_results(store, r.run_id) for r in records)
        verdicts = tuple(campaign_verdicts(store, plan))
        agree = {r.run.run_id: counters_agree(store, r) for r in results}
    finally:
        store.close()
    return DemoResult(results, verdicts, agree, db)


def write_report(plan: Plan, demo: DemoResult, out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    payload = {
        "campaign": plan.campaign.name,
        "runs": [r.model_dump(mode="json") for r in demo.results],
        "counters_agree": demo.counters_agree,
        "verdicts": [v.model_dump(mode="json") for v in demo.verdicts],
    }
    path = out / "demo.json"
    path.write_text(json.dumps(payload, indent=2))
    return path
