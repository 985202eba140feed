from matrix.ops import multiply, transpose


def test_rectangular():
    assert transpose([[1, 2, 3]]) == [[1], [2], [3]]
    assert transpose([[1], [2]]) == [[1, 2]]


def test_multiply_rectangular():
    assert multiply([[1, 2, 3], [4, 5, 6]], [[1, 0], [0, 1], [1, 1]]) == [
        [4, 5],
        [10, 11],
    ]
