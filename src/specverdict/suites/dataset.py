"""Suite data shipped with the package: JSONL records, the Python sources they name, a hash.

A data-backed suite keeps its records in JSONL files in a ``data/`` folder next to it, one JSON
object a line, each validated at load by a frozen pydantic model (``Record``). Python source
that is ours (reference programs, fixture repositories, workspaces, tests) is not held in JSON
strings: records name real ``.py`` files under ``data/.sources/``, read byte for byte. Bad data
stops the load with one line naming the file, the record (its line and id) and the field.

``content_hash`` is the suite's data identity: a SHA-256 over its data files in a fixed order
(sorted relative paths; each file's path, length and bytes). ``data-lock.json`` records it per
suite version; a change of the data without a version bump fails the tests (``datalock``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Annotated, Any, Generic, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError

from specverdict.errors import ConfigError

#: the folder, inside a data folder, of the Python sources records name
SOURCES = ".sources"
#: names under a data folder that are not data (lint settings, caches); so are dot-names other
#: than ``SOURCES``
_NOT_DATA = frozenset({"ruff.toml", "__pycache__"})


class SuiteDataError(ConfigError):
    """A suite's data file is malformed; the message names the file, record and field."""


class Record(BaseModel):
    """Base of the records in a suite's JSONL files: frozen, strict, no unknown fields."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


def _relative(path: str) -> str:
    parts = path.split("/")
    if not path or path.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise ValueError(f"not a relative path inside the data folder: {path!r}")
    return path


#: a ``/``-separated relative path without ``.`` or ``..`` parts
RelPath = Annotated[str, AfterValidator(_relative)]

R = TypeVar("R", bound=Record)


@dataclass(frozen=True)
class Line(Generic[R]):
    """A validated record and where it is: ``at`` prefixes an error about one of its fields."""

    number: int
    record: R
    at: str

    def error(self, field_name: str, message: str) -> SuiteDataError:
        return SuiteDataError(f"{self.at}: field {field_name}: {message}")


@dataclass(frozen=True)
class DataDir:
    """A data folder: ``root`` to read, ``label`` to name it in messages, and ``only``: the
    files the suite's hash covers when the folder holds other suites' data too."""

    root: Traversable
    label: str
    only: tuple[str, ...] = ()

    @classmethod
    def of(cls, package: str, *parts: str, only: tuple[str, ...] = ()) -> DataDir:
        """The folder ``parts`` of an importable package, e.g. ``("data",)``."""
        node = files(package)
        for part in parts:
            node = node / part
        return cls(node, "/".join((package.replace(".", "/"), *parts)), only)

    def node(self, relative: str) -> Traversable:
        node = self.root
        for part in relative.split("/"):
            node = node / part
        return node

    def paths(self) -> list[str]:
        """The data files, as sorted relative paths (``only`` when given)."""
        if self.only:
            return sorted(self.only)
        return sorted(_walk(self.root, ""))

    def content_hash(self) -> str:
        return _hash(self)


@cache
def _hash(data: DataDir) -> str:
    digest = hashlib.sha256()
    for path in data.paths():
        blob = data.node(path).read_bytes()
        digest.update(f"{path}\0{len(blob)}\0".encode())
        digest.update(blob)
    return digest.hexdigest()


def _walk(node: Traversable, prefix: str) -> Iterator[str]:
    for child in node.iterdir():
        name = child.name
        if name in _NOT_DATA or name.endswith(".pyc") or (name[0] == "." and name != SOURCES):
            continue
        path = f"{prefix}{child.name}"
        if child.is_dir():
            yield from _walk(child, path + "/")
        else:
            yield path


@dataclass
class Reader:
    """One load of a data folder: validated records, the sources they name, and a final check
    that every source file is named by some record (``finish``)."""

    data: DataDir
    read: set[str] = field(default_factory=set)

    def records(self, name: str, model: type[R]) -> list[Line[R]]:
        label = f"{self.data.label}/{name}"
        try:
            text = self.data.node(name).read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise SuiteDataError(f"{label}: cannot be read ({type(e).__name__})") from None
        out: list[Line[R]] = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                raw = json.loads(line)
            except json.JSONDecodeError as e:
                raise SuiteDataError(
                    f"{label}: record at line {number}: not JSON ({e.msg}, column {e.colno})"
                ) from None
            at = f"{label}: record at line {number}{_named(raw)}"
            try:
                record = model.model_validate_json(line)
            except ValidationError as e:
                raise SuiteDataError(f"{at}: {_first_error(e)}") from None
            out.append(Line(number, record, at))
        return out

    def source(self, line: Line[Any], field_name: str, path: str) -> str:
        """The text of ``.sources/<path>``, exactly as stored."""
        relative = f"{SOURCES}/{path}"
        try:
            text = self.data.node(relative).read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            raise line.error(field_name, f"no readable file {self.data.label}/{relative}") from None
        self.read.add(relative)
        return text

    def finish(self) -> None:
        """Every file under ``.sources`` must be named by a record."""
        stray = [p for p in self.data.paths() if p.startswith(SOURCES + "/") and p not in self.read]
        if stray:
            raise SuiteDataError(
                f"{self.data.label}/{stray[0]}: named by no record"
                + (f" (and {len(stray) - 1} more files)" if len(stray) > 1 else "")
            )


def _named(raw: object) -> str:
    if isinstance(raw, dict):
        for key in ("id", "task_id"):
            if isinstance(raw.get(key), str):
                return f" ({raw[key]})"
    return ""


def _first_error(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "(record)"
    more = error.error_count() - 1
    message = " ".join(str(first["msg"]).split())
    return f"field {where}: {message}" + (f" (and {more} more errors)" if more else "")
