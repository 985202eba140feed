"""Generator 4's joint variants: an item shared between sequence arguments, and every sequence
argument made of one of its own items at once."""

from __future__ import annotations

from specverdict.suites.function.joint import KINDS, MAX_FILLS, joint_variants


def test_an_item_of_one_list_added_to_the_other() -> None:
    shared = [a for k, a in joint_variants(([5, 3, 2, 8], [3, 2])) if k == "shared-item"]
    assert ([5, 3, 2, 8], [3, 2, 5]) in shared and ([5, 3, 2, 8], [3, 2, 8]) in shared
    assert ([5, 3, 2, 8, 3], [3, 2]) not in shared  # an item the other list holds already
    assert ([5, 3, 2, 8], [3, 2, 2]) not in shared


def test_every_sequence_made_of_one_item_at_once() -> None:
    equal = [a for k, a in joint_variants((["**", "*", "+"], [5, 3, 4, 2])) if k == "all-equal"]
    assert (["**", "**", "**"], [2, 2, 2, 2]) in equal  # the smallest number of 2 or more
    assert (["-", "-", "-"], [2, 2, 2, 2]) not in equal  # only a list's own items
    assert len(equal) == 3  # three operators, one number
    words = [a for k, a in joint_variants((list("abcdef"), [1, 0])) if k == "all-equal"]
    assert len(words) == MAX_FILLS and (["a"] * 6, [0, 0]) in words  # the smallest, if none is 2


def test_one_sequence_argument_has_no_joint_variant() -> None:
    assert list(joint_variants(([1, 2, 3], 4))) == []
    kinds = {k for k, _ in joint_variants(([1, 2], (3,)))}
    assert kinds == set(KINDS)
    assert all(type(a[1]) is tuple for _, a in joint_variants(([1, 2], (3,))))
