from numerals.parse import from_roman
from numerals.roman import to_roman


def test_additive():
    assert to_roman(3) == "III"
    assert to_roman(2023) == "MMXXIII"


def test_out_of_range():
    try:
        to_roman(0)
    except ValueError:
        return
    raise AssertionError("no error")


def test_from_roman():
    assert from_roman("XIV") == 14
