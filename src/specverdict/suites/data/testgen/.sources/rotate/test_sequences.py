from sequences import rotate


def test_right_and_left():
    assert rotate([1, 2, 3, 4], 1) == [4, 1, 2, 3]
    assert rotate([1, 2, 3], -1) == [2, 3, 1]


def test_wrap_and_edges():
    assert rotate([1, 2, 3], 5) == [2, 3, 1]
    assert rotate([1, 2], 0) == [1, 2]
    assert rotate([], 3) == []
