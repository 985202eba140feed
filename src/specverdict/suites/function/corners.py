"""Corner inputs (generator 3): ties, both sides of a bound, degenerate and sign-extreme values.

Generator 2's edges (``edges.py``) were shaped by the project's own mutants: a comparison
operator flipped, a constant moved by one, an ``if`` removed. Bugs written by hand fall into
kinds those mutants do not model, and each kind shows on a kind of input that neither random
mutation nor generator 2's edges reliably make:

* **order-dependent ties** (a sort that is not stable, the first against the last of equal
  maxima, a dictionary that keeps the last duplicate): a sequence's largest or smallest item
  duplicated at its first and at its last position, every item equal, two items of equal key
  (equal length, equal first field, equal magnitude) swapped, the sequence rotated, a string's
  first or last character repeated;
* **both sides of a bound** (inclusive against exclusive, 0- against 1-based, a window that
  stops one short): a sequence or string cut or grown to each length the reference compares
  ``len(...)`` with, and one more and one less; an item in the middle of a sequence set to each
  number the reference compares with, and a run of three items ``c - 1, c, c + 1``;
* **degenerate and sign-extreme values** (empty input, one item, zero, all-negative lists, the
  maximum that starts at 0): a sequence of zeros, a zero at either end, every item strictly
  negative, a single zero or negative item; every number argument zero, negated or equal to
  another at once;
* **strings at their ends** (first or last character skipped, one-character and empty strings):
  the empty string, the first and last one or two characters alone, the string without its
  first or last character, and each character the reference looks for (``c in "aeiou"``,
  ``c == " "``) or another argument holds, put at the first and at the last position; another
  string argument itself, and at either end of this one;
* **int against float**, only where the seeds at a position show both: a whole-number float for
  an int and the int for a whole-number float.

Every corner is a candidate only: it is kept if generator 2's widened domain (``edges.widen``)
admits it and the task's contract holds; later, the reference must answer it the same way twice
(``groundtruth.py``). Corners are grouped by ``(argument, kind)`` and taken round-robin, like
generator 2's edges, so that each kind gets its share.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import itertools
import random
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from specverdict.suites import pyast
from specverdict.suites.function.boundary import Boundaries
from specverdict.suites.function.edges import UNKEYABLE, round_robin
from specverdict.suites.function.mutate import key
from specverdict.suites.function.profile import Args, Domain, Profile, char_class

#: the longest length a sequence or string is grown to, to reach a compared length
MAX_LENGTH = 12
#: the number kinds below name the corners a generated input was made as (for tests and reading)
KINDS = (
    "tie-extreme",
    "tie-equal",
    "tie-swap",
    "tie-rotate",
    "tie-length",
    "length-trim",
    "length-bound",
    "empty",
    "item-bound",
    "zeros",
    "negative",
    "single",
    "string-empty",
    "string-short",
    "string-trim",
    "string-ends",
    "string-other",
    "string-repeat",
    "all-numbers",
    "int-float",
)

Corner = tuple[str, Any]


@dataclass(frozen=True, slots=True)
class Clues:
    """What the corners are built from besides the seeds: the reference's boundary values, the
    lengths it compares ``len(...)`` with, and whether the docstring speaks of empty input."""

    bounds: Boundaries
    lengths: tuple[int, ...] = ()
    empty: bool = False


_EMPTY = re.compile(r"\bempty\b", re.IGNORECASE)
_NEGATIVE = re.compile(r"\bnegative\b", re.IGNORECASE)
#: words of a docstring that may make the seeds' common length parity a rule of the task
_PARITY = re.compile(r"\b(?:even|odd)\b", re.IGNORECASE)
#: words of a docstring that make the seeds' "no two items equal" a rule of the task
_UNIQUE = re.compile(r"unique|distinct|different|duplicat|repeat|same", re.IGNORECASE)


def docstring(prompt: str, entry_point: str) -> str:
    """The docstring of ``entry_point`` in ``prompt`` ("" when there is none)."""
    try:
        tree = pyast.parse(prompt)
    except SyntaxError:
        return ""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == entry_point:
            return ast.get_docstring(node) or ""
    return ""


def widen_by_docstring(domain: Domain, bounds: Boundaries, doc: str) -> Domain:
    """Generator 3's domain: generator 2's (``edges.widen``), and

    * where the docstring speaks of empty input ("if the list is empty") without asking for a
      non-empty one, sequences and strings of any length from zero;
    * where it speaks of negative numbers and not of positive or non-negative ones, number
      arguments down to minus the largest magnitude seen;
    * a run of letters in a string as short as one letter, unless the docstring sets a least
      size (a word cut to its first letter is still a word);
    * sequences with equal items (ties) even where no seed has any, unless the docstring speaks
      of unique, distinct or different items, of duplicates, repeats or the same value;
    * sequences of either length parity even where every seed's length is odd (or even),
      unless the docstring speaks of even or odd.
    """
    wide = copy.deepcopy(domain)
    empty = _EMPTY.search(doc) is not None and not bounds.sized
    negative = _NEGATIVE.search(doc) is not None and not bounds.nonnegative
    for p in wide.args:
        fixed = p.len_lo == p.len_hi and p.count > 1
        if empty and p.len_lo is not None and not fixed:
            p.len_lo = 0
        if negative and p.lo is not None and p.hi is not None and p.lo >= 0:
            p.lo = -max(abs(p.hi), 1)
        _relax(p, bounds, _UNIQUE.search(doc) is None, _PARITY.search(doc) is None)
    return wide


def _relax(p: Profile, bounds: Boundaries, ties: bool, parity: bool) -> None:
    if ties:
        p.distinct = False
    if parity and p.parity in (0, 1):
        p.parity = None
    if not bounds.sized:
        for cls in ("lower", "upper"):
            if cls in p.run_lo:
                p.run_lo[cls] = 1
    for child in (p.item, p.key, p.value):
        if child is not None:
            _relax(child, bounds, ties, parity)


def compared_lengths(reference: str) -> tuple[int, ...]:
    """The numbers the reference compares a ``len(...)`` with (``len(s) < 3``, ``len(l) == 0``),
    with their neighbours, not below zero."""
    try:
        tree = pyast.parse(reference)
    except SyntaxError:
        return ()
    found: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        for a, b in itertools.pairwise(sides):
            for length, const in ((a, b), (b, a)):
                is_len = (
                    isinstance(length, ast.Call)
                    and isinstance(length.func, ast.Name)
                    and length.func.id == "len"
                )
                if (
                    is_len
                    and isinstance(const, ast.Constant)
                    and type(const.value) is int
                    and 0 <= const.value <= MAX_LENGTH
                ):
                    found.update(
                        v for v in (const.value - 1, const.value, const.value + 1) if v >= 0
                    )
    return tuple(sorted(found))


def _number(x: Any) -> bool:
    return type(x) in (int, float)


def _resize(items: Any, length: int) -> Any:
    """``items`` cut to ``length``, or grown to it by repeating its items from the start."""
    if length <= len(items):
        return items[:length]
    if not items:
        return None
    reps = items * (length // len(items) + 1)
    return reps[:length]


def _ties(items: list[Any]) -> Iterator[Corner]:
    with contextlib.suppress(TypeError, ValueError):
        hi, lo = max(items), min(items)
        for extreme in (hi, lo):
            yield "tie-extreme", [extreme, *items]
            yield "tie-extreme", [*items, extreme]
            yield "tie-extreme", [extreme, *items, extreme]
            if len(items) > 1:
                yield "tie-extreme", [extreme, *items[1:]]
                yield "tie-extreme", [*items[:-1], extreme]
    if len(items) > 1:
        yield "tie-equal", [items[0]] * len(items)
        yield "tie-equal", [items[-1]] * len(items)
        yield "tie-rotate", items[1:] + items[:1]
        yield "tie-rotate", items[-1:] + items[:-1]
    yield "tie-equal", [items[0], items[0]]
    yield from _equal_keys(items)
    texts = [x for x in items if type(x) is str]
    if len(texts) == len(items):  # a string of the same length as the longest, the shortest
        for s in (max(texts, key=len), min(texts, key=len)):
            twin = s[::-1]
            if twin != s:
                yield "tie-length", [twin, *items]
                yield "tie-length", [*items, twin]


def _tie_key(x: Any) -> Any:
    """A key by which two different items plausibly tie: a string's length, a pair's first
    field, a number's magnitude."""
    if type(x) is str:
        return len(x)
    if type(x) in (list, tuple) and x:
        return key((x[0],))
    if _number(x):
        return abs(x)
    return None


