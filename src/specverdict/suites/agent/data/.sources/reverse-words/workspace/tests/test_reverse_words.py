from words import reverse_words


def test_three():
    assert reverse_words('one two three') == 'three two one'


def test_one():
    assert reverse_words('solo') == 'solo'
