def count_vowels(s):
    return sum(ch in 'aeio' for ch in s)
