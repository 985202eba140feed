"""A held-out set of plausible-wrong HumanEval solutions, written for specverdict.

Every solution here was written by hand for this project, as a model might write it: each one
passes HumanEval's own base tests (``check`` in the dataset) and is wrong on its witness, a
concrete input within the task's stated domain on which its output differs from the project's
reference (the canonical solution, or its correction in ``REFERENCE_FIXES``). The set is built
apart from the amplifier (``suites/function``'s input generators were not read to write it) and
must not be tuned to it: it measures the amplified tests' catch rate on mistakes nobody chose
for them to catch. Tasks whose canonical solution is disputed on the witness's region (95, 97,
124, negative ``gcd``, ``change_base(0, b)``, ...) and the bugs of ``tests/suites/solutions.py``'s
``PLAUSIBLY_WRONG`` are left out.

Kinds (``KINDS``):

* ``model-style``: hand-written mistakes a model makes (a wrong reading of the task, a library
  call that does something else, case folding, regular expressions, splitting);
* ``type-boundary``: int against float, inclusive against exclusive bounds, 0- against 1-based
  indexing;
* ``string-off-by-one``: an index or window one step short or long in a loop over a string;
* ``empty-negative``: empty inputs, zero and negative numbers handled wrongly;
* ``order-ties``: order among equal keys (stable sorting, first against last of equal maxima,
  set and dict iteration order, ties broken the wrong way).

``benchmarks/heldout_catch.py`` scores the set with the amplified tests;
``tests/integration/suites/test_heldout_set.py`` checks the data (base tests pass, witnesses
differ from the reference).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

KINDS = ("model-style", "type-boundary", "string-off-by-one", "empty-negative", "order-ties")


@dataclass(frozen=True, slots=True)
class Wrong:
    """One plausible-wrong solution: the complete function (``solution``, the prompt's
    signature) and one input (``witness``, the arguments) on which it differs from the
    reference."""

    task_id: str
    kind: str
    description: str
    solution: str
    witness: tuple[Any, ...]


ENTRIES: tuple[Wrong, ...] = (
    Wrong(
        "HumanEval/2",
        "type-boundary",
        "reads the decimal part from str(number), which has no '.' in exponent notation",
        """
def truncate_number(number: float) -> float:
    whole, _, frac = str(number).partition(".")
    return float("0." + frac) if frac else 0.0
""",
        (1e-05,),
    ),
    Wrong(
        "HumanEval/4",
        "model-style",
        "deviation taken around the median instead of the mean",
        """
from typing import List


def mean_absolute_deviation(numbers: List[float]) -> float:
    ordered = sorted(numbers)
    mid = len(ordered) // 2
    if len(ordered) % 2:
        centre = ordered[mid]
    else:
        centre = (ordered[mid - 1] + ordered[mid]) / 2
    return sum(abs(x - centre) for x in numbers) / len(numbers)
""",
        ([1.0, 2.0, 6.0],),
    ),
    Wrong(
        "HumanEval/6",
        "model-style",
        "split(' ') keeps an empty group between two spaces and reports depth 0 for it",
        """
from typing import List


def parse_nested_parens(paren_string: str) -> List[int]:
    result = []
    for group in paren_string.split(" "):
        depth = best = 0
        for ch in group:
            if ch == "(":
                depth += 1
                best = max(best, depth)
            elif ch == ")":
                depth -= 1
        result.append(best)
    return result
""",
        ("() ((()))  (())",),
    ),
    Wrong(
        "HumanEval/7",
        "model-style",
        "matches the substring case-insensitively",
        """
from typing import List


def filter_by_substring(strings: List[str], substring: str) -> List[str]:
    needle = substring.lower()
    return [s for s in strings if needle in s.lower()]
""",
        (["Apple", "banana", "cherry"], "a"),
    ),
    Wrong(
        "HumanEval/13",
        "empty-negative",
        "trial division from min(a, b) down: a zero argument gives 1",
        """
def greatest_common_divisor(a: int, b: int) -> int:
    for d in range(min(a, b), 0, -1):
        if a % d == 0 and b % d == 0:
            return d
    return 1
