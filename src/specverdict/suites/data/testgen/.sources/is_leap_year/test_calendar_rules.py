from calendar_rules import is_leap_year


def test_ordinary_years():
    assert is_leap_year(2024)
    assert not is_leap_year(2023)


def test_centuries():
    assert not is_leap_year(1900)
    assert not is_leap_year(2100)
    assert is_leap_year(2000)
    assert is_leap_year(1600)
