"""``specverdict validate``: print a campaign's plan without touching an engine."""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from specverdict.campaign import Plan, build_plan, load_campaign


def plan_json(plan: Plan) -> dict[str, object]:
    return {
        "campaign": plan.campaign.name,
        "runs": [
            {
                "fingerprint": r.fingerprint,
                "label": r.label,
                "stage": r.stage,
                "suite": str(r.suite),
                "samples": r.samples if isinstance(r.samples, str) else r.samples.model_dump(),
            }
            for r in plan.runs
        ],
        "pairs": [
            {"baseline": p.baseline.fingerprint, "candidate": p.candidate.fingerprint}
            for p in plan.pairs
        ],
        "repeats": plan.repeats,
        "executions": plan.executions,
    }


@click.command()
@click.argument("campaign", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="print the plan as JSON")
def validate(campaign: Path, as_json: bool) -> None:
    """Check a campaign file and print its plan: runs, pairs and samples.

    Example: specverdict validate examples/demo.yaml
    """
    plan = build_plan(load_campaign(campaign))
    if as_json:
        click.echo(json.dumps(plan_json(plan), indent=2))
        return
    console = Console()
    c = plan.campaign
    console.print(
        f"[bold]{c.name}[/]: {len(plan.runs)} runs ({len(c.stages)} stage(s) x "
        f"{len(plan.runs) // len(c.stages)} per stage) x {plan.repeats} repeat(s) = "
        f"{plan.executions} executions; {len(plan.pairs)} baseline-candidate pairs"
    )
    table = Table(show_lines=False)
    for col in ("fingerprint", "stage", "suite", "samples", "speculation", "load", "paired with"):
        table.add_column(col)
    baseline_of = {p.candidate.fingerprint: p.baseline.fingerprint for p in plan.pairs}
    for r in plan.runs:
        samples = r.samples if isinstance(r.samples, str) else json.dumps(r.samples.model_dump())
        table.add_row(
            r.fingerprint,
            r.stage,
            str(r.suite),
            samples,
            r.speculation.label,
            r.load.label,
            baseline_of.get(r.fingerprint, "(baseline)")[:10],
        )
    console.print(table)
