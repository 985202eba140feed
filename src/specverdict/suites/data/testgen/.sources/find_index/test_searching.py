from searching import find_index


def test_found_everywhere():
    items = [1, 3, 5, 7, 9, 11]
    for i, value in enumerate(items):
        assert find_index(items, value) == i


def test_single_and_absent():
    assert find_index([4], 4) == 0
    assert find_index([1, 3, 5], 4) == -1
    assert find_index([], 1) == -1
