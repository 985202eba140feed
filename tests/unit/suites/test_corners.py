"""Generator 3: each kind of corner input is made where the task's domain admits it (ties,
both sides of a bound, empty, zero and negative inputs, string ends, int against float), the
docstring widens the domain only as it says, and generators 1 and 2 stay as they were."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from contextlib import nullcontext
from typing import Any

from specverdict.suites.function.amplify import (
    AMPLIFIER_VERSION,
    GENERATORS,
    AmplifyConfig,
    amplify,
    key,
)
from specverdict.suites.function.boundary import boundaries
from specverdict.suites.function.corners import (
    KINDS,
    compared_lengths,
    corner_inputs,
    docstring,
    read_clues,
    widen_by_docstring,
)
from specverdict.suites.function.edges import widen
from specverdict.suites.function.humaneval import humaneval_tasks
from specverdict.suites.function.profile import Domain
from tests.conftest import untraced

Args = tuple[Any, ...]
CONFIG = AmplifyConfig(seed=0, count=100, generator=3)


def _corners(seeds: Sequence[Args], reference: str, entry: str) -> dict[str, list[Args]]:
    """The corner inputs generator 3's domain admits, by kind (the prompt is the reference)."""
    bounds = boundaries(reference, entry)
    doc = docstring(reference, entry)
    domain = widen_by_docstring(widen(Domain.infer(seeds), bounds), bounds, doc)
    out: dict[str, list[Args]] = {}
    for group, args in corner_inputs(seeds, domain, read_clues(reference, entry, "", bounds)):
        if domain.admits(args):
            out.setdefault(group.split(":")[1], []).append(args)
    return out


def _firsts(found: dict[str, list[Args]], kind: str) -> list[Any]:
    return [args[0] for args in found.get(kind, [])]


SORT = '''
def sort_it(xs):
    """Sort the list of numbers."""
    return sorted(xs)
'''


def test_generator_three_stays_selectable() -> None:
    assert 3 in GENERATORS and AMPLIFIER_VERSION > 3
    assert AmplifyConfig(generator=3).generator == 3


def test_a_sort_task_gets_tie_heavy_inputs() -> None:
    found = _corners([([3, 1, 2],), ([5, 4, 9, 1],)], SORT, "sort_it")
    extremes = _firsts(found, "tie-extreme")
    assert [9, 5, 4, 9, 1, 9] in extremes and [1, 5, 4, 9, 1] in extremes  # max, min twice
    assert [3, 3, 3] in _firsts(found, "tie-equal")
    assert [1, 2, 3] in _firsts(found, "tie-rotate")
    made = [
        a[0] for a in amplify("t", [([3, 1, 2],), ([5, 4, 9, 1],)], CONFIG, None, SORT, "sort_it")
    ]
    assert any(len(xs) > 1 and len(set(xs)) < len(xs) for xs in made)  # ties reach the tests
    unique = SORT.replace("the list of numbers", "the list of unique numbers")
    assert "tie-equal" not in _corners([([3, 1, 2],), ([5, 4, 9, 1],)], unique, "sort_it")


def test_items_of_equal_key_are_swapped_and_tied() -> None:
    reference = "def by_length(words):\n    return sorted(words, key=len)\n"
    found = _corners([(["ab", "cd", "e"],), (["xyz", "q", "rs", "t"],)], reference, "by_length")
    assert ["cd", "ab", "e"] in _firsts(found, "tie-swap")  # equal lengths, order swapped
    twins = _firsts(found, "tie-length")
    assert ["zyx", "xyz", "q", "rs", "t"] in twins and ["xyz", "q", "rs", "t", "zyx"] in twins
    numbers = _corners([([3, 1, 2],)], SORT, "sort_it")
    assert [3, -3, 1, 2] in _firsts(numbers, "tie-swap")  # equal magnitudes


