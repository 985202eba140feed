from strtools.truncate import truncate


def test_width_includes_ellipsis():
    assert truncate("abcdefghij", 6) == "abc..."
    assert truncate("abcdefghij", 8, ellipsis="~") == "abcdefg~"
