from urlkit.query import build_query
from urlkit.url import with_query


def test_percent_encoding():
    assert build_query({"q": "x y&z"}) == "q=x%20y%26z"
    assert with_query("http://h/s", {"a b": "1/2"}) == "http://h/s?a%20b=1%2F2"
