"""Writing Roman numerals."""

_TABLE = [(1000, "M"), (500, "D"), (100, "C"), (50, "L"), (10, "X"), (5, "V"), (1, "I")]


def to_roman(number):
    if not 0 < number < 4000:
        raise ValueError("number out of range 1..3999")
    out = []
    for value, letters in _TABLE:
        count, number = divmod(number, value)
        out.append(letters * count)
    return "".join(out)
