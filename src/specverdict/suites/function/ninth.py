"""Generator 9's own inputs: least values, sentinels passed, letters without case, repeated
characters and special spans (051).

Hand-written answers that agree with the reference on every input generator 8 makes still part
from it on inputs of a few more kinds, none a value of one task:

* **least** (``least``): a whole-number argument at the least values its prompt admits below
  the seeds, 0, 1 and 2 (1 and 2 where it says positive): an empty selection reduced without a
  start value, a division loop that never ends for 0, a digit loop that collects nothing;
* **sentinels passed** (``list-shift``): every item of a list of whole numbers raised by
  ``SHIFT`` (order, differences and parity kept), so that every value and every sum is past
  the ``10 ** 9``, ``1e9`` and ``2 ** 31 - 1`` a search's start or a "not found" stands for;
* **letters without case** (``caseless``): the first letter of a string replaced by a letter
  that has no case (``"中"``: ``c == c.upper()`` holds, ``c.isupper()`` does not), only where
  the reference asks a character's case (``isupper``, ``islower``) and never whether it is a
  letter (``isalpha``, ``ascii_letters``, a range of ``ord``): a letter past ASCII is one to
  some readings and not to others, a letter without case is upper case to none;
* **repeated characters** (``repeat-char``): the first digit of a string, or its first letter
  where it has no digit, four times in a row (a set of characters counts it once);
* **long sorted lists** (``sorted-long``, grown): per list-of-numbers argument, the longest
  seed's items sorted and continued ascending to ``LONG`` items and descending to ``DOWN``: a
  sorted list is the worst case of an answer that compares every pair until it finds one out
  of order (generator 7's and 8's grown lists are in the seeds' order and part at once), of
  insertion sorts and of repeated ``min``. The descending list is shorter: a right answer
  that tries every rotation of it with slices (HumanEval/109) copies ``n ** 2`` items in
  built-ins, 268 million at ``LONG``;
* **special spans** (``span``, several arguments at once): every pair of whole numbers ``(a,
  b)`` with ``a <= b`` in the seeds made ``(a, a + n)`` for ``n`` a Fermat pseudoprime or a
  prime's square, the first pair's ``a`` for all of them (intervals that meet on the whole
  span: its length is the special number).

Each is a candidate only, admitted as generator 8 admits its own (``eight``; the long sorted
lists as generator 8's grown ones, by ``budget.free`` and within ``budget.BUDGET``): by the task's
domain with the changed arguments free upwards (``least``: down to its least value instead),
its contract and the reference's counted work on it within ``special.BUDGET``; at most ``MOST``
per task, on top of generator 8's, in turn over their groups.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from specverdict.suites.function.profile import Args, char_class

#: the most of generator 9's own inputs per task, on top of generator 8's
MOST = 16
#: what ``list-shift`` adds to every item: past 10 ** 9 and 2 ** 32
SHIFT = 10**10
#: the least values ``least`` tries, where the prompt does not say positive (else from 1)
LEAST = (0, 1, 2)
#: a letter without case (``"中".upper() == "中"``, ``not "中".isupper()``)
CASELESS = "中"
#: how many times ``repeat-char`` writes the repeated character
REPEATS = 4
#: the length of a long sorted list (an answer comparing every pair makes 134 million
#: comparisons, the reference's sort none it counts)
LONG = 2**14
#: the length of a long list sorted descending (16 million items copied by a right answer
#: trying every rotation)
DOWN = 2**12
#: the most long sorted lists kept, within ``MOST``
LONGS = 2
#: the lengths ``span`` gives: Fermat pseudoprimes to base 2 and a prime's square
SPANS = (341, 561, 49)

KINDS = ("least", "list-shift", "caseless", "repeat-char", "span", "sorted-long")

#: a letter test by code point or by range: ``97 <= ord(c)``, ``ord(c) <= 122``, ``"a" <= c``
_LETTER_RANGE = re.compile(r"[<>]=?\s*ord\(|ord\([^()]*\)\s*[<>]|['\"][a-zA-Z]['\"]\s*<=")


@dataclass(frozen=True, slots=True)
class Reading:
    """What generator 9 reads of a task's reference: whether it asks a character's case and
    never whether it is a letter (``cased``: ``caseless`` is tried)."""

    cased: bool = False


def read(reference: str) -> Reading:
    """Generator 9's reading of ``reference`` (``Reading``)."""
    asks_case = ".isupper()" in reference or ".islower()" in reference
    return Reading(cased=asks_case and not asks_letter(reference))


def asks_letter(reference: str) -> bool:
    """Whether ``reference`` asks whether a character is a letter (``isalpha``,
    ``ascii_letters``, a range of ``ord`` or of letters)."""
    return (
        ".isalpha()" in reference
        or "ascii_" in reference
        or _LETTER_RANGE.search(reference) is not None
    )


