"""Generator 7: inputs grown to what the reference does within a budget of counted line events,
the same on every run, deep enough for the recursion limit, and generator 6's inputs kept behind
them (generator 8, the default, keeps them in front of its own: test_eight.py)."""

from __future__ import annotations

import collections.abc
import hashlib
import re
import sys

import pytest

from specverdict.suites.function import budget
from specverdict.suites.function.amplify import (
    AMPLIFIER_VERSION,
    GENERATORS,
    AmplifyConfig,
    amplify,
    key,
)
from specverdict.suites.function.humaneval import humaneval_tasks
from specverdict.suites.function.profile import Args
from tests.conftest import untraced

CONFIG = AmplifyConfig(seed=0, count=100, generator=7)
TASKS = {t.task_id: t for t in humaneval_tasks()}

LINEAR = "def f(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total\n"
QUADRATIC = (
    "def f(xs):\n    n = 0\n    for x in xs:\n        for y in xs:\n            n += x == y\n"
    "    return n\n"
)
RECURSIVE = "def f(xs):\n    if not xs:\n        return 0\n    return xs[0] + f(xs[1:])\n"
BUILTIN = "def f(xs):\n    return sorted(xs)[0]\n"


def _made(task_id: str, config: AmplifyConfig = CONFIG) -> list[Args]:
    t = TASKS[task_id]
    assert t.base_inputs is not None
    return amplify(task_id, t.base_inputs, config, t.contract, t.reference, t.entry_point, t.prompt)


def _sizes(made: list[Args]) -> list[int]:
    return [max(len(v) if hasattr(v, "__len__") else 0 for v in a) for a in made]


def test_generator_seven_is_kept() -> None:
    assert AMPLIFIER_VERSION == 13 and GENERATORS == (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)
    assert AmplifyConfig().generator == 13 and CONFIG.generator == 7


def test_counts_are_line_events_and_stop_past_the_budget() -> None:
    cost = budget.count_here(LINEAR, "f")
    small, large = cost([([1] * 100,), ([1] * 400,)])
    assert large - small == 2 * 300  # two lines per item
    assert cost([([1] * 100,)]) == [small]  # deterministic
    assert cost([([1] * 100,), ([1] * 400,)], [small, small]) == [small, budget.OVER]  # limits
    assert budget.count_here(QUADRATIC, "f")([([1] * 2000,)]) == [budget.OVER]
    assert budget.count_here(RECURSIVE, "f")([([1] * 2000,)]) == [budget.OVER]  # raised
    before = sys.gettrace()
    budget.count_here(LINEAR, "f")([([1],)])
    assert sys.gettrace() is before  # a tracer in place (coverage) is put back


#: a reference whose calls run library code written in Python, with caches of its own
LIBRARY = (
    "import collections, re\n\n"
    "def f(text):\n"
    "    words = re.split(r'[.?!]\\s*', text)\n"
    "    return collections.Counter(words).most_common(1)\n"
)


def test_only_the_reference_s_own_lines_are_counted() -> None:
    """Library code's lines depend on its caches (``re``'s compiled patterns, an ABC's
    subclass checks), which other code in the process fills and empties: counted, they made
    the same reference's count, and with it generator 13's inputs, depend on what had run
    before in the process."""
    cost = budget.count_here(LIBRARY, "f")
    args = [("I am. Are you? Yes!",)]
    first = cost(args)
    re.purge()
    collections.abc.Mapping.register(type("Fresh", (), {}))  # empties the ABCs' caches
    assert cost(args) == first == [2]  # the two lines of f


