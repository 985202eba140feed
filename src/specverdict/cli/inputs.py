"""Checks of command-line values before a command acts on them: each bad value a one-line
usage error (exit code 2) naming the flag and what was expected."""

from __future__ import annotations

import math
import os
import re
import stat
from pathlib import Path

import click

from specverdict.campaign.yamlfile import MAX_BYTES, MAX_DEPTH, check_yaml, read_text
from specverdict.errors import ConfigError

#: a server's address: http(s)://host[:port][/path], no spaces
_URL = re.compile(r"^https?://[^\s/:]+(:\d{1,5})?(/\S*)?$")


def http_url(value: str, flag: str) -> str:
    """``value`` when it is an http(s) URL with a host (and a port in range); else a usage
    error naming ``flag``."""
    match = _URL.match(value)
    port = match.group(1) if match else None
    if match is None or (port is not None and not 0 < int(port[1:]) < 65536):
        raise click.UsageError(f"{flag} {value!r}: expected a URL such as http://127.0.0.1:8000")
    return value


def finite(value: float, flag: str, *, above: float = 0.0, at_most: float | None = None) -> float:
    """``value`` when it is a finite number above ``above`` (and at most ``at_most``)."""
    if not math.isfinite(value) or value <= above or (at_most is not None and value > at_most):
        bound = f" and at most {at_most:g}" if at_most is not None else ""
        raise click.UsageError(f"{flag} {value:g}: expected a number above {above:g}{bound}")
    return value


def not_blank(value: str | None, flag: str) -> str | None:
    """``value`` unless it is an empty or blank string (None passes: the flag was not given)."""
    if value is not None and not value.strip():
        raise click.UsageError(f"{flag}: empty; give a value or leave the flag out")
    return value


def json_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON ``text`` (strings skipped)."""
    depth = deepest = 0
    in_string = escaped = False
    for c in text:
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth -= 1
    return deepest


def structured_file(path: Path | str, flag: str) -> None:
    """``text_file``, and YAML or JSON (by the suffix) that a plain loader reads without a
    recursion error or an alias bomb's expansion."""
    text = text_file(path, flag)
    if str(path).endswith(".json"):
        if json_depth(text) > MAX_DEPTH:
            raise click.UsageError(f"{path}: nested more than {MAX_DEPTH} levels deep")
        return
    try:
        check_yaml(text, Path(path))
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from None


def text_file(path: Path | str, flag: str, limit: int = MAX_BYTES) -> str:
    """The text of a file, refusing, naming ``flag``, one that is not small UTF-8 text (a
    directory, a pipe, a binary file, /dev/zero): the command that reads it next then neither
    hangs nor fails on a decoding error."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise click.UsageError(f"{path}: cannot read {flag} file: {exc.strerror}") from None
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):  # read twice, a pipe would be empty or hang
        raise click.UsageError(f"{path}: cannot read {flag} file: a pipe, not a file")
    try:
        return read_text(Path(path), what=f"{flag} file", limit=limit)
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from None


def output_file(path: Path | None, flag: str) -> None:
    """Refuse, naming ``flag``, an output path that would hang the write: a named pipe nobody
    reads (a pipe with a reader, such as ``>(gzip > x)``, and /dev/null are written as usual)."""
    if path is None:
        return
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return  # a new file: the write says what is wrong, if anything
    if not stat.S_ISFIFO(mode):
        return
    try:
        fd = os.open(path, os.O_WRONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        raise click.UsageError(f"{flag} {path}: a pipe nobody reads") from None
    os.close(fd)
