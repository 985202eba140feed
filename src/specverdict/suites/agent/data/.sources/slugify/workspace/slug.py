def make_slug(title):
    return '-'.join(title.lower().split())
