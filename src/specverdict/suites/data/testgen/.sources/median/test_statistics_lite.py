from statistics_lite import median


def test_odd():
    assert median([3, 1, 2]) == 2
    assert median([5, 9, 1, 7, 3]) == 5


def test_even():
    assert median([4, 1, 3, 2]) == 2.5
    assert median([1, 2]) == 1.5


def test_empty():
    try:
        median([])
    except ValueError:
        return
    raise AssertionError("expected ValueError")
