"""``testgen@1``: the ``side:testgen`` slice, where the model writes tests for a given function.

What it measures: for each of 17 small functions (``testgen_data``), the model gets the
function's source, its module name and a short spec, and answers with a test module of plain
``test_*`` functions that check results with ``assert`` (standard library only: the sandbox
interpreter has no pytest). The answer scores when its tests pass on the reference
implementation and fail on at least one of the task's three to five hand-written mutants; the
mutation score (mutants killed / mutants) is recorded in the detail.

Outcome classes: ``passed`` (passes on the reference, kills at least one mutant);
``fails_on_reference`` (some test fails on the reference); ``kills_no_mutant`` (passes on the
reference and on every mutant: the tests assert too little); ``no_tests`` (no code, or no
top-level ``test_*`` function: test classes are not collected); ``syntax_error``; ``error``
(the test module cannot be defined, e.g. ``import pytest``, or the process ended before the
runner finished); ``timeout``; ``sandbox_violation`` (the sandbox refused something, or the
tests reach into the interpreter's frames, garbage collector, tracing or code objects, which is
refused before running; see below).

How it is judged: every (answer, implementation) pair is one sandbox execution. The parent
writes the implementation as ``<module>.py`` next to the answer's tests, and runs the trusted plan
runner (``suites/plan_runner.py``, a ``testplan.TestsPlan`` sealed ``"pass"``), which defines the
tests, rebinds the function's name in the tests' namespace to
the implementation (so an answer that pastes its own copy of the function still tests the
implementation), calls every ``test_*`` function and, only when every one of them returned,
prints a line with a random token drawn by the parent for that execution. The runner reads the
token from its standard input before any answer code is compiled, then points descriptors 0, 1
and 2 at ``/dev/null``: the stdin memory file has no descriptor left, and the tests' output goes
nowhere. The parent counts an implementation as *passed* only when the process exited 0 and its
output holds that token; anything else (a failing test, ``sys.exit``, ``os._exit``, a crash,
a timeout, a violation, flooded output) is *not passed*. Other lines the runner prints (which
tests failed) only choose a failure class, never a pass.

Why the tests cannot fake a pass: they never see the token through any file, descriptor,
argument or environment variable; it exists only in a local variable of the runner. Digging
it out of the interpreter (frames, ``gc``, tracing hooks, code objects) is the only way, and
answers that name those facilities are refused before running. This raises the bar; it is not
proof against code written to defeat it (``getattr`` with a computed name), at the same trust
level as the sandbox's audit hooks (``docs/sandbox.md``). Faking a *failure* on a mutant is
easy but useless: the same tests must pass on the reference, and they cannot tell which
implementation they run against except by its behaviour, or by reading its source (a test that
compares the source with the prompt's would kill every mutant; the suite does not prevent it).

Source: written for specverdict. Licence: Apache-2.0, as specverdict.
"""

from __future__ import annotations

import ast
import math
import secrets
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from specverdict.records import Score
from specverdict.sandbox import ExecResult, Execution, Limits, Sandbox
from specverdict.suites import pyast, testplan
from specverdict.suites.base import Sample, Suite
from specverdict.suites.codeextract import extract_code
from specverdict.suites.dataset import DataDir
from specverdict.suites.functional import default_sandbox
from specverdict.suites.testgen_data import DATA, TASKS, TestgenTask
from specverdict.suites.testplan import (
    AllPassed,
    Bind,
    Collected,
    DefinitionError,
    Finished,
    Load,
    SyntaxErrorRecord,
    TestResult,
    TestsPlan,
)

#: the answer's tests, as a file of the execution's directory
TESTS_FILE = "test_answer.py"
#: failing tests the runner names (the rest are only counted)
MAX_REPORTED = 20

CHAT_INSTRUCTION = """\
Write tests for the Python function below.

Module: `{module}` (import the function with `from {module} import {entry_point}`)
Specification: {spec}

```python
{reference}```

Write the tests as plain functions whose names start with `test_`, checking results with \
`assert` statements. Use only the standard library: no pytest, no unittest classes, no fixtures \
or parameters. The tests must pass on this implementation and should fail on a version with a \
bug. Reply with the test module in one ```python code block.
"""

#: names whose use in an answer is refused before running: they reach the runner's frames,
#: objects or code (where the token lives)
INTROSPECTION = frozenset(
    {
        "gc",
        "inspect",
        "ctypes",
        "traceback",
        "_getframe",
        "_current_frames",
        "settrace",
        "setprofile",
        "f_back",
        "f_locals",
        "f_globals",
        "f_code",
        "tb_frame",
        "gi_frame",
        "cr_frame",
        "ag_frame",
        "__code__",
        "__closure__",
        "get_objects",
        "get_referrers",
        "get_referents",
    }
)


class MutantResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    killed: bool
    how: str  # "survived", "failed", "timeout", "error", ...


