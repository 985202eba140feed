from cal.dates import day_of_year, days_in_month, is_leap_year


def test_ordinary_leap_years():
    assert is_leap_year(2024) and is_leap_year(2000) and not is_leap_year(2023)


def test_day_of_year():
    assert day_of_year(2023, 3, 1) == 60
    assert days_in_month(2023, 4) == 30
