from tmpl import render


def test_spaces_inside_braces():
    assert render("Hi {{ name }}!", {"name": "Ada"}) == "Hi Ada!"
    assert render("{{x }}{{  y}}", {"x": 1, "y": 2}) == "12"
