def rotate(items, steps):
    if not items:
        return []
    steps %= len(items)
    return items[-steps:] + items[:-steps]
