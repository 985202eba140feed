"""``specverdict schema``: the JSON Schema of the campaign file and of the export documents."""

from __future__ import annotations

import json

import click
from pydantic import BaseModel

from specverdict.campaign.docs import campaign_markdown
from specverdict.campaign.model import Campaign
from specverdict.report.export import RequestRow, RunResult

DOCUMENTS: dict[str, type[BaseModel]] = {
    "campaign": Campaign,
    "run-result": RunResult,
    "request-row": RequestRow,
}


@click.command("schema")
@click.argument("document", type=click.Choice(list(DOCUMENTS)), default="campaign")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["json", "markdown"]),
    default="json",
    show_default=True,
    help="json: the JSON Schema; markdown: the campaign reference (docs/campaign.md)",
)
def schema(document: str, fmt: str) -> None:
    """Print the JSON Schema of a campaign file (or of an export's run-result or request-row).

    Example: specverdict schema campaign > campaign.schema.json
    """
    if fmt == "markdown":
        if document != "campaign":
            raise click.UsageError("--format markdown is the campaign reference only")
        click.echo(campaign_markdown(), nl=False)
        return
    click.echo(json.dumps(DOCUMENTS[document].model_json_schema(), indent=2))
