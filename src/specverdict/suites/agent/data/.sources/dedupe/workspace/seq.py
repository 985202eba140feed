def dedupe(items):
    return list(set(items))
