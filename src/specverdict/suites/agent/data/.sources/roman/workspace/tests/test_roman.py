from roman import to_roman


def test_values():
    assert [to_roman(n) for n in (4, 9, 14, 90, 1994)] == ['IV', 'IX', 'XIV', 'XC', 'MCMXCIV']
