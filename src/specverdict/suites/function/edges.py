"""Edge inputs (generator 2): boundary values, small and degenerate shapes, case and Unicode.

Random mutation rarely lands on the one value where a bug shows: the ``0`` of a missing zero
case, the list with a single item, the threshold that equals a distance, the all-negative list
that a maximum starting at 0 gets wrong, the accented capital that ASCII-only case folding
misses. This module builds those inputs on purpose, from each seed (base inputs and docstring
examples), one argument at a time:

* numbers: the boundary values of the reference (``boundary.py``), -1 to 10, the seeds' extremes
  and their neighbours, and values taken from the other arguments (their lengths, their items,
  the distances between their items);
* strings: the whole string in upper, lower, swapped and title case, reversed, a run of digits
  replaced by a boundary value of the same width, and a Unicode
  twin (ASCII letters with their accented counterparts, same case) where the reference folds
  case with ``str`` methods (and never looks at code points) and the prompt does not say ASCII;
* sequences: empty, each end item alone, reversed, sorted both ways, an item duplicated, the
  items negated or moved by one, only the negative ones, and an end item replaced by a boundary
  value (floats too, for a list of floats);
* dicts: empty, one entry.

The domain they must stay in is the seeds' domain (``profile.py``), *widened* (``widen``): a
number position also admits the values the reference's ``if`` tests compare an argument with
(``boundary.Boundaries.limits``, not below zero where every seed is at or above zero, nor below
one where the prompt says positive), and the items of a sequence whose seeds are never negative
may turn negative when the prompt speaks neither of positive or non-negative numbers nor of
digits, a sequence or string may have a single item (and none where some seed
has at most one) unless the prompt sets a least size ("at least two", "non-empty"), and letters of either case where the seeds show both cases. A task's contract
and, later, the reference itself (it must answer, in time, the same way twice) have the last
word.
"""

from __future__ import annotations

import contextlib
import copy
import itertools
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from specverdict.suites.function.boundary import Boundaries
from specverdict.suites.function.mutate import Mutator, key
from specverdict.suites.function.profile import Args, Domain, Profile, runs
from specverdict.suites.values import TagError

#: accented counterparts of ASCII letters (case and length kept by ``lower``/``upper``/``casefold``)
_ACCENTS = dict(zip("aeiounAEIOUN", "áéíöüñÁÉÍÖÜÑ", strict=True))
#: numbers from -1 to SMALL are always tried (where the domain admits them)
SMALL = 10
_CASE_METHODS = ("swapcase", "upper", "lower", "casefold", "isupper", "islower", "title")


def unicode_twin(text: str) -> str:
    return "".join(_ACCENTS.get(c, c) for c in text)


def widen(domain: Domain, bounds: Boundaries) -> Domain:
    """The seeds' domain with the boundary values, single items and both cases admitted."""
    wide = copy.deepcopy(domain)
    for profile in wide.args:
        _widen(profile, bounds)
    return wide


def _widen(p: Profile, b: Boundaries, item: bool = False) -> None:
    if p.lo is not None and p.hi is not None:
        # Negative numbers only where some seed is negative, or for the items of a sequence
        # when the prompt speaks neither of positive or non-negative numbers nor of digits.
        negatives = p.lo < 0 or (item and not b.nonnegative and not b.digits)
        if p.lo < 0:
            floor = p.lo
        elif negatives:
            floor = min(-abs(p.hi), -1)
        else:
            floor = min(p.lo, 1) if b.positive else min(p.lo, 0)
        extra = [v for v in b.limits if v >= floor]
        p.lo = min([p.lo, *extra] if not negatives else [floor, *extra])
        p.hi = max([p.hi, *extra])
    fixed = p.len_lo == p.len_hi and p.count > 1
    if p.len_lo is not None and p.len_hi is not None and not fixed and not b.sized:
        p.len_lo = 0 if p.len_lo <= 1 else 1
    if "lower" in p.alphabet and "upper" in p.alphabet:
        letters = p.alphabet["lower"] | {c.lower() for c in p.alphabet["upper"]}
        p.alphabet["lower"] = set(letters)
        p.alphabet["upper"] = {c.upper() for c in letters}
        for name in (p.run_lo, p.run_hi):
            pick = min if name is p.run_lo else max
            name["lower"] = name["upper"] = pick(name["lower"], name["upper"])
    if p.item is not None:
        _widen(p.item, b, item=True)
    for child in (p.key, p.value):
        if child is not None:
            _widen(child, b)