def _equal_keys(items: list[Any]) -> Iterator[Corner]:
    """Two different items of equal key swapped (each pair once); for numbers, an item's
    opposite put next to it."""
    for i, j in itertools.combinations(range(len(items)), 2):
        a, b = items[i], items[j]
        ka = _tie_key(a)
        if ka is not None and ka == _tie_key(b) and key((a,)) != key((b,)):
            swapped = list(items)
            swapped[i], swapped[j] = b, a
            yield "tie-swap", swapped
    for i, x in enumerate(items[:4]):
        if _number(x) and x != 0:
            yield "tie-swap", [*items[: i + 1], -x, *items[i + 1 :]]
            yield "tie-swap", [*items[:i], -x, *items[i:]]


def _sequence(items: list[Any], p: Profile, clues: Clues) -> Iterator[Corner]:
    b, lengths = clues.bounds, clues.lengths
    yield "empty", []
    if items:
        yield from _ties(items)
    for n in lengths:
        resized = _resize(items, n)
        if resized is not None:
            yield "length-bound", resized
    if len(items) > 1:
        yield "length-trim", items[1:]
        yield "length-trim", items[:-1]
    nums = bool(items) and all(_number(x) for x in items)
    if nums:
        kind = type(items[0])
        mid = len(items) // 2
        for c in b.ints:
            if len(items) > 2:
                yield "item-bound", [*items[:mid], kind(c), *items[mid + 1 :]]
            yield "item-bound", [kind(c - 1), kind(c), kind(c + 1), *items[3:]]
        zero = kind(0)
        yield "zeros", [zero] * len(items)
        yield "zeros", [zero, *items]
        yield "zeros", [*items, zero]
        yield "zeros", [*items[:mid], zero, *items[mid:]]
        yield "negative", [-abs(x) - 1 for x in items]
        yield "negative", [-abs(x) for x in items]
        yield "negative", [-abs(x) - 1 for x in items][::-1]
        yield "single", [zero]
        yield "single", [-abs(items[0]) - 1]
        yield "single", [max(items)]
        yield "single", [min(items)]
    elif items and p.item is not None:
        if all(type(x) is str for x in items):
            yield "string-empty", ["", *items]
            yield "string-empty", [*items, ""]
            yield "single", [items[-1]]
        for inner_kind, inner in _value(items[0], p.item, clues, ()):
            yield inner_kind, [inner, *items[1:]]
        if len(items) > 1:
            for inner_kind, inner in _value(items[-1], p.item, clues, ()):
                yield inner_kind, [*items[:-1], inner]


