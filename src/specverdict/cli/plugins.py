"""``specverdict plugins``: what each extension point holds, and where each entry comes from."""

from __future__ import annotations

import click
from rich.console import Console
from rich.table import Table

from specverdict.plugins import REGISTRIES


@click.command()
def plugins() -> None:
    """List the engine kinds, suites, sandboxes, stores and outputs this installation knows.

    Entries other than specverdict's own come from installed packages that register them under
    the entry-point groups shown (see docs/plugins.md).

    Example: specverdict plugins
    """
    table = Table(title="extension points", title_justify="left")
    for col in ("kind", "name", "from", "entry-point group"):
        table.add_column(col, overflow="fold")
    for registry in REGISTRIES:
        for name in registry.names():
            table.add_row(registry.what, name, registry.origin(name), registry.group)
    Console().print(table)
