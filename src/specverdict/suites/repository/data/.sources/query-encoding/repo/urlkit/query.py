"""Query strings."""


def build_query(params):
    """'a=1&b=x%20y' from a mapping; keys sorted; None values are left out."""
    parts = []
    for key in sorted(params):
        value = params[key]
        if value is None:
            continue
        parts.append(f"{key}={value}")
    return "&".join(parts)
