"""Generator 2: boundary values read from a reference, edge inputs, the widened domain, and
that every input it keeps is one the reference accepts (so no test lies outside the task)."""

from __future__ import annotations

from pathlib import Path

import pytest

from specverdict.sandbox import Sandbox
from specverdict.suites.function import budget
from specverdict.suites.function.amplify import AmplifyConfig, amplify, key
from specverdict.suites.function.boundary import boundaries
from specverdict.suites.function.edges import unicode_twin, widen
from specverdict.suites.function.groundtruth import TruthStore
from specverdict.suites.function.humaneval import HumanEval, humaneval_tasks
from specverdict.suites.function.profile import Domain
from specverdict.suites.function.task import FunctionTask

#: generator 6: the edge inputs these tests look for are made by every generator from 2 on, and
#: generator 7 puts its grown inputs in front of generator 6's unchanged (test_budget.py checks
#: that), after counting the reference's work at two sizes, which these tests do not need
CONFIG = AmplifyConfig(seed=0, count=40, generator=6)

FIB = '''
def fib(n: int):
    """Return the n-th Fibonacci number.
    >>> fib(10)
    55
    >>> fib(1)
    1
    """
    if n == 0:
        return 0
    if n < 3:
        return 1
    total, a, b = 0, 1, 1
    for _ in range(2, n):
        a, b = b, a + b
    if "x" in "abc" or n == 1000:
        pass
    return b
'''


def test_boundaries_of_an_example_reference() -> None:
    b = boundaries(FIB, "fib")
    assert b.limits == (0, 3, 1000)  # what `if` compares the argument with
    assert {-1, 0, 1, 2, 3, 4, 999, 1000, 1001} <= set(b.ints)  # compared: neighbours too
    assert {1, 2} <= set(b.ints)  # initial values and the range bound
    assert b.strings == ("a", "b", "c", "x")  # a lookup string, one character at a time
    assert b.examples == ((10,), (1,))  # the docstring's calls, not its outputs
    assert not b.ascii and not b.nonnegative


def test_prompt_words_are_read_from_the_docstring() -> None:
    text = 'def f(xs):\n    """Given a list of positive integers, by their ASCII codes.\n    """\n'
    b = boundaries(text + "    return xs\n", "f")
    assert b.ascii and b.positive and b.nonnegative and not b.sized
    pairs = 'def f(xs):\n    """From a list of numbers (of length at least two)."""\n'
    assert boundaries(pairs + "    return xs\n", "f").sized
    assert boundaries("def f(:\n", "f").ints == ()  # unparsable: nothing, no error


def test_widened_domain_admits_the_special_cases_only() -> None:
    seeds = [(10,), (1,), (8,)]
    narrow = Domain.infer(seeds)
    wide = widen(narrow, boundaries(FIB, "fib"))
    assert not narrow.admits((0,)) and wide.admits((0,))  # `if n == 0` is a special case
    assert wide.admits((1000,)) and not wide.admits((1001,))
    assert not wide.admits((-1,))  # no seed is negative: a scalar stays at or above zero
    lists = widen(Domain.infer([([1, 2, 3],), ([4, 3, 2, 1],)]), boundaries(FIB, "fib"))
    assert lists.admits(([-3, -1],)) and lists.admits(([7],))  # negative items, one item
    assert not lists.admits(([],))  # no seed has fewer than two items: at least one
    assert widen(Domain.infer([([1],), ([4, 3],)]), boundaries(FIB, "fib")).admits(([],))
    sized = boundaries('def f(xs):\n    """a non-empty list"""\n    return xs\n', "f")
    assert not widen(Domain.infer([([1, 2],), ([4, 3, 1],)]), sized).admits(([7],))
    positive = boundaries('def f(xs):\n    """positive integers"""\n    return xs\n', "f")
    assert not widen(Domain.infer([([1, 2, 3],)]), positive).admits(([-1, 2],))


def _made(seeds: list[tuple[object, ...]], reference: str, entry: str) -> list[tuple[object, ...]]:
    return amplify("t", seeds, CONFIG, reference=reference, entry_point=entry)


