from textkit.slug import slugify


def test_simple_words():
    assert slugify("Hello World") == "hello-world"


def test_custom_separator():
    assert slugify("a b", sep="_") == "a_b"
