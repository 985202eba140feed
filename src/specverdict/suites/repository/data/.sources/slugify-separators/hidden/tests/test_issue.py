from textkit import slugify


def test_runs_of_separators_collapse():
    assert slugify("Hello,  World!") == "hello-world"


def test_symbols_between_words():
    assert slugify("C++ & Rust", sep="_") == "c_rust"
