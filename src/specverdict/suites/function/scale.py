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
* ``space-end``: a string argument (or a list's first and last string item) with a space after
  it, unless the docstring speaks of stripping or of leading or trailing characters, the
  reference strips its input itself, or the string is a number (``float`` reads it): an answer
  that strips its input first reads another string. Only the end: a leading space makes
  references that read a string's first characters (``S[0:2] == "I "``) answer for another
  string than the one the task means;
* ``string-empty``: a string argument made empty, unless the docstring sets a least size
  (``Boundaries.sized``), another string argument is empty already, or the parameter is a
  searched-for string (its name speaks of a substring, pattern, prefix or suffix): how often an
  empty string is found is 0 or one more than the length by reading;
* ``large-one`` (several arguments at once): where two or more arguments are whole numbers that
  may be large (``precision.Reach.large``), one of them 1 and the others ``10 ** 9``: a float
  sum or square root of the others swallows the 1 (``math.hypot(1, 10 ** 9) == 10 ** 9``);
* ``sign``: where the docstring does not speak of positive or non-negative numbers
  (``Boundaries.positive``), a list of whole numbers shifted so that its second least distinct
  item, or its largest, is 0 (the rest negative): a ``not x`` test for "unset" takes 0 for
  missing; and a whole-number argument negated where the reference itself tests it against a
  bound of at most 2 (``if n < 2``, ``guarded``): there the reference answers small and
  negative numbers on purpose, elsewhere its answer for them is an accident (``range(n)``
  empty, ``bin(n)`` with a sign) that right answers need not share.

They are admitted by the domain with the changed argument's range, order and parity freed,
and its length unless every seed has the same length (``free``); the task's contract and the
reference still have the last word.
"""

from __future__ import annotations

import ast
import copy
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from specverdict.suites import pyast
from specverdict.suites.function.boundary import Boundaries
from specverdict.suites.function.profile import Args, Domain, Profile

KINDS = ("scale", "space-end", "string-empty", "sign", "large-one")
#: the value of the other arguments of ``large-one``
LARGE = 10**9
_SEARCHED = re.compile(r"sub|pattern|prefix|suffix|needle", re.IGNORECASE)
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


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _paddable(text: str) -> bool:
    return bool(text) and text.strip() == text and not _number(text)


def _padded(value: Any) -> Iterator[Any]:
    if type(value) is str and _paddable(value):
        yield f"{value} "
    elif type(value) is list and value and all(type(v) is str for v in value):
        for i in sorted({0, len(value) - 1}):
            if _paddable(value[i]):
                yield [*value[:i], f"{value[i]} ", *value[i + 1 :]]


def _signed(value: Any, guarded: bool) -> Iterator[Any]:
    if _whole(value) and value > 0 and guarded:
        yield -value
    elif type(value) is list and value and all(_whole(v) for v in value):
        distinct = sorted(set(value))
        if len(distinct) >= 2:
            for zero in (distinct[1], distinct[-1]):
                yield [v - zero for v in value]


@dataclass(frozen=True, slots=True)
class Reading:
    """What generator 6 reads of a task: per argument, the upper bound the docstring states
    (``his``) and whether the reference tests it against a small bound (``guarded``); whether
    the docstring or the reference strips strings (``stripped``); ``bounds``."""

    his: tuple[float | None, ...]
    guarded: frozenset[int]
    stripped: bool
    bounds: Boundaries
    searched: frozenset[int] = frozenset()
    large: frozenset[int] = frozenset()


def read(
    reference: str,
    entry_point: str,
    params: Sequence[str],
    doc: str,
    his: Sequence[float | None],
    bounds: Boundaries,
    large: frozenset[int] = frozenset(),
) -> Reading:
    """Generator 6's ``Reading`` of a task; ``large`` are the arguments that may be large."""
    small = guarded(reference, entry_point)
    return Reading(
        tuple(his),
        frozenset(i for i, name in enumerate(params) if name in small),
        stripped(reference, doc),
        bounds,
        searched(params),
        large,
    )


def stripped(reference: str, doc: str) -> bool:
    """Whether the docstring speaks of stripping, leading or trailing characters, or the
    reference strips its strings itself."""
    return bool(_STRIPPED.search(doc)) or ".strip(" in reference


def searched(params: Sequence[str]) -> frozenset[int]:
    """The parameters named for a searched-for string (a substring, pattern, prefix, suffix)."""
    return frozenset(i for i, name in enumerate(params) if _SEARCHED.search(name))


def membership(reference: str, entry_point: str) -> frozenset[str]:
    """The parameters of ``entry_point`` the reference only looks for in other strings: every
    use is the left side of ``in`` or ``not in``, or the argument of ``startswith`` or
    ``endswith``. For those, the empty string's answer is Python's own (every string holds it),
    not a reading of how often or where an empty string occurs."""
    try:
        tree = pyast.parse(reference)
    except SyntaxError:
        return frozenset()
    entry = next(
        (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == entry_point),
        None,
    )
    if entry is None:
        return frozenset()
    params = {a.arg for a in (*entry.args.posonlyargs, *entry.args.args)}
    allowed: set[int] = set()
    for node in ast.walk(entry):
        if isinstance(node, ast.Compare) and all(
            isinstance(op, ast.In | ast.NotIn) for op in node.ops
        ):
            allowed.add(id(node.left))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("startswith", "endswith")
            and len(node.args) == 1
        ):
            allowed.add(id(node.args[0]))
    used: dict[str, bool] = {}
    for node in ast.walk(entry):
        if isinstance(node, ast.Name) and node.id in params:
            used[node.id] = used.get(node.id, True) and id(node) in allowed
    return frozenset(name for name, only in used.items() if only)