def _whole(value: Any) -> bool:
    return type(value) is int


def _pair(value: Any) -> bool:
    return (
        type(value) in (list, tuple)
        and len(value) == 2
        and all(_whole(v) for v in value)
        and value[0] <= value[1]
    )


def least(seeds: Sequence[Args], i: int, positive: bool) -> list[int]:
    """The least values argument ``i`` takes below every seed (none where a seed is negative
    or not a whole number)."""
    values = [s[i] for s in seeds]
    if not values or not all(_whole(v) and v >= 0 for v in values):
        return []
    low = min(values)
    return [v for v in LEAST if v < low and (v > 0 or not positive)]


def _shifted(items: list[Any]) -> list[int] | None:
    if not items or not all(_whole(v) for v in items):
        return None
    return [v + SHIFT for v in items]


def _caseless(text: str) -> str | None:
    at = next((j for j, c in enumerate(text) if char_class(c) in ("lower", "upper")), None)
    return None if at is None else text[:at] + CASELESS + text[at + 1 :]


def _repeated(text: str) -> str | None:
    for cls in (("digit",), ("lower", "upper")):
        at = next((j for j, c in enumerate(text) if char_class(c) in cls), None)
        if at is not None:
            return text[: at + 1] + text[at] * (REPEATS - 1) + text[at + 1 :]
    return None


def variants(value: Any, reading: Reading) -> Iterator[tuple[str, Any]]:
    """The one-argument variants of ``value`` but ``least``, each ``(kind, new value)``."""
    t = type(value)
    if t in (list, tuple):
        shifted = _shifted(list(value))
        if shifted is not None:
            yield "list-shift", t(shifted)
    elif t is str:
        for kind, new in (
            ("caseless", _caseless(value) if reading.cased else None),
            ("repeat-char", _repeated(value)),
        ):
            if new is not None and new != value:
                yield kind, new


def _spans(seed: Args) -> Iterator[Args]:
    pairs = [j for j, v in enumerate(seed) if _pair(v)]
    if not pairs:
        return
    start = seed[pairs[0]][0]
    for n in SPANS:
        args = list(seed)
        for j in pairs:
            args[j] = type(seed[j])((start, start + n))
        yield tuple(args)


def candidates(
    seeds: Sequence[Args], reading: Reading, positive: bool
) -> Iterator[tuple[str, Args, tuple[int, ...]]]:
    """Generator 9's candidates in a fixed order, each with its group ``"<argument>:<kind>"``
    (``*`` for several arguments at once) and the arguments it changes. ``least`` puts each of
    its values in the seeds in turn; the other kinds go into every seed. ``positive``: the
    prompt says positive (``least`` starts at 1)."""
    arity = len(seeds[0])
    for i in range(arity):
        for k, v in enumerate(least(seeds, i, positive)):
            changed = list(seeds[k % len(seeds)])
            changed[i] = v
            yield f"{i}:least", tuple(changed), (i,)
        for seed in seeds:
            for kind, new in variants(seed[i], reading):
                changed = list(seed)
                changed[i] = new
                yield f"{i}:{kind}", tuple(changed), (i,)
    for seed in seeds:
        for args in _spans(seed):
            at = tuple(j for j, (a, b) in enumerate(zip(seed, args, strict=True)) if a != b)
            if at:
                yield "*:span", args, at


def _numbers(value: Any) -> bool:
    return (
        type(value) in (list, tuple)
        and len(value) >= 2
        and all(type(v) in (int, float) for v in value)
        and len({type(v) for v in value}) == 1
    )


def sorted_long(items: Sequence[Any], n: int = LONG) -> tuple[list[Any], list[Any]]:
    """``items`` sorted and continued to ``n`` items, each round ``max - min + 1`` above the
    last (ascending, every value of the seed kept in order), and the same descending."""
    base = sorted(items)
    step = base[-1] - base[0] + 1
    rounds = -(-n // len(base))
    up = [v + k * step for k in range(rounds) for v in base][:n]
    return up, up[::-1]


def longs(seeds: Sequence[Args]) -> Iterator[tuple[int, Args]]:
    """Per list-of-numbers argument, the longest seed's list sorted long, ascending to ``LONG``
    items then descending to ``DOWN``, with the argument's position."""
    arity = len(seeds[0])
    for i in range(arity):
        found = [s for s in seeds if _numbers(s[i])]
        if not found:
            continue
        seed = max(found, key=lambda s: len(s[i]))
        up, _ = sorted_long(seed[i], LONG)
        _, down = sorted_long(seed[i], DOWN)
        for grown in (up, down):
            value = type(seed[i])(grown)
            yield i, tuple(value if j == i else v for j, v in enumerate(seed))