class TestgenDetail(BaseModel):
    """What ``Score.detail`` of a test-generation answer holds (as JSON)."""

    model_config = ConfigDict(extra="forbid")

    task_id: str
    tests: int = 0
    reference: str | None = None  # "passed" or why not
    failing_tests: list[str] = []
    mutants_total: int = 0
    mutants_killed: int | None = None
    mutation_score: float | None = None
    mutants: dict[str, MutantResult] = {}
    failure: str | None = None
    chars: int = 0


def read_testgen_detail(score: Score) -> TestgenDetail | None:
    """The structured detail of a test-generation score (None for other scores)."""
    if score.detail is None:
        return None
    try:
        return TestgenDetail.model_validate_json(score.detail)
    except ValueError:
        return None


def count_tests(tree: ast.Module) -> int:
    """Top-level ``def test_*`` functions (what the runner will call)."""
    return sum(
        isinstance(node, ast.FunctionDef) and node.name.startswith("test_") for node in tree.body
    )


def introspection(tree: ast.Module) -> list[str]:
    """The refused names an answer uses (imports, attributes, names), sorted."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module.split(".")[0])
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.add(node.value)
    return sorted(found & INTROSPECTION)


@dataclass(frozen=True, slots=True)
class Verdict:
    """One execution as the parent judges it: ``passed`` only with the runner's token."""

    passed: bool
    how: str
    failing_tests: tuple[str, ...] = ()
    detail: str | None = None
    tests: int | None = None


def judge_execution(result: ExecResult, token: str) -> Verdict:
    """Whether every test returned on this implementation; if not, the failure class."""
    report = testplan.read_report(result, token)
    if result.outcome == "passed" and report.malformed is None:
        for record in report.records:
            if isinstance(record, AllPassed) and record.tests > 0:
                return Verdict(True, "passed", tests=record.tests)
    if result.outcome in ("timeout", "sandbox_violation"):
        return Verdict(False, result.outcome, detail=result.detail)
    # From here on the records only choose a failure class; none of them can make a pass.
    lines = (*report.records, *report.hints)
    for line in lines:
        if isinstance(line, SyntaxErrorRecord):
            return Verdict(False, "syntax_error", detail=line.detail[:300])
        if isinstance(line, DefinitionError):
            why = f"{line.type[:100]}: {line.detail[:300]}"
            return Verdict(False, "error", detail=f"the tests cannot be defined: {why}")
    failing = tuple(
        line.test[:100] for line in lines if isinstance(line, TestResult) and line.status != "pass"
    )
    finished = [line for line in lines if isinstance(line, Finished)]
    if result.outcome == "passed" and finished:
        tests = finished[-1].tests
        if tests == 0:
            return Verdict(False, "no_tests", detail="no test_* function was collected", tests=0)
        return Verdict(False, "failed", failing_tests=failing)
    detail = result.detail or result.outcome
    if result.outcome == "passed":
        detail = "the process ended before the runner finished"
    return Verdict(False, "error", failing_tests=failing, detail=detail)


def execution(
    task: TestgenTask, tests: str, implementation: str, token: str, wall_s: float = 10.0
) -> Execution:
    """Run ``tests`` against ``implementation`` (placed as the task's module), the runner
    reading ``token`` from its standard input."""
    plan = TestsPlan(
        quiet=True,
        seal="pass",
        load=(Load(how="namespace", target=TESTS_FILE, name="test_answer"),),
        bind=Bind(module=task.module, names=(task.entry_point,)),
        select=Collected(prefix="test_", order="definition", functions_only=True),
        max_reported=MAX_REPORTED,
    )
    files = {TESTS_FILE: tests, f"{task.module}.py": implementation}
    limits = Limits(wall_s=wall_s, cpu_s=math.ceil(wall_s), output_bytes=1 << 16)
    return testplan.execution(plan, files, limits, token)


def _score(passed: bool, outcome: str, detail: TestgenDetail) -> Score:
    return Score(passed=passed, outcome=outcome, detail=detail.model_dump_json(exclude_none=True))


