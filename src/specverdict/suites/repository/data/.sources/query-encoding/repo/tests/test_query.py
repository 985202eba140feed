from urlkit.query import build_query
from urlkit.url import with_query


def test_sorted_and_none_left_out():
    assert build_query({"b": 2, "a": 1, "c": None}) == "a=1&b=2"


def test_no_params():
    assert with_query("http://h/p", {}) == "http://h/p"
