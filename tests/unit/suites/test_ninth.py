"""Generator 9: generator 8's inputs kept, then its own (``ninth.py``); each wrong
answer here agrees with the reference on every input generator 8's ground truth keeps and is told
apart by one generator 9 adds, so dropping those inputs fails these tests."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from specverdict.suites.function import budget, ninth
from specverdict.suites.function.amplify import AMPLIFIER_VERSION, AmplifyConfig, amplify, key
from specverdict.suites.function.profile import Args
from tests.unit.suites.parting import TASKS, digest, kept, made, own_inputs_are_kept, parted

NINE = AmplifyConfig(seed=0, count=100, generator=9)


#: (task, what the answer gets wrong, the answer): one per kind of generator 9
WRONG = [
    (
        "HumanEval/100",
        "least: a pile started with two levels (n = 1 has one)",
        """
def make_a_pile(n):
    pile = [n, n + 2]
    while len(pile) < n:
        pile.append(pile[-1] + 2)
    return pile
""",
    ),
    (
        "HumanEval/114",
        "list-shift: the least sum starts at 10 ** 9",
        """
def minSubArraySum(nums):
    best = 10 ** 9
    run = 0
    for x in nums:
        run = min(x, run + x)
        best = min(best, run)
    return best
""",
    ),
    (
        "HumanEval/68",
        "list-shift: the smallest even value starts at 10 ** 9",
        """
def pluck(arr):
    best, at = 10 ** 9, -1
    for i, v in enumerate(arr):
        if v % 2 == 0 and v < best:
            best, at = v, i
    return [] if at < 0 else [best, at]
""",
    ),
    (
        "HumanEval/66",
        "caseless: a letter equal to its upper case taken for a capital",
        """
def digitSum(s):
    return sum(ord(c) for c in s if c.isalpha() and c == c.upper())
""",
    ),
    (
        "HumanEval/141",
        "repeat-char: the digits of the name counted as a set",
        """
def file_name_check(file_name):
    if file_name.count(".") != 1:
        return "No"
    name, ext = file_name.split(".")
    if ext not in ("txt", "exe", "dll") or not name or not name[0].isalpha():
        return "No"
    if len({c for c in name if c.isdigit()}) > 3:
        return "No"
    return "Yes"
""",
    ),
    (
        "HumanEval/127",
        "span: a base-2 Fermat test on the intersection's length",
        """
def intersection(interval1, interval2):
    n = min(interval1[1], interval2[1]) - max(interval1[0], interval2[0])
    if n < 2:
        return "NO"
    return "YES" if n == 2 or pow(2, n - 1, n) == 1 else "NO"
