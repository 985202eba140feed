from textstats.words import most_common, word_counts


def test_case_is_ignored():
    assert word_counts("The cat saw the dog")["the"] == 2
    assert most_common("The cat saw the dog") == [("the", 2)]
