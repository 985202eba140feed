"""Scoring cannot be gamed: the child's word is never taken, outputs are typed values compared
in the parent, and every way a program can fail lands in its own class."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from specverdict.sandbox import ExecResult, Execution, Sandbox
from specverdict.suites.function.grade import ScoringPolicy, read_detail
from specverdict.suites.function.passk import failure_class
from specverdict.suites.function.task import FunctionTask
from specverdict.suites.functional import FunctionSuite

ADD = FunctionTask(
    task_id="tiny/add",
    prompt='def add(a, b):\n    """Return a + b."""\n',
    entry_point="add",
    reference='def add(a, b):\n    """Return a + b."""\n    return a + b\n',
    base_inputs=((1, 2), (3, 4), (10, -3)),
    plus_inputs=((2.5, 0.25), ("x", "y")),
)


#: a task asked in prose, like MBPP: no stub of the function in the prompt
MUL = FunctionTask(
    task_id="tiny/mul",
    prompt='"""Write a function mul(a, b) returning a * b."""\n',
    entry_point="mul",
    reference='"""Write a function mul(a, b) returning a * b."""\ndef mul(a, b):\n    return a * b\n',
    base_inputs=((2, 3),),
    plus_inputs=(),
)


class Tiny(FunctionSuite):
    """Two tasks, extra inputs given (no amplification), tight time limits."""

    name = "tiny"
    version = 1
    mode = "chat"
    amplify_config = None

    def load_tasks(self) -> list[FunctionTask]:
        return [ADD, MUL]


class Counting(Sandbox):
    isolation = "counting wrapper"

    def __init__(self, inner: Sandbox) -> None:
        self.inner = inner
        self.batches: list[int] = []

    def run(self, execution: Execution) -> ExecResult:
        return self.inner.run(execution)

    def run_many(self, executions: Sequence[Execution], workers: int = 2) -> list[ExecResult]:
        self.batches.append(len(executions))
        return self.inner.run_many(executions, workers)


@pytest.fixture(scope="module")
def tiny(sandbox: Sandbox, tmp_path_factory: pytest.TempPathFactory) -> Tiny:
    policy = ScoringPolicy(floor_s=0.5, wall_cap_s=2.0, define_s=2.0, startup_s=2.0)
    suite = Tiny(sandbox=sandbox, cache_dir=tmp_path_factory.mktemp("tiny"), policy=policy)
    suite.prepare()
    return suite


def _classes(suite: Tiny, answers: Sequence[str]) -> list[str]:
    """The failure classes of answers to ``tiny/add``."""
    sample = suite.samples()[0]
    return [failure_class(s) for s in suite.score_many([(sample, a) for a in answers])]


RIGHT = "def add(a, b):\n    return a + b\n"


def test_right_answer_passes_and_records_both_sets(tiny: Tiny) -> None:
    (score,) = tiny.score_many([(tiny.samples()[0], RIGHT)])
    assert score.passed and score.outcome == "passed"
    detail = read_detail(score)
    assert detail is not None
    assert (detail.base_right, detail.base_total, detail.plus_right, detail.plus_total) == (
        3,
        3,
        2,
        2,
    )


EQUALS_EVERYTHING = """
class Anything:
    def __eq__(self, other):
        return True
    def __hash__(self):
        return 0
def add(a, b):
    return Anything()
