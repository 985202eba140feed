from seqtools.chunks import chunked


def test_short_last_chunk():
    assert chunked([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]
    assert chunked("ab", 5) == [["a", "b"]]
