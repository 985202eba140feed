from confkit.parser import parse


def test_equals_in_value():
    assert parse("url = http://example.org/?a=1") == {
        "url": "http://example.org/?a=1"
    }
