def make_slug(title):
    return '-'.join(title.lower().split())


slugify = make_slug
