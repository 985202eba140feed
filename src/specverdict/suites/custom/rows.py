"""Rows of a dataset file: one JSON object a line, validated, with one-line errors.

A row is ``prompt`` (completions) or ``messages`` with optional ``tools`` (chat), and optionally
``id`` (else ``row-N``, N its line), ``category``, ``max_tokens``, ``stop``, ``reference``, ``tests`` and
``metadata``. Unknown fields are refused, so that a misspelt ``refrence`` does not silently
leave every row unscored. A file in another tool's format is mapped to such rows by its importer
(``importers``) and then checked the same way.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError, model_validator

from specverdict.errors import ConfigError
from specverdict.suites.custom.importers import (
    IMPORTED,
    Imported,
    import_records,
    jsonl_records,
)

Format = Literal["completions", "chat"] | Imported
FORMATS: tuple[str, ...] = ("completions", "chat", *IMPORTED)
#: how a multi-turn row is asked (``DatasetSection.replay``); None: the format's own way
Replay = Literal["first", "own", "recorded"]


class Message(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    role: Literal["system", "user", "assistant", "tool"]
    content: str | None = None


class Row(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str | None = Field(default=None, min_length=1)
    prompt: str | None = None
    messages: tuple[Message, ...] | None = None
    tools: tuple[dict[str, JsonValue], ...] | None = None
    category: str | None = None
    max_tokens: int | None = Field(default=None, gt=0)
    stop: tuple[str, ...] = ()
    reference: JsonValue = None
    tests: str | None = None
    metadata: dict[str, JsonValue] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _one_input(self) -> Row:
        if (self.prompt is None) == (self.messages is None):
            raise ValueError("give either prompt (completions) or messages (chat)")
        if self.messages is not None and not self.messages:
            raise ValueError("messages is empty")
        return self


def _field_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err["loc"])
    msg = str(err["msg"]).removeprefix("Value error, ")
    if err["type"] == "extra_forbidden" and len(err["loc"]) == 1:
        # a typo of a row field: say which one was meant, and which there are
        known = list(Row.model_fields)
        near = difflib.get_close_matches(loc, known, n=1, cutoff=0.6)
        hint = f"; did you mean {near[0]}?" if near else ""
        msg = f"unknown field{hint} (a row has {', '.join(known)})"
    return f"field {loc}: {msg}" if loc else msg


def _native(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """The file's rows as ``(where, raw row)``, one JSON object a line."""
    return list(jsonl_records(path, "row"))


def _label(where: str) -> str:
    """``line N`` for ``path:N``, ``entry I`` for ``path[I]`` (a record of a JSON list)."""
    if where.endswith("]"):
        return f"entry {where.rsplit('[', 1)[1][:-1]}"
    return f"line {where.rsplit(':', 1)[1]}"


def _replayed(row: Row, replay: Replay | None) -> list[tuple[str | None, Row]]:
    """The rows a chat row is asked as: ``first``, its first user turn (with the system
    messages before it); ``recorded``, one row a user turn, the conversation before it as
    written (``/k`` added to the id, k the turn); ``own`` and None, the row as it is (``own``
    asks its user turns one by one, after the model's own answers: ``replay``)."""
    if row.messages is None or replay in (None, "own"):
        if replay == "own" and row.messages is not None:
            for i, m in enumerate(row.messages):
                if m.role == "tool" or (m.model_extra or {}).get("tool_calls"):
                    raise ValueError(
                        f"field messages[{i}]: replay own cannot replay tool calls and results "
                        "after the model's own answers"
                    )
            if not any(m.role == "user" for m in row.messages):
                raise ValueError("field messages: replay own needs a user turn")
        return [(None, row)]
    users = [i for i, m in enumerate(row.messages) if m.role == "user"]
    if not users:
        raise ValueError(f"field messages: replay {replay} needs a user turn")
    if replay == "first":
        at = users[0]
        kept = (*(m for m in row.messages[:at] if m.role == "system"), row.messages[at])
        return [(None, row.model_copy(update={"messages": kept}))]
    return [
        (f"/{k}", row.model_copy(update={"messages": row.messages[: at + 1]}))
        for k, at in enumerate(users, 1)
    ]


def load_rows(
    path: Path,
    fmt: Format,
    needs: Literal["reference", "tests"] | None = None,
    replay: Replay | None = None,
) -> list[tuple[str, Row]]:
    """``(sample id, row)`` for every non-blank line (or, for another tool's format, every
    record its importer maps), or a ``ConfigError`` naming the file, the line (or record) and
    the field: a row of the other format, a duplicate id, a row without the field its scorer
    needs. ``replay`` says how a chat row of several user turns is asked (``_replayed``); an
    imported format gives its records' whole conversations for ``own``."""
    native = fmt in ("completions", "chat")
    if native:
        records = _native(path)
    else:
        imported = cast(Imported, fmt)
        if imported == "sharegpt" and replay == "recorded":
            imported = "sharegpt-recorded"  # the same rows, one format (as the plan writes it)
        records = import_records(path, imported, whole=replay == "own")
    rows: list[tuple[str, Row]] = []
    seen: dict[str, str] = {}
    for where, raw in records:
        try:
            row = Row.model_validate(raw)
        except ValidationError as exc:
            raise ConfigError(f"{where}: {_field_error(exc)}") from None
        if fmt == "completions" and row.prompt is None:
            raise ConfigError(f"{where}: field prompt: a completions dataset needs a prompt")
        if fmt == "chat" and row.messages is None:
            raise ConfigError(f"{where}: field messages: a chat dataset needs messages")
        if needs == "reference" and row.reference is None:
            raise ConfigError(f"{where}: field reference: the scorer compares with it")
        if needs == "tests" and not row.tests:
            raise ConfigError(f"{where}: field tests: the scorer runs them")
        try:
            # an importer already gave its records as asked; own answers are checked here
            asked = _replayed(row, replay if native or replay == "own" else None)
        except ValueError as exc:
            raise ConfigError(f"{where}: {exc}") from None
        base = row.id if row.id is not None else f"row-{where.rsplit(':', 1)[1]}"
        for suffix, one in asked:
            sid = base + (suffix or "")
            if sid in seen:
                raise ConfigError(
                    f"{where}: field id: {sid!r} is also the id of {_label(seen[sid])}"
                )
            seen[sid] = where
            rows.append((sid, one))
    if not rows:
        raise ConfigError(f"{path}: the dataset has no rows")
    return rows
