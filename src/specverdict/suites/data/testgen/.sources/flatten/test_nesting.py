from nesting import flatten


def test_deep():
    assert flatten([1, [2, [3, (4, 5)]], "ab"]) == [1, 2, 3, 4, 5, "ab"]


def test_flat_and_empty():
    assert flatten([1, 2, 3]) == [1, 2, 3]
    assert flatten([]) == []