def test_numbers_get_zeros_negatives_and_single_items() -> None:
    seeds = [([1, 2, 3],), ([5, 3, -5, 2, 124, 1, -10],)]
    found = _corners(seeds, "def m(l):\n    return max(l)\n", "m")
    assert [0, 0, 0] in _firsts(found, "zeros") and [0, 1, 2, 3] in _firsts(found, "zeros")
    assert [1, 2, 3, 0] in _firsts(found, "zeros")
    assert [-2, -3, -4] in _firsts(found, "negative")  # every item strictly negative
    assert [0] in _firsts(found, "single") and [3] in _firsts(found, "single")


def test_both_sides_of_a_compared_length_and_a_compared_item() -> None:
    reference = (
        "def f(xs):\n    if len(xs) < 3:\n        return 0\n"
        "    return sum(1 for x in xs if x > 10)\n"
    )
    assert compared_lengths(reference) == (2, 3, 4)
    found = _corners([([1, 12, 30, 4, 5, 6],), ([7, 8, 9, 40, 50],)], reference, "f")
    assert {2, 3, 4} <= {len(xs) for xs in _firsts(found, "length-bound")}
    items = _firsts(found, "item-bound")
    assert [9, 10, 11, 4, 5, 6] in items  # c - 1, c, c + 1 for `x > 10`
    assert [1, 12, 30, 10, 5, 6] in items and [1, 12, 30, 11, 5, 6] in items  # in the middle
    words = _corners([("abcdef",), ("xyzxy",)], "def g(s):\n    return len(s) > 3\n", "g")
    assert {3, 4} <= {len(w) for w in _firsts(words, "length-bound")}


VOWELS = '''
def count_vowels(s):
    """Count the vowels of a word. If the word is empty, return 0."""
    return sum(1 for c in s if c in "aeiou")
'''


def test_string_ends_short_strings_and_the_empty_string() -> None:
    seeds = [("bcdfg",), ("hello",), ("strength",)]
    found = _corners(seeds, VOWELS, "count_vowels")
    assert "" in _firsts(found, "string-empty")  # the docstring speaks of the empty word
    short = _firsts(found, "string-short")
    assert {"b", "g", "bc", "fg"} <= set(short)
    assert {"cdfg", "bcdf", "cdf"} <= set(_firsts(found, "string-trim"))
    ends = _firsts(found, "string-ends")
    assert {"ecdfg", "bcdfe", "ecdfe", "ebcdfg", "bcdfge"} <= set(ends)  # a vowel at each end
    assert {"bbcdfg", "bcdfgg"} <= set(_firsts(found, "string-repeat"))
    silent = VOWELS.replace(" If the word is empty, return 0.", "")
    assert "string-empty" not in _corners(seeds, silent, "count_vowels")  # no seed is empty
    with_empty = _corners([*seeds, ("",)], silent, "count_vowels")
    assert "" in _firsts(with_empty, "string-empty")  # where a seed has it (new beside others)


def test_separators_never_move_to_an_end() -> None:
    found = _corners([("hello world",), ("a b c",)], VOWELS, "count_vowels")
    cut = [s for k in ("string-short", "string-trim", "string-repeat") for s in _firsts(found, k)]
    assert cut and not any(s.startswith(" ") or s.endswith(" ") for s in cut)
    assert not _firsts(found, "string-short")  # a sentence is not cut to a letter


def test_another_string_argument_itself_and_at_either_end() -> None:
    reference = "def count(s, sub):\n    return s.count(sub)\n"
    found = _corners([("abcab", "ab"), ("xyxyxyxyxy", "x"), ("", "y")], reference, "count")
    other = found["string-other"]
    assert ("ab", "ab") in other and ("abcabab", "ab") in other and ("ababcab", "ab") in other


def test_number_arguments_together_and_int_against_float() -> None:
    reference = "def close(a, b):\n    return abs(a - b) < 1\n"
    together = _corners([(3, 7), (-5, 5), (10, -8)], reference, "close")["all-numbers"]
    assert {(3, 3), (7, 7), (0, 0), (-3, -7)} <= set(together)
    mixed = _corners([(2.5, 1), (4, 2), (3.0, 3)], "def f(x, n):\n    return x * n\n", "f")
    assert {(4.0, 2), (3, 3)} <= set(mixed["int-float"])
    ints = _corners([(2, 1), (4, 2)], "def f(x, n):\n    return x * n\n", "f")
    assert "int-float" not in ints  # only where the seeds hold both