""",
    ),
]


def test_generator_nine_is_kept() -> None:
    assert AMPLIFIER_VERSION == 13 and NINE.generator == 9


@pytest.mark.parametrize(("task_id", "what", "wrong"), WRONG, ids=[w[0] for w in WRONG])
def test_generator_nine_catches_what_generator_eight_misses(
    task_id: str, what: str, wrong: str
) -> None:
    assert parted(task_id, wrong, kept(task_id, 8)) == [], what
    assert parted(task_id, wrong, kept(task_id, 9)), what


def test_generator_eight_s_inputs_are_kept_and_its_own_come_before_generator_six_s() -> None:
    for task_id in ("HumanEval/3", "HumanEval/66", "HumanEval/100", "HumanEval/127"):
        own_inputs_are_kept(task_id, 9)


def test_least_values_follow_the_prompt() -> None:
    assert ninth.least([(5,), (30,)], 0, positive=False) == [0, 1, 2]
    assert ninth.least([(5,), (30,)], 0, positive=True) == [1, 2]
    assert ninth.least([(2,), (30,)], 0, positive=False) == [0, 1]
    assert ninth.least([(-1,), (30,)], 0, positive=False) == []  # negative seeds: no floor
    assert ninth.least([(1.5,), (3,)], 0, positive=False) == []
    # HumanEval/100 says positive: 1 and 2, never 0
    own = {a[0] for a in made("HumanEval/100", 9)} - {a[0] for a in made("HumanEval/100", 8)}
    assert own and 0 not in own and own <= {1, 2}


def test_a_least_value_past_the_count_is_kept_where_a_seed_is_too() -> None:
    # HumanEval/75: the reference tries every product of three primes below 101 for a number
    # that is not one, as for the seed 5; 0 takes it through the same loop
    t = TASKS["HumanEval/75"]
    cost = budget.count_here(t.reference, t.entry_point)
    assert cost([(5,), (0,)], [budget.BUDGET] * 2) == [budget.OVER, budget.OVER]
    assert (0,) in made("HumanEval/75", 9) and (0,) not in made("HumanEval/75", 8)


def test_the_string_and_list_kinds() -> None:
    cased = ninth.Reading(cased=True)
    made = dict(ninth.variants("hello world", cased))
    assert made["caseless"] == "中ello world"
    assert made["repeat-char"] == "hhhhello world"
    assert "caseless" not in dict(ninth.variants("hello world", ninth.Reading()))
    assert dict(ninth.variants("ab12", cased))["repeat-char"] == "ab11112"
    assert dict(ninth.variants([1, -2], cased))["list-shift"] == [
        1 + ninth.SHIFT,
        -2 + ninth.SHIFT,
    ]


@pytest.mark.parametrize(
    ("reference", "cased"),
    [
        ("return sum(ord(c) if c.isupper() else 0 for c in s)", True),
        ("return [c for c in s if c.islower() and ord(c) % 2 == 0]", True),
        ("return c.isupper() and c.isalpha()", False),  # is it a letter: readings differ
        ("return 97 <= ord(c.lower()) <= 122 and c.isupper()", False),
        ("return 'a' <= c <= 'z' or c.isupper()", False),
        ("return c in string.ascii_letters and c.islower()", False),
        ("return c.upper()", False),  # no case asked
    ],
)
def test_letters_without_case_only_where_case_is_asked_and_letters_are_not(
    reference: str, cased: bool
) -> None:
    assert ninth.read(reference).cased is cased


def test_long_sorted_lists_keep_the_seed_s_values_in_order() -> None:
    up, down = ninth.sorted_long([3, 1, 2], 8)
    assert up == [1, 2, 3, 4, 5, 6, 7, 8] and down == up[::-1]
    up, _ = ninth.sorted_long([2.5, -1.0], 4)
    assert up == [-1.0, 2.5, 3.5, 7.0]
    grown = list(ninth.longs([([5, 1], "x"), ([1, 2, 3], "y")]))
    assert [(i, len(a[0]), a[1]) for i, a in grown] == [(0, ninth.LONG, "y"), (0, ninth.DOWN, "y")]
    assert list(ninth.longs([([1, 2.5],)])) == []  # mixed types: no order to continue

    # HumanEval/57: an answer comparing every pair (134 million comparisons on a sorted list of
    # LONG items) meets a long sorted list of many values only among generator 9's inputs
    # (generator 8 has a list of one value repeated)
    def long_sorted(inputs: tuple[Args, ...]) -> list[list[Any]]:
        return [
            a[0]
            for a in inputs
            if len(set(a[0])) > 1000 and a[0] in (sorted(a[0]), sorted(a[0], reverse=True))
        ]

    assert long_sorted(kept("HumanEval/57", 8)) == []
    assert len(long_sorted(kept("HumanEval/57", 9))) == 2


def test_spans_change_every_pair_together() -> None:
    spans = list(ninth.candidates([((1, 2), (2, 3))], ninth.Reading(), positive=False))
    joint = [(args, at) for group, args, at in spans if group == "*:span"]
    assert joint[0] == (((1, 342), (1, 342)), (0, 1))
    assert [a[0][1] - a[0][0] for a, _ in joint] == list(ninth.SPANS)


def test_generator_nine_is_deterministic() -> None:
    t = TASKS["HumanEval/66"]
    assert t.base_inputs is not None
    args = (t.contract, t.reference, t.entry_point)
    first = amplify(t.task_id, t.base_inputs, NINE, *args)
    assert [key(a) for a in amplify(t.task_id, t.base_inputs, NINE, *args)] == [
        key(a) for a in first
    ]


#: generator 9's digest on HumanEval/0..9 at seed 0 (line events of CPython 3.11, as for 8; the
#: newest generator's digest takes 0..39, and each generator keeps the inputs of the one before)
PINNED_9 = "547a26b15ae3a8e8"


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="line events of CPython 3.11")
def test_generator_nine_is_unchanged() -> None:
    assert digest(9, 10) == PINNED_9
