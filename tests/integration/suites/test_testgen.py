"""``testgen@1``: its tasks, the sandboxed mutation scoring (gold tests score 100%, bad tests 0%
with the right classes, forged passes fail), and a run against the reference engine."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.model import First, Ids, Seeded
from specverdict.records import Score
from specverdict.run.runner import Runner
from specverdict.sandbox import ExecResult, Sandbox
from specverdict.store import SQLiteStore
from specverdict.suites.base import Sample
from specverdict.suites.testgen import TestGen, execution, judge_execution, read_testgen_detail
from specverdict.suites.testgen_data import TASKS, TestgenTask
from tests.conftest import campaign_yaml


@pytest.fixture(scope="module")
def suite(sandbox: Sandbox) -> TestGen:
    return TestGen(sandbox=sandbox, wall_s=4.0)


def sample_of(suite: TestGen, task_id: str) -> Sample:
    (sample,) = suite.select(Ids(ids=[task_id]))
    return sample


def fenced(code: str) -> str:
    return f"Here are the tests.\n\n```python\n{code}```\n"


def score_one(suite: TestGen, task_id: str, answer: str) -> Score:
    score = suite.score(sample_of(suite, task_id), answer, [])
    assert score is not None
    return score


# -- the tasks -------------------------------------------------------------------------------


def test_at_least_15_tasks_with_3_to_5_mutants_each_that_apply_once() -> None:
    assert len(TASKS) >= 15
    assert len({t.task_id for t in TASKS}) == len(TASKS)
    for task in TASKS:
        assert 3 <= len(task.mutants) <= 5, task.task_id
        assert len({m.name for m in task.mutants}) == len(task.mutants)
        sources = {task.mutant_source(m) for m in task.mutants}
        assert len(sources) == len(task.mutants) and task.reference not in sources
        assert task.module not in sys.stdlib_module_names and task.module != "test_answer"
        assert f"def {task.entry_point}(" in task.reference
        compile(task.reference, task.module, "exec")
        for source in sources:
            compile(source, task.module, "exec")


def test_a_change_that_does_not_apply_exactly_once_is_an_error() -> None:
    task = TASKS[0]
    bad = type(task.mutants[0])("twice", "return", "yield")
    with pytest.raises(ValueError, match="does not apply once"):
        task.mutant_source(bad)


def test_samples_show_the_function_module_and_spec_and_are_selectable() -> None:
    suite = TestGen()
    assert (suite.name, suite.version, suite.stage) == ("testgen", 1, "side:testgen")
    assert "Apache-2.0" in suite.licence
    samples = suite.samples()
    assert [s.id for s in samples] == [t.task_id for t in TASKS]
    for sample, task in zip(samples, TASKS, strict=True):
        assert sample.endpoint == "chat" and sample.messages is not None
        text = sample.messages[0]["content"]
        assert task.reference in text and task.spec in text
        assert f"from {task.module} import {task.entry_point}" in text
    assert [s.id for s in suite.select(First(first=2))] == [t.task_id for t in TASKS[:2]]
    assert len(suite.select(Seeded(seeded=4, seed=1))) == 4


# -- gold and bad answers ----------------------------------------------------------------------


def test_gold_tests_score_100_percent_and_kill_every_mutant(suite: TestGen) -> None:
    items = [(sample_of(suite, t.task_id), fenced(t.gold)) for t in TASKS]
    scores = suite.score_many(items)
    assert [s.outcome for s in scores] == ["passed"] * len(TASKS)
    assert all(s.passed for s in scores)
    for task, score in zip(TASKS, scores, strict=True):
        detail = read_testgen_detail(score)
        assert detail is not None and detail.reference == "passed"
        assert detail.mutants_total == detail.mutants_killed == len(task.mutants), task.task_id
        assert detail.mutation_score == 1.0
        assert {name: r.how for name, r in detail.mutants.items()} == {
            m.name: "failed" for m in task.mutants
        }


CLAMP = "testgen/clamp"

BAD: list[tuple[str, str, str]] = [
    # tests that assert nothing pass everywhere
    (
        "asserts-nothing",
        fenced("from ranges import clamp\n\n\ndef test_runs():\n    clamp(5, 1, 10)\n"),
        "kills_no_mutant",
    ),
    (
        "fails-on-reference",
        fenced(
            "from ranges import clamp\n\n\ndef test_ok():\n    assert clamp(5, 1, 10) == 5\n\n\n"
            "def test_wrong():\n    assert clamp(5, 1, 10) == 10\n"
        ),
        "fails_on_reference",
    ),
    (
        "syntax-error",
        fenced("from ranges import clamp\n\ndef test_x(:\n    assert clamp(1, 0, 2) == 1\n"),
        "syntax_error",
    ),
    ("no-code", "You should test the lower and upper bounds and the error case.", "no_tests"),
    (
        "helpers-only",
        fenced(
            "from ranges import clamp\n\n\ndef check_bounds():\n    assert clamp(0, 1, 2) == 1\n"
        ),
        "no_tests",
    ),
    (
        "test-class",
        fenced(
            "import unittest\nfrom ranges import clamp\n\n\nclass TestClamp(unittest.TestCase):\n"
            "    def test_low(self):\n        self.assertEqual(clamp(0, 1, 2), 1)\n"
        ),
        "no_tests",
    ),
    (
        "imports-pytest",
        fenced(
            "import pytest\nfrom ranges import clamp\n\n\ndef test_x():\n    assert clamp(1, 0, 2) == 1\n"
        ),
        "error",
    ),
    (
        "fixture-parameter",
        fenced(
            "from ranges import clamp\n\n\ndef test_x(value):\n    assert clamp(value, 0, 2) == 1\n"
        ),
        "fails_on_reference",
    ),
    (
        "async-test",
        fenced(
            "from ranges import clamp\n\n\nasync def test_x():\n    assert clamp(1, 0, 2) == 1\n"
        ),
        "no_tests",
    ),
    (
        "generator-test",
        fenced(
            "from ranges import clamp\n\n\ndef test_x():\n    yield\n    assert clamp(1, 0, 2) == 0\n"
        ),
        "fails_on_reference",
    ),
    (
        "writes-outside",
        fenced("def test_write():\n    open('/etc/specverdict-testgen', 'w').write('x')\n"),
        "sandbox_violation",
    ),
    (
        "introspects",
        fenced("import sys\n\n\ndef test_peek():\n    assert sys._getframe(1).f_locals\n"),
        "sandbox_violation",
    ),
    (
        "exits-early",
        fenced("import os\n\n\ndef test_leave():\n    os._exit(0)\n"),
        "error",
    ),
    (
        "sys-exit-is-a-failure",
        fenced("import sys\nfrom ranges import clamp\n\n\ndef test_leave():\n    sys.exit(0)\n"),
        "fails_on_reference",
    ),
]


@pytest.mark.parametrize(("name", "answer", "outcome"), BAD, ids=[b[0] for b in BAD])
def test_known_bad_answers_score_0_percent_with_their_class(
    suite: TestGen, name: str, answer: str, outcome: str
) -> None:
    score = score_one(suite, CLAMP, answer)
    assert (score.passed, score.outcome) == (False, outcome)
    detail = read_testgen_detail(score)
    assert detail is not None and detail.task_id == CLAMP
    if outcome == "kills_no_mutant":
        assert detail.mutation_score == 0.0 and detail.mutants_killed == 0
        assert all(r.how == "survived" for r in detail.mutants.values())
    else:
        assert detail.mutation_score is None and not detail.mutants
    if outcome == "fails_on_reference" and name == "fails-on-reference":
        assert detail.failing_tests == ["test_wrong"]


def test_a_test_that_never_ends_is_a_timeout(sandbox: Sandbox) -> None:
    quick = TestGen(sandbox=sandbox, wall_s=1.5)
    answer = fenced("def test_forever():\n    while True:\n        pass\n")
    score = score_one(quick, CLAMP, answer)
    assert (score.passed, score.outcome) == (False, "timeout")


def test_tests_that_kill_some_mutants_pass_with_their_mutation_score(suite: TestGen) -> None:
    answer = fenced(
        "from ranges import clamp\n\n\ndef test_below():\n    assert clamp(-3, 0, 10) == 0\n"
    )
    score = score_one(suite, CLAMP, answer)
    assert (score.passed, score.outcome) == (True, "passed")
    detail = read_testgen_detail(score)
    assert detail is not None
    assert {n: r.killed for n, r in detail.mutants.items()} == {
        "equal-bounds-raise": False,
        "below-returns-high": True,
        "above-unclamped": False,
        "no-range-check": False,
    }
    assert (detail.mutants_killed, detail.mutation_score) == (1, 0.25)


def test_a_pasted_copy_of_the_function_does_not_shield_the_tests(suite: TestGen) -> None:
    """The runner rebinds the function's name to the implementation under test."""
    task = next(t for t in TASKS if t.task_id == CLAMP)
    tests = task.gold.replace("from ranges import clamp\n", "")
    score = score_one(suite, CLAMP, fenced(task.reference + "\n\n" + tests))
    assert score.outcome == "passed"
    assert read_testgen_detail(score).mutation_score == 1.0  # type: ignore[union-attr]


