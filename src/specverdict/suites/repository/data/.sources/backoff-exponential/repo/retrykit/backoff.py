"""Backoff schedules."""


def delays(attempts, base=0.5, cap=30.0):
    """Wait before each retry: base, 2*base, 4*base, ... never more than cap."""
    return [min(cap, base * (attempt + 1)) for attempt in range(attempts)]
