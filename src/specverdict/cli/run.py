"""``specverdict run``: execute a campaign's runs against its engine, storing every sample."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console

from specverdict.campaign import build_plan, load_campaign
from specverdict.cli.runs import DB_OPTION, summary_table
from specverdict.results import run_results
from specverdict.runner import Runner
from specverdict.store import SQLiteStore


@click.command()
@click.argument("campaign", type=click.Path(path_type=Path, dir_okay=False))
@DB_OPTION
def run(campaign: Path, db: Path) -> None:
    """Run a campaign: baseline and candidates, each sample stored as it completes.

    An interrupted run of the same fingerprint is resumed: only its missing samples are sent.

    Example: specverdict run examples/demo.yaml --db .specverdict/runs.db
    """
    plan = build_plan(load_campaign(campaign))
    store = SQLiteStore(db)
    console = Console()
    records = Runner(store, log=lambda m: console.print(m, highlight=False)).run_plan(plan)
    console.print(summary_table([run_results(store, r.run_id) for r in records]))
