"""Plain lines wrapped to the terminal at spaces, never inside a word: a line keeps its own
indent and its continuation lines hang under it. Rich wraps its tables; this is for the lines
commands print with ``click.echo`` (policy, suites show, the ``next:`` hints)."""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Iterable

from rich.console import Console

#: the width used when the output is not a terminal and COLUMNS is unset (as rich's default)
DEFAULT_WIDTH = 80


def terminal_width() -> int:
    """COLUMNS when set, else the terminal's width, else 80."""
    return shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns


def wrapped(line: str, width: int | None = None, hang: int = 4) -> list[str]:
    """``line`` in lines of at most ``width`` columns, broken at spaces only: a word longer
    than the room left (a path, a URL) stays whole on a line of its own. Continuation lines
    are indented ``hang`` columns more than the line's own indent."""
    width = width or terminal_width()
    indent = line[: len(line) - len(line.lstrip(" "))]
    return textwrap.wrap(
        line.strip(" "),
        width=width,
        initial_indent=indent,
        subsequent_indent=indent + " " * hang,
        break_long_words=False,
        break_on_hyphens=False,
    ) or [line]


def wrapped_lines(lines: Iterable[str], width: int | None = None, hang: int = 4) -> list[str]:
    return [out for line in lines for out in wrapped(line, width, hang)]


def print_next(console: Console, command: str, what: str) -> None:
    """A hint: ``next: COMMAND`` on one line, whole, to copy (a terminal narrower than it folds
    it without inserting a newline), then what it gives, wrapped at spaces under it."""
    console.print(f"next: {command}", highlight=False, soft_wrap=True)
    for line in wrapped(f"      {what}", console.width, hang=0):
        console.print(line, highlight=False, soft_wrap=True)
