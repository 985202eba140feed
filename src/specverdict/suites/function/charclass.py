"""Character-class inputs (generator 4): a seed string with one class of character perturbed.

Mistakes written by hand in string tasks mostly read the string more loosely or more strictly
than the task: a comparison that ignores case, ``split()`` where ``split(" ")`` keeps empty
words (or the other way round), ``\\s`` that also matches tabs, a regular expression built from
the input unescaped or one that splits words at apostrophes, sentences split on ``.`` alone,
numbers compared as strings. Generators 1 to 3 keep every character outside letters and digits
where the seeds have it, and letters in the seeds' case, so none of these shows. Each kind below
changes one class of character in a seed string and keeps the rest:

* ``case-one``: the case of one letter flipped: the first, the last, and a second occurrence of
  a letter (``"aba"`` -> ``"Aba"``, ``"prrk"`` -> ``"prRk"``); ``case-word``: the whole string
  in capitals, and each word capitalised;
* ``space-double``: a space doubled (a run of spaces one longer); ``space-swap``: a space made a
  tab or a newline; ``space-mark``: a space made a comma or a hyphen; ``space-inner``: a space
  put inside a word;
* ``mark-swap``: a punctuation mark between words swapped for another one (those the docstring
  quotes, then ``, . - '``); ``mark-inner``: an apostrophe and a hyphen inside a word;
  ``mark-token``: a regular-expression metacharacter, ``.``, in place of the middle character
  of a string of letters and digits;
* ``digit-grow``: a run of digits one digit longer, its last digit repeated (``"9"`` -> ``"99"``);
* ``word-repeat``: the first word repeated, and the last word put first as well;
* ``alphabet``: a word's letters replaced by the first and by the last letters of the alphabet,
  each window also shifted by one (so that each of its letters sits at an even and at an odd
  index), in the word's own case pattern: the letters seeds rarely show (``y``, ``z``, ``w``)
  and the wrap-around at ``z``.

Which kinds a string gets depends on what its docstring states (``stated.Statement``): a closed
alphabet ("only", "format", digits, brackets) gets only doubled spaces, case and repeated words,
spaces named as separators are not swapped for tabs, and the case kinds are kept only where
generator 4's domain admits both cases (``stated.widen_by_statement``). Every input is a
candidate only: the domain, the contract and the reference decide, as for every generator.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator, Sequence
from typing import Any

from specverdict.suites.function.profile import Profile, char_class
from specverdict.suites.function.stated import Statement

KINDS = (
    "case-one",
    "case-word",
    "space-double",
    "space-swap",
    "space-mark",
    "space-inner",
    "mark-swap",
    "mark-inner",
    "mark-token",
    "digit-grow",
    "word-repeat",
    "alphabet",
)
#: marks tried besides those the docstring quotes, in this order
MARKS = (",", ".", "-", "'")

Variant = tuple[str, str]
_WORD = re.compile(r"[A-Za-z]+")
_DIGITS = re.compile(r"[0-9]+")


def marks(statement: Statement) -> tuple[str, ...]:
    """The punctuation marks a string's marks are swapped for: the docstring's, then ``MARKS``."""
    return tuple(dict.fromkeys([*statement.marks, *MARKS]))


def _flip(text: str, i: int) -> str:
    return text[:i] + text[i].swapcase() + text[i + 1 :]


def _case(text: str) -> Iterator[Variant]:
    letters = [i for i, c in enumerate(text) if char_class(c) in ("lower", "upper")]
    if not letters:
        return
    picks = [letters[0], letters[-1]]
    seen: set[str] = set()
    for i in letters:
        if text[i].lower() in seen:  # a second occurrence: a case-blind count merges the two
            picks.append(i)
            break
        seen.add(text[i].lower())
    for i in dict.fromkeys(picks):
        yield "case-one", _flip(text, i)
    yield "case-word", text.upper()
    yield "case-word", " ".join(w[:1].upper() + w[1:] for w in text.split(" "))


def _spaces(text: str, statement: Statement) -> Iterator[Variant]:
    """Spaces between other characters, never at an end: a run at the end of a string is a
    shape references often leave unspecified."""
    at = [i for i, c in enumerate(text) if c == " " and text[:i].strip() and text[i:].strip()]
    if not at:
        return
    for i in dict.fromkeys((at[0], at[-1])):
        yield "space-double", text[:i] + " " + text[i:]
    if statement.closed or not statement.spaces:
        return
    if not statement.separator and not statement.whitespace:
        yield "space-swap", text[: at[0]] + "\t" + text[at[0] + 1 :]
        yield "space-swap", text[: at[-1]] + "\n" + text[at[-1] + 1 :]
    for mark in (",", "-"):
        yield "space-mark", text[: at[-1]] + mark + text[at[-1] + 1 :]


def _words(text: str) -> Iterator[Variant]:
    """A space and a hyphen in the middle of the first word of two or more letters, an
    apostrophe before the last letter of the last such word (``"John"`` -> ``"Joh'n"``)."""
    words = [m for m in _WORD.finditer(text) if len(m.group()) > 1]
    if not words:
        return
    first, last = words[0], words[-1]
    mid = first.start() + len(first.group()) // 2
    if " " not in text:
        yield "space-inner", text[:mid] + " " + text[mid:]
    end = last.end() - 1
    yield "mark-inner", text[:end] + "'" + text[end:]
    yield "mark-inner", text[:mid] + "-" + text[mid:]


def _marks(text: str, swaps: Sequence[str]) -> Iterator[Variant]:
    """The first of each mark among letters or digits (not a string of marks alone: an
    operator, brackets), and not at an end, swapped for each other mark."""
    if not any(c.isalnum() for c in text):
        return
    for mark in [c for c in dict.fromkeys(text) if _mark(c)]:
        at = text.index(mark)
        if not text[:at].strip() or not text[at + 1 :].strip():
            continue  # a mark at an end stays: an end is where references differ most
        for other in swaps:
            if other != mark:
                yield "mark-swap", text[:at] + other + text[at + 1 :]


def _mark(c: str) -> bool:
    return c.isascii() and not c.isalnum() and not c.isspace()


def _token(text: str) -> Iterator[Variant]:
    if text and all(char_class(c) != "other" for c in text):
        mid = len(text) // 2
        yield "mark-token", text[:mid] + "." + text[mid + 1 :]


def _digits(text: str) -> Iterator[Variant]:
    found = _DIGITS.search(text)
    if found:  # its last digit again: a digit the seeds show there
        end = found.end()
        yield "digit-grow", text[:end] + text[end - 1] + text[end:]


def _repeat(text: str) -> Iterator[Variant]:
    words = text.split(" ")
    if len(words) > 1 and words[0] and words[-1]:  # no space at either end
        yield "word-repeat", " ".join([words[0], *words])
        yield "word-repeat", " ".join([words[-1], *words])


def _alphabet(text: str) -> Iterator[Variant]:
    if not text or not all(char_class(c) in ("lower", "upper") for c in text):
        return
    n = len(text)
    letters = string.ascii_lowercase * (n // 26 + 2)
    for start in dict.fromkeys(max(0, s) for s in (0, 1, 26 - n, 25 - n)):
        window = letters[start : start + n]
        yield (
            "alphabet",
            "".join(c.upper() if o.isupper() else c for c, o in zip(window, text, strict=True)),
        )


def string_variants(text: str, statement: Statement) -> Iterator[Variant]:
    """Every character-class variant of ``text`` the statement allows, each with its kind."""
    yield from _case(text)
    yield from _spaces(text, statement)
    yield from _repeat(text)
    if statement.closed:
        return
    yield from _words(text)
    yield from _marks(text, marks(statement))
    yield from _token(text)
    yield from _digits(text)
    yield from _alphabet(text)


def variants(value: Any, p: Profile, statement: Statement) -> Iterator[tuple[str, Any]]:
    """The variants of one argument: a string's own, and those of a sequence's first and last
    string item in place."""
    if type(value) is str:
        yield from string_variants(value, statement)
    elif type(value) in (list, tuple) and value and p.item is not None:
        items = list(value)
        for at in dict.fromkeys((0, len(items) - 1)):
            if type(items[at]) is str:
                for kind, text in string_variants(items[at], statement):
                    yield kind, type(value)([*items[:at], text, *items[at + 1 :]])
