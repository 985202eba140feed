from matrix.ops import multiply, transpose


def test_square_transpose():
    assert transpose([[1, 2], [3, 4]]) == [[1, 3], [2, 4]]


def test_identity():
    assert multiply([[1, 0], [0, 1]], [[5, 6], [7, 8]]) == [[5, 6], [7, 8]]
