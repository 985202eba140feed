"""Generator 12's own inputs: lists of whole numbers past the largest float, and titlecase
letters among letters (055).

Hand-written answers that agree with the reference on every input generator 11 makes still part
from it on inputs of two more kinds:

* **lists past the largest float** (``list-huge``): every item of a list of whole numbers raised
  by ``SHIFT`` (10 ** 400; order, differences and parity kept): an answer that takes a square
  root, a power or a mean through floats (``x ** 0.5``, ``math.sqrt``, ``/``) raises
  ``OverflowError`` where the reference's whole-number arithmetic answers (generator 10 makes
  single whole numbers that large, and raises list items only past 2 ** 53);
* **titlecase letters among letters** (``among``): the last cased letter of a string that has
  another one replaced by ``eleventh.TITLE`` (``"ǅ"``), only where the reference swaps case
  with ``swapcase()`` and asks whether a character is a letter: ``swapcase()`` leaves ``ǅ`` as
  it is, as every ASCII reading of "letter" does, while the other letter keeps the string one
  with letters to every reading; a swap rebuilt from ``upper()`` and ``lower()`` by
  ``isupper()`` changes it. Not a cased symbol (``"Ⓐ"``): ``swapcase()`` on the whole string
  changes it, a right answer where every character that is no letter is ASCII.

Each is a candidate admitted as generator 9's own (``eight``, within the same ceiling; the
reference's count must hold for the changed list: ``Context.counted``); at most ``MOST`` per
task, on top of generator 11's.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from specverdict.suites.function import eleventh, ninth
from specverdict.suites.function.profile import Args, char_class

#: the most of generator 12's own inputs per task, on top of generator 11's
MOST = 8
#: what ``list-huge`` adds to every item: past the largest float (about 1.8e308), even
SHIFT = 10**400

KINDS = ("list-huge", "among")


@dataclass(frozen=True, slots=True)
class Reading:
    """What generator 12 reads of a task's reference: whether it swaps case with ``swapcase()``
    and asks whether a character is a letter (``among`` is tried)."""

    among: bool = False


def read(reference: str) -> Reading:
    """Generator 12's reading of ``reference`` (``Reading``)."""
    return Reading(among=".swapcase()" in reference and ninth.asks_letter(reference))


def _wholes(value: Any) -> bool:
    return type(value) in (list, tuple) and bool(value) and all(type(v) is int for v in value)


def _among(text: str) -> str | None:
    """``text`` with its last cased letter replaced by a titlecase letter, where another cased
    letter stays."""
    cased = [j for j, c in enumerate(text) if char_class(c) in eleventh.SYMBOLS]
    if len(cased) < 2:
        return None
    return text[: cased[-1]] + eleventh.TITLE + text[cased[-1] + 1 :]


def variants(value: Any, reading: Reading) -> Iterator[tuple[str, Any]]:
    """The one-argument variants of ``value``, each ``(kind, new value)``."""
    if _wholes(value):
        yield "list-huge", type(value)(v + SHIFT for v in value)
    elif type(value) is str and reading.among:
        new = _among(value)
        if new is not None:
            yield "among", new


def candidates(
    seeds: Sequence[Args], reading: Reading
) -> Iterator[tuple[str, Args, tuple[int, ...]]]:
    """Generator 12's candidates in a fixed order, each with its group ``"<argument>:<kind>"``
    and the argument it changes: every variant of every seed."""
    arity = len(seeds[0])
    for i in range(arity):
        for seed in seeds:
            for kind, new in variants(seed[i], reading):
                changed = list(seed)
                changed[i] = new
                yield f"{i}:{kind}", tuple(changed), (i,)
