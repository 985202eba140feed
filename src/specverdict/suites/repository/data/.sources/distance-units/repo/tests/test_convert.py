from distance.convert import convert


def test_same_unit():
    assert convert(5, "m", "m") == 5


def test_unknown_unit():
    try:
        convert(1, "m", "league")
    except ValueError:
        return
    raise AssertionError("no error")
