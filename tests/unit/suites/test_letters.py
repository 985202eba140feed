"""Generator 5's text inputs: accented letters, Unicode digits, square and long lengths, digit
runs a float calls equal, empty and prefix items, patterns, and an empty word asked about with
a count of 0."""

from __future__ import annotations

from typing import Any

from specverdict.suites.function.letters import (
    ascii_only,
    pattern_variants,
    space_zero_variants,
    variants,
)


def _by_kind(value: Any, plain: bool = False) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for kind, v in variants(value, plain):
        out.setdefault(kind, []).append(v)
    return out


def test_accented_letters_unless_the_task_is_ascii() -> None:
    assert _by_kind("abAB")["letter-accent"] == ["àbÀB"]
    assert "letter-accent" not in _by_kind("abAB", plain=True)
    assert ascii_only("sum of the upper characters' ASCII codes", "")
    assert ascii_only("a letter from the latin alphapet ('a'-'z')", "")
    assert ascii_only("", "def f(s):\n    return [ord(c) for c in s]\n")
    assert not ascii_only("Return the string with its case flipped.", "def f(s): return s")


def test_digits_lengths_and_digit_runs() -> None:
    assert _by_kind("123")["digit-unicode"] == ["١٢٣"]
    assert [len(s) for s in _by_kind("Hello")["length-square"]] == [9, 25]
    long = _by_kind("a test")["word-long"]
    assert long == ["a testtesttesttesttesttes"] and len(long[0].split()[1]) == 23
    assert _by_kind("1/5")["digit-near"] == ["10000000001/10000000000"]


def test_items_empty_and_extended_by_their_own_letter() -> None:
    found = _by_kind(["ab", "cde"])
    assert ["", "cde"] in found["item-empty"] and ["", ""] in found["item-empty"]
    assert ["ab", "cde", "aba"] in found["item-prefix"]
    assert ["ab", "cde", "cdec"] in found["item-prefix"]
    assert ["àb", "cde"] in found["letter-accent"]  # the first and last items, in place


def test_a_string_argument_made_a_pattern_with_a_match_it_does_not_contain() -> None:
    found = [args for _, args in pattern_variants((["abc", "xyz"], "ab"))]
    assert (["abc", "xyz", "a.b", "axb"], "a.") in found
    assert (["abc", "xyz", "a+b", "aab"], "a+") in found
    assert list(pattern_variants((["abc"], 3))) == []


def test_a_doubled_space_with_every_count_zero() -> None:
    assert list(space_zero_variants(("Mary had a lamb", 4))) == [
        ("space-zero", ("Mary  had a lamb", 0))
    ]
    assert list(space_zero_variants(("word", 4))) == []
