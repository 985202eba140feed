from pal import is_palindrome


def test_mixed():
    assert is_palindrome('Never odd or even')


def test_not():
    assert not is_palindrome('python')
