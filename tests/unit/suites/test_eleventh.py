"""Generator 11: generator 10's inputs kept, then its own (``eleventh.py``); each wrong answer
here agrees with the reference on every input generator 10's ground truth keeps and is told apart
by one generator 11 adds, so dropping those inputs fails these tests."""

from __future__ import annotations

import sys

import pytest

from specverdict.suites.function import eleventh
from specverdict.suites.function.amplify import AMPLIFIER_VERSION, AmplifyConfig
from tests.unit.suites.parting import digest, kept, own_inputs_are_kept, parted

ELEVEN = AmplifyConfig(seed=0, count=100, generator=11)


#: (task, what the answer gets wrong, the answer): each kind of generator 11 at least once
WRONG = [
    (
        "HumanEval/27",
        "titlecase: swaps case with lower() for isupper() and upper() for the rest",
        """
def flip_case(string: str) -> str:
    return "".join(c.lower() if c.isupper() else c.upper() for c in string)
""",
    ),
    (
        "HumanEval/93",
        "titlecase: swaps case by isupper() before replacing the vowels",
        """
def encode(message):
    out = []
    for c in message:
        c = c.lower() if c.isupper() else c.upper()
        if c in "aeiouAEIOU":
            c = chr(ord(c) + 2)
        out.append(c)
    return "".join(out)
""",
    ),
    (
        "HumanEval/153",
        "cased-symbol: counts isupper() and islower() characters that are no letters",
        """
def Strongest_Extension(class_name, extensions):
    best = None
    best_val = None
    for e in extensions:
        val = sum(1 for c in e if c.isupper()) - sum(1 for c in e if c.islower())
        if best_val is None or val > best_val:
            best, best_val = e, val
    return class_name + "." + best
""",
    ),
    (
        "HumanEval/21",
        "float-shift: finds the least and greatest number from the sentinels 1e9 and -1e9",
        """
def rescale_to_unit(numbers):
    lo, hi = 1e9, -1e9
    for x in numbers:
        lo = min(lo, x)
        hi = max(hi, x)
    return [(x - lo) / (hi - lo) for x in numbers]
""",
    ),
]


def test_generator_twelve_is_the_default_after_eleven() -> None:
    assert AMPLIFIER_VERSION == 13 and ELEVEN.generator == 11


@pytest.mark.parametrize(("task_id", "what", "wrong"), WRONG, ids=[w[0] for w in WRONG])
def test_generator_eleven_catches_what_generator_ten_misses(
    task_id: str, what: str, wrong: str
) -> None:
    assert parted(task_id, wrong, kept(task_id, 10)) == [], what
    assert parted(task_id, wrong, kept(task_id, 11)), what


def test_generator_ten_s_inputs_are_kept_and_its_own_are_kept_by_the_ground_truth() -> None:
    for task_id in ("HumanEval/21", "HumanEval/27", "HumanEval/153"):
        own_inputs_are_kept(task_id, 11)


@pytest.mark.parametrize(
    ("reference", "titled", "symbols"),
    [
        ("return s.swapcase()", True, False),
        ("return len(set(s.lower()))", True, False),
        ("return sum(c.isupper() for c in s)", True, False),
        ("return sum(c.isalpha() and c.isupper() for c in s)", False, True),
        ("return [c.lower() for c in s if c.isalpha()]", False, False),
        ("return s.swapcase() if any(c.isalpha() for c in s) else s[::-1]", False, False),
        ("return sorted(s)", False, False),
    ],
)
def test_the_reading_of_case_and_letters(reference: str, titled: bool, symbols: bool) -> None:
    assert eleventh.read(reference) == eleventh.Reading(titled=titled, symbols=symbols)


def test_the_kinds() -> None:
    both = eleventh.Reading(titled=True, symbols=True)
    made = list(eleventh.variants("ab Cd", both))
    assert ("titlecase", "\u01c5b Cd") in made
    assert ("cased-symbol", "\u24d0b Cd") in made  # the first cased letter, lower case
    assert ("cased-symbol", "\u24d0\u24d1 \u24b8\u24d3") not in made  # Ⓐ-Ⓩ and ⓐ-ⓩ only
    assert ("cased-symbol", "\u24d0\u24d0 \u24b6\u24d0") in made  # every cased letter
    assert not list(eleventh.variants("123 !", both))
    assert not list(eleventh.variants("ab", eleventh.Reading()))
    items = [v for _, v in eleventh.variants(["x", "y", "z", "w"], both)]
    assert ["\u01c5", "y", "z", "w"] in items and all(v[3] == "w" for v in items)
    assert list(eleventh.variants([1.5, -2.0], both)) == [
        ("float-shift", [1.5 + eleventh.SHIFT, -2.0 + eleventh.SHIFT])
    ]
    assert not list(eleventh.variants([1, 2], both))  # whole numbers: generator 9's list-shift
    assert all("\u01c5".swapcase() == "\u01c5" != c for c in ("\u01c5".upper(), "\u01c5".lower()))
    assert "\u24b6".isupper() and "\u24d0".islower() and not "\u24b6".isalpha()


#: generator 11's digest on HumanEval/0..9 at seed 0 (line events of CPython 3.11, as for 10; the
#: newest generator's digest takes 0..39, and each generator keeps the inputs of the one before)
PINNED_11 = "a65be8964deb6c27"


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="line events of CPython 3.11")
def test_generator_eleven_is_unchanged() -> None:
    assert digest(11, 10) == PINNED_11
