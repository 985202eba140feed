from graphs.paths import shortest_path

GRAPH = {"a": ["b", "c"], "b": ["d"], "c": ["d"], "d": ["e"], "x": []}


def test_path():
    assert shortest_path(GRAPH, "a", "e") == ["a", "b", "d", "e"]


def test_unreachable():
    assert shortest_path(GRAPH, "e", "a") is None