""",
        (0, 6),
    ),
    Wrong(
        "HumanEval/16",
        "model-style",
        "casefold() instead of lower(): 'ß' folds to 'ss' and merges with 's'",
        """
def count_distinct_characters(string: str) -> int:
    return len(set(string.casefold()))
""",
        ("Straße",),
    ),
    Wrong(
        "HumanEval/18",
        "model-style",
        "a regular-expression lookahead built from the unescaped substring",
        """
import re


def how_many_times(string: str, substring: str) -> int:
    return len(re.findall(f"(?={substring})", string))
""",
        ("a.b.c", "."),
    ),
    Wrong(
        "HumanEval/18",
        "string-off-by-one",
        "start positions run over range(len(string)), one short for the empty substring",
        """
def how_many_times(string: str, substring: str) -> int:
    count = 0
    for i in range(len(string)):
        if string.startswith(substring, i):
            count += 1
    return count
""",
        ("abc", ""),
    ),
    Wrong(
        "HumanEval/19",
        "order-ties",
        "deduplicates the words through a set",
        """
def sort_numbers(numbers: str) -> str:
    names = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
    words = set(numbers.split())
    return " ".join(sorted(words, key=names.index))
""",
        ("five one five",),
    ),
    Wrong(
        "HumanEval/19",
        "model-style",
        "split(' ') keeps an empty word between two spaces, which has no value",
        """
def sort_numbers(numbers: str) -> str:
    if not numbers:
        return ""
    value = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4,
             "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}
    return " ".join(sorted(numbers.split(" "), key=lambda w: value[w]))
""",
        ("three  one",),
    ),
    Wrong(
        "HumanEval/21",
        "model-style",
        "rounds each rescaled value to two decimals",
        """
from typing import List


def rescale_to_unit(numbers: List[float]) -> List[float]:
    lo, hi = min(numbers), max(numbers)
    return [round((x - lo) / (hi - lo), 2) for x in numbers]
""",
        ([0.0, 1.0, 3.0],),
    ),
    Wrong(
        "HumanEval/22",
        "type-boundary",
        "type(v) is int drops booleans, which isinstance(v, int) keeps",
        """
from typing import List, Any


def filter_integers(values: List[Any]) -> List[int]:
    return [v for v in values if type(v) is int]
""",
        ([True, 2, "x"],),
    ),
    Wrong(
        "HumanEval/22",
        "type-boundary",
        "keeps floats with an integral value such as 2.0",
        """
from typing import List, Any


def filter_integers(values: List[Any]) -> List[int]:
    out = []
    for v in values:
        if isinstance(v, (int, float)) and float(v).is_integer():
            out.append(v)
    return out
""",
        ([1, 2.0, "3"],),
    ),
    Wrong(
        "HumanEval/26",
        "order-ties",
        "returns the survivors in set iteration order instead of input order",
        """
from typing import List


def remove_duplicates(numbers: List[int]) -> List[int]:
    counts = {}
    for n in numbers:
        counts[n] = counts.get(n, 0) + 1
    return [n for n in set(numbers) if counts[n] == 1]
""",
        ([3, 1, 2, 1],),
    ),
    Wrong(
        "HumanEval/26",
        "order-ties",
        "returns the survivors sorted instead of in input order",
        """
from typing import List


def remove_duplicates(numbers: List[int]) -> List[int]:
    return sorted(n for n in numbers if numbers.count(n) == 1)
""",
        ([3, 1, 2, 1],),
    ),
    Wrong(
        "HumanEval/29",
        "model-style",
        "tests containment instead of a prefix",
        """
from typing import List


def filter_by_prefix(strings: List[str], prefix: str) -> List[str]:
    return [s for s in strings if prefix in s]
""",
        (["abc", "cab"], "ab"),
    ),
    Wrong(
        "HumanEval/29",
        "string-off-by-one",
        "compares the prefix character by character past the end of a shorter string",
        """
from typing import List


def filter_by_prefix(strings: List[str], prefix: str) -> List[str]:
    result = []
    for s in strings:
        if all(s[i] == prefix[i] for i in range(len(prefix))):
            result.append(s)
    return result