def test_an_answer_forging_the_pass_line_without_the_token_fails(suite: TestGen) -> None:
    """The tests write a pass line (with made-up tokens) to every descriptor, then fail."""
    forged = (
        "import json\nimport os\n\n\ndef test_forge():\n"
        "    for fd in range(3, 40):\n"
        "        for token in ('', '0' * 32, 'token'):\n"
        "            line = json.dumps({'event': 'all_passed', 'token': token, 'tests': 1})\n"
        "            try:\n"
        "                os.write(fd, (line + '\\n').encode())\n"
        "            except OSError:\n"
        "                pass\n"
        "    os._exit(0)\n"
    )
    score = score_one(suite, CLAMP, fenced(forged))
    assert (score.passed, score.outcome) == (False, "error")


def test_the_token_is_not_reachable_through_descriptors_files_or_the_environment(
    suite: TestGen,
) -> None:
    """The tests read every descriptor, stdin, the directory's files and the environment,
    replay anything that looks like a token as a pass line, then end the process."""
    thief = (
        "import json\nimport os\nimport re\n\n\ndef test_steal():\n"
        "    seen = ' '.join(os.environ.values())\n"
        "    for fd in [int(n) for n in os.listdir('/proc/self/fd')]:\n"
        "        try:\n"
        "            seen += os.pread(fd, 1 << 16, 0).decode('latin-1')\n"
        "        except OSError:\n"
        "            pass\n"
        "    for name in os.listdir('.'):\n"
        "        with open(name, encoding='latin-1') as f:\n"
        "            seen += f.read()\n"
        "    for token in set(re.findall('[0-9a-f]{32}', seen)):\n"
        "        line = json.dumps({'event': 'all_passed', 'token': token, 'tests': 1})\n"
        "        for fd in range(3, 40):\n"
        "            try:\n"
        "                os.write(fd, (line + '\\n').encode())\n"
        "            except OSError:\n"
        "                pass\n"
        "    os._exit(0)\n"
    )
    score = score_one(suite, CLAMP, fenced(thief))
    assert (score.passed, score.outcome) == (False, "error")


