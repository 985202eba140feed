"""Scoring one answer: run it on a task's cases in the sandbox, then judge what came back.

The candidate run calls the entry point on the base inputs, then on the extra (amplified or
EvalPlus) inputs, each under ``max(floor_s, factor * reference time)`` (EvalPlus's rule, with
its defaults 1 s and 4x); the first per-input timeout stops the run. The process as a whole gets
a few seconds plus ``min(wall_cap_s, sum of limits)``.

``Score.outcome`` is ``passed`` when every base and extra case is right, else the class of the
first case that is not, in order: ``failed`` (wrong answer, including an output of a type the
format does not carry), ``error`` (an exception; ``error_type`` names it), ``timeout``;
or of the program as a whole: ``syntax_error``, ``error`` while defining it, ``no_code`` (a
chat answer without code), ``timeout``/``oom``/``killed`` (the process died before answering
everything), ``sandbox_violation`` (never passes, whatever it printed). ``Score.detail`` is the
JSON of ``FunctionDetail``: right/total for base and extra cases, whether the base cases alone
passed, the error type and the first failure, readable.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from specverdict.records import Score
from specverdict.sandbox import Execution
from specverdict.suites.function.harness import HarnessReport, InputResult, call_execution
from specverdict.suites.function.oracles import is_right
from specverdict.suites.function.task import Case, FunctionTask, GroundTruth
from specverdict.suites.values import short_repr


@dataclass(frozen=True, slots=True)
class ScoringPolicy:
    """Time limits of a candidate run: per input ``max(floor_s, factor * reference time)``;
    ``define_s`` to define the solution; the process ``startup_s + define_s + min(wall_cap_s,
    sum of per-input limits)``."""

    floor_s: float = 1.0
    factor: float = 4.0
    wall_cap_s: float = 20.0
    define_s: float = 5.0
    startup_s: float = 3.0

    def limit(self, ref_s: float) -> float:
        return max(self.floor_s, self.factor * ref_s)


class FunctionDetail(BaseModel):
    """What ``Score.detail`` holds for function suites (as JSON)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    base_passed: bool
    base_right: int
    base_total: int
    plus_right: int
    plus_total: int
    error_type: str | None = None
    failure: str | None = None


def read_detail(score: Score) -> FunctionDetail | None:
    """The structured detail of a function suite's score (None for other scores)."""
    if score.detail is None:
        return None
    try:
        return FunctionDetail.model_validate_json(score.detail)
    except ValueError:
        return None


def candidate_execution(
    task: FunctionTask, truth: GroundTruth, program: str, policy: ScoringPolicy
) -> Execution:
    cases = (*truth.base, *truth.plus)
    # Room for outputs twice the size of the expected ones (more is wrong anyway), each in a
    # sealed record of the plan runner.
    expected_chars = truth.output_chars() + 120 * len(cases)
    return call_execution(
        program,
        task.entry_point,
        [c.args for c in cases],
        [policy.limit(c.ref_s) for c in cases],
        stop_on_timeout=True,
        define_limit_s=policy.define_s,
        startup_s=policy.startup_s,
        wall_cap_s=policy.wall_cap_s,
        output_bytes=max(1 << 20, 2 * expected_chars),
        tagged=[c.tagged_args() for c in cases],
    )


def _score(passed: bool, outcome: str, truth: GroundTruth, **detail: object) -> Score:
    fields: dict[str, object] = {
        "base_passed": False,
        "base_right": 0,
        "base_total": len(truth.base),
        "plus_right": 0,
        "plus_total": len(truth.plus),
        **detail,
    }
    return Score(
        passed=passed,
        outcome=outcome,
        detail=FunctionDetail.model_validate(fields).model_dump_json(exclude_none=True),
    )


def no_code(truth: GroundTruth, why: str) -> Score:
    return _score(False, "no_code", truth, failure=why)


_PROCESS = {"timeout": "timeout", "oom": "oom", "killed": "killed"}


def _describe(task: FunctionTask, kind: str, i: int, case: Case, result: InputResult) -> str:
    call = f"{kind} input {i}: {task.entry_point}{short_repr(case.args)}"
    if result.status == "exception":
        return f"{call} raised {result.error_type}: {result.detail}"
    if result.status == "timeout":
        return f"{call} ran over its time limit"
    want = "a right answer by the task's oracle" if task.oracle else short_repr(case.expected)
    return f"{call} returned {short_repr(result.value)}, expected {want}"


def judge(task: FunctionTask, truth: GroundTruth, report: HarnessReport) -> Score:
    """The score of one candidate run (see the module docstring)."""
    ex = report.execution
    if ex.outcome == "sandbox_violation" or ex.violations:
        why = ex.detail or ", ".join(ex.violations)
        return _score(False, "sandbox_violation", truth, failure=why)
    if report.stage == "syntax_error":
        return _score(
            False, "syntax_error", truth, error_type=report.error_type, failure=report.detail
        )
    if report.stage == "definition_error":
        outcome = "timeout" if report.error_type == "Timeout" else "error"
        return _score(False, outcome, truth, error_type=report.error_type, failure=report.detail)
    if report.stage == "protocol_error":
        return _score(False, "error", truth, error_type="ProtocolError", failure=report.detail)
    right = {"base": 0, "plus": 0}
    first: tuple[str, str | None, str] | None = None
    cases = [("base", i, c) for i, c in enumerate(truth.base)]
    cases += [("plus", i, c) for i, c in enumerate(truth.plus)]
    for n, (kind, i, case) in enumerate(cases):
        if n >= len(report.results):
            if first is None:
                outcome = _PROCESS.get(ex.outcome, "error")
                error_type = None if outcome != "error" else ex.detail or "ExitedEarly"
                why = f"the program stopped before {kind} input {i} ({ex.outcome})"
                first = (outcome, error_type, why)
            break
        result = report.results[n]
        if result.status == "ok" and is_right(
            task.compare, task.oracle, task.atol, case.args, result.value, case.expected
        ):
            right[kind] += 1
            continue
        if first is None:
            outcome = {"ok": "failed", "exception": "error", "timeout": "timeout"}[result.status]
            first = (outcome, result.error_type, _describe(task, kind, i, case, result))
    base_passed = right["base"] == len(truth.base)
    counts = {"base_right": right["base"], "plus_right": right["plus"], "base_passed": base_passed}
    if first is None:
        return _score(True, "passed", truth, **counts)
    outcome, error_type, why = first
    return _score(False, outcome, truth, error_type=error_type, failure=why, **counts)
