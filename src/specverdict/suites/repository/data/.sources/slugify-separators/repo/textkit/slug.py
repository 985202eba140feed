"""URL slugs."""

import re


def slugify(text: str, sep: str = "-") -> str:
    """Lower-case ``text`` and join its words with ``sep``."""
    text = text.strip().lower()
    text = re.sub(r"[^a-z0-9]", sep, text)
    return text.strip(sep)
