"""Read a campaign file: YAML, validated strictly, errors as ``file:line: key.path: what``.

Line numbers come from the YAML node tree (PyYAML's composer keeps each node's start mark), so a
validation error on ``candidates[1].k`` points at the line of that key. Duplicate keys, which YAML
loaders silently collapse, are errors.

The file is read and composed within the limits of :mod:`specverdict.campaign.yamlfile`
(bytes, time, depth, expanded size, plain types) before anything is validated.
"""

from __future__ import annotations

import difflib
import functools
import re
import typing
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from specverdict.campaign.model import Campaign, FieldError
from specverdict.campaign.yamlfile import compose, read_text
from specverdict.errors import ConfigError

Path_ = tuple[str | int, ...]


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


def parse_campaign(text: str, file: Path) -> Campaign:
    root, data = compose(text, file)
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


def load_campaign(path: Path) -> Campaign:
    return parse_campaign(read_text(path), path)
