from intervals import merge_intervals


def test_touching():
    assert merge_intervals([(1, 2), (2, 5), (7, 8)]) == [(1, 5), (7, 8)]


def test_overlap():
    assert merge_intervals([(3, 6), (1, 4)]) == [(1, 6)]