""",
        (["ab", "abcd"], "abc"),
    ),
    Wrong(
        "HumanEval/34",
        "order-ties",
        "returns the set's iteration order, never sorted",
        """
def unique(l: list):
    return list(set(l))
""",
        ([8, 1, 8],),
    ),
    Wrong(
        "HumanEval/34",
        "type-boundary",
        "compares each value with s[i - 1], which wraps to the last one at i = 0",
        """
def unique(l: list):
    s = sorted(l)
    return [x for i, x in enumerate(s) if x != s[i - 1]]
""",
        ([4, 4],),
    ),
    Wrong(
        "HumanEval/34",
        "empty-negative",
        "appends s[-1] unconditionally: an empty list raises",
        """
def unique(l: list):
    s = sorted(l)
    out = [s[i] for i in range(len(s) - 1) if s[i] != s[i + 1]]
    out.append(s[-1])
    return out
""",
        ([],),
    ),
    Wrong(
        "HumanEval/35",
        "empty-negative",
        "compares by absolute value",
        """
def max_element(l: list):
    best = l[0]
    for x in l[1:]:
        if abs(x) > abs(best):
            best = x
    return best
""",
        ([-7, 3],),
    ),
    Wrong(
        "HumanEval/35",
        "type-boundary",
        "the loop starts at index 1, so the first element is never a candidate",
        """
def max_element(l: list):
    m = float("-inf")
    for i in range(1, len(l)):
        if l[i] > m:
            m = l[i]
    return m
""",
        ([9, 1, 2],),
    ),
    Wrong(
        "HumanEval/40",
        "model-style",
        "two-pointer scan starts its left pointer at i, reusing the first element",
        """
def triples_sum_to_zero(l: list):
    s = sorted(l)
    n = len(s)
    for i in range(n - 2):
        lo, hi = i, n - 1
        while lo < hi:
            total = s[i] + s[lo] + s[hi]
            if total == 0:
                return True
            if total < 0:
                lo += 1
            else:
                hi -= 1
    return False
""",
        ([-2, 4, 9],),
    ),
    Wrong(
        "HumanEval/40",
        "model-style",
        "looks the third value up in the whole list, which may be one of the pair",
        """
def triples_sum_to_zero(l: list):
    for i in range(len(l)):
        for j in range(i + 1, len(l)):
            if -(l[i] + l[j]) in l:
                return True
    return False
""",
        ([3, -6, 10],),
    ),
    Wrong(
        "HumanEval/43",
        "model-style",
        "set lookup that skips zero, so a pair of zeros is missed",
        """
def pairs_sum_to_zero(l):
    seen = set(l)
    return any(-x in seen for x in seen if x != 0)
""",
        ([0, 4, 0],),
    ),
    Wrong(
        "HumanEval/46",
        "type-boundary",
        "rolls the window n - 3 times from fib4(3): n = 2 gets fib4(3)",
        """
def fib4(n: int):
    a, b, c, d = 0, 0, 2, 0
    for _ in range(n - 3):
        a, b, c, d = b, c, d, a + b + c + d
    return d
""",
        (2,),
    ),
    Wrong(
        "HumanEval/48",
        "model-style",
        "compares case-insensitively",
        """
def is_palindrome(text: str):
    t = text.lower()
    return t == t[::-1]
""",
        ("Aba",),
    ),
    Wrong(
        "HumanEval/48",
        "model-style",
        "ignores spaces and punctuation, as for sentence palindromes",
        """
def is_palindrome(text: str):
    t = [c for c in text if c.isalnum()]
    return t == t[::-1]
""",
        ("ab a",),
    ),
    Wrong(
        "HumanEval/52",
        "empty-negative",
        "max() of an empty list raises",
        """
def below_threshold(l: list, t: int):
    return max(l) < t
""",
        ([], 5),
    ),
    Wrong(
        "HumanEval/54",
        "model-style",
        "compares the characters case-insensitively",
        """
def same_chars(s0: str, s1: str):
    return set(s0.lower()) == set(s1.lower())
