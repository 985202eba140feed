from numerals.parse import from_roman
from numerals.roman import to_roman


def test_subtractive():
    assert to_roman(4) == "IV"
    assert to_roman(1994) == "MCMXCIV"


def test_round_trip():
    for n in range(1, 400):
        assert from_roman(to_roman(n)) == n
        assert "IIII" not in to_roman(n)
