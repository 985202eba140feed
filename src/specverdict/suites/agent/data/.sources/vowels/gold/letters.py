def count_vowels(s):
    return sum(ch in 'aeiou' for ch in s.lower())