def _marks(b: Boundaries, others: Sequence[Any]) -> list[str]:
    """Characters a string's first and last position are tried with: those the reference looks
    for, and one-character string arguments."""
    out = [s for s in b.strings if len(s) == 1]
    out += [o for o in others if type(o) is str and len(o) == 1]
    return sorted(set(out))


def _string(text: str, p: Profile, clues: Clues, others: Sequence[Any]) -> Iterator[Corner]:
    b, lengths = clues.bounds, clues.lengths
    if clues.empty or any(v == "" for v in p.pool):  # where the task speaks of it or has it
        yield "string-empty", ""
    # Cuts, repeats and lengths only for a token (letters and digits, no separator): cutting a
    # sentence or a format leaves a shape the task does not speak of (a lone "I", a trailing
    # space, a number run into a word).
    token = bool(text) and all(char_class(c) != "other" for c in text)
    if token:
        cuts = [("string-short", text[:1]), ("string-short", text[-1:])]
        cuts += [("string-short", text[:2]), ("string-short", text[-2:])]
        cuts += [("string-trim", text[1:]), ("string-trim", text[:-1])]
        if len(text) > 3:  # both ends off, and more than one character left
            cuts += [("string-trim", text[1:-1])]
        cuts += [("length-bound", _resize(text, n)) for n in lengths if n > 0]
        yield from ((kind, cut) for kind, cut in cuts if cut)  # never empty: that is above
    if text and char_class(text[0]) in ("lower", "upper"):
        yield "string-repeat", text[0] + text
    if text and char_class(text[-1]) in ("lower", "upper"):
        yield "string-repeat", text + text[-1]
    for c in _marks(b, others):
        if char_class(c) == "other":
            continue  # spaces and separators are never moved to an end
        if token:
            yield "string-ends", c + c
        if text and char_class(text[0]) != "other":
            yield "string-ends", c + text[1:]
            yield "string-ends", c + text
        if text and char_class(text[-1]) != "other":
            yield "string-ends", text[:-1] + c
            yield "string-ends", text + c
        if len(text) > 1 and char_class(text[0]) != "other" and char_class(text[-1]) != "other":
            yield "string-ends", c + text[1:-1] + c
    for other in others:
        if type(other) is str and other and other != text:
            yield "string-other", other
            yield "string-other", other + text
            yield "string-other", text + other
            yield "string-other", other + other


