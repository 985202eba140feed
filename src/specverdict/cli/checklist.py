"""``specverdict checklist``: the pre-flight checklist of a campaign."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from specverdict.campaign import build_plan, load_campaign
from specverdict.cli.runs import DB_OPTION
from specverdict.records import OUTPUT_SCHEMA_VERSION
from specverdict.run.checklist import Item, blocking, evaluate
from specverdict.store import open_store


def checklist_table(items: list[Item]) -> Table:
    table = Table(title="checklist", title_justify="left")
    table.add_column("item", no_wrap=True)
    table.add_column("status", no_wrap=True)
    table.add_column("why")
    for i in items:
        table.add_row(i.name, i.status.upper() if i.status == "missing" else i.status, i.why)
    return table


@click.command("checklist")
@click.argument("campaign", type=click.Path(path_type=Path, dir_okay=False))
@DB_OPTION
@click.option("--json", "as_json", is_flag=True, help="print the items as JSON")
def checklist(campaign: Path, db: Path, as_json: bool) -> None:
    """Evaluate the pre-flight checklist of a campaign against the registry; exit 1 when an
    item is missing (``specverdict run`` would refuse to start without --force).

    Example: specverdict checklist examples/demo.yaml --json
    """
    plan = build_plan(load_campaign(campaign))
    store = open_store(db) if isinstance(db, str) or db.exists() else None
    items = evaluate(plan, store)
    if as_json:
        payload = {"schema_version": OUTPUT_SCHEMA_VERSION, "items": [asdict(i) for i in items]}
        click.echo(json.dumps(payload, indent=2))
    else:
        Console().print(checklist_table(items))
    if blocking(items):
        raise SystemExit(1)
