"""A click group whose commands are imported when one is called, not when the program starts.

``specverdict runs list`` needs the registry, not the statistics (scipy), the engine clients
(aiohttp) or the runner: importing every command for every call cost about 2 s of CPU a
command. Click has no lazy group of its own; its documentation shows this pattern
("Lazily Loading Subcommands"), written here in a few lines rather than taken as a dependency.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

import click


class LazyGroup(click.Group):
    """``lazy`` maps a command's name to ``"module:attribute"``, imported on first use."""

    def __init__(self, *args: Any, lazy: Mapping[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy and cmd_name not in self.commands:
            module, _, attribute = self.lazy[cmd_name].partition(":")
            command = getattr(importlib.import_module(module), attribute)
            if not isinstance(command, click.Command):  # a wrong table entry, caught by tests
                raise TypeError(f"{self.lazy[cmd_name]} is not a click command")
            self.add_command(command, cmd_name)
        return super().get_command(ctx, cmd_name)
