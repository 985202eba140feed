"""A second held-out set of plausible-wrong HumanEval solutions, written for specverdict.

The first set (``benchmarks/heldout_wrong.py``) has been read by the amplifier's designers since
it was scored, so its misses no longer measure mistakes nobody chose for the amplifier to catch.
This set was written after it, apart from the amplifier (``suites/function``'s input generators
and their design notes were not read to write it), for a final measurement; it must not be tuned
to the amplifier either. It has the first set's format (``Wrong``, ``KINDS``) and rules: every
solution here was written by hand, as a model might write it, passes HumanEval's own base tests
(``check`` in the dataset) and is wrong on its witness, a concrete input within the task's stated
domain on which its output differs from the project's reference (raising or not returning counts
as differing). The entries differ from the first set's: other tasks, or other bugs on the same
task. Tasks whose canonical solution is disputed on the witness's region (95, 97, 124, the decode
tasks, ties of ``find_closest_elements``, ``change_base(0, b)``, ``modp(n, 1)``, ...) and the bugs
of ``tests/unit/suites/solutions.py``'s ``PLAUSIBLY_WRONG`` are left out.

Kinds (``KINDS``, as in the first set):

* ``model-style``: hand-written mistakes a model makes (a wrong reading of the task, a library
  call or algorithm that does something else, ASCII-only text handling, regular expressions);
* ``type-boundary``: int against float (floating-point tolerance, true division, ``math.log10``),
  inclusive against exclusive bounds, square-root bounds of trial division;
* ``string-off-by-one``: an index or window one step short or long over a string (or a list
  read as one);
* ``empty-negative``: empty inputs, zero and negative numbers handled wrongly;
* ``order-ties``: order among equal values (``list.index`` on repeated values, duplicates
  collapsed by a dict, ties among the smallest values, tie keys).

``benchmarks/heldout_catch.py --set heldout_wrong2`` scores the set with the amplified tests;
``tests/integration/suites/test_heldout_set.py`` checks the data of both sets.
"""

from __future__ import annotations

try:
    from benchmarks.heldout_wrong import KINDS, Wrong
except ImportError:  # run as a script from the benchmarks directory
    from heldout_wrong import KINDS, Wrong  # type: ignore[no-redef, import-not-found]

__all__ = ["ENTRIES", "KINDS", "Wrong", "tasks"]

