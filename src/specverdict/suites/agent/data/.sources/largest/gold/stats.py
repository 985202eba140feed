def largest(items):
    if not items:
        raise ValueError('empty')
    best = items[0]
    for x in items:
        if x > best:
            best = x
    return best
