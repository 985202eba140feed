"""Building the harness program's executions and reading back what it printed.

The harness (``_child.py``) is trusted code; the solution it defines is not. Everything read
back is parsed strictly (``values.decode``): a line that is not the protocol, a result out of
order or an output off the tagged grammar makes the whole report a ``protocol_error``, which can
only fail an answer, never pass it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, Literal

from specverdict.sandbox import ExecResult, Execution, Limits
from specverdict.suites.values import TagError, decode, encode

Args = tuple[Any, ...]
Stage = Literal["ran", "syntax_error", "definition_error", "protocol_error"]

#: the harness program, read once from the package
HARNESS = resources.files("specverdict.suites").joinpath("_child.py").read_text()
#: how many values an output may hold before it counts as too large
MAX_NODES = 20_000


@dataclass(frozen=True, slots=True)
class InputResult:
    """One call of the entry point. ``value`` is the decoded output when ``status == "ok"``."""

    status: Literal["ok", "exception", "timeout"]
    seconds: float
    value: Any = None
    error_type: str | None = None
    detail: str | None = None


@dataclass(frozen=True, slots=True)
class HarnessReport:
    """What one harness execution established. ``results`` are in input order and may be fewer
    than the inputs (a timeout stops a candidate; a crash or the time budget stops anything)."""

    execution: ExecResult
    stage: Stage
    results: tuple[InputResult, ...] = ()
    records: tuple[Args, ...] = ()
    error_type: str | None = None
    detail: str | None = None
    done: bool = False


def call_execution(
    source: str,
    entry_point: str,
    inputs: Sequence[Args],
    limits: Sequence[float],
    *,
    stop_on_timeout: bool,
    budget_s: float = math.inf,
    define_limit_s: float = 5.0,
    startup_s: float = 3.0,
    wall_cap_s: float = 30.0,
    output_bytes: int = 1 << 20,
) -> Execution:
    """Define ``source`` and call ``entry_point`` on each input, each under its own time limit.
    The process's wall limit is ``startup_s + define_limit_s + min(wall_cap_s, sum(limits))``."""
    job = {
        "mode": "call",
        "entry_point": entry_point,
        "inputs": [encode(list(a)) for a in inputs],
        "limits": list(limits),
        "stop_on_timeout": stop_on_timeout,
        "budget_s": budget_s if math.isfinite(budget_s) else 1e9,
        "define_limit": define_limit_s,
        "max_nodes": MAX_NODES,
    }
    wall = startup_s + define_limit_s + min(wall_cap_s, sum(limits))
    return _execution(source, job, wall, output_bytes)


def record_execution(source: str, entry_point: str, seed: int, wall_s: float = 30.0) -> Execution:
    """Run ``check(candidate)`` from a trusted ``source`` (prompt, reference solution and the
    dataset's test code), recording the arguments of every call; ``random`` is seeded first."""
    job = {
        "mode": "record",
        "entry_point": entry_point,
        "record_seed": seed,
        "define_limit": wall_s,
        "max_nodes": MAX_NODES,
    }
    return _execution(source, job, wall_s + 3.0, 8 << 20)


def _execution(source: str, job: dict[str, Any], wall_s: float, output_bytes: int) -> Execution:
    limits = Limits(wall_s=wall_s, cpu_s=math.ceil(wall_s) + 1, output_bytes=output_bytes)
    return Execution(
        program=HARNESS,
        files={"job.json": json.dumps(job), "solution.py": source},
        limits=limits,
    )


class _ProtocolError(Exception):
    pass


def _result(line: dict[str, Any]) -> InputResult:
    status, seconds = line.get("status"), line.get("t", 0.0)
    if type(seconds) not in (int, float):
        raise _ProtocolError("bad time")
    if status == "ok":
        try:
            return InputResult("ok", float(seconds), value=decode(line.get("out")))
        except TagError as exc:
            raise _ProtocolError(f"bad output: {exc}") from None
    if status == "exception":
        return InputResult(
            "exception",
            float(seconds),
            error_type=str(line.get("type"))[:100],
            detail=str(line.get("detail"))[:300],
        )
    if status == "timeout":
        return InputResult("timeout", float(seconds))
    raise _ProtocolError(f"unknown status {status!r}")


def parse_report(execution: ExecResult) -> HarnessReport:
    """Read the harness's lines. A truncated stream loses its last, possibly partial, line."""
    lines = execution.stdout.splitlines()
    if execution.truncated and lines:
        lines = lines[:-1]
    results: list[InputResult] = []
    records: list[Args] = []
    stage: Stage = "ran"
    error_type = detail = None
    done = False
    try:
        for text in lines:
            try:
                line = json.loads(text)
            except ValueError:
                raise _ProtocolError("a line is not JSON") from None
            if type(line) is not dict:
                raise _ProtocolError("a line is not an object")
            if "i" in line:
                if line["i"] != len(results):
                    raise _ProtocolError("results out of order")
                results.append(_result(line))
            elif "record" in line:
                try:
                    args = decode(line["record"])
                except TagError as exc:
                    raise _ProtocolError(f"bad record: {exc}") from None
                records.append(tuple(args))
            elif line.get("event") in ("syntax_error", "definition_error"):
                stage = line["event"]
                error_type = str(line.get("type"))[:100]
                detail = str(line.get("detail"))[:300]
                if line.get("line") is not None:
                    detail = f"line {line['line']}: {detail}"
            elif line.get("event") == "done":
                done = True
            elif line.get("event") not in ("defined", "recorded", "budget_spent"):
                raise _ProtocolError(f"unknown line {text[:80]!r}")
    except _ProtocolError as exc:
        return HarnessReport(execution, "protocol_error", detail=str(exc))
    return HarnessReport(
        execution,
        stage,
        tuple(results),
        tuple(records),
        error_type=error_type,
        detail=detail,
        done=done,
    )
