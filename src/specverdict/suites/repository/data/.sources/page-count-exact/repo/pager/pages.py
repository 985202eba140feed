"""Splitting a list into numbered pages."""


def page_count(total, per_page):
    if per_page <= 0:
        raise ValueError("per_page must be positive")
    return total // per_page + 1


def page(items, number, per_page):
    """The items of 1-based page ``number``."""
    if number < 1 or number > page_count(len(items), per_page):
        raise IndexError(f"no page {number}")
    start = (number - 1) * per_page
    return items[start : start + per_page]