""",
        ("abc", "CBA"),
    ),
    Wrong(
        "HumanEval/57",
        "order-ties",
        "direction taken from the first two elements, which may be equal",
        """
def monotonic(l: list):
    if len(l) < 2:
        return True
    increasing = l[1] >= l[0]
    for a, b in zip(l, l[1:]):
        if increasing and b < a:
            return False
        if not increasing and b > a:
            return False
    return True
""",
        ([3, 3, 1],),
    ),
    Wrong(
        "HumanEval/57",
        "empty-negative",
        "picks the direction from l[0] and l[-1]: an empty list raises",
        """
def monotonic(l: list):
    if l[0] <= l[-1]:
        return all(a <= b for a, b in zip(l, l[1:]))
    return all(a >= b for a, b in zip(l, l[1:]))
""",
        ([],),
    ),
    Wrong(
        "HumanEval/58",
        "model-style",
        "keeps repeated elements of l1",
        """
def common(l1: list, l2: list):
    return sorted(x for x in l1 if x in l2)
""",
        ([2, 2, 1], [2]),
    ),
    Wrong(
        "HumanEval/58",
        "order-ties",
        "returns the intersection in set iteration order, unsorted",
        """
def common(l1: list, l2: list):
    return list(set(l1) & set(l2))
""",
        ([8, 1, 3], [1, 8]),
    ),
    Wrong(
        "HumanEval/63",
        "empty-negative",
        "special-cases n == 1 only: n = 0 returns the loop's starting value",
        """
def fibfib(n: int):
    if n == 1:
        return 0
    a, b, c = 0, 0, 1
    for _ in range(n - 2):
        a, b, c = b, c, a + b + c
    return c
""",
        (0,),
    ),
    Wrong(
        "HumanEval/67",
        "string-off-by-one",
        "reads the apple count from the first character only",
        """
def fruit_distribution(s,n):
    words = s.split()
    apples = int(s[0])
    oranges = int(words[3])
    return n - apples - oranges
""",
        ("12 apples and 3 oranges", 20),
    ),
    Wrong(
        "HumanEval/75",
        "model-style",
        "a hard-coded list of primes that stops at 13",
        """
def is_multiply_prime(a):
    primes = [2, 3, 5, 7, 11, 13]
    for p in primes:
        for q in primes:
            for r in primes:
                if p * q * r == a:
                    return True
    return False
""",
        (68,),
    ),
    Wrong(
        "HumanEval/76",
        "type-boundary",
        "int() of a floating-point logarithm truncates 4.999... to 4",
        """
import math


def is_simple_power(x, n):
    if x == 1:
        return True
    if n <= 1:
        return False
    k = int(math.log(x, n))
    return n ** k == x
""",
        (243, 3),
    ),
    Wrong(
        "HumanEval/81",
        "type-boundary",
        "the A row taken as >= 3.7 (as on common GPA scales), not > 3.7",
        """
def numerical_letter_grade(grades):
    out = []
    for g in grades:
        if g == 4.0:
            out.append("A+")
        elif g >= 3.7:
            out.append("A")
        elif g > 3.3:
            out.append("A-")
        elif g > 3.0:
            out.append("B+")
        elif g > 2.7:
            out.append("B")
        elif g > 2.3:
            out.append("B-")
        elif g > 2.0:
            out.append("C+")
        elif g > 1.7:
            out.append("C")
        elif g > 1.3:
            out.append("C-")
        elif g > 1.0:
            out.append("D+")
        elif g > 0.7:
            out.append("D")
        elif g > 0.0:
            out.append("D-")
        else:
            out.append("E")
    return out
""",
        ([3.7, 2.0],),
    ),
    Wrong(
        "HumanEval/84",
        "empty-negative",
        "builds the binary digits in a loop that gives '' for a digit sum of 0",
        """
def solve(N):
    total = sum(int(d) for d in str(N))
    bits = ""
    while total > 0:
        bits = str(total % 2) + bits
        total //= 2
    return bits
""",
        (0,),
    ),
    Wrong(
        "HumanEval/86",
        "model-style",
        "split() and ' '.join collapse runs of spaces",
        """
