"""Calendar arithmetic (proleptic Gregorian)."""


def is_leap_year(year):
    return year % 4 == 0


def days_in_month(year, month):
    if month == 2:
        return 29 if is_leap_year(year) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def day_of_year(year, month, day):
    return sum(days_in_month(year, m) for m in range(1, month)) + day