def test_edge_inputs_include_the_classic_edges() -> None:
    fib = _made([(10,), (1,), (8,), (11,), (12,)], FIB, "fib")
    assert (0,) in fib  # the special case, beyond the seeds
    maximum = _made(
        [([1, 2, 3],), ([5, 3, -5, 2, 124, 1, -10],)], "def m(l):\n    return max(l)\n", "m"
    )
    assert ([-1, -2, -3],) in maximum  # all negative
    assert ([1],) in maximum and ([3, 2, 1],) in maximum  # a single item, reversed
    swap = _made([("Hello!",), ("abcde FGHIJ",)], "def f(s):\n    return s.swapcase()\n", "f")
    assert (unicode_twin("Hello!"),) in swap and ("HELLO!",) in swap
    assert unicode_twin("Hello!") == "H\u00e9ll\u00f6!"
    ascii_only = _made(
        [("Hello!",), ("abcde FGHIJ",)],
        "def f(s):\n    return ''.join(chr(ord(c) ^ 32) for c in s)\n",
        "f",
    )
    assert ascii_only and all(str(a[0]).isascii() for a in ascii_only)  # code points: no Unicode
    close = _made(
        [([1.0, 2.0, 3.9], 0.3), ([1.0, 2.0, 5.9, 4.0], 1.5)],
        "def f(xs, t):\n    return any(abs(a - b) < t for a in xs for b in xs if a is not b)\n",
        "f",
    )
    assert any(  # a threshold equal to a distance between two items
        t in {abs(a - b) for a in xs for b in xs}
        for xs, t in close  # type: ignore[attr-defined]
    )


def test_generator_two_is_deterministic_and_distinct() -> None:
    task = {t.task_id: t for t in humaneval_tasks()}["HumanEval/0"]
    assert task.base_inputs is not None

    def run(config: AmplifyConfig) -> list[str]:
        generated = amplify(
            task.task_id,
            task.base_inputs or (),
            config,
            task.contract,
            task.reference,
            task.entry_point,
            task.prompt,
        )
        return [key(a) for a in generated]

    first = run(CONFIG)
    assert first == run(CONFIG)
    # generator 7's grown inputs come on top of the others (``budget.MOST``)
    assert CONFIG.generate <= len(first) <= CONFIG.generate + budget.MOST
    assert len(first) == len(set(first))
    assert not set(first) & {key(s) for s in task.base_inputs}
    assert first != run(AmplifyConfig(seed=1, count=40))
    assert first != run(AmplifyConfig(seed=0, count=40, generator=1))
    with pytest.raises(ValueError, match="no amplification generator"):
        AmplifyConfig(generator=14)


def test_the_generator_is_part_of_the_cache_key(tmp_path: Path) -> None:
    from specverdict.suites.function.groundtruth import truth_directory

    two = truth_directory("humaneval-v1", AmplifyConfig(generator=2), tmp_path).name
    one = truth_directory("humaneval-v1", AmplifyConfig(generator=1), tmp_path).name
    assert "-amp2-" in two and "-amp1-" in one
    assert "-amp13-" in truth_directory("humaneval-v1", AmplifyConfig(), tmp_path).name
    assert "-amp1-" in truth_directory("x-v1", None, tmp_path).name  # given inputs: unchanged


NONDETERMINISTIC = FunctionTask(
    task_id="t/noisy",
    prompt="def noisy(n):\n",
    entry_point="noisy",
    reference=(
        "import random\n\ndef noisy(n):\n    if n == 4:\n        raise ValueError(n)\n"
        "    if n == 7:\n        return random.random()\n    return n * 2\n"
    ),
    base_inputs=((1,), (5,), (9,), (3,)),
)


def test_kept_inputs_are_accepted_by_the_reference_the_same_way_twice(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    generated = amplify(
        NONDETERMINISTIC.task_id,
        NONDETERMINISTIC.base_inputs or (),
        CONFIG,
        reference=NONDETERMINISTIC.reference,
        entry_point="noisy",
    )
    assert (7,) in generated and (4,) in generated  # special cases of the reference's `if`s
    store = TruthStore(sandbox, "noisy-v1", CONFIG, tmp_path)
    truth = store.get(NONDETERMINISTIC)
    kept = [c.args for c in truth.plus]
    assert (4,) not in kept  # the reference raises
    assert (7,) not in kept  # two calls answered differently
    assert kept and all(c.expected == 2 * c.args[0] for c in truth.plus)
    assert truth.dropped >= 2
    mutation_only = TruthStore(sandbox, "noisy-v1", AmplifyConfig(count=40, generator=1), tmp_path)
    assert (7,) in [c.args for c in mutation_only.get(NONDETERMINISTIC).plus]  # no second call


#: tasks and how many amplified inputs each keeps at least (HumanEval/55's domain is 0..12)
KEPT = {"HumanEval/0": 50, "HumanEval/16": 50, "HumanEval/55": 8, "HumanEval/129": 50}


@pytest.mark.parametrize("task_id", sorted(KEPT))
def test_every_kept_input_is_accepted_by_the_canonical_solution(
    humaneval: HumanEval, task_id: str
) -> None:
    """The stored expected outputs were answered by the reference: scoring the reference on
    them passes, and every amplified input keeps the task's contract."""
    task = humaneval.task(task_id)
    truth = humaneval.prepare([task_id])[task_id]
    assert len(truth.plus) >= KEPT[task_id]
    if task.contract is not None:
        assert all(task.contract(c.args) for c in truth.plus)
    (score,) = humaneval.score_many([(humaneval.sample(task), task.reference[len(task.prompt) :])])
    assert score.passed, score