def anti_shuffle(s):
    return " ".join("".join(sorted(w)) for w in s.split())
""",
        ("hi  ba",),
    ),
    Wrong(
        "HumanEval/89",
        "model-style",
        "shifts every character, spaces included",
        """
def encrypt(s):
    return "".join(chr((ord(c) - ord("a") + 4) % 26 + ord("a")) for c in s)
""",
        ("hi there",),
    ),
    Wrong(
        "HumanEval/89",
        "model-style",
        "shifts upper-case letters through the lower-case alphabet",
        """
def encrypt(s):
    out = []
    for c in s:
        if c.isalpha():
            out.append(chr((ord(c.lower()) - 97 + 4) % 26 + 97))
        else:
            out.append(c)
    return "".join(out)
""",
        ("Hi",),
    ),
    Wrong(
        "HumanEval/91",
        "model-style",
        "splits sentences on '.' only",
        """
def is_bored(S):
    count = 0
    for sentence in S.split("."):
        words = sentence.split()
        if words and words[0] == "I":
            count += 1
    return count
""",
        ("Are you ok? I am fine",),
    ),
    Wrong(
        "HumanEval/94",
        "type-boundary",
        "the primality test rejects every even number, 2 included",
        """
def skjkasdkd(lst):
    def is_prime(n):
        if n < 2 or n % 2 == 0:
            return False
        d = 3
        while d * d <= n:
            if n % d == 0:
                return False
            d += 2
        return True

    best = 0
    for x in lst:
        if is_prime(x) and x > best:
            best = x
    return sum(int(c) for c in str(best))
""",
        ([2, 4, 9, 1],),
    ),
    Wrong(
        "HumanEval/98",
        "model-style",
        "counts Y among the upper-case vowels",
        """
def count_upper(s):
    return sum(1 for i in range(0, len(s), 2) if s[i] in "AEIOUY")
""",
        ("YES",),
    ),
    Wrong(
        "HumanEval/99",
        "empty-negative",
        "rounds halves away from zero for positive numbers only; round() takes the negatives "
        "to even",
        """
def closest_integer(value):
    num = float(value)
    if num - int(num) == 0.5:
        return int(num) + 1
    return int(round(num))
""",
        ("-14.5",),
    ),
    Wrong(
        "HumanEval/99",
        "type-boundary",
        "detects a half by the text ending in '.5', which '14.50' does not",
        """
def closest_integer(value):
    num = float(value)
    if value.endswith(".5"):
        return int(num + 0.5) if num > 0 else int(num - 0.5)
    return round(num)
""",
        ("14.50",),
    ),
    Wrong(
        "HumanEval/101",
        "model-style",
        "regular expression \\w+ splits words at apostrophes and hyphens",
        r"""
import re


def words_string(s):
    return re.findall(r"\w+", s)
""",
        ("It's a well-known fact",),
    ),
    Wrong(
        "HumanEval/102",
        "type-boundary",
        "y - 1 must be strictly above x, so x itself is never chosen",
        """
def choose_num(x, y):
    if y % 2 == 0 and y >= x:
        return y
    if y - 1 > x:
        return y - 1
    return -1
""",
        (12, 13),
    ),
    Wrong(
        "HumanEval/104",
        "order-ties",
        "collects the matches in a set, dropping duplicates",
        """
def unique_digits(x):
    return sorted({n for n in x if all(int(d) % 2 for d in str(n))})
""",
        ([15, 3, 15],),
    ),
    Wrong(
        "HumanEval/105",
        "empty-negative",
        "keeps every one-digit number: 0 has no name and raises KeyError",
        """
def by_length(arr):
    names = {1: "One", 2: "Two", 3: "Three", 4: "Four", 5: "Five",
             6: "Six", 7: "Seven", 8: "Eight", 9: "Nine"}
    digits = [x for x in arr if 0 <= x <= 9]
    return [names[x] for x in sorted(digits, reverse=True)]
""",
        ([3, 0],),
    ),
    Wrong(
        "HumanEval/109",
        "model-style",
        "counts descents without the wrap-around pair (last, first)",
        """