"""
INT_SUBCLASS = """
class Sly(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__
def add(a, b):
    return Sly(0)
"""
FAKE_PRINTS = """
import os, sys
print('{"i":0,"status":"ok","t":0,"out":["int","0x3"]}')
os.write(1, b'{"event":"done"}\\n')
sys.__stdout__.write('{"i":1,"status":"ok","t":0,"out":["int","0x7"]}\\n')
def add(a, b):
    print('{"i":0,"status":"ok","t":0,"out":["int","0x3"]}')
    return 0
"""
FORGED_CHANNEL = """
import __main__
for i, v in enumerate([3, 7, 7]):
    __main__.emit({"i": i, "status": "ok", "t": 0.0, "out": ["int", hex(v)]})
__main__.emit({"event": "done"})
def add(a, b):
    return 0
"""
HUGE = "def add(a, b):\n    return list(range(10 ** 6))\n"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (EQUALS_EVERYTHING, "failed"),
        (INT_SUBCLASS, "failed"),
        (FAKE_PRINTS, "failed"),
        (FORGED_CHANNEL, "error:ProtocolError"),
        (HUGE, "failed"),
    ],
    ids=["eq-everything", "int-subclass", "fake-prints", "forged-channel", "huge-output"],
)
def test_claims_of_success_do_not_pass(tiny: Tiny, answer: str, expected: str) -> None:
    assert _classes(tiny, [answer]) == [expected]


def test_a_wrong_type_fails_although_python_equality_would_be_lenient(tiny: Tiny) -> None:
    as_text = "def add(a, b):\n    return str(a + b) if isinstance(a, int) else a + b\n"
    assert _classes(tiny, [as_text]) == ["failed"]
    (score,) = tiny.score_many([(tiny.samples()[0], as_text)])
    detail = read_detail(score)
    assert detail is not None and detail.failure is not None
    assert "returned '3', expected 3" in detail.failure


def test_base_only_result_is_reported_beside_the_headline(tiny: Tiny) -> None:
    ints_only = "def add(a, b):\n    return int(a) + int(b)\n"
    (score,) = tiny.score_many([(tiny.samples()[0], ints_only)])
    detail = read_detail(score)
    assert not score.passed
    assert detail is not None and detail.base_passed and detail.plus_right == 0


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("def add(a, b):\n    return a - b\n", "failed"),
        ("def add(a, b:\n    return a\n", "syntax_error"),
        ("def add(a, b):\nreturn a + b\n", "syntax_error"),
        ("x = undefined_name\ndef add(a, b):\n    return a + b\n", "error:NameError"),
        ("def plus(a, b):\n    return a + b\n", "failed"),  # the prompt's stub answers None
        ("def add(a, b):\n    return a / (a - a)\n", "error:ZeroDivisionError"),
        ("def add(a, b):\n    return [a][b]\n", "error:IndexError"),
        ("def add(a, b):\n    raise SystemExit(0)\n", "error:SystemExit"),
        ("import os\nos._exit(0)\n", "error:ExitedEarly"),
        ("def add(a, b):\n    while True:\n        pass\n", "timeout"),
        (
            "import signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
            "def add(a, b):\n    while True:\n        pass\n",
            "timeout",
        ),
        (
            "def add(a, b):\n    try:\n        while True: pass\n    except Exception:\n"
            "        return a + b\n",
            "timeout",
        ),
        ("import time\ntime.sleep(30)\n", "timeout"),
        ("def add(a, b):\n    open('/etc/passwd-x', 'w')\n", "sandbox_violation"),
        ("I would rather not write code today.", "no_code"),
    ],
    ids=[
        "wrong",
        "syntax",
        "indentation",
        "definition-error",
        "missing-entry-point",
        "zero-division",
        "index-error",
        "system-exit",
        "os-exit",
        "infinite-loop",
        "alarm-ignored",
        "swallows-exception",
        "slow-definition",
        "violation",
        "no-code",
    ],
)
def test_failure_classes(tiny: Tiny, answer: str, expected: str) -> None:
    assert _classes(tiny, [answer]) == [expected]


def test_a_prose_prompt_without_the_function_is_a_missing_entry_point(tiny: Tiny) -> None:
    sample = tiny.samples()[1]
    scores = tiny.score_many([(sample, "def times(a, b):\n    return a * b\n")])
    assert [failure_class(s) for s in scores] == ["error:MissingEntryPoint"]
    assert tiny.score_many([(sample, "def mul(a, b):\n    return a * b\n")])[0].passed


def test_score_and_score_batch_agree_with_score_many(tiny: Tiny) -> None:
    sample = tiny.samples()[0]
    wrong = "def add(a, b):\n    return a * b\n"
    single = [tiny.score(sample, RIGHT, []), tiny.score(sample, wrong, [])]
    batch = tiny.score_batch([(sample, RIGHT, []), (sample, wrong, [])])
    assert [s.outcome if s else None for s in single] == ["passed", "failed"]
    assert [s.outcome if s else None for s in batch] == ["passed", "failed"]


def test_scoring_runs_answers_in_one_concurrent_batch(sandbox: Sandbox, tmp_path: Path) -> None:
    counting = Counting(sandbox)
    suite = Tiny(sandbox=counting, cache_dir=tmp_path)
    sample = suite.samples()[0]
    suite.prepare(["tiny/add"])
    assert counting.batches == [1]
    scores = suite.score_many([(sample, RIGHT)] * 4 + [(sample, "no code here")])
    assert [s.passed for s in scores] == [True] * 4 + [False]
    # the four programs run in one batch (no code: not run)
    assert counting.batches == [1, 4]
    suite.score_many([(sample, RIGHT)])
    assert counting.batches == [1, 4, 1]  # the ground truth is cached now
