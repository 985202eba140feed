from versions.compare import compare, newest, parse


def test_numeric_parts():
    assert parse("1.10.2") == (1, 10, 2)
    assert compare("1.10", "1.9") == 1
    assert newest(["1.9", "1.10", "1.2"]) == "1.10"