def move_one_ball(arr):
    drops = sum(1 for i in range(1, len(arr)) if arr[i] < arr[i - 1])
    return drops <= 1
""",
        ([2, 3, 1, 4],),
    ),
    Wrong(
        "HumanEval/109",
        "type-boundary",
        "tries the rotations over range(len(arr) - 1), never the last one",
        """
def move_one_ball(arr):
    if not arr:
        return True
    target = sorted(arr)
    for i in range(len(arr) - 1):
        if arr[i:] + arr[:i] == target:
            return True
    return False
""",
        ([2, 3, 1],),
    ),
    Wrong(
        "HumanEval/112",
        "model-style",
        "the palindrome check ignores case",
        """
def reverse_delete(s,c):
    kept = "".join(ch for ch in s if ch not in c)
    return (kept, kept.lower() == kept.lower()[::-1])
""",
        ("Abxa", "x"),
    ),
    Wrong(
        "HumanEval/118",
        "model-style",
        "the vowel set is lower-case only",
        """
def get_closest_vowel(word):
    vowels = "aeiou"
    for i in range(len(word) - 2, 0, -1):
        if word[i] in vowels and word[i - 1] not in vowels and word[i + 1] not in vowels:
            return word[i]
    return ""
""",
        ("FULL",),
    ),
    Wrong(
        "HumanEval/118",
        "string-off-by-one",
        "the scan runs down to index 0, where word[i - 1] wraps to the last letter",
        """
def get_closest_vowel(word):
    vowels = set("aeiouAEIOU")
    if len(word) < 3:
        return ""
    for i in range(len(word) - 2, -1, -1):
        if word[i] in vowels and word[i - 1] not in vowels and word[i + 1] not in vowels:
            return word[i]
    return ""
""",
        ("ebb",),
    ),
    Wrong(
        "HumanEval/118",
        "model-style",
        "takes y as a vowel",
        """
def get_closest_vowel(word):
    vowels = "aeiouyAEIOUY"
    for i in range(len(word) - 2, 0, -1):
        if word[i] in vowels and word[i - 1] not in vowels and word[i + 1] not in vowels:
            return word[i]
    return ""
""",
        ("gym",),
    ),
    Wrong(
        "HumanEval/122",
        "empty-negative",
        "tests elem < 100, so large negative numbers count as two-digit",
        """
def add_elements(arr, k):
    return sum(x for x in arr[:k] if x < 100)
""",
        ([-500, 7, 300], 2),
    ),
    Wrong(
        "HumanEval/125",
        "model-style",
        "split(' ') and split(',') keep empty words",
        """
def split_words(txt):
    if " " in txt:
        return txt.split(" ")
    if "," in txt:
        return txt.split(",")
    return sum(1 for c in txt if c.islower() and (ord(c) - ord("a")) % 2 == 1)
""",
        ("Hello  world",),
    ),
    Wrong(
        "HumanEval/127",
        "type-boundary",
        "primality tried with divisors below length // 2, so 4 passes as prime",
        """
