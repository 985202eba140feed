"""``specverdict resample``: sample-level evidence for a pair whose quality gate was undecided.

Exit codes: 0 the resampled gate passes, 1 it rejects, 3 still inconclusive, 2 usage errors.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import click
from rich.console import Console

from specverdict.campaign import build_plan, load_campaign
from specverdict.cli.progress import console_runner
from specverdict.cli.runs import DB_OPTION, find_run, open_registry
from specverdict.run.resample import resample as do_resample

EXIT = {"pass": 0, "reject": 1, "inconclusive": 3}


@click.command("resample")
@click.argument("campaign", type=click.Path(path_type=Path, dir_okay=False))
@click.argument("candidate_run")
@DB_OPTION
@click.option("--seeds", type=int, default=5, show_default=True, help="re-runs per sample and arm")
@click.option(
    "--concordant",
    type=int,
    default=20,
    show_default=True,
    help="concordant samples drawn (seeded) to stand for the rest of the suite",
)
@click.option("--json", "as_json", is_flag=True, help="print the evidence and the gate as JSON")
def resample(
    campaign: Path, candidate_run: str, db: Path, seeds: int, concordant: int, as_json: bool
) -> None:
    """Re-run a pair's discordant samples (and some concordant ones) with other seeds on both
    configurations, and decide quality on per-sample pass probabilities.

    Example: specverdict resample examples/demo.yaml 9b8e7d6c5a4f --seeds 5 --concordant 20
    """
    store = open_registry(db)
    plan = build_plan(load_campaign(campaign))
    run = find_run(store, candidate_run)
    console = Console(stderr=as_json)
    runner = console_runner(store, db, console)
    result = do_resample(store, plan, run, runner, seeds=seeds, concordant=concordant)
    gate = result.gate
    if as_json:
        payload = asdict(result)
        payload["gate"]["interval"] = [gate.interval.lower, gate.interval.upper]
        click.echo(json.dumps(payload, indent=2))
    else:
        out = Console()
        out.print(
            f"[bold]{result.stage}[/]: {result.candidate} vs {result.baseline}, "
            f"{len(result.evidence)} samples x {seeds} seeds"
        )
        for e in result.evidence:
            kind = "discordant" if e.discordant else "concordant"
            out.print(
                f"  {e.sample_id:<24} {kind:<10} base {e.base_passes}/{e.base_runs}  "
                f"cand {e.cand_passes}/{e.cand_runs}",
                highlight=False,
            )
        for note in result.notes:
            out.print(f"  note: {note}", highlight=False)
        out.print(f"quality.resampled: {gate.decision} ({gate.why}; n = {gate.n_total})")
    code = EXIT[gate.decision]
    if code:
        raise SystemExit(code)
