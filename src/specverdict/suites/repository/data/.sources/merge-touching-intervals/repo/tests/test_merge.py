from spans.merge import merge, total_length


def test_overlapping():
    assert merge([(1, 4), (2, 3), (6, 8)]) == [(1, 4), (6, 8)]


def test_empty():
    assert merge([]) == []


def test_total_length():
    assert total_length([(0, 2), (1, 5)]) == 5