ENTRIES: tuple[Wrong, ...] = (
    Wrong(
        "HumanEval/0",
        "type-boundary",
        "a pair exactly threshold apart counts as close (<= instead of <)",
        """
from typing import List


def has_close_elements(numbers: List[float], threshold: float) -> bool:
    ordered = sorted(numbers)
    for a, b in zip(ordered, ordered[1:]):
        if b - a <= threshold:
            return True
    return False
""",
        ([1.0, 1.5], 0.5),
    ),
    Wrong(
        "HumanEval/1",
        "model-style",
        "starts a new group only at a space at depth zero, so adjacent groups stay joined",
        """
from typing import List


def separate_paren_groups(paren_string: str) -> List[str]:
    groups = []
    current = ''
    depth = 0
    for c in paren_string:
        if c == '(':
            depth += 1
            current += c
        elif c == ')':
            depth -= 1
            current += c
        elif c == ' ' and depth == 0 and current:
            groups.append(current)
            current = ''
    if current:
        groups.append(current)
    return groups
""",
        ("(())()",),
    ),
    Wrong(
        "HumanEval/4",
        "type-boundary",
        "the mean is taken with floor division",
        """
from typing import List


def mean_absolute_deviation(numbers: List[float]) -> float:
    mean = sum(numbers) // len(numbers)
    return sum(abs(x - mean) for x in numbers) / len(numbers)
""",
        ([1.0, 2.0, 4.0],),
    ),
    Wrong(
        "HumanEval/7",
        "model-style",
        "re.search with the substring as a pattern: '.' matches any character",
        """
import re
from typing import List


def filter_by_substring(strings: List[str], substring: str) -> List[str]:
    return [s for s in strings if re.search(substring, s)]
""",
        (["a.c", "abc"], "."),
    ),
    Wrong(
        "HumanEval/9",
        "empty-negative",
        "the running maximum starts at 0, above any all-negative prefix",
        """
from typing import List, Tuple


def rolling_max(numbers: List[int]) -> List[int]:
    result = []
    current = 0
    for n in numbers:
        current = max(current, n)
        result.append(current)
    return result
""",
        ([-3, -5, -1],),
    ),
    Wrong(
        "HumanEval/10",
        "model-style",
        "appends the mirror of all but the last character whenever the string is no palindrome",
        """
def is_palindrome(string: str) -> bool:
    \"\"\" Test if given string is a palindrome \"\"\"
    return string == string[::-1]


def make_palindrome(string: str) -> str:
    if is_palindrome(string):
        return string
    return string + string[:-1][::-1]
""",
        ("cata",),
    ),
    Wrong(
        "HumanEval/10",
        "model-style",
        "the palindrome helper is rewritten to ignore case",
        """
def is_palindrome(string: str) -> bool:
    \"\"\" Test if given string is a palindrome \"\"\"
    s = string.lower()
    return s == s[::-1]


def make_palindrome(string: str) -> str:
    for i in range(len(string)):
        if is_palindrome(string[i:]):
            return string + string[:i][::-1]
    return string
""",
        ("Aba",),
    ),
    Wrong(
        "HumanEval/12",
        "empty-negative",
        "returns best or None, so a list of empty strings gives None",
        """
from typing import List, Optional


def longest(strings: List[str]) -> Optional[str]:
    best = ''
    for s in strings:
        if len(s) > len(best):
            best = s
    return best or None
""",
        ([""],),
    ),
    Wrong(
        "HumanEval/13",
        "empty-negative",
        "Euclid by subtraction never ends when one argument is zero",
        """
def greatest_common_divisor(a: int, b: int) -> int:
    while a != b:
        if a > b:
            a -= b
        else:
            b -= a
    return a
""",
        (0, 7),
    ),
    Wrong(
        "HumanEval/25",
        "type-boundary",
        "divides the number down with /=, so large inputs turn into inexact floats",
        """
from typing import List


def factorize(n: int) -> List[int]:
    factors = []
    d = 2
    while d * d <= n:
        while n % d == 0:
            factors.append(d)
            n /= d
        d += 1
    if n > 1:
        factors.append(int(n))
    return factors
""",
        (3**40,),
    ),
    Wrong(
        "HumanEval/27",
        "model-style",
        "flips only ASCII letters by code-point arithmetic",
        """
def flip_case(string: str) -> str:
    result = []
    for ch in string:
        if 'a' <= ch <= 'z':
            result.append(chr(ord(ch) - 32))
        elif 'A' <= ch <= 'Z':
            result.append(chr(ord(ch) + 32))
        else:
            result.append(ch)
    return ''.join(result)
""",
        ("Émile",),
    ),
    Wrong(
        "HumanEval/29",
        "model-style",
        "compares the prefix case-insensitively",
        """
from typing import List


def filter_by_prefix(strings: List[str], prefix: str) -> List[str]:
    prefix = prefix.lower()
    return [s for s in strings if s.lower().startswith(prefix)]
""",
        (["Apple", "apple"], "a"),
    ),
    Wrong(
        "HumanEval/29",
        "model-style",
        "re.match with the prefix as a pattern: '+' is a repetition",
        """
import re
from typing import List


def filter_by_prefix(strings: List[str], prefix: str) -> List[str]:
    return [s for s in strings if re.match(prefix, s)]
""",
        (["a+b", "aab"], "a+"),
    ),
    Wrong(
        "HumanEval/31",
        "empty-negative",
        "special-cases n == 1 only, so 0 passes as prime",
        """
def is_prime(n):
    if n == 1:
        return False
    for k in range(2, int(n ** 0.5) + 1):
        if n % k == 0:
            return False
    return True
""",
        (0,),
    ),
    Wrong(
        "HumanEval/31",
        "type-boundary",
        "odd trial divisors stop below int(sqrt(n)), so the square of a prime passes",
        """
def is_prime(n):
    if n < 2:
        return False
    if n % 2 == 0:
        return n == 2
    for k in range(3, int(n ** 0.5), 2):
        if n % k == 0:
            return False
    return True
""",
        (25,),
    ),
    Wrong(
        "HumanEval/32",
        "model-style",
        "bisection on the fixed interval [-100, 100], which need not hold the zero",
        """
import math


def poly(xs: list, x: float):
    return sum([coeff * math.pow(x, i) for i, coeff in enumerate(xs)])


def find_zero(xs: list):
    lo, hi = -100.0, 100.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if poly(xs, lo) * poly(xs, mid) <= 0:
            hi = mid
        else:
            lo = mid
    return (lo + hi) / 2
""",
        ([-1000, 1],),
    ),
    Wrong(
        "HumanEval/32",
        "model-style",
        "Newton's method from 0, which cycles between 0 and 1 on x^3 - 2x + 2",
        """
import math


def poly(xs: list, x: float):
    return sum([coeff * math.pow(x, i) for i, coeff in enumerate(xs)])


def find_zero(xs: list):
    x = 0.0
    for _ in range(1000):
        fx = poly(xs, x)
        dfx = sum(i * c * x ** (i - 1) for i, c in enumerate(xs) if i > 0)
        if dfx == 0:
            break
        x = x - fx / dfx
    return x
""",
        ([2, -2, 0, 1],),
    ),
    Wrong(
        "HumanEval/32",
        "type-boundary",
        "bisects down to 1e-14, below the float spacing near a zero at 1000: never ends",
        """
import math


def poly(xs: list, x: float):
    return sum([coeff * math.pow(x, i) for i, coeff in enumerate(xs)])


def find_zero(xs: list):
    lo, hi = -1.0, 1.0
    while poly(xs, lo) * poly(xs, hi) > 0:
        lo *= 2
        hi *= 2
    while hi - lo > 1e-14:
        mid = (lo + hi) / 2
        if poly(xs, lo) * poly(xs, mid) <= 0:
            hi = mid
        else:
            lo = mid
    return lo
""",
        ([-1000, 1],),
    ),
    Wrong(
        "HumanEval/33",
        "order-ties",
        "finds positions with l.index, so a repeated value takes its first position",
        """
def sort_third(l: list):
    thirds = sorted(x for x in l if l.index(x) % 3 == 0)
    result = []
    for x in l:
        if l.index(x) % 3 == 0:
            result.append(thirds.pop(0))
        else:
            result.append(x)
    return result
""",
        ([3, 1, 2, 1],),
    ),
    Wrong(
        "HumanEval/35",
        "empty-negative",
        "the running maximum starts at 0, so an all-negative list gives 0",
        """
def max_element(l: list):
    best = 0
    for x in l:
        if x > best:
            best = x
    return best
""",
        ([-3, -1, -2],),
    ),
    Wrong(
        "HumanEval/37",
        "order-ties",
        "finds even positions with l.index, so a repeated value takes its first position",
        """
def sort_even(l: list):
    evens = sorted(x for x in l if l.index(x) % 2 == 0)
    result = []
    for x in l:
        if l.index(x) % 2 == 0:
            result.append(evens.pop(0))
        else:
            result.append(x)
    return result
""",
        ([3, 1, 1, 0],),
    ),
    Wrong(
        "HumanEval/45",
        "model-style",
        "rounds the area to two decimals",
        """
def triangle_area(a, h):
    return round(a * h / 2, 2)
""",
        (3, 0.333),
    ),
    Wrong(
        "HumanEval/48",
        "string-off-by-one",
        "compares text[:half] with text[-half:] reversed: for one character -0 takes all",
        """
def is_palindrome(text: str):
    half = len(text) // 2
    return text[:half] == text[-half:][::-1]
""",
        ("a",),
    ),
    Wrong(
        "HumanEval/48",
        "string-off-by-one",
        "skips the middle character also for even lengths",
        """
def is_palindrome(text: str):
    mid = len(text) // 2
    return text[:mid] == text[mid + 1:][::-1]
""",
        ("abba",),
    ),
    Wrong(
        "HumanEval/55",
        "empty-negative",
        "iterates from fib(1) = fib(2) = 1, so fib(0) is 1",
        """
def fib(n: int):
    a, b = 1, 1
    for _ in range(n - 1):
        a, b = b, a + b
    return a
""",
        (0,),
    ),
    Wrong(
        "HumanEval/59",
        "type-boundary",
        "trial division runs while i * i < n, so the square of a prime is returned whole",
        """
def largest_prime_factor(n: int):
    largest = 1
    i = 2
    while i * i < n:
        while n % i == 0:
            largest = i
            n //= i
        i += 1
    if n > 1:
        largest = max(largest, n)
    return largest
""",
        (49,),
    ),
    Wrong(
        "HumanEval/62",
        "empty-negative",
        "drops trailing zero coefficients of the derivative",
        """
def derivative(xs: list):
    result = [i * c for i, c in enumerate(xs)][1:]
    while result and result[-1] == 0:
        result.pop()
    return result
""",
        ([5, 3, 0],),
    ),
    Wrong(
        "HumanEval/64",
        "model-style",
        "counts every y of a word that ends in y",
        """
def vowels_count(s):
    s = s.lower()
    count = sum(1 for c in s if c in 'aeiou')
    if s.endswith('y'):
        count += s.count('y')
    return count
""",
        ("yearly",),
    ),
    Wrong(
        "HumanEval/64",
        "order-ties",
        "tests the final y with s.index('y'), which finds an earlier y first",
        """
def vowels_count(s):
    low = s.lower()
    count = sum(1 for c in low if c in 'aeiou')
    if 'y' in low and low.index('y') == len(low) - 1:
        count += 1
    return count
""",
        ("yummy",),
    ),
    Wrong(
        "HumanEval/66",
        "model-style",
        "upper-case letters tested with 'A' <= c <= 'Z'",
        """
def digitSum(s):
    return sum(ord(c) for c in s if 'A' <= c <= 'Z')
""",
        ("aÀb",),
    ),
    Wrong(
        "HumanEval/71",
        "model-style",
        "rounds half up with int(area * 100 + 0.5) instead of round()",
        """
def triangle_area(a, b, c):
    if a + b <= c or a + c <= b or b + c <= a:
        return -1
    s = (a + b + c) / 2
    area = (s * (s - a) * (s - b) * (s - c)) ** 0.5
    return int(area * 100 + 0.5) / 100
""",
        (1.75, 3.75, 5.0),
    ),
    Wrong(
        "HumanEval/72",
        "string-off-by-one",
        "the palindrome test skips the middle element also for even lengths",
        """
def will_it_fly(q,w):
    mid = len(q) // 2
    balanced = q[:mid] == q[mid + 1:][::-1]
    return balanced and sum(q) <= w
""",
        ([4, 4], 10),
    ),
    Wrong(
        "HumanEval/74",
        "model-style",
        "counts only the letters of the strings as chars",
        """
def total_match(lst1, lst2):
    def letters(lst):
        return sum(1 for s in lst for ch in s if ch.isalpha())

    return lst1 if letters(lst1) <= letters(lst2) else lst2
""",
        (["1234"], ["ab"]),
    ),
    Wrong(
        "HumanEval/76",
        "model-style",
        "special-cases x == 1 first; for n == 1 the power never grows and the loop never ends",
        """
def is_simple_power(x, n):
    if x == 1:
        return True
    power = n
    while power < x:
        power *= n
    return power == x
""",
        (3, 1),
    ),
    Wrong(
        "HumanEval/76",
        "empty-negative",
        "divides x by n while it divides evenly: x = 0 never ends",
        """
def is_simple_power(x, n):
    if n == 1:
        return x == 1
    while x % n == 0:
        x //= n
    return x == 1
""",
        (0, 2),
    ),
    Wrong(
        "HumanEval/76",
        "type-boundary",
        "compares math.pow(n, k), a float, with the integer x",
        """
import math


def is_simple_power(x, n):
    if n == 1:
        return x == 1
    k = 0
    while math.pow(n, k) < x:
        k += 1
    return math.pow(n, k) == x
""",
        (3**34, 3),
    ),
    Wrong(
        "HumanEval/77",
        "type-boundary",
        "accepts a float cube root within 1e-9 of an integer",
        """
def iscube(a):
    root = abs(a) ** (1 / 3)
    return abs(root - round(root)) < 1e-9
""",
        (10**18 + 1,),
    ),
    Wrong(
        "HumanEval/82",
        "type-boundary",
        "odd trial divisors run while i * i < n, so a length of 9 passes as prime",
        """
def prime_length(string):
    n = len(string)
    if n < 2:
        return False
    if n % 2 == 0:
        return n == 2
    i = 3
    while i * i < n:
        if n % i == 0:
            return False
        i += 2
    return True
""",
        ("abcdefghi",),
    ),
    Wrong(
        "HumanEval/88",
        "model-style",
        "takes the parity from the sorted array's ends, not the given array's",
        """
def sort_array(array):
    result = sorted(array)
    if result and (result[0] + result[-1]) % 2 == 0:
        result.reverse()
    return result
""",
        ([2, 1, 3],),
    ),
    Wrong(
        "HumanEval/89",
        "model-style",
        "shifts every character with islower(), accented letters included",
        """
def encrypt(s):
    out = []
    for c in s:
        if c.islower():
            out.append(chr((ord(c) - ord('a') + 4) % 26 + ord('a')))
        else:
            out.append(c)
    return ''.join(out)
""",
        ("café",),
    ),
    Wrong(
        "HumanEval/90",
        "order-ties",
        "returns None when the two smallest values are equal, even if a larger one follows",
        """
import heapq


def next_smallest(lst):
    if len(lst) < 2:
        return None
    first, second = heapq.nsmallest(2, lst)
    return None if first == second else second
""",
        ([1, 1, 2],),
    ),
    Wrong(
        "HumanEval/90",
        "order-ties",
        "returns sorted(lst)[1] once two distinct values exist, which may repeat the smallest",
        """
def next_smallest(lst):
    if len(set(lst)) < 2:
        return None
    return sorted(lst)[1]
""",
        ([1, 1, 2],),
    ),
    Wrong(
        "HumanEval/94",
        "type-boundary",
        "odd trial divisors stop below int(sqrt(n)), so 9 counts as the largest prime",
        """
def skjkasdkd(lst):
    def is_prime(n):
        if n < 2:
            return False
        if n % 2 == 0:
            return n == 2
        for d in range(3, int(n ** 0.5), 2):
            if n % d == 0:
                return False
        return True

    primes = [x for x in lst if is_prime(x)]
    if not primes:
        return 0
    return sum(int(d) for d in str(max(primes)))
""",
        ([9, 7, 4],),
    ),
    Wrong(
        "HumanEval/101",
        "model-style",
        "removes the commas instead of splitting at them",
        """
def words_string(s):
    return s.replace(',', '').split()
""",
        ("one,two",),
    ),
    Wrong(
        "HumanEval/101",
        "string-off-by-one",
        "keeps the final word only when start < len(s) - 1, dropping a one-letter last word",
        """
def words_string(s):
    words = []
    start = 0
    for i, ch in enumerate(s):
        if ch in ', ':
            if i > start:
                words.append(s[start:i])
            start = i + 1
    if start < len(s) - 1:
        words.append(s[start:])
    return words
""",
        ("x, y",),
    ),
    Wrong(
        "HumanEval/104",
        "type-boundary",
        "splits off digits with int(n / 10), a float division that rounds large numbers",
        """
def unique_digits(x):
    def all_odd(n):
        while n > 0:
            if n % 10 % 2 == 0:
                return False
            n = int(n / 10)
        return True

    return sorted(n for n in x if all_odd(n))
""",
        ([99999999999999999, 13],),
    ),
    Wrong(
        "HumanEval/106",
        "empty-negative",
        "starts the list with f(1) = 1, so n = 0 gives [1]",
        """
def f(n):
    result = [1]
    factorial = 1
    for i in range(2, n + 1):
        factorial *= i
        if i % 2 == 0:
            result.append(factorial)
        else:
            result.append(i * (i + 1) // 2)
    return result
""",
        (0,),
    ),
    Wrong(
        "HumanEval/108",
        "string-off-by-one",
        "adds the digits of s[1:] after the signed first digit, counting that digit again",
        """
def count_nums(arr):
    def signed_digit_sum(n):
        s = str(n)
        if s[0] == '-':
            return -int(s[1]) + sum(int(c) for c in s[1:])
        return sum(int(c) for c in s)

    return sum(1 for n in arr if signed_digit_sum(n) > 0)
""",
        ([-21],),
    ),
    Wrong(
        "HumanEval/112",
        "string-off-by-one",
        "compares kept[:half] with kept[-half:] reversed: for one character -0 takes all",
        """
def reverse_delete(s,c):
    kept = ''.join(ch for ch in s if ch not in c)
    half = len(kept) // 2
    return (kept, kept[:half] == kept[-half:][::-1])
""",
        ("ab", "b"),
    ),
    Wrong(
        "HumanEval/112",
        "model-style",
        "deletes with a regular-expression class built from c, where '-' makes a range",
        """
import re


def reverse_delete(s,c):
    if c:
        s = re.sub('[' + c + ']', '', s)
    return (s, s == s[::-1])
""",
        ("abc", "a-c"),
    ),
    Wrong(
        "HumanEval/113",
        "model-style",
        "counts odd digits by membership in '13579', missing other Unicode digits",
        """
def odd_count(lst):
    result = []
    for s in lst:
        n = sum(1 for ch in s if ch in '13579')
        result.append(f"the number of odd elements {n}n the str{n}ng {n} of the {n}nput.")
    return result
""",
        (["١٢٣"],),
    ),
    Wrong(
        "HumanEval/117",
        "order-ties",
        "keeps the words in a dict, so a repeated word is returned once",
        """
def select_words(s, n):
    counts = {}
    for word in s.split():
        counts[word] = sum(1 for ch in word if ch.lower() not in 'aeiou')
    return [word for word, k in counts.items() if k == n]
""",
        ("bob and bob", 2),
    ),
    Wrong(
        "HumanEval/117",
        "model-style",
        "split(' ') keeps empty words between two spaces, and they have zero consonants",
        """
def select_words(s, n):
    result = []
    for word in s.split(' '):
        consonants = sum(1 for ch in word if ch.lower() not in 'aeiou')
        if consonants == n:
            result.append(word)
    return result
""",
        ("a  b", 0),
    ),
    Wrong(
        "HumanEval/131",
        "type-boundary",
        "splits off digits with int(n / 10), a float division that rounds large numbers",
        """
def digits(n):
    product = 1
    has_odd = False
    while n > 0:
        d = n % 10
        if d % 2 == 1:
            product *= d
            has_odd = True
        n = int(n / 10)
    return product if has_odd else 0
""",
        (29999999999999999,),
    ),
    Wrong(
        "HumanEval/133",
        "type-boundary",
        "rounds each number to six places before the ceiling",
        """
import math


def sum_squares(lst):
    return sum(math.ceil(round(x, 6)) ** 2 for x in lst)
""",
        ([2.0000001],),
    ),
    Wrong(
        "HumanEval/137",
        "type-boundary",
        "tests equality on the strings, so 1 and 1.0 differ",
        """
def compare_one(a, b):
    sa = str(a).replace(',', '.')
    sb = str(b).replace(',', '.')
    if sa == sb:
        return None
    return a if float(sa) > float(sb) else b
""",
        (1, 1.0),
    ),
    Wrong(
        "HumanEval/137",
        "type-boundary",
        "tests equality with math.isclose, so close but different values are equal",
        """
import math


def compare_one(a, b):
    def value(x):
        return float(x.replace(',', '.')) if isinstance(x, str) else float(x)

    va, vb = value(a), value(b)
    if math.isclose(va, vb):
        return None
    return a if va > vb else b
""",
        (1, "1,0000000001"),
    ),
    Wrong(
        "HumanEval/140",
        "string-off-by-one",
        "the run of spaces at the end is written as underscores, without the > 2 check",
        """
def fix_spaces(text):
    result = []
    run = 0
    for ch in text:
        if ch == ' ':
            run += 1
        else:
            if run > 2:
                result.append('-')
            else:
                result.append('_' * run)
            run = 0
            result.append(ch)
    result.append('_' * run)
    return ''.join(result)
""",
        ("Hello   ",),
    ),
    Wrong(
        "HumanEval/141",
        "model-style",
        "compares the extension case-insensitively",
        """
def file_name_check(file_name):
    if file_name.count('.') != 1:
        return 'No'
    name, ext = file_name.split('.')
    if not name or not name[0].isalpha():
        return 'No'
    if ext.lower() not in ('txt', 'exe', 'dll'):
        return 'No'
    if sum(ch.isdigit() for ch in file_name) > 3:
        return 'No'
    return 'Yes'
""",
        ("notes.TXT",),
    ),
    Wrong(
        "HumanEval/143",
        "model-style",
        "a hard-coded set of prime lengths that stops at 19",
        """
def words_in_sentence(sentence):
    primes = {2, 3, 5, 7, 11, 13, 17, 19}
    return ' '.join(word for word in sentence.split() if len(word) in primes)
""",
        ("an electroencephalographic test",),
    ),
    Wrong(
        "HumanEval/144",
        "type-boundary",
        "accepts a float product within 1e-9 of an integer",
        """
def simplify(x, n):
    a, b = map(int, x.split('/'))
    c, d = map(int, n.split('/'))
    value = a * c / (b * d)
    return abs(value - round(value)) < 1e-9
""",
        ("10000000001/10000000000", "1/1"),
    ),
    Wrong(
        "HumanEval/145",
        "type-boundary",
        "splits off digits with int(n / 10), a float division that rounds large numbers",
        """
def order_by_points(nums):
    def points(n):
        sign = -1 if n < 0 else 1
        n = abs(n)
        digits = []
        while n:
            digits.append(n % 10)
            n = int(n / 10)
        if not digits:
            return 0
        digits[-1] *= sign
        return sum(digits)

    return sorted(nums, key=points)
""",
        ([99, 99999999999999999],),
    ),
    Wrong(
        "HumanEval/146",
        "type-boundary",
        "the first digit from int(math.log10(num)), which rounds up just below a power of ten",
        """
import math


def specialFilter(nums):
    count = 0
    for num in nums:
        if num > 10:
            first = num // 10 ** int(math.log10(num))
            last = num % 10
            if first % 2 == 1 and last % 2 == 1:
                count += 1
    return count
""",
        ([999999999999999],),
    ),
    Wrong(
        "HumanEval/150",
        "type-boundary",
        "odd trial divisors run while i * i < n, so 9 passes as prime",
        """
def x_or_y(n, x, y):
    if n < 2:
        return y
    if n % 2 == 0:
        return x if n == 2 else y
    i = 3
    while i * i < n:
        if n % i == 0:
            return y
        i += 2
    return x
""",
        (9, 1, 0),
    ),
    Wrong(
        "HumanEval/153",
        "model-style",
        "counts upper- and lower-case letters with ASCII ranges",
        """
def Strongest_Extension(class_name, extensions):
    def strength(ext):
        cap = sum(1 for ch in ext if 'A' <= ch <= 'Z')
        sm = sum(1 for ch in ext if 'a' <= ch <= 'z')
        return cap - sm

    best = extensions[0]
    for ext in extensions[1:]:
        if strength(ext) > strength(best):
            best = ext
    return class_name + '.' + best
""",
        ("Cls", ["Ab", "ÉÀ"]),
    ),
    Wrong(
        "HumanEval/155",
        "type-boundary",
        "splits off digits with int(num / 10), a float division that rounds large numbers",
        """
def even_odd_count(num):
    num = abs(num)
    if num == 0:
        return (1, 0)
    even = odd = 0
    while num > 0:
        if num % 10 % 2 == 0:
            even += 1
        else:
            odd += 1
        num = int(num / 10)
    return (even, odd)
""",
        (99999999999999999,),
    ),
    Wrong(
        "HumanEval/157",
        "type-boundary",
        "compares the squares with math.isclose",
        """
import math


def right_angle_triangle(a, b, c):
    x, y, z = sorted((a, b, c))
    return math.isclose(x * x + y * y, z * z)
""",
        (2000, 2000000, 2000001),
    ),
    Wrong(
        "HumanEval/158",
        "order-ties",
        "max with negated character codes as the tie key ranks a word above its own prefix",
        """
def find_max(words):
    return max(words, key=lambda w: (len(set(w)), [-ord(ch) for ch in w]))
""",
        (["aba", "ab"],),
    ),
    Wrong(
        "HumanEval/160",
        "model-style",
        "gives ** the precedence of * and //, evaluating them left to right",
        """
def do_algebra(operator, operand):
    values = [operand[0]]
    pending = []
    for op, num in zip(operator, operand[1:]):
        if op == '*':
            values[-1] = values[-1] * num
        elif op == '//':
            values[-1] = values[-1] // num
        elif op == '**':
            values[-1] = values[-1] ** num
        else:
            pending.append(op)
            values.append(num)
    result = values[0]
    for op, num in zip(pending, values[1:]):
        result = result + num if op == '+' else result - num
    return result
""",
        (["*", "**"], [2, 3, 2]),
    ),
    Wrong(
        "HumanEval/163",
        "type-boundary",
        "the upper bound is exclusive",
        """
def generate_integers(a, b):
    lo, hi = min(a, b), max(a, b)
    return [i for i in range(lo, hi) if i % 2 == 0 and i < 10]
""",
        (2, 8),
    ),
)


def tasks() -> set[str]:
    """The task ids the set covers."""
    return {e.task_id for e in ENTRIES}
