from ranges import clamp


def test_inside():
    assert clamp(5, 1, 10) == 5


def test_below_and_above():
    assert clamp(-3, 0, 10) == 0
    assert clamp(42, 0, 10) == 10


def test_equal_bounds():
    assert clamp(7, 3, 3) == 3


def test_bad_range():
    try:
        clamp(1, 5, 2)
    except ValueError:
        return
    raise AssertionError("expected ValueError")
