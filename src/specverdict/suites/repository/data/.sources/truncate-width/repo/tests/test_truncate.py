from strtools.truncate import truncate


def test_short_text_unchanged():
    assert truncate("abc", 5) == "abc"
    assert truncate("abcde", 5) == "abcde"
