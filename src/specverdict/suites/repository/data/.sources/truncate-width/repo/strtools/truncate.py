"""Shortening strings for display."""


def truncate(text, width, ellipsis="..."):
    """Shorten text to at most ``width`` characters, ending with ``ellipsis`` when
    cut."""
    if len(text) <= width:
        return text
    return text[:width] + ellipsis
