from urls import slugify


def test_basic():
    assert slugify("Hello, World!") == "hello-world"


def test_digits_and_spaces():
    assert slugify("  Python 3.12 rocks ") == "python-3-12-rocks"
    assert slugify("Already Slugged") == "already-slugged"
    assert slugify("") == ""
