from distance.convert import convert


def test_direction():
    assert convert(1, "km", "m") == 1000
    assert abs(convert(3, "ft", "m") - 0.9144) < 1e-9


def test_mile():
    assert abs(convert(1, "mi", "km") - 1.609344) < 1e-9
