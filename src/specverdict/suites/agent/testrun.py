"""Running a workspace's tests in the sandbox.

The test runner program (trusted) reads a fresh random token from its standard input before it
imports anything of the workspace, runs every ``test_*`` function of every test file, and prints
one line: the token followed by the results as JSON. The parent reads only that line, and
counts the task's tests itself from the trusted test files (an AST walk): a report that names
fewer tests, a crash before the report, a timeout or a sandbox violation is a failure. The tests
themselves are always the task's own files, whatever the workspace holds at those paths.

This keeps an answer from passing by accident (a module that exits, prints or breaks at import),
not from a program written to read the token out of the runner's frames: the sandbox's own
limits are the boundary there (see docs/sandbox.md).
"""

from __future__ import annotations

import ast
import json
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from specverdict.sandbox import Execution, Limits, Sandbox
from specverdict.suites import pyast

RUNNER = r"""
import importlib.util, json, sys, traceback
token = sys.stdin.readline().strip()
paths = json.loads(sys.stdin.readline())
results, broken = [], []
for path in paths:
    name = "_t_" + path.replace("/", "_").removesuffix(".py")
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except BaseException as exc:
        broken.append([path, type(exc).__name__ + ": " + str(exc)[:300]])
        continue
    for attr in sorted(vars(module)):
        fn = getattr(module, attr)
        if not attr.startswith("test") or not callable(fn):
            continue
        try:
            fn()
            results.append([path + "::" + attr, "passed", ""])
        except AssertionError as exc:
            results.append([path + "::" + attr, "failed", "AssertionError: " + str(exc)[:300]])
        except BaseException as exc:
            results.append([path + "::" + attr, "error", type(exc).__name__ + ": " + str(exc)[:300]])
sys.stdout.write("\n" + token + json.dumps({"results": results, "broken": broken}) + "\n")
sys.stdout.flush()
"""


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
        execution = Execution(
            RUNNER,
            files={**files, **tests},
            stdin=token + "\n" + json.dumps(sorted(tests)) + "\n",
            limits=Limits(wall_s=wall_s, cpu_s=int(wall_s), output_bytes=1 << 18),
        )
        result = sandbox.run(execution)
        return read_report(result.stdout, token, expected_tests(tests), result.outcome)

    return run


def read_report(stdout: str, token: str, expected: list[str], outcome: str) -> TestReport:
    """Judge the runner's output; ``outcome`` is the sandbox's (``passed`` = exited cleanly)."""
    lines = [line for line in stdout.splitlines() if line.startswith(token)]
    if not lines:
        tail = stdout.strip()[-300:]
        return TestReport(False, f"the tests did not run to the end ({outcome}). {tail}".strip())
    try:
        data = json.loads(lines[-1][len(token) :])
        results = {str(r[0]): (str(r[1]), str(r[2])) for r in data["results"]}
        broken = [(str(b[0]), str(b[1])) for b in data["broken"]]
    except (ValueError, KeyError, TypeError, IndexError):
        return TestReport(False, "the test report could not be read")
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
