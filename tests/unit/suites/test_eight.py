"""Generator 8: generator 7's inputs kept, then its own grown inputs and special
values; each wrong answer here agrees with the reference on every input generator 7 makes and
is told apart by one generator 8 adds, so dropping those inputs fails these tests."""

from __future__ import annotations

import sys

import pytest

from specverdict.suites.function import budget, regrow, special
from specverdict.suites.function.amplify import AMPLIFIER_VERSION, AmplifyConfig, amplify, key
from specverdict.suites.function.profile import Args
from tests.unit.suites.parting import TASKS, digest, kept, made, parted

EIGHT = AmplifyConfig(seed=0, count=100, generator=8)


#: wrong answers of the kinds generator 8 was built for: (task, what is wrong, the answer)
WRONG = [
    (
        "HumanEval/31",
        "a Fermat test to base 2: 341 = 11 * 31 passes",
        "def is_prime(n):\n    if n < 4:\n        return n > 1\n"
        "    return n % 2 == 1 and pow(2, n - 1, n) == 1\n",
    ),
    (
        "HumanEval/82",
        "trial division by 2, 3 and 5 only: a length of 49 passes",
        "def prime_length(string):\n    n = len(string)\n    if n in (2, 3, 5):\n        return True\n"
        "    return n > 1 and all(n % p for p in (2, 3, 5))\n",
    ),
    (
        "HumanEval/92",
        "sums compared with `is`: equal only within the small-integer cache",
        "def any_int(x, y, z):\n    if not all(type(v) is int for v in (x, y, z)):\n"
        "        return False\n    return x + y is z or x + z is y or y + z is x\n",
    ),
    (
        "HumanEval/99",
        "int(x + 0.5): the float below a half rounds up",
        "def closest_integer(value):\n    x = float(value)\n"
        "    return int(x + 0.5) if x >= 0 else -int(-x + 0.5)\n",
    ),
    (
        "HumanEval/141",
        "a regular expression ending in $: it matches before a final newline",
        "import re\n\ndef file_name_check(file_name):\n"
        "    ok = re.match(r'^[A-Za-z][^.]*\\.(txt|exe|dll)$', file_name)\n"
        "    return 'Yes' if ok and sum(c.isdigit() for c in file_name) <= 3 else 'No'\n",
    ),
    (
        "HumanEval/162",
        "a blank string taken for an empty one",
        "import hashlib\n\ndef string_to_md5(text):\n"
        "    return hashlib.md5(text.encode()).hexdigest() if text.strip() else None\n",
    ),
    (
        "HumanEval/144",
        "the fractions multiplied as floats",
        "def simplify(x, n):\n    a, b = map(int, x.split('/'))\n    c, d = map(int, n.split('/'))\n"
        "    p = a / b * (c / d)\n    return p == int(p)\n",
    ),
    (
        "HumanEval/7",
        "an empty substring answered with no strings",
        "def filter_by_substring(strings, substring):\n"
        "    return [s for s in strings if substring and substring in s]\n",
    ),
    (
        "HumanEval/126",
        "three equal neighbours looked for one window short",
        "def is_sorted(lst):\n    if any(lst[i] == lst[i + 1] == lst[i + 2] for i in range(len(lst) - 3)):\n"
        "        return False\n    return all(a <= b for a, b in zip(lst, lst[1:]))\n",
    ),
    (
        "HumanEval/68",
        "value and index packed into one key, value * 1000 + index",
        "def pluck(arr):\n    evens = [v * 1000 + i for i, v in enumerate(arr) if v % 2 == 0]\n"
        "    return [min(evens) // 1000, min(evens) % 1000] if evens else []\n",
    ),
    (
        "HumanEval/80",
        "one call per character: a long happy string passes the recursion limit",
        "def is_happy(s):\n    if len(s) < 3:\n        return False\n"
        "    if len(set(s[:3])) < 3:\n        return False\n    return len(s) == 3 or is_happy(s[1:])\n",
    ),
]


