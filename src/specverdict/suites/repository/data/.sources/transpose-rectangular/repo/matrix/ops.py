"""Matrices as lists of rows."""


def transpose(rows):
    if not rows:
        return []
    n = len(rows)
    return [[rows[i][j] for i in range(n)] for j in range(n)]


def multiply(a, b):
    columns = transpose(b)
    return [[sum(x * y for x, y in zip(row, col)) for col in columns] for row in a]
