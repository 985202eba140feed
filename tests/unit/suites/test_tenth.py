"""Generator 10: generator 9's inputs kept, then its own (``tenth.py``); each wrong
answer here agrees with the reference on every input generator 9's ground truth keeps and is told
apart by one generator 10 adds, so dropping those inputs fails these tests."""

from __future__ import annotations

import sys

import pytest

from specverdict.suites.function import tenth
from specverdict.suites.function.amplify import AMPLIFIER_VERSION, AmplifyConfig
from tests.unit.suites.parting import digest, kept, own_inputs_are_kept, parted

TEN = AmplifyConfig(seed=0, count=100, generator=10)


#: (task, what the answer gets wrong, the answer): one per kind of generator 10
WRONG = [
    (
        "HumanEval/155",
        "huge: counts the digits recursively, one call per digit",
        """
def even_odd_count(num):
    def count(n):
        if n < 10:
            return (1, 0) if n % 2 == 0 else (0, 1)
        even, odd = count(n // 10)
        return (even + 1, odd) if n % 10 % 2 == 0 else (even, odd + 1)

    return count(abs(num))
""",
    ),
    (
        "HumanEval/35",
        "list-wide: the running maximum starts at the smallest 64-bit integer",
        """
import sys


def max_element(l):
    best = -sys.maxsize - 1
    for x in l:
        if x > best:
            best = x
    return best
""",
    ),
    (
        "HumanEval/6",
        "long-token: a group's depth measured recursively, one call per character",
        """
def parse_nested_parens(paren_string):
    def depth(group, level=0, best=0):
        if not group:
            return best
        level = level + 1 if group[0] == "(" else level - 1
        return depth(group[1:], level, max(best, level))

    return [depth(g) for g in paren_string.split(" ") if g]
""",
    ),
]


def test_generator_eleven_is_the_default_after_ten() -> None:
    assert AMPLIFIER_VERSION == 13 and TEN.generator == 10


@pytest.mark.parametrize(("task_id", "what", "wrong"), WRONG, ids=[w[0] for w in WRONG])
def test_generator_ten_catches_what_generator_nine_misses(
    task_id: str, what: str, wrong: str
) -> None:
    assert parted(task_id, wrong, kept(task_id, 9)) == [], what
    assert parted(task_id, wrong, kept(task_id, 10)), what


def test_generator_nine_s_inputs_are_kept_and_its_own_are_kept_by_the_ground_truth() -> None:
    for task_id in ("HumanEval/6", "HumanEval/35", "HumanEval/155"):
        own_inputs_are_kept(task_id, 10)


def test_the_kinds() -> None:
    made = list(tenth.candidates([(5, [1, -2]), (7, [3, 4])]))
    groups = [g for g, _, _ in made]
    assert groups.count("0:huge") == len(tenth.HUGE)
    assert [a[0] for g, a, _ in made if g == "0:huge"] == list(tenth.HUGE)
    shifted = [a[1] for g, a, _ in made if g == "1:list-wide"]
    assert [1 + tenth.FLOAT_SHIFT, -2 + tenth.FLOAT_SHIFT] in shifted
    assert [1 + tenth.LOW_SHIFT, -2 + tenth.LOW_SHIFT] in shifted  # the seeds hold negatives
    low = [a[0] for g, a, _ in tenth.candidates([([1, 2],)]) if g == "0:list-wide"]
    assert low == [[1 + tenth.FLOAT_SHIFT, 2 + tenth.FLOAT_SHIFT]]  # no negatives: none lower
    grown = dict(tenth.tokens([("ab cd",), ("x y z w",)]))
    first, rest = grown[0][0].split(" ", 1)
    assert len(first) == tenth.TOKEN and set(first) == {"x"} and rest == "y z w"
    (_, (items,)), *_ = tenth.tokens([(["ab", ""],)])
    assert [len(v) for v in items] == [tenth.TOKEN, 0]


#: generator 10's digest on HumanEval/0..9 at seed 0 (line events of CPython 3.11, as for 9; the
#: newest generator's digest takes 0..39, and each generator keeps the inputs of the one before)
PINNED_10 = "0851664ca7701517"


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="line events of CPython 3.11")
def test_generator_ten_is_unchanged() -> None:
    assert digest(10, 10) == PINNED_10
