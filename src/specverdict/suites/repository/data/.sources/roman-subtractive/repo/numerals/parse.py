"""Reading Roman numerals."""

_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}


def from_roman(text):
    total = 0
    for here, after in zip(text, text[1:] + " "):
        value = _VALUES[here]
        total += -value if _VALUES.get(after, 0) > value else value
    return total
