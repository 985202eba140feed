"""The function stage's test plans (``testplan.CallPlan``, ``RecordPlan``) and their reports.

The plan runner (``plan_runner.py``) is trusted code; the solution it defines is not. Only the
runner's sealed records count (``testplan.read_report``), and they are read strictly
(``values.decode``): a sealed line that is not a record, a result out of order, an output off
the tagged grammar or the solution calling into the runner makes the whole report a
``protocol_error``, which can only fail an answer, never pass it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from specverdict.sandbox import ExecResult, Execution, Limits
from specverdict.suites import testplan
from specverdict.suites.testplan import (
    ArgsRecord,
    CallPlan,
    CallResult,
    DefinitionError,
    RecordPlan,
    SyntaxErrorRecord,
)
from specverdict.suites.values import TagError, decode, encode, gc_paused

Args = tuple[Any, ...]
Stage = Literal["ran", "syntax_error", "definition_error", "protocol_error"]

#: how many values an output may hold before it counts as too large (past generator 7's
#: largest inputs, ``budget.LADDER``)
MAX_NODES = 1 << 18
#: the file holding the program under test
SOLUTION = "solution.py"


@dataclass(frozen=True, slots=True)
class InputResult:
    """One call of the entry point. ``value`` is the decoded output when ``status == "ok"``,
    ``tagged`` the tagged form it was read from."""

    status: Literal["ok", "exception", "timeout"]
    seconds: float
    value: Any = None
    error_type: str | None = None
    detail: str | None = None
    tagged: Any = field(default=None, compare=False, repr=False)


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
    tagged: Sequence[Any] | None = None,
) -> Execution:
    """Define ``source`` and call ``entry_point`` on each input, each under its own time limit.
    The process's wall limit is ``startup_s + define_limit_s + min(wall_cap_s, sum(limits))``.
    ``tagged``, where given, holds each input's ``encode(list(args))`` already (``inputs`` is
    then not read)."""
    plan = CallPlan(
        source=SOLUTION,
        entry_point=entry_point,
        inputs=(),
        limits=tuple(limits),
        stop_on_timeout=stop_on_timeout,
        budget_s=budget_s if math.isfinite(budget_s) else 1e9,
        define_limit_s=define_limit_s,
        max_nodes=MAX_NODES,
    )
    # the tagged inputs are this process's own ``encode`` output: validating them again, item
    # by item, would cost more than the run on inputs of tens of thousands of items
    wire = tuple(tagged) if tagged is not None else tuple(encode(list(a)) for a in inputs)
    plan = plan.model_copy(update={"inputs": wire})
    wall = startup_s + define_limit_s + min(wall_cap_s, sum(limits))
    return _execution(source, plan, wall, output_bytes)


def record_execution(source: str, entry_point: str, seed: int, wall_s: float = 30.0) -> Execution:
    """Run ``check(candidate)`` from a trusted ``source`` (prompt, reference solution and the
    dataset's test code), recording the arguments of every call; ``random`` is seeded first."""
    plan = RecordPlan(
        source=SOLUTION,
        entry_point=entry_point,
        seed=seed,
        define_limit_s=wall_s,
        max_nodes=MAX_NODES,
    )
    return _execution(source, plan, wall_s + 3.0, 8 << 20)


def _execution(
    source: str, plan: CallPlan | RecordPlan, wall_s: float, output_bytes: int
) -> Execution:
    limits = Limits(wall_s=wall_s, cpu_s=math.ceil(wall_s) + 1, output_bytes=output_bytes)
    return testplan.execution(plan, {SOLUTION: source}, limits)


class _ProtocolError(Exception):
    pass


def _result(record: CallResult) -> InputResult:
    if record.status == "ok":
        try:
            return InputResult("ok", record.t, value=decode(record.out), tagged=record.out)
        except TagError as exc:
            raise _ProtocolError(f"bad output: {exc}") from None
    if record.status == "exception":
        return InputResult(
            "exception",
            record.t,
            error_type=str(record.type)[:100],
            detail=str(record.detail)[:300],
        )
    return InputResult("timeout", record.t)


def parse_report(result: ExecResult, execution: Execution) -> HarnessReport:
    """Read the sealed records of ``result``, the run of ``execution``."""
    with gc_paused():
        return _parse_report(result, execution)


def _parse_report(result: ExecResult, execution: Execution) -> HarnessReport:
    report = testplan.read_report(result, testplan.nonce_of(execution))
    results: list[InputResult] = []
    records: list[Args] = []
    stage: Stage = "ran"
    error_type = detail = None
    try:
        if report.malformed is not None:
            raise _ProtocolError(report.malformed)
        if report.interfered:
            raise _ProtocolError("the solution called the runner's reporting function")
        for record in report.records:
            if isinstance(record, CallResult):
                if record.i != len(results):
                    raise _ProtocolError("results out of order")
                results.append(_result(record))
            elif isinstance(record, ArgsRecord):
                try:
                    args = decode(record.args)
                except TagError as exc:
                    raise _ProtocolError(f"bad record: {exc}") from None
                if type(args) is not list:
                    raise _ProtocolError("bad record: the arguments are not a list")
                records.append(tuple(args))
            elif isinstance(record, SyntaxErrorRecord | DefinitionError):
                stage = record.event
                error_type = record.type[:100]
                detail = record.detail[:300]
                if isinstance(record, SyntaxErrorRecord) and record.line is not None:
                    detail = f"line {record.line}: {detail}"
            elif record.event not in ("defined", "recorded", "budget_spent", "done"):
                raise _ProtocolError(f"unexpected record {record.event!r}")
    except _ProtocolError as exc:
        return HarnessReport(result, "protocol_error", detail=str(exc))
    return HarnessReport(
        result,
        stage,
        tuple(results),
        tuple(records),
        error_type=error_type,
        detail=detail,
        done=report.done,
    )
