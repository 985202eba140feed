from calendar_utils import is_leap


def test_century():
    assert not is_leap(1900)


def test_400():
    assert is_leap(2000)


def test_plain():
    assert is_leap(2024)
