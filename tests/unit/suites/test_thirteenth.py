"""Generator 13: generator 12's inputs kept, then its own (``thirteenth.py``); each wrong answer
here agrees with the reference on every input generator 12's ground truth keeps and is told apart
by one generator 13 adds, so dropping those inputs fails these tests."""

from __future__ import annotations

import sys

import pytest

from specverdict.suites.function import (
    thirteenth,
)
from specverdict.suites.function.amplify import AMPLIFIER_VERSION, AmplifyConfig
from tests.unit.suites.parting import digest, kept, own_inputs_are_kept, parted

#: (task, what the answer gets wrong, the answer): each kind of generator 13
WRONG = [
    (
        "HumanEval/13",
        "fib-pair: Euclid's algorithm recursing once per step",
        """
def greatest_common_divisor(a: int, b: int) -> int:
    if b == 0:
        return abs(a)
    return greatest_common_divisor(b, a % b)
""",
    ),
    (
        "HumanEval/104",
        "item-long: tests an item's digits recursing once per digit",
        """
def unique_digits(x):
    def all_odd(n):
        if n == 0:
            return True
        return (n % 10) % 2 == 1 and all_odd(n // 10)

    return sorted(n for n in x if all_odd(n))
""",
    ),
]


def test_generator_thirteen_is_the_default() -> None:
    assert AMPLIFIER_VERSION == 13 and AmplifyConfig().generator == 13


@pytest.mark.parametrize(("task_id", "what", "wrong"), WRONG, ids=[w[0] for w in WRONG])
def test_generator_thirteen_catches_what_generator_twelve_misses(
    task_id: str, what: str, wrong: str
) -> None:
    assert parted(task_id, wrong, kept(task_id, 12)) == [], what
    assert parted(task_id, wrong, kept(task_id, 13)), what


def test_generator_twelve_s_inputs_are_kept_and_its_own_are_kept_by_the_ground_truth() -> None:
    for task_id in ("HumanEval/13", "HumanEval/104"):
        own_inputs_are_kept(task_id, 13)


def small_big() -> tuple[int, int]:
    big, small = thirteenth.fibonacci_pair()
    return small, big


def test_the_kinds() -> None:
    big, small = thirteenth.fibonacci_pair(10)
    assert (big, small) == (89, 55)
    made = list(thirteenth.candidates([(3, [1, 2, 3]), (4, [5])]))
    longs = [a for g, a, _ in made if g == "1:item-long"]
    assert longs == [(3, [thirteenth.LONG_ITEM, 2, 3]), (4, [thirteenth.LONG_ITEM])]
    digits = str(thirteenth.LONG_ITEM)
    assert len(digits) == 1200 and set(digits) == {"1"}
    assert not [g for g, _, _ in made if g == "*:fib-pair"]  # a list beside the number
    pairs = [(a, at) for g, a, at in thirteenth.candidates([(3, 5, "x"), (4, 7, "y")])]
    assert [at for _, at in pairs] == [(0, 1), (0, 1)]
    assert [a for a, _ in pairs] == [(*thirteenth.fibonacci_pair(), "x"), (*small_big(), "x")]
    negative = [a for g, a, _ in thirteenth.candidates([([-1, 2],)]) if g == "0:item-long"]
    assert negative == [([thirteenth.LONG_ITEM, 2],), ([-thirteenth.LONG_ITEM, 2],)]
    assert not [g for g, _, _ in thirteenth.candidates([(-1, 2)]) if g == "*:fib-pair"]


#: generator 13's digest on HumanEval/0..39 at seed 0 (line events of CPython 3.11, as for 12)
PINNED_13 = "3d0c28494b1005cb"


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="line events of CPython 3.11")
def test_generator_thirteen_is_unchanged() -> None:
    assert digest(13, 40) == PINNED_13
