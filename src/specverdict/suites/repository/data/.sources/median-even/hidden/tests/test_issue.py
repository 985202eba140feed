from stats.central import median


def test_median_even():
    assert median([1, 2, 3, 4]) == 2.5


def test_median_two_unsorted():
    assert median([4, 1]) == 2.5