class WideMutator(Mutator):
    """Generator 2's mutation: generator 1's, with boundary values among the numbers tried and
    sequences also reversed, cut short, extended by repetition and negated."""

    def __init__(self, rng: random.Random, bounds: Boundaries) -> None:
        super().__init__(rng)
        self.bounds = bounds

    def _int(self, v: int, p: Profile) -> int:
        if self.bounds.ints and self.rng.random() < 0.3:
            lo = p.lo if p.lo is not None else v
            hi = p.hi if p.hi is not None else v
            options = [c for c in self.bounds.ints if lo <= c <= hi and c != v]
            if options:
                return self.rng.choice(options)
        return super()._int(v, p)

    def _seq(self, items: list[Any], p: Profile) -> list[Any]:
        r = self.rng
        op = r.choice(("reverse", "short", "repeat", "negate", "base", "base", "base"))
        if op == "reverse" and len(items) > 1:
            items.reverse()
        elif op == "short" and len(items) > 1:
            del items[r.randint(1, len(items) - 1) :]
        elif op == "repeat" and items:
            items += copy.deepcopy(items[: r.randint(1, len(items))])
        elif op == "negate" and items and all(type(x) in (int, float) for x in items):
            items[:] = [-x for x in items]
        else:
            return super()._seq(items, p)
        if p.ordered and p.count and len(items) > 1:
            with contextlib.suppress(TypeError):
                items.sort()
        return items


# -- edge values of one argument -----------------------------------------------------------
def _numbers(value: int | float, p: Profile, b: Boundaries, others: Sequence[Any]) -> list[Any]:
    t = type(value)
    base: list[Any] = [*b.ints, *range(-1, SMALL + 1)]
    if p.lo is not None and p.hi is not None:
        base += [p.lo, p.hi, p.lo - 1, p.hi + 1]
    for other in others:
        if type(other) in (list, tuple, str, dict, set):
            base += [len(other), len(other) - 1]
        if type(other) in (list, tuple):
            nums = [x for x in other if type(x) in (int, float)]
            base += nums[:8]
            base += [abs(x - y) for x, y in itertools.combinations(nums[:8], 2)]
        elif type(other) in (int, float):
            base += [other, other - 1, other + 1]
    if t is float:
        base += [*b.floats, float(round(value)), value / 2]
        return [float(x) for x in base]
    return [int(x) for x in base if type(x) is int or (type(x) is float and x.is_integer())]


def _digit_runs(text: str, b: Boundaries) -> list[str]:
    """``text`` with one run of digits replaced by a boundary value of the same width (a
    leading zero kept as padding where the run had one): the month 12 of a date."""
    out = []
    for cls, start, length in runs(text):
        if cls != "digit":
            continue
        padded = text[start] == "0"
        for c in b.ints:
            digits = str(c).zfill(length) if padded else str(c)
            if c >= 0 and len(digits) == length:
                out.append(text[:start] + digits + text[start + length :])
    return out


def _strings(text: str, b: Boundaries, case_aware: bool) -> list[str]:
    out = [text.swapcase(), text.upper(), text.lower(), text.title(), text[::-1]]
    out += _digit_runs(text, b)
    if case_aware and not b.ascii:
        out += [unicode_twin(text), unicode_twin(text.swapcase())]
    return out


