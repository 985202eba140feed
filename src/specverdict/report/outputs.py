"""Outputs: every way specverdict writes what it measured, behind one registry.

An output is one of two shapes, registered by name in ``plugins.OUTPUTS`` (built-ins, and
plugins through the ``specverdict.outputs`` entry-point group):

- a ``FileOutput`` renders one kind of data to bytes: a report (``ReportData``: ``html``,
  ``markdown``, ``json``), request rows (a sequence of ``RequestRow``: ``jsonl``, ``csv``,
  ``parquet``) or one run's result document (``RunResult``: ``result``). ``report --format``
  takes the names that read a report, ``runs export --format`` those that read rows or a result;
- a ``TrackingOutput`` sends a campaign's stored runs to another tool's server (``mlflow``);
  ``export NAME CAMPAIGN --tracking-uri URI`` calls it.

Adding an output is one module with an ``Output`` value and one registry line (or an entry
point): the commands list and check the names from the registry, with no second list.
"""

from __future__ import annotations

import contextlib
import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from specverdict.errors import ConfigError, SpecverdictError
from specverdict.plugins import OUTPUTS, PluginError

if TYPE_CHECKING:
    from specverdict.campaign import Plan
    from specverdict.report.model import ReportData
    from specverdict.store.base import Store

T = TypeVar("T")

#: what a file output renders: a report, request rows, or one run's result document
Reads = Literal["report", "rows", "result"]


@dataclass(frozen=True)
class FileOutput(Generic[T]):
    """An output rendered to a file (or to standard output when it is text)."""

    name: str
    reads: Reads
    filename: str  #: its file in a report folder, or the suffix of an export's file
    description: str
    render: Callable[[T], bytes]
    text: bool = True  #: may be written to standard output


@dataclass(frozen=True)
class TrackingOutput:
    """An output that logs a campaign's stored runs to another tool's tracking server;
    ``send`` returns how many executions it logged and how many it skipped (logged before)."""

    name: str
    description: str
    send: Callable[[Store, Plan, str], tuple[int, int]]
    uri_help: str = "the tracking server's URI"
    #: what is wrong with a URI the server cannot take (a one-line reason), else None
    check_uri: Callable[[str], str | None] = lambda uri: None if uri.strip() else "empty"


Output = FileOutput[Any] | TrackingOutput


def get_output(name: str) -> Output:
    """The registered output ``name``; a plugin's entry of the wrong kind is a ``PluginError``."""
    obj = OUTPUTS.get(name)
    if not isinstance(obj, FileOutput | TrackingOutput):
        raise OUTPUTS.wrong_kind(name, obj, "a FileOutput or TrackingOutput")
    return obj


def listed() -> list[object]:
    """Every registered output that loads, in the registry's order. A plugin that cannot be
    loaded is left out of lists (the default report formats, ``export``'s commands) and
    refused, naming it, only when it is asked for by name (``get_output``)."""
    found = []
    for name in OUTPUTS.names():
        with contextlib.suppress(PluginError):
            found.append(OUTPUTS.get(name))
    return found


def file_outputs(*reads: Reads) -> list[FileOutput[Any]]:
    """Every registered file output that reads one of ``reads``, in the registry's order."""
    return [o for o in listed() if isinstance(o, FileOutput) and o.reads in reads]


def file_output(name: str, *reads: Reads) -> FileOutput[Any]:
    """The file output ``name`` that reads one of ``reads``; any other name is a
    ``ConfigError`` naming the ones that would do."""
    known = [o.name for o in file_outputs(*reads)]
    obj = get_output(name) if name in OUTPUTS.names() else None
    if not isinstance(obj, FileOutput) or obj.reads not in reads:
        close = difflib.get_close_matches(name, known, n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        wrong = "" if obj is None else f" (it writes {_what(obj)})"
        raise ConfigError(f"{name!r} is not one of {', '.join(known)}{wrong}{hint}")
    return obj


def tracking_output(name: str) -> TrackingOutput:
    obj = get_output(name)
    if not isinstance(obj, TrackingOutput):
        raise ConfigError(f"output {name!r} writes {_what(obj)}, not to a tracking server")
    return obj


def _what(obj: Output) -> str:
    if isinstance(obj, TrackingOutput):
        return "to a tracking server"
    return {"report": "a report", "rows": "request rows", "result": "a run's result"}[obj.reads]


def rendered(output: FileOutput[T], data: T) -> bytes:
    """``output.render(data)``; a plugin's output that fails is a ``PluginError`` in one line
    (a built-in's failure is specverdict's own defect and keeps its traceback)."""
    if OUTPUTS.origin(output.name) == "specverdict":
        return output.render(data)
    try:
        return output.render(data)
    except SpecverdictError:
        raise
    except Exception as exc:
        raise PluginError(
            f"output {output.name!r} ({OUTPUTS.origin(output.name)}) failed: "
            f"{type(exc).__name__}: {exc}"
        ) from None


def write_report_files(
    data: ReportData, out: Path, formats: Sequence[str] | None = None
) -> dict[str, Path]:
    """Write the report in each of ``formats`` (default: every output that reads a report,
    ``index.html``, ``report.md`` and ``report.json`` among them) into ``out`` (created);
    the files by output name."""
    chosen = (
        file_outputs("report")
        if formats is None
        else [file_output(name, "report") for name in dict.fromkeys(formats)]
    )
    out.mkdir(parents=True, exist_ok=True)
    files = {}
    for output in chosen:
        path = out / output.filename
        path.write_bytes(rendered(output, data))
        files[output.name] = path
    return files


def _report_json(data: ReportData) -> bytes:
    return data.model_dump_json(indent=2).encode("utf-8")


#: ``report.json``: the ``ReportData`` every report output is rendered from
REPORT_JSON: FileOutput[ReportData] = FileOutput(
    "json", "report", "report.json", "the report's data, as the other reports read it", _report_json
)
