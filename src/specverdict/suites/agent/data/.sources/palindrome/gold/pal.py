def is_palindrome(s):
    t = ''.join(s.split()).lower()
    return t == t[::-1]
