from seq import dedupe


def test_order():
    assert dedupe([3, 1, 3, 2, 1]) == [3, 1, 2]
