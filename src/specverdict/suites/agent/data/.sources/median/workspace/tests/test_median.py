from center import median


def test_odd():
    assert median([5, 1, 3]) == 3


def test_even():
    assert median([4, 1, 3, 2]) == 2.5
