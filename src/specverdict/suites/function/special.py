"""Generator 8's own inputs: per type, values known to part right answers from plausible ones.

Hand-written answers that agree with the reference on every input generators 1 to 7 make still
part from it on particular values, the same few for every task of a kind (050):

* **whole numbers** (``INT_KINDS``): squares and products of primes above 5 (trial division by
  2, 3 and 5 only, or stopping below the square root, calls them prime); Fermat pseudoprimes
  and Carmichael numbers (a test ``pow(2, n - 1, n) == 1``), strong pseudoprimes to the first
  bases (Miller-Rabin to two, three or four bases); large primes (work linear in a number's
  size: a trial division up to ``n``, a loop over every integer between two bounds); numbers
  past CPython's small-integer cache (``is`` between equal integers above 256) and powers of
  two and their neighbours (packed or fixed-width arithmetic); exact powers of another
  whole-number argument whose float logarithm is not exact (``int(math.log(x, base))`` one
  short). One argument at a time, for a
  whole-number argument, the last item of a list of them, and the length of a string of
  letters and digits (a string length that is a prime's square);
* **floats**: halves (``round`` rounds them to even, ``int(x + 0.5)`` up), the largest float
  below a half (``0.49999999999999994 + 0.5 == 1.0``), values whose decimal digits a float
  does not hold (``2.675``, ``0.1``), one past float precision; and **number strings** the
  same, where a string argument is a number written out in the seeds' shape
  (``"0.49999999999999994"`` for ``"15.7"``), whole-number strings from the whole-number kinds,
  and fractions whose float product with their inverse is not 1 (``"3/11"``, ``"11/3"``);
* **strings**: a final newline or tab after a string without spaces (a regular expression's
  ``$`` matches before a newline, ``strip`` takes both off; where spaces separate words, either
  is whitespace to some readings and a character to others), a blank string where an empty one is admitted (``not s.strip()``
  takes it for empty), an empty searched-for string where the reference only looks for it in
  other strings (``in``, ``startswith``: every string holds the empty one, on any reading), a
  first letter whose case mapping is not one letter (``"ß".upper() == "SS"``, ``"İ".lower()``
  is two code points, ``"ı".upper() == "I"``);
* **lists**: empty, the first item three times (three equal values, three zeros for sums),
  the last item two and three times in a row at the end (a loop or window that stops one short
  of the last pair or triple);
* **several arguments at once**: every whole-number argument times ``SCALE`` (relations kept,
  values past the small-integer cache: ``x + y is z``), every number 0 with a list's first
  item repeated (a duplicate with a threshold of 0), every string argument empty (and an
  empty item in every list of strings: does the empty string hold the empty one?), and two
  fractions each other's inverse.

Each is a candidate only: ``amplify`` admits it by the task's domain with the changed
argument's values free upwards (never below the seeds where they are not negative, never past
a bound the docstring states), its contract, the reference's counted work on it (``budget``:
at most ``BUDGET`` line events, so that a right answer has room) and, past ``2 ** 16``, only
where none of the reference's work on that argument hides in built-ins (``growth.hidden``).
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from specverdict.suites.function.profile import Args, char_class

#: the reference's counted line events on a special input, at most (``budget``)
BUDGET = 2**17
#: the most special inputs per task; the ground truth keeps them on top of the others
MOST = 64
#: the powers of a base tried (``_powers``)
POWERS = 3
#: the most candidates of one group admitted, and of a task counted (in the order they would
#: be taken: twice as many as are kept leaves room for those the count drops)
PER_GROUP = 12
CANDIDATES = 2 * MOST
#: past this magnitude a value needs the reference's work on it counted (``growth.hidden``)
COUNTED = 2**16
#: the factor of ``scale-joint``
SCALE = 1000

#: squares and products of primes, the smallest first (4, 9, 25: below 7)
SQUARES = (4, 9, 25, 49, 121, 169, 289, 361, 529, 841, 961, 1369)
PRODUCTS = (77, 91, 143, 187, 221, 247, 323, 437, 667, 899, 1147)
#: Fermat pseudoprimes to base 2 (341, 645, 1387 are not Carmichael numbers), Carmichael
#: numbers, and strong pseudoprimes to base 2 (2047), to bases 2 and 3 (1373653), to 2, 3
#: and 5 (25326001), to 2, 3, 5 and 7 (3215031751)
PSEUDOPRIMES = (
    341,
    561,
    1373653,
    2047,
    25326001,
    645,
    1105,
    3215031751,
    1387,
    1729,
    2465,
    2821,
    6601,
    8911,
)
#: primes, from past the range a loop up to them finishes in (10 ** 9 + 7) down
PRIMES = (1000000007, 2147483647, 1000003, 65537, 257, 97)
#: past the small-integer cache (-5..256), past float precision (``3 ** 35``: odd, past
#: ``2 ** 53``; a run of nines a float rounds up to the next power of ten), powers of two and
#: their neighbours
WIDE = (
    257,
    1000,
    2**63,
    3**35,
    10**17 - 1,
    2**31,
    10**6,
    1001,
    256,
    2**53 + 1,
    2**32,
    255,
    1024,
    2**64,
)
INT_KINDS = {
    "int-square": SQUARES,
    "int-product": PRODUCTS,
    "int-pseudoprime": PSEUDOPRIMES,
    "int-prime": PRIMES,
    "int-wide": WIDE,
}
#: lengths a string of letters and digits is repeated to
LENGTHS = (4, 9, 25, 49, 121, 169, 341, 561)
FLOATS = (0.5, 1.5, 2.5, 0.49999999999999994, 2.675, 0.1, 0.3, 1e16, 1e-07)
#: number strings, kept where they have a seed's shape (``shape``)
DECIMALS = (
    "0.5",
    "1.5",
    "2.5",
    "0.49999999999999994",
    "2.49999999999999999",
    "1.4999999999999998",
    "0.49999999999999999",
    "2.675",
    "0.1",
)
#: fractions whose float product with their inverse is not 1: (3 / 11) * (11 / 3) < 1
FRACTIONS = (("3", "11"), ("11", "3"), ("7", "17"))
#: letters whose case mapping is not one letter of the other case
CASE_LETTERS = {"lower": ("ß", "ı"), "upper": ("İ",)}

KINDS = (
    *INT_KINDS,
    "int-power",
    "length",
    "float",
    "number-string",
    "newline-end",
    "blank",
    "searched-empty",
    "case-unicode",
    "list-empty",
    "list-equal",
    "list-run-end",
    "list-last-twice",
    "scale-joint",
    "zero-tie",
    "all-empty",
    "inverse",
)

Candidate = tuple[str, Args]
_DIGIT_RUN = re.compile(r"[0-9]+")
_FRACTION = re.compile(r"^([0-9]+)/([0-9]+)$")


@dataclass(frozen=True, slots=True)
class Reading:
    """What the special inputs read of a task: whether its strings may end in a newline
    (``padded``: nothing strips them, ``scale.Reading.stripped``, the docstring speaks neither
    of whitespace nor of space-separated words, and the reference does not split at any
    whitespace), be blank (``blank``: no least
    size; ``searched``: the arguments that are a searched-for string), get letters past ASCII
    (``letters``); whether its prompt says positive (``positive``: no 0 below positive seeds);
    the searched-for strings the reference only looks for in others (``filters``,
    ``scale.membership``), which may be empty."""

    padded: bool = True
    blank: bool = True
    searched: frozenset[int] = frozenset()
    letters: bool = True
    positive: bool = False
    filters: frozenset[int] = frozenset()


def _whole(value: Any) -> bool:
    return type(value) is int


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def shape(text: str) -> str:
    """A string's shape: every run of digits one ``9`` (``"-15.5"`` -> ``"-9.9"``)."""
    return _DIGIT_RUN.sub("9", text)