def _sequences(items: list[Any], p: Profile, b: Boundaries) -> list[list[Any]]:
    out: list[list[Any]] = [[]]
    if items:
        out += [[items[0]], [items[-1]], items[::-1], items + items[:1], items[:1] + items]
        with contextlib.suppress(TypeError):
            out += [sorted(items), sorted(items, reverse=True)]
        nums = [x for x in items if type(x) in (int, float)]
        if len(nums) == len(items):
            out += [[-x for x in items], [x for x in items if x < 0], [x for x in items if x <= 0]]
            out += [[x - 1 for x in items], [x + 1 for x in items]]
            floats = type(items[0]) is float
            for c in (*b.floats, *b.ints) if floats else b.ints:
                out.append([type(x)(c) for x in items[:1]] + items[1:])
                out.append(items[:-1] + [type(x)(c) for x in items[-1:]])
        if p.item is not None and type(items[0]) in (list, tuple, str):  # nested: edit one item
            first = items[0]
            for inner in _edges(first, p.item, b, (), False):
                out.append([inner, *items[1:]])
    return out


def _edges(
    value: Any, p: Profile, b: Boundaries, others: Sequence[Any], case_aware: bool
) -> list[Any]:
    t = type(value)
    if t is bool:
        return [not value]
    if t in (int, float):
        return _numbers(value, p, b, others)
    if t is str:
        return _strings(value, b, case_aware)
    if t in (list, tuple):
        return [t(s) for s in _sequences(list(value), p, b)]
    if t is dict:
        first = list(value.items())[:1]
        return [{}, dict(first)]
    return []


def edge_inputs(
    seeds: Sequence[Args], domain: Domain, bounds: Boundaries, reference: str
) -> Iterator[tuple[str, Args]]:
    """Edge candidates, one argument changed at a time, grouped by ``(position, kind)`` (the
    kind: the edge's place in its argument's list of edges), in a fixed order."""
    # Unicode letters only where the reference folds case by Python's rules, not by code points
    case_aware = any(f".{m}(" in reference for m in _CASE_METHODS) and "ord(" not in reference
    for seed in seeds:
        for i, value in enumerate(seed):
            others = [v for j, v in enumerate(seed) if j != i]
            for k, edge in enumerate(_edges(value, domain.args[i], bounds, others, case_aware)):
                args = list(copy.deepcopy(seed))
                args[i] = edge
                yield f"{i}:{k:04d}", tuple(args)


def pick_edges(
    seeds: Sequence[Args],
    domain: Domain,
    bounds: Boundaries,
    reference: str,
    limit: int,
    rng: random.Random,
    admits: Any,
) -> list[Args]:
    """Up to ``limit`` admitted, distinct edge inputs, taken round-robin over the groups (each
    group shuffled by ``rng``) so that every argument and kind of edge gets its share."""
    found = edge_inputs(seeds, domain, bounds, reference)
    return round_robin(found, {key(s) for s in seeds}, admits, rng, limit)


#: what a corner or variant input's key may raise (a type the tags cannot name, a value out of
#: range, an unorderable mix): such an input is left out of ``round_robin``'s pick
UNKEYABLE: tuple[type[Exception], ...] = (TagError, ValueError, OverflowError, TypeError)


def round_robin(
    found: Iterable[tuple[str, Args]],
    seen: set[str],
    admits: Callable[[Args], bool],
    rng: random.Random,
    limit: int,
    unkeyable: tuple[type[Exception], ...] = (TagError, ValueError, OverflowError),
) -> list[Args]:
    """Up to ``limit`` of the ``(group, input)`` pairs ``found``: admitted, distinct and not
    in ``seen`` (keys, added to as inputs are kept), one group after the other in turn (the
    groups' order and each group shuffled by ``rng``), so that every group gets its share. An
    input whose key raises one of ``unkeyable`` is left out."""
    groups: dict[str, list[Args]] = {}
    for group, args in found:
        try:
            text = key(args)
        except unkeyable:
            continue
        if text in seen or not admits(args):
            continue
        seen.add(text)
        groups.setdefault(group, []).append(args)
    order = sorted(groups)
    rng.shuffle(order)
    for name in order:
        rng.shuffle(groups[name])
    out: list[Args] = []
    for row in itertools.zip_longest(*(groups[g] for g in order)):
        for args in row:
            if args is not None and len(out) < limit:
                out.append(args)
    return out