def _int_float(value: int | float, p: Profile) -> Iterator[Corner]:
    kinds = {type(v) for v in p.pool if _number(v)}
    if kinds != {int, float}:
        return
    if isinstance(value, float):
        if value.is_integer():
            yield "int-float", int(value)
    else:
        yield "int-float", float(value)


def _value(value: Any, p: Profile, clues: Clues, others: Sequence[Any]) -> Iterator[Corner]:
    t = type(value)
    if t in (int, float):
        yield from _int_float(value, p)
    elif t is str:
        yield from _string(value, p, clues, others)
    elif t in (list, tuple):
        for kind, items in _sequence(list(value), p, clues):
            numbers = p.item is not None and items and all(_number(x) for x in items)
            yield kind, t([_like(x, p.item) for x in items] if numbers and p.item else items)
    elif t is dict and len(value) > 1:
        first = next(iter(value.values()))
        yield "tie-equal", dict.fromkeys(value, copy.deepcopy(first))


def _like(x: Any, item: Profile) -> Any:
    """A number made here keeps the type its position holds (an int list stays ints)."""
    kinds = {type(v) for v in item.pool if _number(v)}
    if kinds == {int} and type(x) is float and x.is_integer():
        return int(x)
    if kinds == {float} and type(x) is int:
        return float(x)
    return x


def _joint(seed: Args) -> Iterator[Corner]:
    """Corners of every number argument at once: all zero, all negated, all equal (to the first
    or to the last, where that value fits every position's type)."""
    numbers = [i for i, v in enumerate(seed) if _number(v)]
    if len(numbers) < 2:
        return
    values = [seed[i] for i in numbers]
    variants = [[type(v)(0) for v in values], [-v for v in values]]
    for pick in (values[0], values[-1]):
        if all(type(v) is type(pick) for v in values) or float(pick).is_integer():
            variants.append([type(v)(pick) for v in values])
    for new in variants:
        args = list(seed)
        for i, v in zip(numbers, new, strict=True):
            args[i] = v
        yield "all-numbers", tuple(args)


def corner_inputs(
    seeds: Sequence[Args], domain: Domain, clues: Clues
) -> Iterator[tuple[str, Args]]:
    """Corner candidates in a fixed order, each with its group ``"<argument>:<kind>"`` (the
    argument ``*`` for corners of several arguments at once)."""
    for seed in seeds:
        for i, value in enumerate(seed):
            others = [v for j, v in enumerate(seed) if j != i]
            for kind, corner in _value(value, domain.args[i], clues, others):
                args = list(copy.deepcopy(seed))
                args[i] = corner
                yield f"{i}:{kind}", tuple(args)
        for kind, args in _joint(seed):
            yield f"*:{kind}", args


def read_clues(reference: str, entry_point: str, prompt: str, bounds: Boundaries) -> Clues:
    """The clues of a task (``Clues``), read from its reference and its prompt."""
    doc = docstring(prompt or reference, entry_point)
    empty = _EMPTY.search(doc) is not None and not bounds.sized
    return Clues(bounds, compared_lengths(reference), empty)


def pick_corners(
    seeds: Sequence[Args],
    domain: Domain,
    found: Clues,
    limit: int,
    rng: random.Random,
    admits: Callable[[Args], bool],
    exclude: set[str],
) -> list[Args]:
    """Up to ``limit`` admitted corner inputs, none of whose keys is in ``exclude``, taken
    round-robin over the groups (each group shuffled by ``rng``)."""
    inputs = corner_inputs(seeds, domain, found)
    return round_robin(inputs, set(exclude), admits, rng, limit, UNKEYABLE)
