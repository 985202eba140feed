from listing import chunks


def test_even_and_uneven():
    assert chunks([1, 2, 3, 4], 2) == [[1, 2], [3, 4]]
    assert chunks([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]


def test_small_inputs():
    assert chunks([], 3) == []
    assert chunks([1], 5) == [[1]]


def test_bad_sizes():
    for size in (0, -1):
        try:
            chunks([1, 2], size)
        except ValueError:
            continue
        raise AssertionError(f"size {size} accepted")
