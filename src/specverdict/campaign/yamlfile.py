"""A small YAML file read safely: bounded in bytes, time, depth and expanded size.

Every file specverdict reads from a user (a campaign, a golden acceptance file, a policy's
inputs) is small and plain, and is held to that before anything is built: at most
``MAX_BYTES`` of UTF-8 text, read within ``READ_TIMEOUT_S`` (a FIFO nobody writes to does not
hang the reader), nested at most ``MAX_DEPTH`` deep and at most ``MAX_NODES`` values once its
aliases are expanded (an alias bomb, "billion laughs", is refused in milliseconds), keys that
are scalars, and only the plain YAML types (no ``!!binary``, ``!!set``, ``!!python/...``).
"""

from __future__ import annotations

import os
import select
import stat
import time
import typing
from pathlib import Path
from typing import Any

import yaml

from specverdict.errors import ConfigError

#: the largest campaign file read (1 MiB; the largest example is a few kilobytes)
MAX_BYTES = 1 << 20


#: the deepest nesting of mappings and lists (a campaign's own is 6)
MAX_DEPTH = 32


#: the most values (scalars, mappings, lists), aliases expanded
MAX_NODES = 100_000


#: the longest wait for a file's bytes (a pipe whose writer is slow or absent)
READ_TIMEOUT_S = 10.0


class _RefusedError(Exception):
    """A campaign file refused before validation: (line, what)."""

    def __init__(self, line: int, what: str) -> None:
        super().__init__(what)
        self.line = line
        self.what = what


_NOT_TAKEN = frozenset({"binary", "set", "omap", "pairs", "timestamp"})


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader, bounded in depth and without the types no campaign field takes
    (their tags become 'could not determine a constructor' errors)."""

    yaml_constructors: typing.ClassVar[dict[Any, Any]] = {
        tag: constructor
        for tag, constructor in yaml.SafeLoader.yaml_constructors.items()
        if tag is None or tag.rsplit(":", 1)[-1] not in _NOT_TAKEN
    }
    #: a date is a string here (``name: 2026-01-05``), not a datetime no field takes
    yaml_implicit_resolvers = {  # noqa: RUF012 (PyYAML's own class attribute)
        first: [(tag, regexp) for tag, regexp in resolvers if not tag.endswith(":timestamp")]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                raise _RefusedError(mark.line + 1, f"nested more than {MAX_DEPTH} levels deep")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def _check_expansion(root: yaml.Node) -> None:
    """Refuse a tree that its aliases make too large or too deep, or that holds itself, before
    anything walks it expanded: each shared node is sized once (its count and height kept)."""
    sized: dict[int, tuple[int, int]] = {}
    open_: set[int] = set()

    def walk(node: yaml.Node, depth: int) -> tuple[int, int]:
        key = id(node)
        line = node.start_mark.line + 1
        if key in open_:
            raise _RefusedError(line, "an alias refers to the mapping or list that holds it")
        if key not in sized:
            if depth > MAX_DEPTH:
                raise _RefusedError(line, f"nested more than {MAX_DEPTH} levels deep")
            open_.add(key)
            count, height = 1, 1
            for child in _children(node):
                n, h = walk(child, depth + 1)
                count, height = count + n, max(height, h + 1)
                if count > MAX_NODES:
                    raise _RefusedError(
                        line,
                        f"more than {MAX_NODES} values once its aliases are expanded "
                        "(an alias bomb?)",
                    )
            open_.discard(key)
            sized[key] = (count, height)
        count, height = sized[key]
        if depth + height - 1 > MAX_DEPTH:
            raise _RefusedError(
                line, f"nested more than {MAX_DEPTH} levels deep once its aliases are expanded"
            )
        return count, height

    walk(root, 1)


def _yaml_error(exc: yaml.YAMLError, file: Path) -> ConfigError:
    mark = getattr(exc, "problem_mark", None)
    line = mark.line + 1 if mark is not None else 1
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    if "'\\t'" in problem:
        problem += " (YAML indents with spaces, not tabs)"
    return ConfigError(f"{file}:{line}: not valid YAML: {problem}")


def _char(c: int | str) -> str:
    return repr(chr(c) if isinstance(c, int) else c)


def compose(text: str, file: Path) -> tuple[yaml.Node | None, Any]:
    """The file's node tree and its data, within the limits."""
    if len(text) > MAX_BYTES:
        raise ConfigError(f"{file}: larger than {_size(MAX_BYTES)}; no campaign is that long")
    try:
        loader = _Loader(text)
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow (NUL, ...)
        line = text.count("\n", 0, exc.position) + 1
        raise ConfigError(
            f"{file}:{line}: not valid YAML: character {_char(exc.character)} is not allowed"
        ) from None
    try:
        root = loader.get_single_node()
        if root is None or not isinstance(root, yaml.MappingNode):
            return root, None
        _check_expansion(root)
        data = loader.construct_document(root)
    except yaml.YAMLError as exc:
        raise _yaml_error(exc, file) from None
    except _RefusedError as exc:
        raise ConfigError(f"{file}:{exc.line}: {exc.what}") from None
    except RecursionError:  # not reached within the limits; a bound all the same
        raise ConfigError(f"{file}: nested too deeply") from None
    finally:
        loader.dispose()
    return root, _unshared(data)


def check_yaml(text: str, file: Path) -> None:
    """Refuse YAML (another command's input file) nested deeper than ``MAX_DEPTH`` or expanding
    past ``MAX_NODES`` values through its aliases, before a plain loader recurses or expands
    it; other problems are left to that loader's own errors."""
    try:
        loader = _Loader(text)
    except yaml.YAMLError:
        return
    try:
        root = loader.get_single_node()
        if root is not None:
            _check_expansion(root)
    except yaml.YAMLError:
        return
    except _RefusedError as exc:
        raise ConfigError(f"{file}:{exc.line}: {exc.what}") from None
    finally:
        loader.dispose()


def _unshared(data: Any) -> Any:
    """The data with every alias a copy of its own, so that rewriting one place (a dataset path
    made relative to the campaign) cannot rewrite another."""
    if isinstance(data, dict):
        return {k: _unshared(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_unshared(v) for v in data]
    return data


def _size(n: int) -> str:
    return f"{n / (1 << 20):g} MiB"


def read_text(path: Path, what: str = "campaign file", limit: int = MAX_BYTES) -> str:
    """A small UTF-8 file's text: at most ``limit`` bytes, read within ``READ_TIMEOUT_S`` (a
    FIFO or a terminal that never writes is an error, not a hang); every problem a
    ``ConfigError`` naming the file."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read {what}: {exc.strerror}") from None
    too_large = f"{path}: cannot read {what}: larger than {_size(limit)}"
    chunks: list[bytes] = []
    size = 0
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise ConfigError(f"{path}: cannot read {what}: it is a directory")
        if stat.S_ISREG(mode) and os.fstat(fd).st_size > limit:
            raise ConfigError(too_large)
        deadline = time.monotonic() + READ_TIMEOUT_S
        while True:
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([fd], [], [], left)[0]:
                    raise ConfigError(
                        f"{path}: cannot read {what}: nothing came in {READ_TIMEOUT_S:g} s"
                    ) from None
                continue
            if not chunk:
                break
            size += len(chunk)
            if size > limit:
                raise ConfigError(too_large)
            chunks.append(chunk)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read {what}: {exc.strerror}") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ConfigError(
            f"{path}:{line}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
            f"{exc.start}); save the file as UTF-8"
        ) from None
