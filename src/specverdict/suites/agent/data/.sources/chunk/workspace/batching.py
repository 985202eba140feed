def chunk(items, size):
    pass
