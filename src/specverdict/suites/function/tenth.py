"""Generator 10's own inputs: whole numbers with a thousand digits, lists past 64-bit and float
precision, and long tokens (052).

Hand-written answers that agree with the reference on every input generator 9 makes still part
from it on inputs of a few more kinds, none a value of one task:

* **huge whole numbers** (``huge``): a whole-number argument made ``2 ** 1010`` (a thousand
  prime factors, a thousand binary digits) or ``10 ** 1000 - 1`` (a thousand decimal digits),
  negated where the seeds are negative: an answer that recurses once per digit or per prime
  factor passes the recursion limit, one that goes through a float overflows or rounds;
* **lists past 64-bit and float precision** (``list-wide``): every item of a list of whole
  numbers lowered by ``2 ** 64`` (below the ``-sys.maxsize - 1`` a running maximum starts
  from; only where the seeds hold negative numbers) or raised by ``2 ** 53 + 2`` (odd items
  past float precision: a sum or product taken through floats rounds);
* **long tokens** (``long-token``, grown): the first word of a string of space-separated words
  repeated to ``TOKEN`` characters, and every string of a list of strings repeated to
  ``TOKEN`` characters: an answer that recurses once per character of a word, or of a string
  it concatenates, passes the recursion limit where generator 7's grown strings repeat short
  words.

The first two are candidates admitted as generator 9's own (``eight``), without generator 7's
forecast for whole numbers past the seeds (the reference's work on a number's digits grows with
their count, not with the number, and the count in the sandbox is exact); the long tokens as
generator 8's grown inputs (``budget.free``, within ``budget.BUDGET``). At most ``MOST`` per
task, on top of generator 9's.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from specverdict.suites.function.profile import Args

#: the most of generator 10's own inputs per task, on top of generator 9's
MOST = 8
#: whole numbers with a thousand binary or decimal digits
HUGE = (2**1010, 10**1000 - 1)
#: what ``list-wide`` adds to every item: past float precision (odd items stay odd)
FLOAT_SHIFT = 2**53 + 2
#: what ``list-wide`` takes from every item where the seeds hold negative numbers
LOW_SHIFT = -(2**64)
#: the length of a long token
TOKEN = 3000
#: the most long-token inputs kept, within ``MOST``
TOKENS = 2

KINDS = ("huge", "list-wide", "long-token")


def _whole(value: Any) -> bool:
    return type(value) is int


def _wholes(value: Any) -> bool:
    return type(value) in (list, tuple) and bool(value) and all(_whole(v) for v in value)


def candidates(seeds: Sequence[Args]) -> Iterator[tuple[str, Args, tuple[int, ...]]]:
    """Generator 10's candidates in a fixed order, each with its group ``"<argument>:<kind>"``
    and the arguments it changes: each huge number in the seeds in turn, each list shifted in
    every seed."""
    arity = len(seeds[0])
    for i in range(arity):
        values = [s[i] for s in seeds]
        if all(_whole(v) for v in values):
            negative = any(v < 0 for v in values)
            for k, v in enumerate(HUGE):
                changed = list(seeds[k % len(seeds)])
                changed[i] = -v if negative and k % 2 else v
                yield f"{i}:huge", tuple(changed), (i,)
        lists = [v for v in values if _wholes(v)]
        if not lists:
            continue
        negative = any(x < 0 for v in lists for x in v)
        shifts = (FLOAT_SHIFT, LOW_SHIFT) if negative else (FLOAT_SHIFT,)
        for seed in seeds:
            if not _wholes(seed[i]):
                continue
            for shift in shifts:
                changed = list(seed)
                changed[i] = type(seed[i])(x + shift for x in seed[i])
                yield f"{i}:list-wide", tuple(changed), (i,)


def _repeated(text: str, n: int = TOKEN) -> str:
    return (text * (n // len(text) + 1))[:n]


def tokens(seeds: Sequence[Args]) -> Iterator[tuple[int, Args]]:
    """Per argument, the long-token inputs of the seed with the most characters there: its
    first word repeated to ``TOKEN`` characters (a string of space-separated words), or each of
    its strings repeated so (a list of strings), with the argument's position."""
    arity = len(seeds[0])
    for i in range(arity):
        words = [s for s in seeds if type(s[i]) is str and " " in s[i].strip()]
        if words:
            seed = max(words, key=lambda s: len(s[i]))
            first, _, rest = seed[i].strip().partition(" ")
            grown = _repeated(first) + " " + rest
            yield i, tuple(grown if j == i else v for j, v in enumerate(seed))
        lists = [
            s
            for s in seeds
            if type(s[i]) in (list, tuple) and s[i] and all(type(v) is str for v in s[i])
        ]
        if lists:
            seed = max(lists, key=lambda s: sum(len(v) for v in s[i]))
            items = type(seed[i])(_repeated(v) if v else v for v in seed[i])
            yield i, tuple(items if j == i else v for j, v in enumerate(seed))
