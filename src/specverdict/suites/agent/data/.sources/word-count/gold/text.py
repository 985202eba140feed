def count_words(s):
    return len(s.split())
