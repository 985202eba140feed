"""``specverdict demo``."""

from __future__ import annotations

from pathlib import Path

import click
from rich import box
from rich.console import Console
from rich.table import Table

from specverdict.demo import run_demo, write_report


@click.command()
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=Path("reports/demo"),
    show_default=True,
    help="directory for report.md and demo.json",
)
@click.option("--max-tokens", type=click.IntRange(1, 512), default=128, show_default=True)
def demo(out: Path, max_tokens: int) -> None:
    """Run a baseline and speculative candidates on the embedded reference engine.

    Example: specverdict demo --out reports/demo --max-tokens 128
    """
    console = Console()
    console.print("[bold]specverdict demo[/]: starting one reference server per configuration")
    rows = run_demo(max_tokens)
    table = Table(title="reference engine, 8 prompts, concurrency 1, greedy", box=box.SIMPLE)
    table.add_column("config", no_wrap=True)
    for col in ("tok/s", "vs none", "TPOT ms", "accept", "MAL", "same text", "failed"):
        table.add_column(col, justify="right")
    for r in rows:
        table.add_row(
            r.label,
            f"{r.tokens_per_s:.1f}",
            f"{r.speedup:.2f}x" if r.speedup else "n/a",
            f"{r.mean_tpot_ms:.2f}" if r.mean_tpot_ms else "n/a",
            f"{r.acceptance_rate:.3f}" if r.acceptance_rate is not None else "n/a",
            f"{r.mean_accepted_length:.2f}" if r.mean_accepted_length is not None else "n/a",
            "-" if r.identical_to_baseline is None else f"{r.identical_to_baseline}/{r.requests}",
            str(r.failed),
        )
    console.print(table)
    path = write_report(rows, out)
    console.print(f"report: {path}")
