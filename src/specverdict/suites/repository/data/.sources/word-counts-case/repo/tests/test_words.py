from textstats.words import word_counts, words


def test_words_keep_case():
    assert words("Hi there, Bob's") == ["Hi", "there", "Bob's"]


def test_counts():
    assert word_counts("a b a") == {"a": 2, "b": 1}
