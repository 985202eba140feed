"""Text inputs (generator 5): characters, lengths and items that ASCII-minded code misreads.

Hand-written string code often assumes more than the task says: letters are ``a``-``z``
(``'A' <= c <= 'Z'``, ``ord(c) - 97``), digits are ``0``-``9`` (``c in '13579'``), a word
is short (a table of prime lengths), a string handed in is plain text, not a pattern
(``re.search(sub, s)``), an item is never empty nor a prefix of another. One argument at a
time (strings, and the first and last string item of a list):

* ``letter-accent``: every letter that has an accented twin given it (``"abAB"`` ->
  ``"àbÀB"``), unless the task's text is ASCII (``ascii_only``: the
  prompt speaks of ASCII, Latin or English letters or ``'a'-'z'``, or the reference reads
  letters by code point or from a written-out alphabet);
* ``digit-unicode``: a string of digits written in Arabic-Indic digits (``str.isdigit`` and
  ``int`` read them);
* ``length-square``: a string of letters and digits repeated to lengths 9 and 25, the squares of
  primes that a trial division stopping one short calls prime;
* ``word-long``: the longest run of letters grown to ``LONG`` letters (past a table of small
  lengths);
* ``digit-near``: the digit runs of a string made ``10 ** 10`` and the first one more
  (``"1/5"`` -> ``"10000000001/10000000000"``): numbers a float division calls equal;

and for a list of strings:

* ``item-empty``: the first item, and every item, made empty;
* ``item-prefix``: an item followed by its own first character, added at the end: a word and
  its own extension, of the same letters;

and for two string arguments together:

* ``pattern``: a string argument made a regular expression's metacharacter after its first
  character (``"a."``, ``"a+"``), and another string argument (or list of strings) given that
  string itself and a string the pattern matches but does not contain (``"ax"``, ``"aa"``);
* ``space-zero``: the first space between two words of a string argument doubled (an empty word
  for ``split(" ")``) and every whole-number argument 0 at once: code that counts the empty
  word's letters gets 0 for it, which only a count of 0 asks about.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from specverdict.suites.function.profile import Args, char_class

KINDS = (
    "letter-accent",
    "digit-unicode",
    "length-square",
    "word-long",
    "digit-near",
    "item-empty",
    "item-prefix",
    "pattern",
    "space-zero",
)
#: accented twins of ASCII letters, case kept
ACCENTED = dict(zip("aceinouyACEINOUY", "àçéîñôüýÀÇÉÎÑÔÜÝ", strict=True))
#: lengths a string of letters and digits is repeated to
SQUARES = (9, 25)
#: the length a run of letters is grown to (a prime past 19)
LONG = 23
#: the digit runs of ``digit-near``
NEAR_RUN = 10**10
#: a metacharacter and a character it matches in place of itself
PATTERNS = ((".", "x"), ("+", ""))

Variant = tuple[str, Any]
_LETTERS = re.compile(r"[A-Za-z]+")
_ASCII_PROMPT = re.compile(r"ascii|latin|english|'a'\s*-\s*'z'", re.IGNORECASE)
_ASCII_CODE = re.compile(r"\b(?:ord|chr)\(|abcdefghij|ascii_")
_DIGITS = re.compile(r"[0-9]+")


def ascii_only(prompt: str, reference: str) -> bool:
    """Whether the task's letters are ASCII letters (``letter-accent``)."""
    return bool(_ASCII_PROMPT.search(prompt) or _ASCII_CODE.search(reference))


def _accents(text: str) -> Iterator[Variant]:
    if any(c in ACCENTED for c in text):
        yield "letter-accent", "".join(ACCENTED.get(c, c) for c in text)


def _unicode_digits(text: str) -> Iterator[Variant]:
    if text and all(char_class(c) == "digit" for c in text):
        yield "digit-unicode", "".join(chr(0x0660 + int(c)) for c in text)


