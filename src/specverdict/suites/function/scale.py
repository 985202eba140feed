"""Generator 6's own inputs: sizes, string ends, empty strings and signs the others never try.

Hand-written answers that agree with the reference on every small input still part from it on
inputs of four kinds no earlier generator makes (047):

* ``scale``: a number argument grown geometrically to ``NUMBERS`` (whole numbers only, never
  past a bound the docstring states), a list cycled and a string with spaces repeated to
  ``LENGTH`` items, past Python's default recursion limit of 1000 frames. A recursion one call
  per item raises there, and an exponential or cubic loop runs over its time limit (the
  candidate gets ``max(1 s, 4 x the reference's time)``): the reference answers a linear or
  quadratic walk over 1100 items in milliseconds, and the ground truth drops an input it runs
  long on (``plus_cap_s``) or answers with too long an output;
* ``space-end``: a string argument (or a list's first and last string item) with a space before
  and after it, unless the docstring speaks of stripping or of leading or trailing characters:
  an answer that strips its input first reads another string;
* ``string-empty``: a string argument made empty, unless the docstring sets a least size
  (``Boundaries.sized``);
* ``sign``: where the docstring does not speak of positive or non-negative numbers
  (``Boundaries.positive``), a whole-number argument negated, and a list of whole numbers
  shifted so that its second least distinct item, or its largest, is 0 (the rest negative): a
  ``not x`` test for "unset" takes 0 for missing, and ``math.sqrt`` raises on a negative.

They are admitted by the domain with the changed argument's length, range and sign freed
(``free``); the task's contract and the reference still have the last word.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Iterator, Sequence
from typing import Any

from specverdict.suites.function.boundary import Boundaries
from specverdict.suites.function.profile import Args, Domain, Profile

KINDS = ("scale", "space-end", "string-empty", "sign")
#: the length sequences and strings are grown to (past the default recursion limit)
LENGTH = 1100
#: the values a whole-number argument is grown to, in order
NUMBERS = (30, 120, 1100)
#: the longest tagged input a scale input may have
MAX_CHARS = 40_000
_STRIPPED = re.compile(r"strip|leading|trailing|surround", re.IGNORECASE)

Variant = tuple[str, Any]


def _whole(value: Any) -> bool:
    return type(value) is int


def _scaled(value: Any, hi: float | None) -> Iterator[Any]:
    if _whole(value) and value >= 0:
        for n in NUMBERS:
            if n > value and (hi is None or n <= hi):
                yield n
    elif type(value) in (list, tuple) and value and len(value) < LENGTH:
        grown = [copy.deepcopy(value[i % len(value)]) for i in range(LENGTH)]
        yield type(value)(grown)
    elif type(value) is str and " " in value.strip() and len(value) < LENGTH:
        yield " ".join([value] * (LENGTH // (len(value) + 1) + 1))


def _padded(value: Any) -> Iterator[Any]:
    if type(value) is str and value and value.strip() == value:
        yield f" {value} "
    elif type(value) is list and value and all(type(v) is str for v in value):
        for i in sorted({0, len(value) - 1}):
            if value[i] and value[i].strip() == value[i]:
                yield [*value[:i], f" {value[i]} ", *value[i + 1 :]]


def _signed(value: Any) -> Iterator[Any]:
    if _whole(value) and value > 0:
        yield -value
    elif type(value) is list and value and all(_whole(v) for v in value):
        distinct = sorted(set(value))
        if len(distinct) >= 2:
            for zero in (distinct[1], distinct[-1]):
                yield [v - zero for v in value]


def variants(value: Any, hi: float | None, doc: str, bounds: Boundaries) -> Iterator[Variant]:
    """Generator 6's kinds of one argument's ``value`` (module docstring); ``hi`` is the upper
    bound the docstring states for it, ``doc`` the docstring."""
    for new in _scaled(value, hi):
        yield "scale", new
    if not _STRIPPED.search(doc):
        for new in _padded(value):
            yield "space-end", new
    if type(value) is str and value and not bounds.sized:
        yield "string-empty", ""
    if not bounds.positive:
        for new in _signed(value):
            yield "sign", new


def candidates(
    seeds: Sequence[Args], his: Sequence[float | None], doc: str, bounds: Boundaries
) -> Iterator[tuple[str, Args]]:
    """Generator 6's candidates in a fixed order, each with its group ``"<argument>:<kind>"``."""
    for seed in seeds:
        for i, value in enumerate(seed):
            for kind, new in variants(value, his[i], doc, bounds):
                changed = list(seed)
                changed[i] = new
                yield f"{i}:{kind}", tuple(changed)


def _free(p: Profile) -> None:
    p.lo = p.hi = None
    if p.len_lo is not None:
        p.len_lo = 0
        p.len_hi = math.inf  # type: ignore[assignment]
    p.ordered = False
    p.parity = None
    if p.item is not None:
        p.item.lo = p.item.hi = None
        if p.item.len_lo is not None:
            p.item.len_lo = 0


def free(domain: Domain, i: int) -> Domain:
    """``domain`` with argument ``i``'s length, range, order and parity freed (its other rules,
    and every other argument's, kept)."""
    wide = copy.deepcopy(domain)
    _free(wide.args[i])
    return wide