def test_the_docstring_widens_only_as_it_says() -> None:
    seeds = [([1, 2],), ([4, 3, 5],)]
    doc = "If the list is empty, return None. The numbers may be negative."
    plain_bounds = boundaries("def f(l):\n    return l\n", "f")
    plain = widen(Domain.infer(seeds), plain_bounds)
    wide = widen_by_docstring(plain, plain_bounds, doc)
    assert not plain.admits(([],)) and wide.admits(([],))
    assert not plain.admits(([2, 2],)) and wide.admits(([2, 2],))  # ties
    sized = boundaries('def f(l):\n    """a non-empty list of unique items"""\n    return l\n', "f")
    narrow = widen_by_docstring(widen(Domain.infer(seeds), sized), sized, doc + " Unique items.")
    assert not narrow.admits(([],)) and not narrow.admits(([2, 2],))
    scalars = Domain.infer([(3,), (8,)])
    assert widen_by_docstring(scalars, plain_bounds, doc).admits((-5,))
    positive = boundaries('def f(n):\n    """n is positive"""\n    return n\n', "f")
    assert not widen_by_docstring(scalars, positive, doc).admits((-5,))
    words = widen(Domain.infer([("hello",), ("worlds",)]), plain_bounds)
    assert widen_by_docstring(words, plain_bounds, "").admits(("hel",))
    assert not words.admits(("hel",))  # the seeds' runs of letters are five and six long
    odd = Domain.infer([([1, 2, 3],), ([4],)])
    assert widen_by_docstring(odd, plain_bounds, "").admits(([1, 2],))
    assert not widen_by_docstring(odd, plain_bounds, "an odd number of items").admits(([1, 2],))


def test_every_kind_is_named_and_made_for_humaneval() -> None:
    seen: set[str] = set()
    for task in humaneval_tasks():
        if task.base_inputs is None:
            continue
        bounds = boundaries(task.reference, task.entry_point, task.prompt)
        domain = widen(Domain.infer(task.base_inputs), bounds)
        clues = read_clues(task.reference, task.entry_point, task.prompt, bounds)
        seen |= {g.split(":")[1] for g, _ in corner_inputs(task.base_inputs, domain, clues)}
    assert seen == set(KINDS), set(KINDS) ^ seen


def test_generator_three_is_deterministic_distinct_and_keeps_contracts() -> None:
    for task in humaneval_tasks()[:30]:
        if task.base_inputs is None:
            continue
        args = (task.contract, task.reference, task.entry_point, task.prompt)
        made = amplify(task.task_id, task.base_inputs, CONFIG, *args)
        with untraced():  # the same run again, for its result
            again = amplify(task.task_id, task.base_inputs, CONFIG, *args)
        assert made == again
        keys = [key(a) for a in made]
        assert len(set(keys)) == len(keys) and not set(keys) & {key(s) for s in task.base_inputs}
        if task.contract is not None:
            assert all(task.contract(a) for a in made), task.task_id


#: digests of generators 1 to 6 on HumanEval/0..39 at seed 0: they must never change
PINNED = {
    1: "64bc5b034d6c7e9e",
    2: "4d9b72fb98044f7e",
    3: "eca06893772164e1",
    4: "4eed76f9362c18a6",
    5: "71b2b179a0744ce7",
    6: "2aa7a1be4381cf4f",
}


def test_every_generator_is_unchanged() -> None:
    for generator, digest in PINNED.items():
        h = hashlib.sha256()
        config = AmplifyConfig(seed=0, count=100, generator=generator)
        for task in humaneval_tasks()[:40]:
            if task.base_inputs is None:
                continue
            args = (task.contract, task.reference, task.entry_point, task.prompt)
            # traced, generator 2 only: the others' code runs traced in tests of their own
            with nullcontext() if generator == 2 else untraced():
                made = amplify(task.task_id, task.base_inputs, config, *args)
            for one in made:
                h.update(key(one).encode())
        assert h.hexdigest()[:16] == digest, generator
