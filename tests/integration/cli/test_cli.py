"""Every command documents itself with an example; user errors are one line with exit code 2."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from specverdict.cli.main import cli
from tests.conftest import specverdict_cli


def all_commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command and subcommand, as the program resolves them (the lazy ones imported)."""
    ctx = click.Context(group)
    out = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        out.append((*prefix, name))
        if isinstance(command, click.Group):
            out.extend(all_commands(command, (*prefix, name)))
    return out


@pytest.mark.parametrize("path", all_commands(cli), ids=" ".join)
def test_every_command_help_has_an_example(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(cli, [*path, "--help"])
    assert result.exit_code == 0
    assert "Example: specverdict " in result.output


@pytest.mark.parametrize(
    ("args", "absent"),
    [
        (["runs", "list", "--help"], ("scipy.stats", "specverdict.run.runner", "aiohttp")),
        # the statistics import scipy.stats inside the functions that compute
        (["verdict", "--help"], ("scipy.stats",)),
        (["validate", "--help"], ("scipy.stats",)),
    ],
    ids=["runs-list", "verdict", "validate"],
)
def test_every_command_is_listed_and_a_call_imports_only_what_it_needs(
    args: list[str], absent: tuple[str, ...]
) -> None:
    """Commands are imported when called and scipy.stats when a statistic is computed: a
    command's help, a usage error or ``runs list`` costs a fraction of a second, and the
    listing still names every command."""
    assert len(all_commands(cli)) >= 30
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from specverdict.cli.main import cli\n"
        f"result = CliRunner().invoke(cli, {args!r})\n"
        "assert result.exit_code == 0, result.output\n"
        f"print([m for m in {absent!r} if m in sys.modules])\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]", proc.stdout


def test_unknown_command_and_bad_option_exit_2_in_one_line() -> None:
    for args in (["frobnicate"], ["runs", "show"]):
        proc = specverdict_cli(*args, timeout=60)
        assert proc.returncode == 2, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
