"""A tiny template language."""

import re

_FIELD = re.compile(r"\{\{(\w+)\}\}")


def render(template, values):
    """Replace ``{{ name }}`` fields with ``values[name]``; unknown names raise
    KeyError."""
    return _FIELD.sub(lambda m: str(values[m.group(1)]), template)