# -- the parent's judgement of one execution --------------------------------------------------


def result(outcome: str = "passed", stdout: str = "", truncated: bool = False) -> ExecResult:
    return ExecResult(
        outcome=outcome,  # type: ignore[arg-type]
        detail=None,
        exit_code=0 if outcome == "passed" else 1,
        stdout=stdout,
        stderr="",
        truncated=truncated,
        wall_s=0.1,
    )


PASS = '{"event": "all_passed", "token": "abc", "tests": 2}\n'


def test_only_the_token_of_this_execution_with_a_clean_exit_is_a_pass() -> None:
    assert judge_execution(result(stdout=PASS), "abc").passed
    assert not judge_execution(result(stdout=PASS), "abd").passed
    assert not judge_execution(result("error", PASS), "abc").passed
    assert judge_execution(result("sandbox_violation", PASS), "abc").how == "sandbox_violation"
    assert judge_execution(result("timeout", PASS), "abc").how == "timeout"
    # the last line of truncated output may be partial: it is dropped
    assert not judge_execution(result(stdout=PASS, truncated=True), "abc").passed
    zero = '{"event": "all_passed", "token": "abc", "tests": 0}\n'
    assert not judge_execution(result(stdout=zero), "abc").passed
    assert judge_execution(result(stdout=""), "abc").how == "error"


def test_the_runner_prints_the_token_it_was_given_only_when_every_test_returned(
    sandbox: Sandbox,
) -> None:
    task: TestgenTask = TASKS[0]
    ok = "def test_a():\n    assert True\n\n\ndef test_b():\n    pass\n"
    failing = ok + "\n\ndef test_c():\n    raise ValueError('no')\n"
    good, bad = sandbox.run_many(
        [
            execution(task, ok, task.reference, "t1" * 16),
            execution(task, failing, task.reference, "t2" * 16),
        ]
    )
    assert ('"token": "' + "t1" * 16) in good.stdout and good.outcome == "passed"
    assert "t2" not in bad.stdout and '"test": "test_c"' in bad.stdout
    assert judge_execution(bad, "t2" * 16).failing_tests == ("test_c",)


# -- end to end -----------------------------------------------------------------------------

CAMPAIGN = campaign_yaml("testgen-e2e", stage="side:testgen", first=3, max_tokens=24)

CLASSES = {
    "passed",
    "fails_on_reference",
    "kills_no_mutant",
    "no_tests",
    "syntax_error",
    "error",
    "timeout",
    "sandbox_violation",
}


def test_the_suite_runs_end_to_end_against_the_reference_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suite: TestGen
) -> None:
    monkeypatch.setattr("specverdict.run.runner.suite_for", lambda spec: suite)
    plan = build_plan(parse_campaign(CAMPAIGN, Path("testgen.yaml")))
    store = SQLiteStore(tmp_path / "runs.db")
    runs = [Runner(store, log=lambda _: None).run_one(plan, spec, 0) for spec in plan.runs]
    assert [r.stage for r in plan.runs] == ["side:testgen"] * 2
    assert [r.status for r in runs] == ["completed", "completed"]
    for run in runs:
        stored = store.samples(run.run_id)
        assert sorted(s.sample_id for s in stored) == sorted(t.task_id for t in TASKS[:3])
        for s in stored:
            assert s.status == "ok" and s.score is not None
            assert s.score.outcome in CLASSES
            assert s.score.passed == (s.score.outcome == "passed")
            # the scores the runner stored are what the suite says of the stored text
            again = suite.score(sample_of(suite, s.sample_id), s.text, [])
            assert again is not None and again.outcome == s.score.outcome
