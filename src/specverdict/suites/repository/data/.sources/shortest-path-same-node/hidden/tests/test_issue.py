from graphs.paths import shortest_path


def test_same_node():
    assert shortest_path({"a": ["b"]}, "a", "a") == ["a"]
    assert shortest_path({}, "x", "x") == ["x"]
