from numerals import to_roman


def test_small():
    assert [to_roman(n) for n in (1, 4, 9, 14, 40, 90, 400)] == [
        "I", "IV", "IX", "XIV", "XL", "XC", "CD"
    ]


def test_large():
    assert to_roman(1994) == "MCMXCIV"
    assert to_roman(3999) == "MMMCMXCIX"


def test_out_of_range():
    for n in (0, 4000):
        try:
            to_roman(n)
        except ValueError:
            continue
        raise AssertionError(n)
