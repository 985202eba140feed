from geometry.shapes import rectangle_area


def test_area():
    assert rectangle_area(3, 4) == 12
