"""``specverdict watch``: drift of acceptance below a policy's pinned expectation, restarts and lost overrides, from engines' /metrics."""
