from bsearch import find


def test_last():
    assert find([1, 3, 5, 7], 7) == 3


def test_missing():
    assert find([1, 3, 5], 4) == -1
