"""The plan runner on its own: plans run in a real sandbox, its records read back through
``testplan``; forged records are ignored, malformed plans refused with a clear error."""

from __future__ import annotations

import json

import pytest

from specverdict.sandbox import Execution, Limits, Sandbox
from specverdict.suites import plan_runner, testplan
from specverdict.suites.testplan import (
    AllPassed,
    CallPlan,
    CallResult,
    Collected,
    DefinitionError,
    Finished,
    Load,
    Named,
    PlanRunnerError,
    TestResult,
    TestsPlan,
)
from specverdict.suites.values import encode

LIMITS = Limits(wall_s=8.0, cpu_s=8)

TESTS = """\
import time

def test_passes():
    assert 1 + 1 == 2

def test_fails():
    assert 1 + 1 == 3, "arithmetic"

def test_errs():
    raise KeyError("k")

def test_hangs():
    while True:
        time.sleep(0.01)
"""


def make_plan(**kw: object) -> TestsPlan:
    fields: dict[str, object] = {
        "load": (Load(how="file", target="tests/test_mix.py"),),
        "select": Collected(prefix="test_", order="definition", functions_only=True),
        "test_limit_s": 0.5,
    }
    fields.update(kw)
    return TestsPlan.model_validate(fields)


def test_a_plan_reports_passing_failing_erring_and_timing_out_tests(sandbox: Sandbox) -> None:
    ex = testplan.execution(make_plan(), {"tests/test_mix.py": TESTS}, LIMITS)
    result = sandbox.run(ex)
    assert result.outcome == "passed", result.stderr
    report = testplan.read_report(result, testplan.nonce_of(ex))
    got = {r.test: (r.status, r.type) for r in report.records if isinstance(r, TestResult)}
    assert got == {
        "test_passes": ("pass", None),
        "test_fails": ("fail", "AssertionError"),
        "test_errs": ("error", "KeyError"),
        "test_hangs": ("timeout", "Timeout"),
    }
    assert report.records[-1] == Finished(
        event="finished", token=testplan.nonce_of(ex), tests=4, failed=3
    )
    assert report.malformed is None and not report.hints


def test_a_plan_whose_tests_all_pass_ends_with_all_passed(sandbox: Sandbox) -> None:
    plan = make_plan(select=Named(names=("test_passes",)))
    ex = testplan.execution(plan, {"tests/test_mix.py": TESTS}, LIMITS, nonce="n0nce")
    report = testplan.read_report(sandbox.run(ex), "n0nce")
    assert [type(r) for r in report.records] == [TestResult, AllPassed]
    # a reader with another nonce sees the same lines as hints only
    other = testplan.read_report(sandbox.run(ex), "other")
    assert not other.records and len(other.hints) == 2


def test_a_module_that_cannot_be_loaded_is_reported_and_its_named_tests_err(
    sandbox: Sandbox,
) -> None:
    plan = make_plan(load=(Load(how="import", target="broken"),), select=Named(names=("test_x",)))
    ex = testplan.execution(plan, {"broken.py": "import no_such_module\n"}, LIMITS)
    report = testplan.read_report(sandbox.run(ex), testplan.nonce_of(ex))
    kinds = [(type(r), getattr(r, "type", None)) for r in report.records]
    assert kinds == [
        (DefinitionError, "ModuleNotFoundError"),
        (TestResult, "ModuleNotFoundError"),
        (Finished, None),
    ]


FORGER = """\
import json, os, sys

def test_forges():
    for fd in range(3, 20):
        for token in ("", "0" * 32, None):
            line = {"event": "test", "token": token, "source": "tests/test_mix.py",
                    "test": "test_fails", "status": "pass", "type": None, "detail": ""}
            try:
                os.write(fd, ("\\n" + json.dumps(line) + "\\n").encode())
            except OSError:
                pass
    print(json.dumps({"event": "all_passed", "token": "", "tests": 9}))
    sys.stdout.flush()
    assert False
"""