def _signed(values: Sequence[int | float], negative: bool) -> list[int | float]:
    return [w for v in values for w in ((v, -v) if negative and v else (v,))]


def _powers(others: Sequence[Any]) -> list[int]:
    """Powers of the other whole-number arguments (2 to 36) whose float logarithm to that base
    is not the exponent (``math.log(243, 3) == 4.999999999999999``), the first ``POWERS`` of
    each up to ``2 ** 64``."""
    out: list[int] = []
    for base in dict.fromkeys(abs(v) for v in others if _whole(v) and 2 <= abs(v) <= 36):
        found = [base**k for k in range(2, 65) if base**k <= 2**64 and math.log(base**k, base) != k]
        out += found[:POWERS]
    return out


def _ints(value: int, others: Sequence[Any]) -> Iterator[tuple[str, int]]:
    negative = value < 0
    for kind, pool in INT_KINDS.items():
        for v in _signed(pool, negative):
            if v != value:
                yield kind, int(v)
    for v in _powers(others):
        if v != abs(value):
            yield "int-power", v


def _floats(value: float) -> Iterator[tuple[str, float]]:
    for v in _signed(FLOATS, value < 0):
        if v != value:
            yield "float", float(v)


def _number_strings(text: str) -> Iterator[tuple[str, str]]:
    """Number strings of ``text``'s shape: decimals, whole numbers from the whole-number kinds,
    fractions."""
    form = shape(text)
    negative = text.startswith("-")
    decimals = [f"-{d}" if negative else d for d in DECIMALS]
    wholes = [f"-{v}" if negative else str(v) for pool in INT_KINDS.values() for v in pool]
    fractions = [f"{a}/{b}" for a, b in FRACTIONS]
    for found in (*decimals, *wholes, *fractions):
        if shape(found) == form and found != text:
            yield "number-string", found


