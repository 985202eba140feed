"""Magnitude inputs (generator 4): numbers at the sizes where number-handling mistakes show.

* ``zero``: a number argument made 0 (a loop from ``min(a, b)`` down, a digit loop that gives
  ``""`` for 0);
* ``float-exponent``: floats that Python prints in exponent notation (``1.5e-05``, and the
  seed divided by ``SCALE``), for code that reads a float's digits from ``str``;
* ``power``: whole numbers that are exact powers of another whole-number argument, or of 2, 3
  and 10 where there is none (``243 == 3 ** 5``, where ``int(math.log(243, 3))`` is 4);
* ``negative-large``: the first or the last item of a list of numbers made as negative as the
  largest item is positive (``-99`` has three characters, not two).

Each is a candidate only; generator 4's domain (``stated.widen_by_statement``) admits 0 where
the docstring does not say positive, tiny floats where the seeds are positive floats, and
negative numbers down to minus the largest where some seed is negative.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from specverdict.suites.function.profile import Profile

KINDS = ("zero", "float-exponent", "power", "negative-large")
#: bases of the powers tried besides the other whole-number arguments
BASES = (2, 3, 10)
#: the largest power tried
MAX_POWER = 10**9
#: floats are divided by this to reach the sizes Python prints in exponent notation
SCALE = 100_000

Variant = tuple[str, Any]


def _ints(values: Sequence[Any]) -> list[int]:
    return [v for v in values if type(v) is int]


def _powers(value: int, p: Profile, others: Sequence[Any]) -> Iterator[Variant]:
    hi = min(p.hi if p.hi is not None else value, MAX_POWER)
    given = [abs(v) for v in _ints(others) if abs(v) > 1]
    for base in dict.fromkeys(given or BASES):
        if base < 2:
            continue
        power = base * base
        while power <= hi:
            if power != value:
                yield "power", power
            power *= base


def _scalar(value: int | float, p: Profile, others: Sequence[Any]) -> Iterator[Variant]:
    if value != 0:
        yield "zero", type(value)(0)
    if type(value) is float:
        yield "float-exponent", 1.5e-05
        if value != 0:
            yield "float-exponent", value / SCALE
    elif type(value) is int:
        yield from _powers(value, p, others)


def _items(items: list[Any]) -> Iterator[Variant]:
    numbers = [x for x in items if type(x) in (int, float)]
    if not items or len(numbers) != len(items):
        return
    if all(type(x) is float for x in items):
        yield "float-exponent", [1.5e-05, *items[1:]]
        yield "float-exponent", [x / SCALE for x in items]
    low = -max(abs(x) for x in items)
    if low < 0:
        yield "negative-large", [type(items[0])(low), *items[1:]]
        yield "negative-large", [*items[:-1], type(items[-1])(low)]


def variants(value: Any, p: Profile, others: Sequence[Any]) -> Iterator[Variant]:
    """The magnitude variants of one argument (``others``: the seed's other arguments)."""
    t = type(value)
    if t in (int, float):
        yield from _scalar(value, p, others)
    elif t in (list, tuple):
        for kind, items in _items(list(value)):
            yield kind, t(items)
