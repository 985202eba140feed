"""``specverdict runs``: list stored runs and show one."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import click
from rich import box
from rich.console import Console
from rich.table import Table

from specverdict.results import RunResults, run_results
from specverdict.store import RunRecord, SQLiteStore

DB_OPTION = click.option(
    "--db",
    type=click.Path(path_type=Path, dir_okay=False),
    default=Path(".specverdict/runs.db"),
    show_default=True,
    envvar="SPECVERDICT_DB",
    help="the run registry (SQLite file)",
)


def _ms(x: float | None) -> str:
    if x is None:
        return "n/a"
    ms = 1000 * x
    return f"{ms:.0f}" if ms >= 10 else f"{ms:.1f}"


def _finish(reasons: dict[str, int]) -> str:
    """Finish reasons, abbreviated: ``length:7 stop:9`` -> ``L7 S9``."""
    return " ".join(f"{k[:1].upper()}{v}" for k, v in sorted(reasons.items()))


def summary_table(results: Sequence[RunResults]) -> Table:
    """One row per run: the figures of a run summary, compact enough for 80 columns. Finish
    reasons are abbreviated by their initial (L length, S stop, A abort, E error)."""
    groups = {(r.run.spec.stage, r.run.spec.load.label) for r in results}
    title = "runs"
    if len(groups) == 1:
        stage, load = next(iter(groups))
        title = f"runs: stage {stage}, {load}"
    table = Table(
        title=title,
        box=box.SIMPLE_HEAD,
        title_justify="left",
        pad_edge=False,
        show_edge=False,
        padding=(0, 1),
        collapse_padding=True,
    )
    columns = ["run", "speculation"]
    if len(groups) > 1:
        columns.append("stage, load")
    columns += ["ok", "tok/s", "acc.\nrate", "MAL", "TTFT ms\np50/95", "TPOT ms\np50/95", "finish"]
    for col in columns:
        table.add_column(
            col,
            justify="left" if col in ("run", "speculation", "stage, load") else "right",
            no_wrap=col != "stage, load",
        )
    for r in results:
        s, a, spec = r.summary, r.acceptance, r.run.spec
        acc = "n/a" if a.acceptance_rate is None else f"{a.acceptance_rate:.3f}"
        if not a.valid and spec.speculation.method != "none":
            acc = "invalid"
        row = [r.run.run_id[:6], spec.speculation.label]
        if len(groups) > 1:
            row.append(f"{spec.stage}, {spec.load.label}")
        row += [
            f"{s.ok}/{s.samples}",
            "n/a" if s.tokens_per_s is None else f"{s.tokens_per_s:.0f}",
            acc,
            "n/a" if a.mean_accepted_length is None else f"{a.mean_accepted_length:.2f}",
            f"{_ms(s.ttft_p50_s)}/{_ms(s.ttft_p95_s)}",
            f"{_ms(s.tpot_p50_s)}/{_ms(s.tpot_p95_s)}",
            _finish(s.finish_reasons),
        ]
        table.add_row(*row)
    table.caption = "finish reasons: L length, S stop, A abort, E error"
    return table


def summary_tables(results: Sequence[RunResults]) -> list[Table]:
    """One summary table per stage and load level, in the order the runs came."""
    groups: dict[tuple[str, str], list[RunResults]] = {}
    for r in results:
        groups.setdefault((r.run.spec.stage, r.run.spec.load.label), []).append(r)
    return [summary_table(rows) for rows in groups.values()]


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
    drift = override_drift(store, results.run)
    if as_json:
        payload = results.model_dump(mode="json")
        payload["override_drift"] = drift
        click.echo(json.dumps(payload, indent=2))
        return
    console = Console()
    console.print(summary_table([results]))
    for line in drift:
        console.print(f"[bold]WARNING[/bold] {line}", highlight=False)
    console.print_json(json.dumps(results.run.manifest))


def override_drift(store: SQLiteStore, run: RunRecord) -> list[str]:
    """Overrides in place for an earlier run of the same fingerprint and not for this one."""
    mine = {
        e.get("path"): e.get("status")
        for e in ((run.manifest.get("audits") or {}).get("overrides") or {}).get("entries", [])
    }
    out = []
    for earlier in store.list_runs():
        if earlier.fingerprint != run.fingerprint or earlier.created_at >= run.created_at:
            continue
        audit = (earlier.manifest.get("audits") or {}).get("overrides") or {}
        for entry in audit.get("entries", []):
            path = entry.get("path")
            if entry.get("status") == "ok" and path in mine and mine[path] != "ok":
                out.append(
                    f"overrides drifted: {path} was in place for run {earlier.run_id} and is "
                    f"{mine[path]} now"
                )
    return list(dict.fromkeys(out))
