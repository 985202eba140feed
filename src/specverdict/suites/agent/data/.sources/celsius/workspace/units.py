def to_fahrenheit(c):
    return c * 5 / 9 + 32
