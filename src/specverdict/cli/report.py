"""``specverdict report``: the HTML, Markdown and JSON report of a campaign or of stored runs."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import click
from pydantic import ValidationError
from rich.console import Console
from rich.table import Table

from specverdict.campaign import build_plan, load_campaign
from specverdict.campaign.model import Gates
from specverdict.cli.runs import DB_OPTION, find_run, open_registry
from specverdict.cli.verdict import verdict_table
from specverdict.errors import SpecverdictError
from specverdict.report import ReportData, campaign_report, runs_report, write_report_files
from specverdict.report.outputs import file_output


def verdict_tables(data: ReportData) -> list[Table]:
    """One table per stage (never across stages), as ``verdict`` prints it."""
    return [
        verdict_table(st.stage, [p.verdict for p in st.pairs]) for st in data.stages if st.pairs
    ]


def _is_campaign(args: Sequence[str]) -> bool:
    return len(args) == 1 and (Path(args[0]).suffix in (".yaml", ".yml") or Path(args[0]).is_file())


@click.command("report")
@click.argument("campaign_or_runs", nargs=-1, required=True)
@DB_OPTION
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    required=True,
    help="folder for index.html, report.md and report.json (created)",
)
@click.option(
    "--format",
    "formats",
    multiple=True,
    metavar="NAME",
    help="write only these outputs (repeatable; default every report output: html, markdown, "
    "json, and any a plugin registers; specverdict plugins lists them)",
)
@click.option("--alpha", type=float, default=None, help="run ids only (default 0.05)")
@click.option("--margin", type=float, default=None, help="run ids only (default 0.02)")
@click.option("--min-speedup", type=float, default=None, help="run ids only (default 1.05)")
def report(
    campaign_or_runs: tuple[str, ...],
    db: Path,
    out: Path,
    alpha: float | None,
    margin: float | None,
    min_speedup: float | None,
    formats: tuple[str, ...],
) -> None:
    """Write the report of a campaign file, or of stored runs (a baseline run id then its
    candidates, judged as `compare` does): index.html (self-contained, with plots), report.md
    and report.json, one section per stage; print each stage's verdicts.

    Example: specverdict report examples/demo.yaml --db reports/demo/runs.db --out reports/demo
    """
    for name in formats:
        try:
            file_output(name, "report")
        except SpecverdictError as exc:
            raise click.UsageError(f"--format {name}: {exc}") from None
    if out.exists() and not out.is_dir():
        raise click.UsageError(f"--out {out}: not a folder")
    if isinstance(db, Path) and not db.exists():
        raise click.UsageError(f"no run registry at {db}: run a campaign first, or pass --db")
    campaign = _is_campaign(campaign_or_runs)
    if not campaign and len(campaign_or_runs) < 2:
        raise click.UsageError(
            f"CAMPAIGN_OR_RUNS: {campaign_or_runs[0]!r} is neither a campaign file nor enough "
            "run ids (give a baseline run id and at least one candidate run id)"
        )
    given = {"alpha": alpha, "margin": margin, "min_speedup": min_speedup}
    if campaign and any(v is not None for v in given.values()):
        raise click.UsageError(
            "--alpha, --margin and --min-speedup apply to run ids; a campaign has its own gates"
        )
    store = open_registry(db)
    try:
        if campaign:
            path = Path(campaign_or_runs[0])
            data = campaign_report(store, build_plan(load_campaign(path)), source=str(path))
        else:
            try:
                gates = Gates(**{k: v for k, v in given.items() if v is not None})
            except ValidationError as exc:
                err = exc.errors()[0]
                flag = "--" + str(err["loc"][0]).replace("_", "-")
                raise click.UsageError(
                    f"gate settings: {flag} {err['input']!r}: {err['msg'].lower()}"
                ) from None
            ids = [find_run(store, run_id).run_id for run_id in campaign_or_runs]
            data = runs_report(store, ids, gates)
    finally:
        store.close()
    try:
        files = write_report_files(data, out, formats or None)
    except OSError as exc:
        raise click.UsageError(f"--out {out}: cannot write: {exc.strerror or exc}") from None
    console = Console()
    for table in verdict_tables(data):
        console.print(table)
    first, *rest = files.values()
    console.print(f"report: {first}", highlight=False)
    if rest:
        console.print(f"        {', '.join(map(str, rest))}", highlight=False)
