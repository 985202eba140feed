"""Word statistics."""

import re
from collections import Counter

_WORD = re.compile(r"[A-Za-z']+")


def words(text):
    """The words of ``text``, as written."""
    return _WORD.findall(text)


def word_counts(text):
    """How often each word occurs, ignoring case (keys are lower-case)."""
    return Counter(words(text))


def most_common(text, n=1):
    return word_counts(text).most_common(n)
