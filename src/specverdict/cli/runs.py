"""``specverdict runs``: list stored runs and show one."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from specverdict.results import RunResults, run_results
from specverdict.store import SQLiteStore

DB_OPTION = click.option(
    "--db",
    type=click.Path(path_type=Path, dir_okay=False),
    default=Path(".specverdict/runs.db"),
    show_default=True,
    envvar="SPECVERDICT_DB",
    help="the run registry (SQLite file)",
)


def _ms(x: float | None) -> str:
    return "n/a" if x is None else f"{1000 * x:.1f}"


def summary_table(results: Sequence[RunResults]) -> Table:
    table = Table(title="runs")
    for col in (
        "run_id",
        "run",
        "ok/total",
        "tok/s",
        "acceptance",
        "MAL",
        "TTFT p50/p95 ms",
        "TPOT p50/p95 ms",
        "finish",
    ):
        table.add_column(col)
    for r in results:
        s, a = r.summary, r.acceptance
        acc = "n/a" if a.acceptance_rate is None else f"{a.acceptance_rate:.3f}"
        if not a.valid:
            acc = f"invalid ({a.why})"
        table.add_row(
            r.run.run_id,
            r.run.spec.label,
            f"{s.ok}/{s.samples}",
            "n/a" if s.tokens_per_s is None else f"{s.tokens_per_s:.1f}",
            acc,
            "n/a" if a.mean_accepted_length is None else f"{a.mean_accepted_length:.2f}",
            f"{_ms(s.ttft_p50_s)}/{_ms(s.ttft_p95_s)}",
            f"{_ms(s.tpot_p50_s)}/{_ms(s.tpot_p95_s)}",
            ", ".join(f"{k}:{v}" for k, v in sorted(s.finish_reasons.items())),
        )
    return table


@click.group()
def runs() -> None:
    """Inspect the run registry.

    Example: specverdict runs list
    """


@runs.command("list")
@DB_OPTION
def list_runs(db: Path) -> None:
    """List stored runs, oldest first.

    Example: specverdict runs list --db .specverdict/runs.db
    """
    store = SQLiteStore(db)
    table = Table()
    for col in ("run_id", "fingerprint", "repeat", "status", "run"):
        table.add_column(col)
    for r in store.list_runs():
        table.add_row(r.run_id, r.fingerprint, str(r.repeat), r.status, r.spec.label)
    Console().print(table)


@runs.command("show")
@click.argument("run_id")
@DB_OPTION
@click.option(
    "--json", "as_json", is_flag=True, help="print the run, its summary and acceptance as JSON"
)
def show(run_id: str, db: Path, as_json: bool) -> None:
    """Show one run: spec, manifest, summary and acceptance.

    Example: specverdict runs show 3f2a9c1d0b7e --json
    """
    store = SQLiteStore(db)
    try:
        results = run_results(store, run_id)
    except KeyError:
        raise click.UsageError(f"no run {run_id!r} in {db}") from None
    if as_json:
        click.echo(json.dumps(results.model_dump(mode="json"), indent=2))
        return
    console = Console()
    console.print(summary_table([results]))
    console.print_json(json.dumps(results.run.manifest))
