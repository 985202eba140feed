"""Generator 8's grown inputs besides generator 7's: the seed the reference works on most, grown,
long lists whose extreme item comes last, and wide rows.

Generator 7 grows, per argument, the seed with the largest value there (``budget.candidates``).
On the fifth held-out set that choice hid two kinds of wrong answers (050):

* ``worked``: the largest seed is often one the reference leaves early (a string that is not
  "happy" at its third character, a list whose answer is its first item), so the grown input
  tests a prefix and an answer that recurses once per item, or is quadratic, never gets deep.
  Generator 8 also grows, per argument, the seed on which the reference's counted work at
  ``WORKED`` items is the greatest, where that is more than on generator 7's seed at that size
  (its larger probe, ``budget.PROBES``): past the recursion limit, and far enough for an
  answer quadratic in Python code to run for seconds, without the cost of a second input of
  65,536 items;
* ``extreme-last``: a list of numbers grown to ``EXTREME`` items with its least item only at
  the end, and a list of strings with its longest only there: an answer that packs a value and
  an index into one key (``value * 1000 + index``), stops one short of the end, keeps the first
  extreme it meets or compares every pair until it finds the longest parts from the reference
  only there. Not where every seed list is sorted: the item at the end would break the order;
* ``inner``: a list of lists with every inner list grown to ``INNER`` items (rows wider than
  a packed key ``row * 100 - column`` allows).

Each is admitted by the domain with the grown argument freed as generator 7 frees it
(``budget.free``) and kept only if the reference's counted work on it is within
``budget.BUDGET``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from specverdict.suites.function import budget
from specverdict.suites.function.profile import Args

#: the size a worked seed is grown to (generator 7's larger probe)
WORKED = budget.PROBES[1]
#: the seeds of one argument whose work is counted, at most
WORKED_SEEDS = 6
#: the size of an extreme-last list
EXTREME = budget.PROBES[1]
#: the length inner lists are grown to
INNER = 1024
#: the most of these inputs per task; the ground truth keeps them on top of the others
MOST = 6

Maker = Callable[[int], Args]


def worked(seeds: Sequence[Args], his: Sequence[float | None]) -> Iterator[tuple[int, Maker]]:
    """Per argument, each seed (up to ``WORKED_SEEDS``) whose value there is growable, as a
    function of the size, with the argument's position; generator 7's own seed for the argument
    (the largest value, ``budget.candidates``) is left out."""
    chosen = {at: make for _, at, make in budget.candidates(seeds, his) if len(at) == 1}
    arity = len(seeds[0])
    for i in range(arity):
        hi = his[i] if i < len(his) else None
        found = [s for s in seeds if budget.growable(s[i], hi)]
        if len(found) < 2 or (i,) not in chosen:
            continue
        largest = max(found, key=lambda s: budget.size_of(s[i]))
        for seed in [s for s in found if s is not largest][:WORKED_SEEDS]:
            yield i, _grower(seed, i)


def _grower(seed: Args, i: int) -> Maker:
    def make(n: int) -> Args:
        return tuple(budget.grow(v, n) if j == i else v for j, v in enumerate(seed))

    return make


def _key(value: Any) -> Callable[[Any], Any] | None:
    """How a list's items are ordered for ``extreme_last``: numbers by value, strings by
    length; None for other lists."""
    if type(value) not in (list, tuple) or not value:
        return None
    if all(type(v) in (int, float) for v in value):
        return lambda v: v
    if all(type(v) is str for v in value):
        return len
    return None


def extreme_last(value: Any, n: int) -> Any:
    """``value`` (a list of numbers, or of strings, with two or more distinct values or
    lengths) grown to ``n`` items with its least number, or its longest string, only at the end
    (None for other lists): the one place a search that stops one short, packs an index into a
    key or compares every pair before it finds the longest meets it."""
    order = _key(value)
    if order is None:
        return None
    items = list(value)
    keys = [order(v) for v in items]
    if len(set(keys)) < 2:
        return None
    last = min(keys) if order is not len else max(keys)
    rest = [v for v, k in zip(items, keys, strict=True) if k != last]
    return type(value)([*budget.grow(rest, n - 1), items[keys.index(last)]])


def inner(value: Any, n: int) -> Any:
    """``value`` (a list of non-empty lists) with every inner list grown to ``n`` items (None
    for other values): rows past the width a packed ``row * 100 + column`` key assumes."""
    if type(value) is not list or not value or not all(type(v) is list and v for v in value):
        return None
    return [budget.grow(row, n) for row in value]


def extremes(seeds: Sequence[Args], ordered: Sequence[bool]) -> Iterator[tuple[int, Args]]:
    """Per argument, the extreme-last list of the seed with the most items there (not where
    every seed list is sorted: ``ordered``), and every seed's list of lists with its inner lists
    grown (``inner``), with the argument's position."""
    arity = len(seeds[0])
    for i in range(arity):
        found = [s for s in seeds if _key(s[i]) is not None]
        if found and not (i < len(ordered) and ordered[i]):
            seed = max(found, key=lambda s: len(s[i]))
            grown = extreme_last(seed[i], EXTREME)
            if grown is not None:
                yield i, tuple(grown if j == i else v for j, v in enumerate(seed))
        rows = [s for s in seeds if inner(s[i], 1) is not None]
        if rows:
            seed = max(rows, key=lambda s: len(s[i]))
            yield i, tuple(inner(v, INNER) if j == i else v for j, v in enumerate(seed))
