"""Every command documents itself with an example; user errors are one line with exit code 2."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from specverdict.cli.main import cli
from tests.conftest import specverdict_cli


def all_commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = []
    for name, command in group.commands.items():
        out.append((*prefix, name))
        if isinstance(command, click.Group):
            out.extend(all_commands(command, (*prefix, name)))
    return out


@pytest.mark.parametrize("path", all_commands(cli), ids=" ".join)
def test_every_command_help_has_an_example(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(cli, [*path, "--help"])
    assert result.exit_code == 0
    assert "Example: specverdict " in result.output


def test_unknown_command_and_bad_option_exit_2_in_one_line() -> None:
    for args in (["frobnicate"], ["runs", "show"]):
        proc = specverdict_cli(*args, timeout=60)
        assert proc.returncode == 2, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
