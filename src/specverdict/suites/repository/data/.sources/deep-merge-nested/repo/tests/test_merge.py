from settings.load import load
from settings.merge import deep_merge


def test_flat_override():
    assert deep_merge({"a": 1, "b": 2}, {"b": 3, "c": 4}) == {"a": 1, "b": 3, "c": 4}


def test_defaults():
    assert load({})["server"]["port"] == 8000
