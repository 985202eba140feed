from settings.load import DEFAULTS, load


def test_nested_merge():
    got = load({"server": {"port": 9000}, "debug": True})
    assert got == {"server": {"host": "localhost", "port": 9000}, "debug": True}
    assert DEFAULTS["server"]["port"] == 8000
