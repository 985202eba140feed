from spans.merge import merge


def test_touching_intervals_merge():
    assert merge([(1, 3), (3, 5)]) == [(1, 5)]


def test_touching_unsorted():
    assert merge([(5, 9), (0, 5)]) == [(0, 9)]