def _small(node: ast.expr) -> bool:
    if not isinstance(node, ast.Constant):
        return False
    value = node.value
    return type(value) in (int, float) and float(value) <= 2  # type: ignore[arg-type]


def guarded(reference: str, entry_point: str) -> frozenset[str]:
    """The parameters of ``entry_point`` an ``if`` of the reference compares with a constant of
    at most 2 from below (``n < 2``, ``n <= 1``, ``0 > n``)."""
    try:
        tree = pyast.parse(reference)
    except SyntaxError:
        return frozenset()
    entry = next(
        (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == entry_point),
        None,
    )
    if entry is None:
        return frozenset()
    params = {a.arg for a in (*entry.args.posonlyargs, *entry.args.args)}
    found: set[str] = set()
    for node in ast.walk(entry):
        if not isinstance(node, (ast.If, ast.IfExp)) or not isinstance(node.test, ast.Compare):
            continue
        test = node.test
        if len(test.ops) != 1:
            continue
        left, op, right = test.left, test.ops[0], test.comparators[0]
        if isinstance(op, (ast.Gt, ast.GtE)):
            left, right = right, left
        elif not isinstance(op, (ast.Lt, ast.LtE)):
            continue
        if isinstance(left, ast.Name) and left.id in params and _small(right):
            found.add(left.id)
    return frozenset(found)


def variants(value: Any, i: int, reading: Reading) -> Iterator[Variant]:
    """Generator 6's kinds of argument ``i``'s ``value`` (module docstring)."""
    for new in _scaled(value, reading.his[i]):
        yield "scale", new
    if not reading.stripped:
        for new in _padded(value):
            yield "space-end", new
    if type(value) is str and value and not reading.bounds.sized and i not in reading.searched:
        yield "string-empty", ""
    if not reading.bounds.positive:
        for new in _signed(value, i in reading.guarded):
            yield "sign", new


def candidates(seeds: Sequence[Args], reading: Reading) -> Iterator[tuple[str, Args]]:
    """Generator 6's candidates in a fixed order, each with its group ``"<argument>:<kind>"``."""
    for seed in seeds:
        empty = [j for j, v in enumerate(seed) if type(v) is str and not v]
        for i, value in enumerate(seed):
            for kind, new in variants(value, i, reading):
                if kind == "string-empty" and empty:
                    continue
                changed = list(seed)
                changed[i] = new
                yield f"{i}:{kind}", tuple(changed)
        whole = [i for i, v in enumerate(seed) if _whole(v) and i in reading.large]
        if len(whole) >= 2:
            for one in whole:
                changed = list(seed)
                for i in whole:
                    changed[i] = 1 if i == one else LARGE
                yield "*:large-one", tuple(changed)


def _free(p: Profile) -> None:
    p.lo = p.hi = None
    if p.len_lo is not None and (p.len_lo != p.len_hi or p.count <= 1):
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
