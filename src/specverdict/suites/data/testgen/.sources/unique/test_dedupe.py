from dedupe import unique


def test_order_kept():
    assert unique([3, 1, 3, 2, 1]) == [3, 1, 2]


def test_empty_and_distinct():
    assert unique([]) == []
    assert unique(["b", "a"]) == ["b", "a"]
