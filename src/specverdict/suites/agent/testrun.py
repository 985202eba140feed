"""Running a workspace's tests in the sandbox.

The trusted plan runner (``suites/plan_runner.py``, a ``testplan.TestsPlan``) reads a fresh
random token from its standard input before it imports anything of the workspace, runs every
``test*`` callable of every test file, and reports each test, then a summary, in records
carrying the token. The parent reads only those records, and counts the task's tests itself
from the trusted test files (an AST walk): a report that names fewer tests, a crash before the
summary, a timeout or a sandbox violation is a failure. The tests
themselves are always the task's own files, whatever the workspace holds at those paths.

This keeps an answer from passing by accident (a module that exits, prints or breaks at import),
not from a program written to read the token out of the runner's frames: the sandbox's own
limits are the boundary there (see docs/sandbox.md).
"""

from __future__ import annotations

import ast
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from specverdict.sandbox import ExecResult, Limits, Sandbox
from specverdict.suites import pyast, testplan
from specverdict.suites.testplan import (
    AllPassed,
    Collected,
    DefinitionError,
    Finished,
    Load,
    SyntaxErrorRecord,
    TestResult,
    TestsPlan,
)

#: the runner's statuses as the agent's report names them
STATES = {"pass": "passed", "fail": "failed", "error": "error", "skip": "skipped"}


@dataclass(frozen=True, slots=True)
class TestReport:
    """``passed``: every expected test ran and passed. ``summary`` is what the model is shown."""

    passed: bool
    summary: str
    outcomes: dict[str, str] = field(default_factory=dict)


TestRunner = Callable[[Mapping[str, str], Mapping[str, str]], TestReport]


def expected_tests(tests: Mapping[str, str]) -> list[str]:
    """``path::name`` of every top-level test function in the (trusted) test files."""
    names = []
    for path, text in sorted(tests.items()):
        for node in pyast.parse(text).body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
                names.append(f"{path}::{node.name}")
    return sorted(names)


def sandbox_runner(sandbox: Sandbox, wall_s: float = 10.0) -> TestRunner:
    """A ``TestRunner`` executing in ``sandbox`` (one execution per call)."""

    def run(files: Mapping[str, str], tests: Mapping[str, str]) -> TestReport:
        token = secrets.token_hex(16)
        plan = TestsPlan(
            load=tuple(Load(how="file", target=path) for path in sorted(tests)),
            select=Collected(prefix="test", order="name", functions_only=False),
        )
        limits = Limits(wall_s=wall_s, cpu_s=int(wall_s), output_bytes=1 << 18)
        result = sandbox.run(testplan.execution(plan, {**files, **tests}, limits, token))
        return read_report(result, token, expected_tests(tests))

    return run


def read_report(result: ExecResult, token: str, expected: list[str]) -> TestReport:
    """Judge the runner's records; the process must also have exited cleanly."""
    outcome = result.outcome
    report = testplan.read_report(result, token)
    ended = any(isinstance(r, AllPassed | Finished) for r in report.records)
    if not ended or report.interfered:
        tail = result.stdout.strip()[-300:]
        return TestReport(False, f"the tests did not run to the end ({outcome}). {tail}".strip())
    if report.malformed is not None:
        return TestReport(False, "the test report could not be read")
    results: dict[str, tuple[str, str]] = {}
    broken: list[tuple[str, str]] = []
    for record in report.records:
        if isinstance(record, TestResult):
            why = f"{record.type}: {record.detail}" if record.type is not None else ""
            name = f"{record.source}::{record.test}"
            results[name] = (STATES.get(record.status, record.status), why)
        elif isinstance(record, SyntaxErrorRecord | DefinitionError):
            broken.append((record.source, f"{record.type}: {record.detail}"))
    outcomes = {name: results.get(name, ("missing", ""))[0] for name in expected}
    passed = sum(v == "passed" for v in outcomes.values())
    lines_out = [f"{passed} passed, {len(expected) - passed} failed"]
    for path, why in broken:
        lines_out.append(f"{path}: could not be imported: {why}")
    for name, state in outcomes.items():
        if state != "passed":
            lines_out.append(f"{name}: {state} {results.get(name, ('', ''))[1]}".rstrip())
    ok = passed == len(expected) and not broken and outcome == "passed"
    return TestReport(ok, "\n".join(lines_out), outcomes)
