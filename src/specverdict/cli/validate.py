"""``specverdict validate``: print a campaign's plan without touching an engine (``--probe``:
and check every attached server against what it is to be measured as)."""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich import box
from rich.console import Console
from rich.table import Table

from specverdict.campaign import Plan, build_plan, load_campaign
from specverdict.cli.verdict import short_load
from specverdict.errors import ConfigError
from specverdict.plugins import UnknownNameError
from specverdict.run.feasibility import feasibility
from specverdict.suites import suite_for


def sample_counts(plan: Plan, file: Path) -> dict[str, int]:
    """Samples each run sends, by fingerprint; unknown suites or ids are errors naming the key."""
    counts: dict[str, int] = {}
    for run in plan.runs:
        try:
            counts[run.fingerprint] = len(suite_for(run).select(run.samples))
        except (UnknownNameError, ValueError) as exc:
            raise ConfigError(f"{file}: stages.{run.stage}.suite: {exc}") from None
    return counts


def check_feasible(plan: Plan, file: Path) -> None:
    """Refuse what cannot run as written, every problem on its own line; print the warnings."""
    found = feasibility(plan)
    for warning in found.warnings:
        click.echo(f"specverdict: warning: {file}: {warning}", err=True)
    if found.errors:
        raise ConfigError("\n".join(f"{file}: {e}" for e in found.errors))


def plan_json(plan: Plan, counts: dict[str, int]) -> dict[str, object]:
    return {
        "campaign": plan.campaign.name,
        "runs": [
            {
                "fingerprint": r.fingerprint,
                "label": r.label,
                "stage": r.stage,
                "suite": str(r.suite),
                "samples": r.samples if isinstance(r.samples, str) else r.samples.model_dump(),
                "sample_count": counts[r.fingerprint],
            }
            for r in plan.runs
        ],
        "pairs": [
            {"baseline": p.baseline.fingerprint, "candidate": p.candidate.fingerprint}
            for p in plan.pairs
        ],
        "repeats": plan.repeats,
        "baseline_repeats": plan.campaign.load.baseline_executions(plan.campaign.blocked()),
        "blocks": {r.load.label: plan.campaign.block_size(r.load.level) for r in plan.runs},
        "executions": plan.executions,
        "requests": plan.requests(counts),
    }


@click.command()
@click.argument("campaign", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="print the plan as JSON")
@click.option(
    "--probe",
    is_flag=True,
    help="also ask every attached server what it is (kind, speculation, slots) and refuse a "
    "contradiction, as run does before its first request",
)
def validate(campaign: Path, as_json: bool, probe: bool) -> None:
    """Check a campaign file and print its plan: runs, pairs and samples.

    Example: specverdict validate examples/demo.yaml --probe
    """
    plan = build_plan(load_campaign(campaign))
    check_feasible(plan, campaign)
    counts = sample_counts(plan, campaign)
    if probe:
        from specverdict.run.runner import check_reachable, preflight  # HTTP only when asked

        for url in dict.fromkeys(r.engine.base_url for r in plan.runs if r.engine.base_url):
            check_reachable(next(r for r in plan.runs if r.engine.base_url == url))
        preflight(list(plan.runs))
    if as_json:
        click.echo(json.dumps(plan_json(plan, counts), indent=2))
        return
    console = Console()
    c = plan.campaign
    console.print(
        f"[bold]{c.name}[/]: {len(plan.runs)} runs x {plan.repeats} repeat(s), baselines x "
        f"{c.load.baseline_executions(c.blocked())} = {plan.executions} executions, {plan.requests(counts)} requests; "
        f"{len(plan.pairs)} baseline-candidate pairs",
        highlight=False,
    )
    console.print(plan_table(plan, counts))


def plan_table(plan: Plan, counts: dict[str, int]) -> Table:
    """One row per run, in 80 columns: its number, stage, suite, samples, speculation (wrapped
    at spaces when long, never inside a word), load, the row of the baseline it is compared
    with (``vs``: a long suite name leaves no room for a longer header). Rows are numbered,
    not named by fingerprint: no run id exists before a run, and a number is not mistaken for
    one that ``runs show`` would take."""
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1), show_edge=False)
    longest_word = max(len(w) for r in plan.runs for w in r.speculation.label.split())
    for col in ("#", "stage", "suite", "n", "speculation", "load", "vs"):
        table.add_column(
            col,
            no_wrap=col != "speculation",
            overflow="fold",
            ratio=1 if col == "speculation" else None,
            # a short column is never cut below its header ("baselin")
            min_width=max(11, longest_word) if col == "speculation" else len(col),
            justify="right" if col == "#" else "left",
        )
    row_of = {r.fingerprint: i for i, r in enumerate(plan.runs, 1)}
    baseline_of = {p.candidate.fingerprint: p.baseline.fingerprint for p in plan.pairs}
    for r in plan.runs:
        base = baseline_of.get(r.fingerprint)
        table.add_row(
            str(row_of[r.fingerprint]),
            r.stage,
            str(r.suite),
            str(counts[r.fingerprint]),
            r.speculation.label,
            short_load(r.load.label),
            "-" if base is None else f"#{row_of[base]}",
        )
    table.caption = "n: samples each execution sends; vs: the baseline's row it is compared with"
    return table
