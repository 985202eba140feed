from urlkit.query import build_query


def with_query(base, params):
    query = build_query(params)
    return f"{base}?{query}" if query else base
