PAIRS = [(1000, 'M'), (500, 'D'), (100, 'C'), (50, 'L'), (10, 'X'), (5, 'V'), (1, 'I')]


def to_roman(n):
    out = ''
    for value, numeral in PAIRS:
        while n >= value:
            out += numeral
            n -= value
    return out
