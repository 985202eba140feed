from seqtools.chunks import chunked, pairs


def test_exact_multiple():
    assert chunked(range(6), 3) == [[0, 1, 2], [3, 4, 5]]


def test_empty():
    assert chunked([], 4) == []


def test_pairs():
    assert pairs("abcd") == [("a", "b"), ("c", "d")]
