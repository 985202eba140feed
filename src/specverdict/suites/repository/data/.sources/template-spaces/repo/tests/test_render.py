from tmpl import render


def test_plain_field():
    assert render("{{a}}+{{b}}", {"a": 1, "b": 2}) == "1+2"


def test_unknown_field():
    try:
        render("{{nope}}", {})
    except KeyError:
        return
    raise AssertionError("no error")