class TestGen(Suite):
    name = "testgen"
    version = 1
    stage = "side:testgen"
    source = "written for specverdict (specverdict.suites.testgen_data)"
    licence = "Apache-2.0, as specverdict"
    data_dir: ClassVar[DataDir | None] = DATA

    __test__ = False  # not a pytest test class

    def __init__(
        self, sandbox: Sandbox | None = None, workers: int = 2, wall_s: float = 10.0
    ) -> None:
        """``wall_s``: the time limit of one execution (the tests on one implementation)."""
        self._sandbox = sandbox
        self.workers = workers
        self.wall_s = wall_s
        self._lock = threading.Lock()

    @property
    def sandbox(self) -> Sandbox:
        with self._lock:
            if self._sandbox is None:
                self._sandbox = default_sandbox()
            return self._sandbox

    def tasks(self) -> list[TestgenTask]:
        return list(TASKS)

    def task(self, task_id: str) -> TestgenTask:
        by_id = {t.task_id: t for t in TASKS}
        if task_id not in by_id:
            raise ValueError(f"suite {self.name}@{self.version} has no task {task_id!r}")
        return by_id[task_id]

    def prompt(self, task: TestgenTask) -> str:
        return CHAT_INSTRUCTION.format(
            module=task.module,
            entry_point=task.entry_point,
            spec=task.spec,
            reference=task.reference,
        )

    def samples(self) -> list[Sample]:
        return [
            Sample(
                id=t.task_id,
                endpoint="chat",
                messages=({"role": "user", "content": self.prompt(t)},),
                task_id=t.task_id,
            )
            for t in TASKS
        ]

    def score(
        self, sample: Sample, text: str, tool_calls: Sequence[dict[str, Any]]
    ) -> Score | None:
        return self.score_many([(sample, text)])[0]

    def score_batch(
        self, items: Sequence[tuple[Sample, str, Sequence[dict[str, Any]]]]
    ) -> list[Score | None]:
        return list(self.score_many([(sample, text) for sample, text, _ in items]))

    def score_many(self, items: Sequence[tuple[Sample, str]]) -> list[Score]:
        """Score several answers: statically first, then every answer on its reference, then
        the answers that passed there on every mutant (all runs of a phase concurrently)."""
        scores: dict[int, Score] = {}
        pending: dict[int, tuple[TestgenTask, str, TestgenDetail]] = {}
        for n, (sample, text) in enumerate(items):
            task = self.task(sample.task_id or sample.id)
            detail = TestgenDetail(task_id=task.task_id, chars=len(text))
            early = self._static(task, text, detail)
            if isinstance(early, Score):
                scores[n] = early
            else:
                pending[n] = (task, early, detail)
        # Phase 1: the reference.
        order = sorted(pending)
        tokens = [secrets.token_hex(16) for _ in order]
        runs = [
            execution(pending[n][0], pending[n][1], pending[n][0].reference, token, self.wall_s)
            for n, token in zip(order, tokens, strict=True)
        ]
        results = self.sandbox.run_many(runs, self.workers)
        survivors: list[int] = []
        for n, token, result in zip(order, tokens, results, strict=True):
            task, tests, detail = pending[n]
            verdict = judge_execution(result, token)
            if verdict.passed:
                detail.reference = "passed"
                survivors.append(n)
                continue
            detail.reference = verdict.how
            detail.failing_tests = list(verdict.failing_tests)
            detail.failure = verdict.detail
            outcome = "fails_on_reference" if verdict.how == "failed" else verdict.how
            scores[n] = _score(False, outcome, detail)
        # Phase 2: the mutants of the answers that passed on the reference.
        jobs: list[tuple[int, str, str]] = []
        for n in survivors:
            task, tests, detail = pending[n]
            detail.mutants_total = len(task.mutants)
            for mutant in task.mutants:
                jobs.append((n, mutant.name, secrets.token_hex(16)))
        runs = []
        for n, name, token in jobs:
            task, tests, _ = pending[n]
            (mutant,) = [m for m in task.mutants if m.name == name]
            runs.append(execution(task, tests, task.mutant_source(mutant), token, self.wall_s))
        results = self.sandbox.run_many(runs, self.workers)
        for (n, name, token), result in zip(jobs, results, strict=True):
            verdict = judge_execution(result, token)
            how = "survived" if verdict.passed else verdict.how
            pending[n][2].mutants[name] = MutantResult(killed=not verdict.passed, how=how)
        for n in survivors:
            task, _, detail = pending[n]
            killed = sum(r.killed for r in detail.mutants.values())
            detail.mutants_killed = killed
            detail.mutation_score = round(killed / len(task.mutants), 4)
            passed = killed > 0
            scores[n] = _score(passed, "passed" if passed else "kills_no_mutant", detail)
        return [scores[n] for n in range(len(items))]

    @staticmethod
    def _static(task: TestgenTask, text: str, detail: TestgenDetail) -> Score | str:
        """The answer's test module, or its score when it cannot run (no code, bad syntax,
        no tests, refused introspection)."""
        code = extract_code(text)
        if code is None:
            detail.failure = "the answer holds no code"
            return _score(False, "no_tests", detail)
        try:
            tree = pyast.parse(code)
        except (SyntaxError, ValueError) as exc:
            line = getattr(exc, "lineno", None)
            detail.failure = f"line {line}: {exc}"[:300] if line else str(exc)[:300]
            return _score(False, "syntax_error", detail)
        detail.tests = count_tests(tree)
        if detail.tests == 0:
            detail.failure = "no top-level test_* function"
            return _score(False, "no_tests", detail)
        refused = introspection(tree)
        if refused:
            detail.failure = f"refused before running: uses {', '.join(refused)}"
            return _score(False, "sandbox_violation", detail)
        return code
