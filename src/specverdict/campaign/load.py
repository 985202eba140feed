"""Read a campaign file: YAML, validated strictly, errors as ``file:line: key.path: what``.

Line numbers come from the YAML node tree (PyYAML's composer keeps each node's start mark), so a
validation error on ``candidates[1].k`` points at the line of that key. Duplicate keys, which YAML
loaders silently collapse, are errors.

A campaign file is small and plain, and the loader holds it to that before building anything:
at most ``MAX_BYTES`` of UTF-8 text, read within ``READ_TIMEOUT_S`` (a FIFO nobody writes to
does not hang it), nested at most ``MAX_DEPTH`` deep and at most ``MAX_NODES`` values once its
aliases are expanded (an alias bomb, "billion laughs", is refused in milliseconds), keys that are
scalars, and only the plain YAML types (no ``!!binary``, ``!!set``, ``!!python/...``).
"""

from __future__ import annotations

import difflib
import functools
import os
import re
import select
import stat
import time
import typing
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from specverdict.campaign.model import Campaign, FieldError
from specverdict.errors import ConfigError

Path_ = tuple[str | int, ...]

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


def _index_lines(
    node: yaml.Node, path: Path_, lines: dict[Path_, int], file: Path, raw: dict[Path_, str]
) -> None:
    """Each key path's line (and each scalar's text as written, in ``raw``); duplicate keys and
    keys that are not scalars are errors."""
    lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            line = key_node.start_mark.line + 1
            if not isinstance(key_node, yaml.ScalarNode):
                raise ConfigError(
                    f"{file}:{line}: {_dotted(path)}: a key must be a name, not a "
                    f"{'list' if isinstance(key_node, yaml.SequenceNode) else 'mapping'}"
                )
            key = str(key_node.value)
            if key in seen:
                raise ConfigError(f"{file}:{line}: {_dotted((*path, key))}: duplicate key")
            seen.add(key)
            lines[(*path, key)] = line
            _index_lines(value_node, (*path, key), lines, file, raw)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _index_lines(item, (*path, i), lines, file, raw)
    elif isinstance(node, yaml.ScalarNode):
        raw[path] = str(node.value)


_PLAIN_KEY = re.compile(r"[\w:@.-]+")


def _dotted(path: Path_) -> str:
    """``candidates[1].k``; a key that is not a plain name quoted (``params['a b']``), so that
    the path stays one line whatever the file's keys hold."""
    out = ""
    for part in path:
        if isinstance(part, int) or not _PLAIN_KEY.fullmatch(str(part)):
            out += f"[{part!r}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "(top level)"


def _line_for(loc: Path_, lines: dict[Path_, int]) -> int:
    for n in range(len(loc), -1, -1):
        if loc[:n] in lines:
            return lines[loc[:n]]
    return 1


_TYPE_TAGS = {"int", "float", "str", "bool", "none"}


def _is_tag(part: str) -> bool:
    return (
        part in _TYPE_TAGS
        or part.startswith("constrained-")
        or "[" in part
        or "(" in part
        or part[:1].isupper()
    )


def _split_loc(loc: tuple[Any, ...], data: Any = None) -> tuple[Path_, int | None]:
    """The path in the file of an error's location, without the union-member tags pydantic
    inserts ('int', 'list[int]', 'First'), and the index of the first tag in ``loc``. A part
    the file holds at that place is a key (a user's own key may look like a tag: params {A: 1});
    one it does not hold (a missing field) is a tag when it looks like one."""
    path: list[str | int] = []
    first_tag: int | None = None
    here = data
    for i, part in enumerate(loc):
        held = (isinstance(here, dict) and part in here) or (
            isinstance(here, list) and isinstance(part, int) and 0 <= part < len(here)
        )
        if held:
            here = here[part]
        elif not isinstance(part, int) and _is_tag(str(part)):
            first_tag = i if first_tag is None else first_tag
            continue
        else:
            here = None
        path.append(part)
    return tuple(path), first_tag


def _clean_loc(loc: tuple[Any, ...], data: Any = None) -> Path_:
    return _split_loc(loc, data)[0]


def _yaml_error(exc: yaml.YAMLError, file: Path) -> ConfigError:
    mark = getattr(exc, "problem_mark", None)
    line = mark.line + 1 if mark is not None else 1
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    if "'\\t'" in problem:
        problem += " (YAML indents with spaces, not tabs)"
    return ConfigError(f"{file}:{line}: not valid YAML: {problem}")


def _char(c: int | str) -> str:
    return repr(chr(c) if isinstance(c, int) else c)


def _compose(text: str, file: Path) -> tuple[yaml.Node | None, Any]:
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


def parse_campaign(text: str, file: Path) -> Campaign:
    root, data = _compose(text, file)
    if root is None or not isinstance(root, yaml.MappingNode):
        raise ConfigError(f"{file}:1: a campaign must be a YAML mapping (name, engine, model, ...)")
    lines: dict[Path_, int] = {}
    raw: dict[Path_, str] = {}
    _index_lines(root, (), lines, file, raw)
    data = _resolve_paths(data, file.parent)
    try:
        return Campaign.model_validate(data)
    except ValidationError as exc:
        raise ConfigError("\n".join(_messages(exc, file, lines, raw, data))) from None


