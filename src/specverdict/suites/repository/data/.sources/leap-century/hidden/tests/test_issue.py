from cal.dates import day_of_year, days_in_month, is_leap_year


def test_centuries():
    assert not is_leap_year(1900)
    assert not is_leap_year(2100)
    assert days_in_month(2100, 2) == 28


def test_day_of_year_1900():
    assert day_of_year(1900, 12, 31) == 365
