"""Precision inputs (generator 5): numbers where float arithmetic and integer arithmetic part.

Code written by hand often takes a number through a float where the task's arithmetic is exact:
``int(n / 10)`` for a digit, ``math.pow(n, k) == x``, ``int(math.log10(n))`` for a length,
``round(a ** (1 / 3)) ** 3`` or ``math.isclose`` for an equality, ``round(x, 6)`` before a
ceiling. Each is right on the small numbers seeds hold and wrong past ``2 ** 53`` or at a
fraction below the rounding. One argument at a time:

* ``int-large``: whole numbers past float precision (``LARGE``: ``10 ** 15 - 1``, ``2 ** 53 + 1``,
  ``3 ** 34``, ``10 ** 17 - 1``, ``10 ** 18 + 1``: a run of nines, a power of three, neighbours of
  a power of ten and of a cube), for a whole-number argument or the last item of a list of them;
* ``power-large``: the first power of another whole-number argument whose odd part is past
  ``2 ** 53`` (``3 ** 34``, ``6 ** 34``), where ``math.pow`` and ``**`` on floats are no longer
  exact;
* ``item-scale``: the first item of a list of numbers ``ITEM_SCALE`` times larger: a value far
  outside the seeds' range, where a search over a fixed interval finds nothing;
* ``square``: squares of primes (``PRIME_SQUARES``), the numbers trial division that stops one
  short of the square root calls prime;
* ``float-near-int``: a float a hair (``HAIR``) above and below a whole number, where rounding
  to a few places, ``int`` and ``math.ceil`` part;
* ``float-half``: a float halfway between two whole numbers (``round`` rounds it to even);
* ``int-fraction``: a whole-number argument given a fraction (a third, a half), where the
  reference computes with floats and the docstring does not speak of integers.

And for all number arguments at once:

* ``scale-large``: every whole-number argument times ``10 ** 9``, and then the last one plus
  one: an equality of products that ``math.isclose`` or a float calls true;
* ``near-equal``: one number argument made another plus a relative ``1e-10``, where the seeds
  hold floats there: equal for ``math.isclose``, not for ``==``.

Large values are offered only for the arguments whose value the reference's work does not grow
with (``growth.unbounded``); generator 5's domain for these kinds (``extended.py``) lifts the
seeds' upper bound there unless the docstring states one.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from specverdict.suites.function.profile import Args

KINDS = (
    "int-large",
    "power-large",
    "square",
    "item-scale",
    "float-near-int",
    "float-half",
    "int-fraction",
    "scale-large",
    "near-equal",
)
#: whole numbers past float precision (2 ** 53 = 9007199254740992)
PRECISE = 2**53
LARGE = (10**15 - 1, 2**53 + 1, 3**34, 10**17 - 1, 10**18 + 1)
#: the factor of ``item-scale``
ITEM_SCALE = 100
#: squares of the first primes
PRIME_SQUARES = (4, 9, 25, 49, 121, 169)
#: how far from a whole number a float is put: below six places, above the comparison's 1e-06
#: tolerance only where the whole number changes
HAIR = 1e-07
#: the relative difference of two numbers ``math.isclose`` calls equal
NEAR = 1e-10
#: the factor of ``scale-large``
SCALE = 10**9

Variant = tuple[str, Any]


@dataclass(frozen=True, slots=True)
class Reach:
    """What generator 5 may try per argument: ``large`` holds the positions whose value the
    reference's work does not grow with, ``fractions`` whether whole numbers may get one."""

    large: frozenset[int] = frozenset()
    fractions: bool = False


def _whole(value: Any) -> bool:
    return type(value) is int


def _near(x: float) -> Iterator[Variant]:
    base = float(round(x))
    yield "float-near-int", base + 1 + HAIR
    yield "float-near-int", base - HAIR
    yield "float-half", math.floor(x) + 0.5


def _power_past(base: int) -> int | None:
    """The first power of ``base`` whose odd part is past ``PRECISE`` (a power of two times a
    small odd number is exact in a float); None for a power of two."""
    odd = base
    while odd % 2 == 0:
        odd //= 2
    if odd == 1:
        return None
    power, part = base, odd
    while part <= PRECISE:
        power, part = power * base, part * odd
    return power


def _scalar(value: Any, large: bool, fractions: bool, others: Sequence[Any]) -> Iterator[Variant]:
    if _whole(value):
        if large:
            for n in LARGE:
                yield "int-large", n if value >= 0 else -n
            for base in dict.fromkeys(abs(v) for v in others if _whole(v) and abs(v) > 1):
                power = _power_past(base)
                if power is not None:
                    yield "power-large", power
        for n in PRIME_SQUARES:
            if n != value:
                yield "square", n
        if fractions:
            yield "int-fraction", value + 1 / 3
            yield "int-fraction", value + 0.5
    elif type(value) is float and math.isfinite(value):
        yield from _near(value)


def _items(items: list[Any], large: bool) -> Iterator[Variant]:
    if not items:
        return
    if large and all(_whole(x) for x in items):
        for n in LARGE:
            yield "int-large", [*items[:-1], n]
    if large and all(type(x) in (int, float) for x in items) and items[0]:
        yield "item-scale", [items[0] * ITEM_SCALE, *items[1:]]
    floats = [i for i, x in enumerate(items) if type(x) is float and math.isfinite(x)]
    if floats:
        at = floats[0]
        for kind, x in _near(items[at]):
            yield kind, [*items[:at], x, *items[at + 1 :]]


def variants(value: Any, reach: Reach, i: int, others: Sequence[Any]) -> Iterator[Variant]:
    """The precision variants of argument ``i`` (``others``: the seed's other arguments)."""
    large = i in reach.large
    if type(value) in (int, float):
        yield from _scalar(value, large, reach.fractions, others)
    elif type(value) in (list, tuple):
        for kind, items in _items(list(value), large):
            yield kind, type(value)(items)


def _numbers(seed: Args) -> list[int]:
    return [i for i, v in enumerate(seed) if type(v) in (int, float)]


def joint_variants(seed: Args, floats_at: Sequence[int], reach: Reach) -> Iterator[Variant]:
    """The precision variants of a seed with two or more number arguments (``floats_at``: the
    positions whose seeds hold floats)."""
    numbers = _numbers(seed)
    if len(numbers) < 2:
        return
    if all(_whole(seed[i]) and i in reach.large for i in numbers):
        scaled = list(seed)
        for i in numbers:
            scaled[i] = seed[i] * SCALE
        yield "scale-large", tuple(scaled)
        scaled[numbers[-1]] += 1
        yield "scale-large", tuple(scaled)
    for i in numbers:
        for j in numbers:
            if i != j and j in floats_at:
                near = list(seed)
                near[j] = seed[i] + NEAR * max(1.0, abs(seed[i]))
                yield "near-equal", tuple(near)