def _cycle(text: str, n: int) -> str:
    return (text * (n // len(text) + 1))[:n]


def _lengths(text: str) -> Iterator[Variant]:
    if text and all(char_class(c) != "other" for c in text):
        for n in SQUARES:
            if n != len(text):
                yield "length-square", _cycle(text, n)


def _long_word(text: str) -> Iterator[Variant]:
    runs = list(_LETTERS.finditer(text))
    if not runs:
        return
    longest = max(runs, key=lambda m: len(m.group()))
    if len(longest.group()) < LONG:
        grown = _cycle(longest.group(), LONG)
        yield "word-long", text[: longest.start()] + grown + text[longest.end() :]


def _digit_near(text: str) -> Iterator[Variant]:
    runs = list(_DIGITS.finditer(text))
    if not runs:
        return
    out, last = [], 0
    for n, m in enumerate(runs):
        out += [text[last : m.start()], str(NEAR_RUN + (1 if n == 0 else 0))]
        last = m.end()
    yield "digit-near", "".join([*out, text[last:]])


def string_variants(text: str, ascii_only: bool) -> Iterator[Variant]:
    """The text variants of one string (``ascii_only``: the prompt says ASCII)."""
    if not ascii_only:
        yield from _accents(text)
    yield from _unicode_digits(text)
    yield from _lengths(text)
    yield from _long_word(text)
    yield from _digit_near(text)


def _items(items: list[str]) -> Iterator[Variant]:
    if any(items):
        yield "item-empty", ["", *items[1:]]
        yield "item-empty", [""] * len(items)
    picks = [0, len(items) - 1, max(range(len(items)), key=lambda i: len(set(items[i])))]
    for at in dict.fromkeys(picks):
        if items[at]:
            yield "item-prefix", [*items, items[at] + items[at][0]]


def variants(value: Any, ascii_only: bool) -> Iterator[Variant]:
    """The text variants of one argument: a string's own, those of a list's first and last
    string item in place, and a list of strings' item variants."""
    if type(value) is str:
        yield from string_variants(value, ascii_only)
    elif type(value) in (list, tuple) and value:
        items = list(value)
        for at in dict.fromkeys((0, len(items) - 1)):
            if type(items[at]) is str:
                for kind, text in string_variants(items[at], ascii_only):
                    yield kind, type(value)([*items[:at], text, *items[at + 1 :]])
        if all(type(x) is str for x in items):
            for kind, new in _items(items):
                yield kind, type(value)(new)


def _texts(value: Any) -> bool:
    return type(value) is str or (
        type(value) in (list, tuple) and all(type(x) is str for x in value)
    )


def pattern_variants(seed: Args) -> Iterator[Variant]:
    """The ``pattern`` variants of a seed with a string argument and another string or list of
    strings."""
    for i, pattern in enumerate(seed):
        if type(pattern) is not str or not pattern[:1].isalpha():
            continue
        for j, target in enumerate(seed):
            if j == i or not _texts(target):
                continue
            for meta, stand_in in PATTERNS:
                made = pattern[0] + meta
                fake = pattern[0] + (stand_in or pattern[0])
                args = list(seed)
                args[i] = made
                if type(target) is str:
                    args[j] = target + made + fake
                else:
                    args[j] = type(target)([*target, made + "b", fake + "b"])
                yield "pattern", tuple(args)


def space_zero_variants(seed: Args) -> Iterator[Variant]:
    """The ``space-zero`` variant of a seed with a string argument and a whole-number one."""
    numbers = [i for i, v in enumerate(seed) if type(v) is int]
    if not numbers:
        return
    for i, text in enumerate(seed):
        if type(text) is not str:
            continue
        at = [k for k, c in enumerate(text) if c == " " and text[:k].strip() and text[k:].strip()]
        if at:
            args = list(seed)
            args[i] = text[: at[0]] + " " + text[at[0] :]
            for j in numbers:
                args[j] = 0
            yield "space-zero", tuple(args)
