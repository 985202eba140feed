"""The demo job: ``examples/demo.yaml`` run end to end on the embedded reference engine.

The campaign runner launches one reference server per run through the launcher, measures every
sample into a fresh registry under the output folder, and the verdict rules judge each pair.
The report (``report.md``, ``demo.json``) holds each run's summary, a cross-check of its
acceptance (per-request figures against the ``/metrics`` counter deltas, which must agree on the
reference engine) and the verdicts with their reasons, stage by stage.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from specverdict.campaign.plan import Plan
from specverdict.engines.prometheus import parse_spec_counters
from specverdict.results import RunResults, run_results
from specverdict.runner import Log, Progress, Runner
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
    accepted = sum(int(s.acceptance["num_accepted_draft_tokens"]) for s in samples if s.acceptance)
    drafted = sum(int(s.acceptance["num_draft_tokens"]) for s in samples if s.acceptance)
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


def _f(x: float | None, fmt: str, scale: float = 1.0) -> str:
    return "n/a" if x is None else format(scale * x, fmt)


def to_markdown(plan: Plan, demo: DemoResult) -> str:
    lines = [
        f"# specverdict demo: campaign `{plan.campaign.name}` on the reference engine",
        "",
        "## Runs",
        "",
        "| run | speculation | stage | load | ok/total | tokens/s | acceptance | MAL | "
        "TTFT p50/p95 ms | TPOT p50/p95 ms | finish reasons | counters = per-request |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in demo.results:
        s, a, spec = r.summary, r.acceptance, r.run.spec
        agree = demo.counters_agree.get(r.run.run_id)
        lines.append(
            f"| `{r.run.run_id}` | {spec.speculation.label} | {spec.stage} | {spec.load.label} | "
            f"{s.ok}/{s.samples} | {_f(s.tokens_per_s, '.1f')} | "
            f"{_f(a.acceptance_rate, '.3f')} | {_f(a.mean_accepted_length, '.2f')} | "
            f"{_f(s.ttft_p50_s, '.1f', 1e3)}/{_f(s.ttft_p95_s, '.1f', 1e3)} | "
            f"{_f(s.tpot_p50_s, '.2f', 1e3)}/{_f(s.tpot_p95_s, '.2f', 1e3)} | "
            f"{', '.join(f'{k} {v}' for k, v in sorted(s.finish_reasons.items()))} | "
            f"{'-' if agree is None else 'yes' if agree else 'NO'} |"
        )
    for stage in dict.fromkeys(v.stage for v in demo.verdicts):
        lines += ["", f"## Verdicts: stage `{stage}`", ""]
        for v in (v for v in demo.verdicts if v.stage == stage):
            lines.append(f"### {v.verdict}: {v.candidate} against {v.baseline} ({v.load})")
            lines.append("")
            lines += [f"- **{r.gate}** ({r.status}): {r.message}" for r in v.reasons]
            lines.append("")
    lines += [
        "Every verdict holds for its own stage, suite and load level only; there is no verdict "
        "across stages.",
        "",
    ]
    return "\n".join(lines)


def write_report(plan: Plan, demo: DemoResult, out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    payload = {
        "campaign": plan.campaign.name,
        "runs": [r.model_dump(mode="json") for r in demo.results],
        "counters_agree": demo.counters_agree,
        "verdicts": [v.model_dump(mode="json") for v in demo.verdicts],
    }
    (out / "demo.json").write_text(json.dumps(payload, indent=2))
    path = out / "report.md"
    path.write_text(to_markdown(plan, demo))
    return path


def verdict_lines(verdicts: Sequence[PairVerdict]) -> list[str]:
    return [f"{v.stage}: {v.candidate} ({v.load}): {v.verdict}" for v in verdicts]
