def largest(items):
    best = None
    for x in items:
        if best is None or x > best:
            best = x
    return best
