"""Generator 13's own inputs: list items with more digits than the recursion limit, and pairs of
consecutive Fibonacci numbers (056).

Hand-written answers that agree with the reference on every input generator 12 makes still part
from it on inputs of two more kinds:

* **long list items** (``item-long``): the first item of a list of whole numbers made
  ``LONG_ITEM``, a number of 1,200 digits, all odd (negated where the seeds hold negative
  numbers): an answer that recurses once per digit of an item passes the recursion limit
  (generator 10's numbers of a thousand digits are single arguments; generator 12 raises list
  items by 10 ** 400, a few hundred digits);
* **consecutive Fibonacci numbers** (``fib-pair``, two arguments at once): every pair of
  whole-number arguments next to each other, where both seeds' values are positive, made
  ``(F(n + 1), F(n))`` with ``n = FIB``: Euclid's algorithm takes ``n`` steps on them, the
  most for numbers of their size, so an answer that recurses once per step passes the
  recursion limit where the reference loops.

Each is a candidate admitted as generator 9's own (``eight``, within the same ceiling; as
generator 10's huge numbers, without generator 7's forecast: only the count tells); at most
``MOST`` per task, on top of generator 12's.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from specverdict.suites.function.profile import Args

#: the most of generator 13's own inputs per task, on top of generator 12's
MOST = 8
#: a whole number of 1,200 digits, all odd (a repunit)
LONG_ITEM = int("1" * 1200)
#: the index of the smaller Fibonacci number of a pair: Euclid's algorithm takes this many steps
FIB = 1500

KINDS = ("item-long", "fib-pair")


def fibonacci_pair(n: int = FIB) -> tuple[int, int]:
    """``(F(n + 1), F(n))``."""
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return b, a


def _whole(value: Any) -> bool:
    return type(value) is int


def _wholes(value: Any) -> bool:
    return type(value) in (list, tuple) and bool(value) and all(_whole(v) for v in value)


def candidates(seeds: Sequence[Args]) -> Iterator[tuple[str, Args, tuple[int, ...]]]:
    """Generator 13's candidates in a fixed order, each with its group ``"<argument>:<kind>"``
    (``*`` for several arguments at once) and the arguments it changes."""
    arity = len(seeds[0])
    for i in range(arity):
        lists = [s[i] for s in seeds if _wholes(s[i])]
        if not lists:
            continue
        negative = any(x < 0 for v in lists for x in v)
        for seed in seeds:
            if not _wholes(seed[i]):
                continue
            items = list(seed[i])
            for value in (LONG_ITEM, -LONG_ITEM) if negative else (LONG_ITEM,):
                changed = list(seed)
                changed[i] = type(seed[i])([value, *items[1:]])
                yield f"{i}:item-long", tuple(changed), (i,)
    big, small = fibonacci_pair()
    for i in range(arity - 1):
        if all(_whole(s[i]) and _whole(s[i + 1]) and s[i] > 0 and s[i + 1] > 0 for s in seeds):
            for pair in ((big, small), (small, big)):
                changed = list(seeds[0])
                changed[i], changed[i + 1] = pair
                yield "*:fib-pair", tuple(changed), (i, i + 1)