def test_generator_eight_is_kept() -> None:
    assert AMPLIFIER_VERSION == 13 and EIGHT.generator == 8


@pytest.mark.parametrize(("task_id", "what", "wrong"), WRONG, ids=[w[0] for w in WRONG])
def test_generator_eight_catches_what_generator_seven_misses(
    task_id: str, what: str, wrong: str
) -> None:
    assert parted(task_id, wrong, kept(task_id, 7)) == [], what
    assert parted(task_id, wrong, kept(task_id, 8)), what


def test_three_zeros_in_a_short_list() -> None:
    # HumanEval/40: a scan that stops at the first item of at least 0 never tries 0 + 0 + 0;
    # generator 7 has three zeros only in a list of 1,100 items, on which the reference's
    # cubic loop may run past the ground truth's time limit on a loaded host
    def zeros(inputs: tuple[Args, ...]) -> bool:
        return any(len(a[0]) < 10 and a[0].count(0) >= 3 for a in inputs)

    assert zeros(kept("HumanEval/40", 8)) and not zeros(kept("HumanEval/40", 7))


def test_the_miller_rabin_pseudoprime_and_numbers_past_a_loop_s_reach() -> None:
    # HumanEval/150: bases 2 and 3 call 1373653 prime; HumanEval/163: a loop over every integer
    # between the bounds runs for minutes on 10 ** 9 + 7, which generator 7 never tries
    assert any(a[0] == 1373653 for a in made("HumanEval/150", 8))
    assert not any(a[0] == 1373653 for a in made("HumanEval/150", 7))
    assert any(max(a) > 10**9 for a in made("HumanEval/163", 8))
    assert not any(max(a) > 10**6 for a in made("HumanEval/163", 7))


def test_generator_seven_s_inputs_come_first_and_generator_six_s_after() -> None:
    for task_id in ("HumanEval/0", "HumanEval/12", "HumanEval/80"):
        six, seven, eight = made(task_id, 6), made(task_id, 7), made(task_id, 8)
        grown = len(seven) - len({key(a) for a in six} & {key(a) for a in seven})
        assert grown > 0 and eight[:grown] == seven[:grown], task_id
        assert {key(a) for a in six} <= {key(a) for a in eight}, task_id
        own = len(eight) - len(seven)
        assert 0 < own <= regrow.MOST + special.MOST, task_id


def test_own_inputs_stay_within_the_counted_budget_and_the_domain() -> None:
    t = TASKS["HumanEval/150"]
    cost = budget.count_here(t.reference, t.entry_point)
    own = [a for a in made("HumanEval/150", 8) if a not in made("HumanEval/150", 7)]
    small = [a for a in own if max(len(key(a)), 0) < 1000]
    assert small and max(cost(small, [special.BUDGET] * len(small))) <= special.BUDGET
    assert all(a[0] >= 0 for a in own)  # no negative n: no seed is negative
    assert not set(special.PRIMES[:3]) & {a[0] for a in own}  # a loop up to a large prime


def test_generator_eight_is_deterministic() -> None:
    t = TASKS["HumanEval/92"]
    assert t.base_inputs is not None
    again = amplify(t.task_id, t.base_inputs, EIGHT, t.contract, t.reference, t.entry_point)
    assert [key(a) for a in again] == [
        key(a)
        for a in amplify(t.task_id, t.base_inputs, EIGHT, t.contract, t.reference, t.entry_point)
    ]


#: generator 8's digest on HumanEval/0..9 at seed 0 (line events of CPython 3.11, as for 7; the
#: newest generator's digest takes 0..39, and each generator keeps the inputs of the one before)
PINNED_8 = "461bef2f1e3aefed"


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="line events of CPython 3.11")
def test_generator_eight_is_unchanged() -> None:
    assert digest(8, 10) == PINNED_8