def test_size_follows_the_counted_growth() -> None:
    def sized(source: str) -> int | None:
        cost = budget.count_here(source, "f")
        return budget.size(cost([([1, 2, 3] * (n // 3 + 1),) for n in budget.PROBES]))

    assert sized(LINEAR) == budget.LADDER[-1] == 2**16  # linear: the whole ladder
    assert sized(BUILTIN) == budget.LADDER[-1]  # work in built-ins is not counted
    assert sized(QUADRATIC) is None  # past the budget at the probes already
    assert sized(RECURSIVE) is None  # the reference fails: nothing grown
    # a count growing as n ** 1.5 from 32k events at 4096 items: 8x at 16384, 22.6x at 32768
    assert budget.size([4_000, 32_000]) == 16384
    # under-linear growth is taken as linear: never past the budget by more than the ladder step
    assert budget.size([60_000, 61_000]) == 32768
    assert budget.size([budget.OVER, 10]) is None


def test_grow_cycles_repeats_and_keeps_distinct_numbers_distinct() -> None:
    assert budget.grow([1, 1, 2], 7) == [1, 1, 2, 1, 1, 2, 1]
    assert budget.grow([3, 1, 2], 6) == [3, 1, 2, 6, 4, 5]  # blocks shifted by the span
    sorted_seed = budget.grow([1, 5, 9], 3000)
    assert sorted_seed == sorted(set(sorted_seed))  # sorted and distinct stay so
    assert budget.grow("ab", 5) == "ababab"
    assert budget.grow("a b", 7) == "a b a b"
    assert budget.grow(3, 4096) == 4096
    assert budget.growable("0101", None) and not budget.growable("14.5", None)
    assert not budget.growable(5000, None)  # a number already large is not grown
    assert not budget.growable(3, 100)  # nor one the docstring bounds under the ladder
    assert not budget.growable(True, None) and not budget.growable([], None)


def test_candidates_grow_each_argument_and_the_sequences_together() -> None:
    seeds = [("010", "110"), ("0", "1")]
    found = [(g, at, make(8)) for g, at, make in budget.candidates(seeds, (None, None))]
    assert [(g, at) for g, at, _ in found] == [
        ("0:budget", (0,)),
        ("1:budget", (1,)),
        ("*:budget", (0, 1)),
    ]
    assert found[2][2] == ("010010010", "110110110")


def test_humaneval_inputs_reach_tens_of_thousands_of_items_past_the_recursion_limit() -> None:
    made = _made("HumanEval/42")  # incr_list: linear
    assert max(_sizes(made[:4])) >= 32768
    assert min(_sizes(made[:2])) > 1000  # deeper than the default recursion limit
    assert all(len(key(a)) <= budget.MAX_CHARS for a in made)
    assert any(a[0] >= 4096 for a in _made("HumanEval/100")[:3])  # make_a_pile(n): n grown
    pairs = _made("HumanEval/11")[:6]  # string_xor: both strings grown together
    assert any(len(a[0]) == len(a[1]) > 4096 for a in pairs)


def test_generator_six_follows_the_grown_inputs() -> None:
    for task_id in ("HumanEval/0", "HumanEval/12", "HumanEval/42", "HumanEval/88"):
        seven = _made(task_id)
        six = _made(task_id, AmplifyConfig(seed=0, count=100, generator=6))
        grown = sum(1 for s in _sizes(seven) if s >= budget.PROBES[1] // 2)
        assert 1 <= grown <= budget.MOST, task_id
        assert seven[grown:] == six, task_id


def test_generator_seven_is_deterministic() -> None:
    for task_id in ("HumanEval/5", "HumanEval/70", "HumanEval/126"):
        first = [key(a) for a in _made(task_id)]
        with untraced():  # the same run again, for its result
            again = [key(a) for a in _made(task_id)]
        assert first == again


#: generator 7's digest on HumanEval/0..39 at seed 0; line events are counted by the running
#: CPython, so the pin is of the project's version
PINNED_7 = "449cbd2e287f1b8c"


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="line events of CPython 3.11")
def test_generator_seven_is_unchanged() -> None:
    h = hashlib.sha256()
    for task in humaneval_tasks()[:40]:
        if task.base_inputs is None:
            continue
        args = (task.contract, task.reference, task.entry_point, task.prompt)
        with untraced():  # the generator's own tests run its code traced
            made = amplify(task.task_id, task.base_inputs, CONFIG, *args)
        for one in made:
            h.update(key(one).encode())
    assert h.hexdigest()[:16] == PINNED_7