def _resolve_paths(data: Any, base: Path) -> Any:
    """A stage dataset's file (and a command scorer's files), and a candidate's golden
    acceptance file, relative to the campaign file."""
    if isinstance(data, dict) and isinstance(data.get("candidates"), list):
        for cand in data["candidates"]:
            expected = cand.get("expected_acceptance") if isinstance(cand, dict) else None
            if isinstance(expected, dict) and isinstance(expected.get("golden"), str):
                expected["golden"] = str(base / expected["golden"])
    if not isinstance(data, dict) or not isinstance(data.get("stages"), dict):
        return data
    for section in data["stages"].values():
        ds = section.get("dataset") if isinstance(section, dict) else None
        if not isinstance(ds, dict):
            continue
        for key in ("path", "snapshots"):
            if isinstance(ds.get(key), str):
                ds[key] = str(base / ds[key])
        scorer = ds.get("scorer")
        if isinstance(scorer, dict) and isinstance(scorer.get("files"), list):
            scorer["files"] = [str(base / f) if isinstance(f, str) else f for f in scorer["files"]]
    return data


def _got(value: Any, written: str | None = None) -> str:
    """The bad value as the user wrote it, for a scalar; nothing for a mapping or a list. A
    boolean says what was written (``yes``, ``on``), which YAML reads as one."""
    if isinstance(value, dict | list) or value is None:
        return ""
    text = repr(value)
    if isinstance(value, bool) and written is not None and written.lower() != text.lower():
        text = f"{written}, which YAML reads as {str(value).lower()}"
    return f" (got {text if len(text) <= 60 else text[:57] + '...'})"


@functools.cache
def _known_keys() -> tuple[str, ...]:
    """Every key a campaign file can hold, at any depth: what a misspelled key is matched to."""
    keys: set[str] = set()
    todo: list[type[BaseModel]] = [Campaign]
    while todo:
        model = todo.pop()
        for name, field in model.model_fields.items():
            keys.add(field.alias or name)
            for arg in _types_in(field.annotation):
                if isinstance(arg, type) and issubclass(arg, BaseModel) and arg is not model:
                    todo.append(arg)
    return tuple(sorted(keys))


def _types_in(annotation: Any) -> list[Any]:
    args = typing.get_args(annotation)
    return [annotation, *(t for a in args for t in _types_in(a))]


_WRONG_SHAPE = frozenset(
    {"literal_error", "model_type", "model_attributes_type", "dict_type", "list_type"}
)


def _union_member(loc: tuple[Any, ...], data: Any = None) -> tuple[Path_, str] | None:
    """(the field, the union member) of an error pydantic raised inside a union member."""
    first_tag = _split_loc(loc, data)[1]
    if first_tag is None:
        return None
    return _clean_loc(loc[:first_tag], data), str(loc[first_tag])


def _messages(
    exc: ValidationError,
    file: Path,
    lines: dict[Path_, int],
    raw: dict[Path_, str] | None = None,
    data: Any = None,
) -> list[str]:
    """Every error, one line each, in file order: ``file:line: key.path: what (got value)``.
    A field that failed every member of a union (``samples: {first: 0}`` against ``all``,
    ``first``, ``ids``, ``seeded``) is reported by the member that came closest (fewest
    errors), not by every member's complaints."""
    errors = exc.errors()
    members: dict[Path_, dict[str, int]] = {}
    for err in errors:
        where = _union_member(tuple(err["loc"]), data)
        if where is not None:
            counts = members.setdefault(where[0], {})
            # a member of the wrong shape (a string where a mapping was written) is the
            # furthest from what the user meant; of the wrong type (an integer where a float
            # was written) further than one whose bound was missed (a NaN float)
            kind = str(err["type"])
            weight = (
                100 if kind in _WRONG_SHAPE else 2 if kind.endswith(("_type", "_parsing")) else 1
            )
            counts[where[1]] = counts.get(where[1], 0) + weight
    closest = {field: min(c, key=lambda m: c[m]) for field, c in members.items()}
    seen: dict[Path_, str] = {}
    for err in errors:
        where = _union_member(tuple(err["loc"]), data)
        if where is not None and closest[where[0]] != where[1]:
            continue
        loc = _clean_loc(tuple(err["loc"]), data)
        what = err["msg"]
        if err["type"] == "extra_forbidden":
            what = "unknown key"
            key = str(loc[-1]) if loc else ""
            # a key written in another case (K, Method) is the known one; else the closest
            same = [k for k in _known_keys() if k.lower() == key.lower() and k != key]
            near = same or difflib.get_close_matches(key, _known_keys(), n=1, cutoff=0.75)
            if near:
                what += f" (did you mean {near[0]!r}?)"
        cause = err.get("ctx", {}).get("error")
        if isinstance(cause, FieldError):  # a cross-field check that names its field
            loc, what = (*loc, *cause.loc), str(cause)
        elif err["type"] != "extra_forbidden":
            what += _got(err.get("input"), (raw or {}).get(loc))
        seen.setdefault(loc, what)
    # one line each, whatever a message quotes
    seen = {loc: what.replace("\r", "\\r").replace("\n", "\\n") for loc, what in seen.items()}
    ordered = sorted(seen.items(), key=lambda kv: _line_for(kv[0], lines))
    return [f"{file}:{_line_for(loc, lines)}: {_dotted(loc)}: {what}" for loc, what in ordered]


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


def load_campaign(path: Path) -> Campaign:
    return parse_campaign(read_text(path), path)
