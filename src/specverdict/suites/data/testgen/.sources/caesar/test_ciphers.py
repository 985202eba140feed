from ciphers import caesar


def test_lower_wraps():
    assert caesar("abc xyz", 3) == "def abc"


def test_mixed_case_and_punctuation():
    assert caesar("Hello, World!", 1) == "Ifmmp, Xpsme!"


def test_negative_and_large():
    assert caesar("abc", -1) == "zab"
    assert caesar("z", 27) == "a"
