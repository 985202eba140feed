from text_stats import word_frequencies


def test_counts_and_case():
    assert word_frequencies("The cat the\nDOG  cat") == {"the": 2, "cat": 2, "dog": 1}


def test_single_and_empty():
    assert word_frequencies("hello") == {"hello": 1}
    assert word_frequencies("") == {}
