"""Interval arithmetic."""


def merge(intervals):
    """Merge overlapping closed intervals [start, end]; returns them sorted."""
    result = []
    for start, end in sorted(intervals):
        if result and start < result[-1][1]:
            result[-1][1] = max(result[-1][1], end)
        else:
            result.append([start, end])
    return [tuple(i) for i in result]


def total_length(intervals):
    return sum(end - start for start, end in merge(intervals))
