from stats import largest


def test_max():
    assert largest([3, 9, 2]) == 9


def test_empty():
    try:
        largest([])
    except ValueError:
        return
    raise AssertionError('no ValueError')
