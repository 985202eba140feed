"""Rows of a dataset file: one JSON object a line, validated, with one-line errors.

A row is ``prompt`` (completions) or ``messages`` with optional ``tools`` (chat), and optionally
``id`` (else ``row-N``, N its line), ``category``, ``max_tokens``, ``stop``, ``reference``, ``tests`` and
``metadata``. Unknown fields are refused, so that a misspelt ``refrence`` does not silently
leave every row unscored. A file in another tool's format is mapped to such rows by its importer
(``importers``) and then checked the same way.
"""

from __future__ import annotations

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
    return f"field {loc}: {msg}" if loc else msg


def _native(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """The file's rows as ``(where, raw row)``, one JSON object a line."""
    return list(jsonl_records(path, "row"))


def _label(where: str) -> str:
    """``line N`` for ``path:N``, ``entry I`` for ``path[I]`` (a record of a JSON list)."""
    if where.endswith("]"):
        return f"entry {where.rsplit('[', 1)[1][:-1]}"
    return f"line {where.rsplit(':', 1)[1]}"


def load_rows(
    path: Path, fmt: Format, needs: Literal["reference", "tests"] | None = None
) -> list[tuple[str, Row]]:
    """``(sample id, row)`` for every non-blank line (or, for another tool's format, every
    record its importer maps), or a ``ConfigError`` naming the file, the line (or record) and
    the field: a row of the other format, a duplicate id, a row without the field its scorer
    needs."""
    native = fmt in ("completions", "chat")
    records = _native(path) if native else import_records(path, cast(Imported, fmt))
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
        sid = row.id if row.id is not None else f"row-{where.rsplit(':', 1)[1]}"
        if sid in seen:
            raise ConfigError(f"{where}: field id: {sid!r} is also the id of {_label(seen[sid])}")
        seen[sid] = where
        rows.append((sid, row))
    if not rows:
        raise ConfigError(f"{path}: the dataset has no rows")
    return rows