def intersection(interval1, interval2):
    start = max(interval1[0], interval2[0])
    end = min(interval1[1], interval2[1])
    length = end - start
    if length < 2:
        return "NO"
    if all(length % d for d in range(2, length // 2)):
        return "YES"
    return "NO"
""",
        ((0, 4), (-1, 6)),
    ),
    Wrong(
        "HumanEval/134",
        "model-style",
        "any non-letter before the last character counts as a word boundary, not only a space",
        """
def check_if_last_char_is_a_letter(txt):
    if not txt or not txt[-1].isalpha():
        return False
    return len(txt) == 1 or not txt[-2].isalpha()
""",
        ("apple,e",),
    ),
    Wrong(
        "HumanEval/137",
        "type-boundary",
        "two strings are compared as strings, not as numbers",
        """
def compare_one(a, b):
    def value(v):
        return float(v.replace(",", ".")) if isinstance(v, str) else v

    if type(a) == type(b):
        x, y = a, b
    else:
        x, y = value(a), value(b)
    if x == y:
        return None
    return a if x > y else b
""",
        ("10", "9"),
    ),
    Wrong(
        "HumanEval/140",
        "model-style",
        "regular expression \\s also replaces tabs and newlines",
        r"""
import re


def fix_spaces(text):
    text = re.sub(r"\s{3,}", "-", text)
    return re.sub(r"\s", "_", text)
""",
        ("a\tb",),
    ),
    Wrong(
        "HumanEval/140",
        "type-boundary",
        "replaces runs of exactly three spaces, not of more than two",
        """
def fix_spaces(text):
    return text.replace("   ", "-").replace(" ", "_")
""",
        ("a    b",),
    ),
    Wrong(
        "HumanEval/148",
        "model-style",
        "normalises the planet names' case before the lookup",
        """
def bf(planet1, planet2):
    planets = ("Mercury", "Venus", "Earth", "Mars", "Jupiter", "Saturn", "Uranus", "Neptune")
    p1, p2 = planet1.capitalize(), planet2.capitalize()
    if p1 not in planets or p2 not in planets:
        return ()
    i, j = sorted((planets.index(p1), planets.index(p2)))
    return planets[i + 1:j]
""",
        ("mercury", "Mars"),
    ),
    Wrong(
        "HumanEval/149",
        "order-ties",
        "removes duplicates through a set",
        """
def sorted_list_sum(lst):
    return sorted({s for s in lst if len(s) % 2 == 0}, key=lambda s: (len(s), s))
""",
        (["ab", "cd", "ab"],),
    ),
    Wrong(
        "HumanEval/150",
        "type-boundary",
        "primality tried with divisors below n // 2, so 4 passes as prime",
        """
def x_or_y(n, x, y):
    if n < 2:
        return y
    for d in range(2, n // 2):
        if n % d == 0:
            return y
    return x
""",
        (4, 1, 0),
    ),
    Wrong(
        "HumanEval/154",
        "string-off-by-one",
        "the window loop stops one short of the last start position",
        """
def cycpattern_check(a , b):
    rotations = {b[i:] + b[:i] for i in range(len(b))}
    for i in range(len(a) - len(b)):
        if a[i:i + len(b)] in rotations:
            return True
    return False
""",
        ("xyab", "ba"),
    ),
    Wrong(
        "HumanEval/158",
        "model-style",
        "counts unique characters case-insensitively",
        """
def find_max(words):
    return sorted(words, key=lambda w: (-len(set(w.lower())), w))[0]
""",
        (["Aab", "abc"],),
    ),
    Wrong(
        "HumanEval/158",
        "order-ties",
        "breaks ties on unique characters ignoring case",
        """
def find_max(words):
    return sorted(words, key=lambda w: (-len(set(w)), w.lower()))[0]
""",
        (["ba", "Bc"],),
    ),
    Wrong(
        "HumanEval/160",
        "model-style",
        "evaluates ** left to right, so 2 ** 3 ** 2 becomes (2 ** 3) ** 2",
        """
def do_algebra(operator, operand):
    ops = list(operator)
    vals = list(operand)
    for group in (("**",), ("*", "//"), ("+", "-")):
        i = 0
        while i < len(ops):
            if ops[i] not in group:
                i += 1
                continue
            a, b = vals[i], vals[i + 1]
            if ops[i] == "**":
                r = a ** b
            elif ops[i] == "*":
                r = a * b
            elif ops[i] == "//":
                r = a // b
            elif ops[i] == "+":
                r = a + b
            else:
                r = a - b
            vals[i:i + 2] = [r]
            del ops[i]
    return vals[0]
""",
        (["**", "**"], [2, 3, 2]),
    ),
    Wrong(
        "HumanEval/161",
        "model-style",
        "ASCII-only test for letters",
        """
def solve(s):
    def is_letter(c):
        return "a" <= c.lower() <= "z"

    if not any(is_letter(c) for c in s):
        return s[::-1]
    return "".join(c.swapcase() if is_letter(c) else c for c in s)
""",
        ("é1",),
    ),
)


def tasks() -> set[str]:
    """The task ids the set covers."""
    return {e.task_id for e in ENTRIES}
