"""Generator 12: generator 11's inputs kept, then its own (``twelfth.py``); each wrong answer
here agrees with the reference on every input generator 11's ground truth keeps and is told apart
by one generator 12 adds, so dropping those inputs fails these tests."""

from __future__ import annotations

import sys

import pytest

from specverdict.suites.function import (
    twelfth,
)
from specverdict.suites.function.amplify import AMPLIFIER_VERSION, AmplifyConfig
from tests.unit.suites.parting import digest, kept, own_inputs_are_kept, parted

TWELVE = AmplifyConfig(seed=0, count=100, generator=12)


#: (task, what the answer gets wrong, the answer): each kind of generator 12
WRONG = [
    (
        "HumanEval/128",
        "list-huge: takes each sign with math.copysign, through a float",
        """
import math


def prod_signs(arr):
    if not arr:
        return None
    sign = 1
    for x in arr:
        sign *= int(math.copysign(1, x)) if x != 0 else 0
    return sign * sum(abs(x) for x in arr)
""",
    ),
    (
        "HumanEval/161",
        "among: swaps case with lower() for isupper() letters and upper() for other letters",
        """
def solve(s):
    if not any(c.isalpha() for c in s):
        return s[::-1]
    return "".join(c.lower() if c.isupper() else c.upper() if c.isalpha() else c for c in s)
""",
    ),
]


def test_generator_thirteen_is_the_default_after_twelve() -> None:
    assert AMPLIFIER_VERSION == 13 and TWELVE.generator == 12


@pytest.mark.parametrize(("task_id", "what", "wrong"), WRONG, ids=[w[0] for w in WRONG])
def test_generator_twelve_catches_what_generator_eleven_misses(
    task_id: str, what: str, wrong: str
) -> None:
    assert parted(task_id, wrong, kept(task_id, 11)) == [], what
    assert parted(task_id, wrong, kept(task_id, 12)), what


def test_generator_eleven_s_inputs_are_kept_and_its_own_are_kept_by_the_ground_truth() -> None:
    for task_id in ("HumanEval/128", "HumanEval/161"):
        own_inputs_are_kept(task_id, 12)


@pytest.mark.parametrize(
    ("reference", "among"),
    [
        ("return s.swapcase() if any(c.isalpha() for c in s) else s[::-1]", True),
        ("return s.swapcase()", False),
        ("return ''.join(c.upper() for c in s if c.isalpha())", False),
    ],
)
def test_the_reading(reference: str, among: bool) -> None:
    assert twelfth.read(reference) == twelfth.Reading(among=among)


def test_the_kinds() -> None:
    on = twelfth.Reading(among=True)
    assert list(twelfth.variants([1, -2], on)) == [
        ("list-huge", [1 + twelfth.SHIFT, -2 + twelfth.SHIFT])
    ]
    assert float("inf") > 1 + twelfth.SHIFT and twelfth.SHIFT % 2 == 0
    made = [v for _, v in twelfth.variants("aB1c", on)]
    assert made == ["aB1\u01c5"]  # the last cased letter
    assert not list(twelfth.variants("a1", on))  # one cased letter: no other keeps it lettered
    assert not list(twelfth.variants("aBc", twelfth.Reading()))
    assert not list(twelfth.variants([1.5, 2.5], on))  # floats: generator 11's float-shift


#: generator 12's digest on HumanEval/0..9 at seed 0 (line events of CPython 3.11, as for 11; the
#: newest generator's digest takes 0..39, and each generator keeps the inputs of the one before)
PINNED_12 = "a7150d7bc3a5a1e9"


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="line events of CPython 3.11")
def test_generator_twelve_is_unchanged() -> None:
    assert digest(12, 10) == PINNED_12
