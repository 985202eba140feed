from text import count_words


def test_spaces():
    assert count_words('a  b c') == 3


def test_newlines():
    assert count_words('one\ntwo\tthree') == 3


def test_empty():
    assert count_words('') == 0
