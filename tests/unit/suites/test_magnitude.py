"""Generator 4's magnitude variants: zero, floats in exponent notation, exact powers of another
argument, and a list's end item as negative as its largest item is positive."""

from __future__ import annotations

from typing import Any

from specverdict.suites.function.magnitude import KINDS, variants
from specverdict.suites.function.profile import Profile


def _profile(*values: Any) -> Profile:
    p = Profile()
    for v in values:
        p.add(v)
    return p


def _by_kind(value: Any, p: Profile, others: list[Any]) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for kind, v in variants(value, p, others):
        out.setdefault(kind, []).append(v)
    return out


def test_zero_keeps_the_type() -> None:
    assert _by_kind(7, _profile(1, 7), [])["zero"] == [0]
    zero = _by_kind(2.5, _profile(1.5, 2.5), [])["zero"]
    assert zero == [0.0] and type(zero[0]) is float
    assert "zero" not in _by_kind(0, _profile(0, 3), [])


def test_floats_printed_in_exponent_notation() -> None:
    found = _by_kind(3.5, _profile(1.33, 3.5), [])["float-exponent"]
    assert found == [1.5e-05, 3.5e-05] and all("e-05" in str(x) for x in found)
    items = _by_kind([1.5, 2.0], _profile([1.5, 2.0]), [])["float-exponent"]
    assert [1.5e-05, 2.0] in items and [1.5e-05, 2e-05] in items


def test_powers_of_the_other_whole_number_argument() -> None:
    found = _by_kind(16, _profile(16, 1000), [3])["power"]
    assert found == [9, 27, 81, 243, 729]  # 3 ** 2 .. 3 ** 6, not beyond the range
    alone = set(_by_kind(5, _profile(1, 100), [])["power"])
    assert {4, 8, 64, 9, 81, 100} <= alone  # 2, 3 and 10 where no other argument is a number
    assert "power" not in _by_kind(2.0, _profile(1.0, 99.0), [3])


def test_a_large_negative_item_at_either_end() -> None:
    found = _by_kind([1, -2, 99], _profile([1, -2, 99]), [])["negative-large"]
    assert found == [[-99, -2, 99], [1, -2, -99]]
    assert "negative-large" not in _by_kind(["a"], _profile(["a"]), [])
    assert (tuple, tuple) == tuple(type(v) for _, v in variants((1, 2), _profile((1, 2)), []))


def test_every_kind_is_named() -> None:
    made = {k for k, _ in variants(5, _profile(1, 100), [])}
    made |= {k for k, _ in variants([1.5, -2.0], _profile([1.5, -2.0]), [])}
    assert made == set(KINDS), set(KINDS) ^ made