def _token(text: str) -> bool:
    return bool(text) and all(char_class(c) != "other" for c in text)


def _lengths(text: str) -> Iterator[tuple[str, str]]:
    if _token(text) and not _number(text):
        for n in LENGTHS:
            if n != len(text):
                yield "length", (text * (n // len(text) + 1))[:n]


def _case_letters(text: str) -> Iterator[tuple[str, str]]:
    at = next((i for i, c in enumerate(text) if char_class(c) in ("lower", "upper")), None)
    if at is None:
        return
    for letter in CASE_LETTERS[char_class(text[at])]:
        yield "case-unicode", text[:at] + letter + text[at + 1 :]


def _paddable(text: str) -> bool:
    return bool(text) and text.strip() == text and not _number(text)


def _string(text: str, i: int, reading: Reading) -> Iterator[tuple[str, str]]:
    if _number(text) or _FRACTION.match(text):
        yield from _number_strings(text)
        return
    if reading.padded and _paddable(text) and " " not in text:
        yield "newline-end", text + "\n"
        yield "newline-end", text + "\t"
    if reading.blank and i not in reading.searched and text:
        yield "blank", " "
    if i in reading.filters and text:
        yield "searched-empty", ""
    yield from _lengths(text)
    if reading.letters:
        yield from _case_letters(text)


def _list(items: list[Any], others: Sequence[Any]) -> Iterator[tuple[str, list[Any]]]:
    yield "list-empty", []
    if not items:
        return
    numbers = all(type(x) in (int, float) for x in items)
    fills = [items[0], *([type(items[0])(0)] if numbers and items[0] != 0 else [])]
    for fill in fills:
        yield "list-equal", [copy.deepcopy(fill) for _ in range(3)]
    yield "list-run-end", [*items, copy.deepcopy(items[-1]), copy.deepcopy(items[-1])]
    yield "list-last-twice", [*items, copy.deepcopy(items[-1])]
    last = items[-1]
    if all(_whole(x) for x in items):
        for kind, v in _ints(last, others):
            yield kind, [*items[:-1], v]
    elif all(type(x) is float for x in items):
        for kind, f in _floats(last):
            yield kind, [*items[:-1], f]


def variants(value: Any, i: int, others: Sequence[Any], reading: Reading) -> Iterator[Any]:
    """The special variants of argument ``i``'s ``value``, each ``(kind, new value)``."""
    t = type(value)
    if t is int:
        yield from _ints(value, others)
    elif t is float:
        yield from _floats(value)
    elif t is str:
        yield from _string(value, i, reading)
    elif t in (list, tuple):
        for kind, items in _list(list(value), others):
            yield kind, t(items)


def _strings(value: Any) -> bool:
    return type(value) in (list, tuple) and all(type(v) is str for v in value)


def _joint(seed: Args, reading: Reading) -> Iterator[tuple[str, Args]]:
    wholes = [i for i, v in enumerate(seed) if _whole(v)]
    if len(wholes) >= 2 and any(seed[i] for i in wholes):
        args = list(seed)
        for i in wholes:
            args[i] = seed[i] * SCALE
        yield "scale-joint", tuple(args)
    numbers = [i for i, v in enumerate(seed) if type(v) in (int, float)]
    lists = [i for i, v in enumerate(seed) if type(v) in (list, tuple) and v]
    if numbers and lists:
        args = list(seed)
        for i in numbers:
            args[i] = type(seed[i])(0)
        for i in lists:
            args[i] = type(seed[i])([*seed[i], copy.deepcopy(seed[i][0])])
        yield "zero-tie", tuple(args)
    texts = [i for i, v in enumerate(seed) if type(v) is str]
    lists = [i for i, v in enumerate(seed) if _strings(v)]
    searched = any(i in reading.searched and i not in reading.filters for i in texts)
    if texts and len(texts) + len(lists) >= 2 and reading.blank and not searched:
        empty = [
            "" if i in texts else type(v)([*v, ""]) if i in lists else v for i, v in enumerate(seed)
        ]
        if tuple(empty) != seed:
            yield "all-empty", tuple(empty)
    fractions = [i for i in texts if _FRACTION.match(seed[i])]
    if len(fractions) >= 2:
        first, second = fractions[:2]
        for a, b in FRACTIONS:
            args = list(seed)
            args[first], args[second] = f"{a}/{b}", f"{b}/{a}"
            yield "inverse", tuple(args)


def candidates(
    seeds: Sequence[Args], reading: Reading
) -> Iterator[tuple[str, Args, tuple[int, ...]]]:
    """Generator 8's candidates in a fixed order, each with its group ``"<argument>:<kind>"``
    (``*`` for several arguments at once) and the arguments it changes. The values of a pool
    (``SPREAD``) take the seeds in turn, the ``k``-th value the ``k``-th seed (cycling): each
    value is tried once, in a context of its own; the other kinds are tried in every seed."""
    arity = len(seeds[0])
    for i in range(arity):
        found: dict[str, list[list[Any]]] = {}
        for n, seed in enumerate(seeds):
            others = [v for j, v in enumerate(seed) if j != i]
            for kind, new in variants(seed[i], i, others, reading):
                found.setdefault(kind, [[] for _ in seeds])[n].append(new)
        for kind, per_seed in found.items():
            longest = max(len(values) for values in per_seed)
            for k in range(longest):
                for n, values in enumerate(per_seed):
                    if k >= len(values) or (kind in SPREAD and k % len(seeds) != n):
                        continue
                    changed = list(seeds[n])
                    changed[i] = values[k]
                    yield f"{i}:{kind}", tuple(changed), (i,)
    for seed in seeds:
        for kind, args in _joint(seed, reading):
            at = tuple(j for j, (a, b) in enumerate(zip(seed, args, strict=True)) if a != b)
            yield f"*:{kind}", args, at


#: the kinds whose values take the seeds in turn rather than each going into every seed
SPREAD = frozenset({*INT_KINDS, "float", "number-string", "length"})


def magnitude(value: Any) -> float:
    """The largest magnitude of a number in ``value`` (a number, a number string, a list)."""
    if type(value) in (int, float):
        try:
            return float(abs(value))
        except OverflowError:  # a whole number past the largest float (generator 10's 2 ** 1010)
            return math.inf
    if type(value) is str:
        return max((float(m.group()) for m in _DIGIT_RUN.finditer(value)), default=0.0)
    if type(value) in (list, tuple):
        return max((magnitude(v) for v in value), default=0.0)
    return 0.0
