from confkit.parser import parse


def test_pairs_and_comments():
    assert parse("# c\nname = demo\n\nsize=3\n") == {"name": "demo", "size": "3"}


def test_line_without_equals():
    try:
        parse("oops")
    except ValueError as exc:
        assert "line 1" in str(exc)
        return
    raise AssertionError("no error")
