"""Read a campaign file: YAML, validated strictly, errors as ``file:line: key.path: what``.

Line numbers come from the YAML node tree (PyYAML's composer keeps each node's start mark), so a
validation error on ``candidates[1].k`` points at the line of that key. Duplicate keys, which YAML
loaders silently collapse, are errors.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

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
    data = yaml.safe_load(text)
    try:
        return Campaign.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = _clean_loc(tuple(err["loc"]))
        what = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
        cause = err.get("ctx", {}).get("error")
        if isinstance(cause, FieldError):  # a cross-field check that names its field
            loc, what = (*loc, *cause.loc), str(cause)
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise ConfigError(f"{file}:{_line_for(loc, lines)}: {_dotted(loc)}: {what}{more}") from None


def load_campaign(path: Path) -> Campaign:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read campaign file: {exc.strerror}") from None
    return parse_campaign(text, path)
