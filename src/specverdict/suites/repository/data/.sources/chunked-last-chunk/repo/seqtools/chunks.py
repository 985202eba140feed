"""Splitting sequences."""


def chunked(items, size):
    """Split ``items`` into lists of ``size``; the last one may be shorter."""
    if size < 1:
        raise ValueError("size must be at least 1")
    items = list(items)
    return [items[i : i + size] for i in range(0, len(items) - size + 1, size)]


def pairs(items):
    return [tuple(chunk) for chunk in chunked(items, 2)]
