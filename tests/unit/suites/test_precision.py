"""Generator 5's precision inputs: whole numbers past float precision, powers whose odd part is
past it, squares of primes, floats a hair from a whole number or halfway, fractions, and number
arguments scaled or made nearly equal together; and the reference's growth that gates them."""

from __future__ import annotations

from typing import Any

from specverdict.suites.function.growth import computes_floats, unbounded
from specverdict.suites.function.precision import (
    HAIR,
    LARGE,
    PRECISE,
    Reach,
    joint_variants,
    variants,
)

FREE = Reach(large=frozenset({0, 1, 2}), fractions=True)


def _by_kind(value: Any, reach: Reach = FREE, others: tuple[Any, ...] = ()) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for kind, v in variants(value, reach, 0, list(others)):
        out.setdefault(kind, []).append(v)
    return out


def test_large_whole_numbers_are_past_float_precision() -> None:
    found = _by_kind(7)["int-large"]
    assert found == list(LARGE) and all(float(n) != n for n in found if n > PRECISE)
    assert 10**17 - 1 in found and 10**15 - 1 in found  # nines: int(n / 10) rounds them
    assert [5, 10**17 - 1] in _by_kind([5, 6])["int-large"]  # the last item of a list
    assert "int-large" not in _by_kind(7, Reach())  # the reference's work grows with it


def test_powers_whose_odd_part_is_past_float_precision() -> None:
    powers = _by_kind(9, others=(3, 4, 6))["power-large"]
    assert powers == [3**34, 6**34]  # 4 ** k is exact in a float
    assert all(float(p) != p for p in powers)


def test_squares_floats_near_whole_numbers_and_fractions() -> None:
    assert {9, 25, 49} <= set(_by_kind(7)["square"])
    near = _by_kind(2.4)["float-near-int"]
    assert near == [3 + HAIR, 2 - HAIR] and _by_kind(2.4)["float-half"] == [2.5]
    assert [3 + HAIR, 1.0] in _by_kind([2.4, 1.0])["float-near-int"]
    assert _by_kind(3)["int-fraction"] == [3 + 1 / 3, 3.5]
    assert "int-fraction" not in _by_kind(3, Reach(large=frozenset({0})))


def test_number_arguments_scaled_and_made_nearly_equal_together() -> None:
    found = list(joint_variants((3, 4, 5), [], FREE))
    assert ("scale-large", (3 * 10**9, 4 * 10**9, 5 * 10**9)) in found
    assert ("scale-large", (3 * 10**9, 4 * 10**9, 5 * 10**9 + 1)) in found
    near = [args for kind, args in joint_variants((1, 2.5), [1], Reach()) if kind == "near-equal"]
    assert near == [(1, 1 + 1e-10)]


GROWS = """
def f(n, m, k, q):
    total = 0
    for i in range(n):
        total += i
    i = 2
    while i * i <= m:
        i += 1
    return "x" * k + str(q ** 2)
"""

TAKES_APART = """
def g(n, xs, p):
    s = 0
    while n > 0:
        s += n % 10
        n //= 10
    power = 1
    while power < p:
        power *= 3
    return s + sum(int(c) for x in xs for c in str(abs(x)))
"""


def test_the_reference_growth_gates_large_values() -> None:
    assert unbounded(GROWS, "f") == frozenset({"q"})
    assert unbounded(TAKES_APART, "g") == frozenset({"n", "xs", "p"})
    assert unbounded("def h(n):\n    return n / 2\n", "h") == frozenset()  # itself inexact
    assert unbounded("def r(n):\n    return r(n - 1) if n else 0\n", "r") == frozenset()
    assert computes_floats("def a(x, h):\n    return x * h / 2\n", "a")
    assert not computes_floats(TAKES_APART, "g")
