from intervals import merge_intervals


def test_overlap_and_touch():
    assert merge_intervals([(1, 3), (2, 5), (5, 7), (9, 10)]) == [(1, 7), (9, 10)]


def test_contained_and_unsorted():
    assert merge_intervals([(4, 6), (1, 10), (2, 3)]) == [(1, 10)]
    assert merge_intervals([(5, 6), (1, 2)]) == [(1, 2), (5, 6)]
    assert merge_intervals([]) == []