def test_records_forged_by_the_code_under_test_are_ignored(sandbox: Sandbox) -> None:
    plan = make_plan(load=(Load(how="file", target="tests/test_forge.py"),))
    ex = testplan.execution(plan, {"tests/test_forge.py": FORGER}, LIMITS)
    result = sandbox.run(ex)
    assert result.outcome == "passed"
    assert '"status": "pass"' in result.stdout and '"all_passed"' in result.stdout
    report = testplan.read_report(result, testplan.nonce_of(ex))
    assert [(type(r), getattr(r, "status", None)) for r in report.records] == [
        (TestResult, "fail"),
        (Finished, None),
    ]
    assert any(isinstance(r, AllPassed) for r in report.hints)


def test_calling_the_runner_from_the_code_under_test_is_interference(sandbox: Sandbox) -> None:
    solution = (
        "import __main__\n"
        "__main__.emit({'event': 'call', 'i': 0, 'status': 'ok', 't': 0.0, 'out': ['int', '0x3']})\n"
        "def add(a, b):\n    return a + b\n"
    )
    plan = CallPlan(
        source="solution.py",
        entry_point="add",
        define_limit_s=2.0,
        inputs=(encode([1, 2]),),
        limits=(1.0,),
        stop_on_timeout=True,
        budget_s=5.0,
        max_nodes=100,
    )
    ex = testplan.execution(plan, {"solution.py": solution}, LIMITS)
    report = testplan.read_report(sandbox.run(ex), testplan.nonce_of(ex))
    assert report.interfered and report.done
    calls = [r for r in report.records if isinstance(r, CallResult)]
    assert [(c.i, c.status, c.out) for c in calls] == [(0, "ok", ["int", "0x3"])]


def test_a_malformed_plan_is_refused_with_a_clear_error(sandbox: Sandbox) -> None:
    bad = {"kind": "tests", "quiet": False, "seal": "every", "load": "tests/x.py"}
    ex = Execution(program=testplan.RUNNER, stdin="n0nce\n" + json.dumps(bad) + "\n", limits=LIMITS)
    result = sandbox.run(ex)
    assert result.outcome == "error" and result.exit_code == plan_runner.PLAN_ERROR_EXIT
    assert "malformed plan: tests: 'load' must be list, not str" in result.stderr
    with pytest.raises(PlanRunnerError, match="'load' must be list"):
        testplan.read_report(result, "n0nce")
    not_json = Execution(program=testplan.RUNNER, stdin="n0nce\n{nope\n", limits=LIMITS)
    assert "malformed plan" in sandbox.run(not_json).stderr


@pytest.mark.parametrize(
    ("plan", "message"),
    [
        ([], "the plan must be a JSON object"),
        ({"kind": "dance", "quiet": True, "seal": "every"}, "unknown kind 'dance'"),
        ({"kind": "tests", "quiet": True, "seal": "sometimes"}, "'seal' must be"),
        (
            {
                "kind": "call",
                "quiet": True,
                "seal": "every",
                "source": "s.py",
                "entry_point": "f",
                "module_name": "solution",
                "define_limit_s": 1,
                "max_nodes": 10,
                "inputs": [[]],
                "limits": [],
                "stop_on_timeout": True,
                "budget_s": 1,
            },
            "'inputs' and 'limits' differ in length",
        ),
    ],
)
def test_check_plan_names_what_is_wrong(plan: object, message: str) -> None:
    with pytest.raises(plan_runner.PlanError, match=message):
        plan_runner.check_plan(plan)


def test_every_plan_the_parent_builds_passes_the_runners_check() -> None:
    for plan in (make_plan(), make_plan(select=Named(names=("a", "B.c")))):
        assert plan_runner.check_plan(json.loads(plan.model_dump_json()))["kind"] == "tests"


def test_a_sealed_line_that_is_not_a_record_makes_the_report_malformed() -> None:
    from specverdict.sandbox import ExecResult

    stdout = '\n{"event": "test", "token": "n", "status": "pass"}\n'
    result = ExecResult("passed", None, 0, stdout, "", False, 0.1)
    report = testplan.read_report(result, "n")
    assert not report.records and report.malformed is not None
    assert "not a record" in report.malformed
