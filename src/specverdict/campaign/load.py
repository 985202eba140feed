"""Read a campaign file: YAML, validated strictly, errors as ``file:line: key.path: what``.

Line numbers come from the YAML node tree (PyYAML's composer keeps each node's start mark), so a
validation error on ``candidates[1].k`` points at the line of that key. Duplicate keys, which YAML
loaders silently collapse, are errors.
"""

from __future__ import annotations

import difflib
import functools
import typing
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from specverdict.campaign.model import Campaign, FieldError
from specverdict.errors import ConfigError

Path_ = tuple[str | int, ...]


def _index_lines(node: yaml.Node, path: Path_, lines: dict[Path_, int], file: Path) -> None:
    lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            key = str(key_node.value)
            if key in seen:
                raise ConfigError(
                    f"{file}:{key_node.start_mark.line + 1}: {_dotted((*path, key))}: duplicate key"
                )
            seen.add(key)
            lines[(*path, key)] = key_node.start_mark.line + 1
            _index_lines(value_node, (*path, key), lines, file)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _index_lines(item, (*path, i), lines, file)


def _dotted(path: Path_) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _line_for(loc: Path_, lines: dict[Path_, int]) -> int:
    for n in range(len(loc), -1, -1):
        if loc[:n] in lines:
            return lines[loc[:n]]
    return 1


_TYPE_TAGS = {"int", "float", "str", "bool", "none"}


def _is_tag(part: str) -> bool:
    return part in _TYPE_TAGS or "[" in part or "(" in part or part[:1].isupper()


def _clean_loc(loc: tuple[Any, ...]) -> Path_:
    """Drop the union-member tags pydantic inserts into locations ('int', 'list[int]', 'First'):
    campaign keys are lower-case names, so what remains is the path in the file."""
    return tuple(p for p in loc if isinstance(p, int) or not _is_tag(str(p)))


def parse_campaign(text: str, file: Path) -> Campaign:
    try:
        root = yaml.compose(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"{file}:{line}: not valid YAML: {problem}") from None
    if root is None or not isinstance(root, yaml.MappingNode):
        raise ConfigError(f"{file}:1: a campaign must be a YAML mapping (name, engine, model, ...)")
    lines: dict[Path_, int] = {}
    _index_lines(root, (), lines, file)
    data = _resolve_paths(yaml.safe_load(text), file.parent)
    try:
        return Campaign.model_validate(data)
    except ValidationError as exc:
        raise ConfigError("\n".join(_messages(exc, file, lines))) from None


def _resolve_paths(data: Any, base: Path) -> Any:
    """A stage dataset's file (and a command scorer's files) relative to the campaign file."""
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


def _got(value: Any) -> str:
    """The bad value as the user wrote it, for a scalar; nothing for a mapping or a list."""
    if isinstance(value, dict | list) or value is None:
        return ""
    text = repr(value)
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


def _union_member(loc: tuple[Any, ...]) -> tuple[Path_, str] | None:
    """(the field, the union member) of an error pydantic raised inside a union member."""
    for i, part in enumerate(loc):
        if not isinstance(part, int) and _is_tag(str(part)):
            return _clean_loc(loc[:i]), str(part)
    return None


def _messages(exc: ValidationError, file: Path, lines: dict[Path_, int]) -> list[str]:
    """Every error, one line each, in file order: ``file:line: key.path: what (got value)``.
    A field that failed every member of a union (``samples: {first: 0}`` against ``all``,
    ``first``, ``ids``, ``seeded``) is reported by the member that came closest (fewest
    errors), not by every member's complaints."""
    errors = exc.errors()
    members: dict[Path_, dict[str, int]] = {}
    for err in errors:
        where = _union_member(tuple(err["loc"]))
        if where is not None:
            counts = members.setdefault(where[0], {})
            # a member of the wrong shape (a string where a mapping was written) is the
            # furthest from what the user meant
            weight = 100 if err["type"] in _WRONG_SHAPE else 1
            counts[where[1]] = counts.get(where[1], 0) + weight
    closest = {field: min(c, key=lambda m: c[m]) for field, c in members.items()}
    seen: dict[Path_, str] = {}
    for err in errors:
        where = _union_member(tuple(err["loc"]))
        if where is not None and closest[where[0]] != where[1]:
            continue
        loc = _clean_loc(tuple(err["loc"]))
        what = err["msg"]
        if err["type"] == "extra_forbidden":
            what = "unknown key"
            near = difflib.get_close_matches(str(loc[-1]), _known_keys(), n=1, cutoff=0.75)
            if near:
                what += f" (did you mean {near[0]!r}?)"
        cause = err.get("ctx", {}).get("error")
        if isinstance(cause, FieldError):  # a cross-field check that names its field
            loc, what = (*loc, *cause.loc), str(cause)
        elif err["type"] != "extra_forbidden":
            what += _got(err.get("input"))
        seen.setdefault(loc, what)
    ordered = sorted(seen.items(), key=lambda kv: _line_for(kv[0], lines))
    return [f"{file}:{_line_for(loc, lines)}: {_dotted(loc)}: {what}" for loc, what in ordered]


def load_campaign(path: Path) -> Campaign:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read campaign file: {exc.strerror}") from None
    return parse_campaign(text, path)
