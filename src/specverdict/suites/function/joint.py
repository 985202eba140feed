"""Joint inputs (generator 4): several sequence arguments changed together.

* ``shared-item``: an item of one sequence argument added at the end of another (the first,
  the last and the largest item), so that an intersection, a lookup or a merge holds one more
  common value, and that value's place in a ``set`` is not its place in order;
* ``all-equal``: every sequence argument made of one of its own items repeated, at once: the
  operators of an expression all one operator and the operands all one number
  (``2 ** 2 ** 2 ** 2``), where associativity and precedence show.

Generator 3's corners change one argument at a time, and the tie kinds of one sequence leave
the others as they are; these are the cases that only show when both change.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator
from typing import Any

from specverdict.suites.function.mutate import key
from specverdict.suites.function.profile import Args

KINDS = ("shared-item", "all-equal")
#: how many distinct items of one sequence argument are tried as its only value
MAX_FILLS = 4

Variant = tuple[str, Args]


def _sequences(seed: Args) -> list[int]:
    return [i for i, v in enumerate(seed) if type(v) in (list, tuple)]


def _shared(seed: Args, positions: list[int]) -> Iterator[Variant]:
    for i, j in itertools.permutations(positions, 2):
        source, target = list(seed[i]), seed[j]
        picks = source[:1] + source[-1:]
        with contextlib.suppress(TypeError, ValueError):
            picks.append(max(source))
        present = {key((x,)) for x in target}
        for item in dict.fromkeys(picks):
            if key((item,)) not in present:
                args = list(seed)
                args[j] = type(target)([*target, item])
                yield "shared-item", tuple(args)


def _fills(items: list[Any]) -> list[Any]:
    """The items a sequence argument is filled with: up to ``MAX_FILLS`` distinct ones, or, for
    numbers, the smallest of magnitude 2 or more (``2 ** 2 ** 2`` answers at once where
    ``5 ** 5 ** 5`` runs out of time, and ``1 ** 1 ** 1`` hides the order)."""
    out: dict[str, Any] = {}
    for x in items:
        out.setdefault(key((x,)), x)
    found = list(out.values())
    if found and all(type(x) in (int, float) for x in found):
        sizable = [x for x in found if abs(x) >= 2]
        return [min(sizable or found, key=abs)]
    return found[:MAX_FILLS]


def _all_equal(seed: Args, positions: list[int]) -> Iterator[Variant]:
    choices = [_fills(list(seed[i])) for i in positions]
    if any(not c for c in choices):
        return
    for picks in itertools.product(*choices):
        args = list(seed)
        for i, pick in zip(positions, picks, strict=True):
            args[i] = type(seed[i])([pick] * len(seed[i]))
        yield "all-equal", tuple(args)


def joint_variants(seed: Args) -> Iterator[Variant]:
    """The joint variants of a seed with two or more sequence arguments."""
    positions = _sequences(seed)
    if len(positions) < 2:
        return
    yield from _shared(seed, positions)
    yield from _all_equal(seed, positions)
