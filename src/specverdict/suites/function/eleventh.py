"""Generator 11's own inputs: titlecase letters, cased symbols and lists of floats past the
sentinels (054).

Hand-written answers that agree with the reference on every input generator 10 makes still part
from it on inputs of a few more kinds, none a value of one task:

* **titlecase letters** (``titlecase``): the first cased letter of a string replaced by
  ``TITLE`` (``"ǅ"``: neither ``isupper()`` nor ``islower()``, with an upper and a lower case
  of its own), only where the reference changes or asks a character's case (``swapcase``,
  ``upper``, ``lower``, ``isupper``, ``islower``) and never whether it is a letter: a swap of
  case rebuilt from ``upper()`` and ``lower()`` by ``isupper()`` changes it where
  ``swapcase()`` leaves it;
* **cased symbols** (``cased-symbol``): the first cased letter of a string, and then every
  one, replaced by the circled letter of its case (``"Ⓐ"``, ``"ⓐ"``: ``isupper()`` or
  ``islower()`` holds, ``isalpha()`` does not), only where the reference asks both a character's case and whether
  it is a letter: a count of upper-case letters by ``isupper()`` alone counts the symbol, and
  every ASCII reading of "letter" leaves it out as the reference does;
* **floats past the sentinels** (``float-shift``): every item of a list of floats raised by
  ``SHIFT`` (order and differences kept, within float precision), past the ``1e9`` a search
  for a minimum starts from (generator 9's ``list-shift`` raises whole numbers only).

The string kinds change a string argument, or one of the first ``ITEMS`` strings of a list of
strings at a time. Each is a candidate admitted as generator 9's own (``eight``), within the same ceiling (a list of floats
whatever the size of its values: no built-in's work grows with a float's); at most
``MOST`` per task, on top of generator 10's.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from specverdict.suites.function import ninth
from specverdict.suites.function.profile import Args, char_class

#: the most of generator 11's own inputs per task, on top of generator 10's
MOST = 8
#: a titlecase letter: ``"ǅ".upper() == "Ǆ"``, ``"ǅ".lower() == "ǆ"``, ``"ǅ".swapcase() == "ǅ"``
TITLE = "\u01c5"
#: cased symbols that are no letters, by the case of the letter they replace
SYMBOLS = {"upper": "\u24b6", "lower": "\u24d0"}
#: what ``float-shift`` adds to every float: past ``1e9`` and ``2 ** 31``, exact for halves
SHIFT = 2.0**34

#: the most strings of a list of strings changed, one at a time
ITEMS = 3

KINDS = ("titlecase", "cased-symbol", "float-shift")

#: calls that change or ask a character's case
_CASE_CALLS = (".isupper()", ".islower()", ".swapcase()", ".upper()", ".lower()")


@dataclass(frozen=True, slots=True)
class Reading:
    """What generator 11 reads of a task's reference: whether it changes or asks a character's
    case and never whether it is a letter (``titled``: ``titlecase`` is tried), and whether it
    asks both (``symbols``: ``cased-symbol`` is tried)."""

    titled: bool = False
    symbols: bool = False


def read(reference: str) -> Reading:
    """Generator 11's reading of ``reference`` (``Reading``)."""
    changes_case = any(call in reference for call in _CASE_CALLS)
    asks_case = ".isupper()" in reference or ".islower()" in reference
    asks_letter = ninth.asks_letter(reference)
    return Reading(titled=changes_case and not asks_letter, symbols=asks_case and asks_letter)


def _replaced(text: str, by: dict[str, str]) -> str | None:
    at = next((j for j, c in enumerate(text) if char_class(c) in by), None)
    return None if at is None else text[:at] + by[char_class(text[at])] + text[at + 1 :]


def _floats(value: Any) -> bool:
    return type(value) in (list, tuple) and bool(value) and all(type(v) is float for v in value)


def _symbolized(text: str) -> str:
    return "".join(SYMBOLS.get(char_class(c), c) for c in text)


def _texts(text: str, reading: Reading) -> Iterator[tuple[str, str]]:
    if reading.titled:
        yield "titlecase", _replaced(text, {"upper": TITLE, "lower": TITLE}) or text
    if reading.symbols:
        yield "cased-symbol", _replaced(text, SYMBOLS) or text
        yield "cased-symbol", _symbolized(text)


def variants(value: Any, reading: Reading) -> Iterator[tuple[str, Any]]:
    """The one-argument variants of ``value``, each ``(kind, new value)``: a string's, and
    those of each of the first ``ITEMS`` strings of a list of strings, the others kept."""
    t = type(value)
    if t is str:
        for kind, new in _texts(value, reading):
            if new != value:
                yield kind, new
    elif _floats(value):
        yield "float-shift", t(v + SHIFT for v in value)
    elif t in (list, tuple) and value and all(type(v) is str for v in value):
        for j, item in enumerate(value[:ITEMS]):
            for kind, new in _texts(item, reading):
                if new != item:
                    yield kind, t([*value[:j], new, *value[j + 1 :]])


def candidates(
    seeds: Sequence[Args], reading: Reading
) -> Iterator[tuple[str, Args, tuple[int, ...]]]:
    """Generator 11's candidates in a fixed order, each with its group ``"<argument>:<kind>"``
    and the argument it changes: every variant of every seed."""
    arity = len(seeds[0])
    for i in range(arity):
        for seed in seeds:
            for kind, new in variants(seed[i], reading):
                changed = list(seed)
                changed[i] = new
                yield f"{i}:{kind}", tuple(changed), (i,)
