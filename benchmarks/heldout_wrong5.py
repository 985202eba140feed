"""A fifth held-out set of plausible-wrong HumanEval solutions, written for specverdict.

The first four sets (``benchmarks/heldout_wrong.py``, ``benchmarks/heldout_wrong2.py``,
``benchmarks/heldout_wrong3.py`` and ``benchmarks/heldout_wrong4.py``) have been read by the
amplifier's designers since they were scored, so their misses no longer measure mistakes nobody
chose for the amplifier to catch. This set was written after all four, apart from the amplifier
(``suites/function``'s input generators, their design notes and the catch rates of the earlier
sets were not read to write it), for one final measurement; it must not be tuned to the amplifier
either. It has the first set's format (``Wrong``, ``KINDS``) and rules: every solution here was
written by hand, as a model might write it, passes HumanEval's own base tests (``check`` in the
dataset) and is wrong on its witness, a concrete input within the task's stated domain on which
its output differs from the project's reference (raising or not returning counts as differing).
No entry repeats one of the first four sets: other tasks, or other bugs on the same task. Tasks
whose canonical solution is disputed on the witness's region (95, 97, 124, the decode tasks, ties
of ``find_closest_elements``, ``change_base(0, b)``, ``modp(n, 1)``, the regions that
``REFERENCE_FIXES`` corrects, ...) and the bugs of ``tests/unit/suites/solutions.py``'s
``PLAUSIBLY_WRONG`` are left out. About a quarter of the entries only fail at scale (recursion
past the limit, work that grows with the size of a number or polynomially with the length), each
on a witness of ordinary size; the rest fail on small inputs.

Kinds (``KINDS``, as in the first set):

* ``model-style``: hand-written mistakes a model makes (a library call that does something
  else: ``re``'s ``$`` before a final newline, ``re.split`` at a leading space,
  ``functools.reduce`` copying strings; an algorithm that does something else: Fermat and
  two-base Miller-Rabin primality tests, a count-only bracket check, a hard-coded prime table, a
  prime factor left over above the square root; recursion or brute force that does not scale;
  whitespace and case handling: a tab read as a parenthesis, stripping, a blank string taken for
  an empty one, lower-cased copies; input validation that rejects a single number; ``is`` for
  integer equality);
* ``type-boundary``: int against float (float products, logarithms, rounding before a
  comparison, ``int()`` truncation, ``int(x + 0.5)`` rounding, a bisection tolerance),
  inclusive against exclusive bounds (a guard one value short, an early exit on ``>= 0``),
  numeric sort keys that overflow their packing;
* ``string-off-by-one``: an index or window one step short or long over a string, or over a
  list read as one (a range one short of its bound, a table one entry short, a last pair or
  last element never reached);
* ``empty-negative``: empty inputs, zero and negative numbers handled wrongly (guards that
  answer the empty case or a single element wrongly, ``min()`` of nothing, indexing an empty
  name, the length of disjoint intervals taken with ``abs()``, ``factorize(1)``);
* ``order-ties``: order among equal values and repeated values (removing from a list while
  iterating over it, duplicates collapsed by a set or a dict, ``list.index`` on repeated
  values, a repeat taken as closeness whatever the threshold).

``benchmarks/heldout_catch.py --set heldout_wrong5`` scores the set with the amplified tests;
``tests/integration/suites/test_heldout_set.py`` checks the data of all five sets.
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
        "order-ties",
        "answers True as soon as a value repeats, whatever the threshold, so a threshold of 0 is ignored",
        """
from typing import List


def has_close_elements(numbers: List[float], threshold: float) -> bool:
    if len(set(numbers)) < len(numbers):
        return True
    ordered = sorted(numbers)
    return any(b - a < threshold for a, b in zip(ordered, ordered[1:]))
""",
        ([1.0, 2.5, 1.0], 0.0),
    ),
    Wrong(
        "HumanEval/1",
        "model-style",
        "drops only ' ' and counts every other character as a closing parenthesis, so a tab closes a group",
        """
from typing import List


def separate_paren_groups(paren_string: str) -> List[str]:
    groups, current, depth = [], "", 0
    for ch in paren_string.replace(" ", ""):
        current += ch
        depth += 1 if ch == "(" else -1
        if depth == 0:
            groups.append(current)
            current = ""
    return groups
""",
        ("() (\t)",),
    ),
    Wrong(
        "HumanEval/4",
        "model-style",
        "rejects lists of fewer than two numbers with ValueError, though one number has a deviation of 0",
        """
from typing import List


def mean_absolute_deviation(numbers: List[float]) -> float:
    if len(numbers) < 2:
        raise ValueError("need at least two numbers")
    mean = sum(numbers) / len(numbers)
    return sum(abs(x - mean) for x in numbers) / len(numbers)
""",
        ([4.0],),
    ),
    Wrong(
        "HumanEval/7",
        "empty-negative",
        "guards the empty substring with `return []`, though every string contains it",
        """
from typing import List


def filter_by_substring(strings: List[str], substring: str) -> List[str]:
    if not substring:
        return []
    return [s for s in strings if substring in s]
""",
        (["abc", "xyz"], ""),
    ),
    Wrong(
        "HumanEval/16",
        "model-style",
        "strips the string before counting, though leading and trailing spaces are characters too",
        """
def count_distinct_characters(string: str) -> int:
    return len(set(string.strip().lower()))
""",
        (" ab",),
    ),
    Wrong(
        "HumanEval/18",
        "model-style",
        "counts recursively over string[1:], one call per position, so a string of a few thousand characters exceeds the recursion limit",
        """
def how_many_times(string: str, substring: str) -> int:
    if len(string) < len(substring) or not string:
        return 1 if string == substring else 0
    hit = 1 if string.startswith(substring) else 0
    return hit + how_many_times(string[1:], substring)
""",
        ("ab" * 1500, "ab"),
    ),
    Wrong(
        "HumanEval/18",
        "empty-negative",
        "guards the empty substring with `return 0`, though it occurs at every position",
        """
def how_many_times(string: str, substring: str) -> int:
    if not substring:
        return 0
    return sum(1 for i in range(len(string) - len(substring) + 1) if string.startswith(substring, i))
""",
        ("abc", ""),
    ),
    Wrong(
        "HumanEval/24",
        "string-off-by-one",
        "the divisor loop runs over range(2, n // 2), one short, so 4 finds no divisor",
        """
def largest_divisor(n: int) -> int:
    for i in range(2, n // 2):
        if n % i == 0:
            return n // i
    return 1
""",
        (4,),
    ),
    Wrong(
        "HumanEval/25",
        "empty-negative",
        "guards small inputs with `if n < 2: return [n]`, so 1 factorizes as [1]",
        """
from typing import List


def factorize(n: int) -> List[int]:
    if n < 2:
        return [n]
    factors = []
    d = 2
    while d * d <= n:
        while n % d == 0:
            factors.append(d)
            n //= d
        d += 1
    if n > 1:
        factors.append(n)
    return factors
""",
        (1,),
    ),
    Wrong(
        "HumanEval/26",
        "order-ties",
        "removes repeated values from the list it is iterating over, so the element after a removal is skipped",
        """
from typing import List


def remove_duplicates(numbers: List[int]) -> List[int]:
    result = list(numbers)
    for n in result:
        if numbers.count(n) > 1:
            while n in result:
                result.remove(n)
    return result
""",
        ([3, 3, 4, 4, 5, 5],),
    ),
    Wrong(
        "HumanEval/27",
        "model-style",
        "flips the case recursively, one call per character, so a text of a few thousand characters exceeds the recursion limit",
        """
def flip_case(string: str) -> str:
    if not string:
        return ""
    return string[0].swapcase() + flip_case(string[1:])
""",
        ("Hello World " * 250,),
    ),
    Wrong(
        "HumanEval/28",
        "model-style",
        "folds the strings with functools.reduce and +, copying the growing result for every string",
        """
from functools import reduce
from typing import List


def concatenate(strings: List[str]) -> str:
    return reduce(lambda acc, s: acc + s, strings, "")
""",
        (["abcdefghij"] * 200000,),
    ),
    Wrong(
        "HumanEval/29",
        "empty-negative",
        "guards the empty prefix with `return []`, though every string starts with it",
        """
from typing import List


def filter_by_prefix(strings: List[str], prefix: str) -> List[str]:
    if not prefix:
        return []
    return [s for s in strings if s.startswith(prefix)]
""",
        (["abc", "xyz"], ""),
    ),
    Wrong(
        "HumanEval/31",
        "model-style",
        "a Fermat test to base 2, which takes pseudoprimes such as 341 = 11 * 31 for primes",
        """
def is_prime(n):
    if n < 4:
        return n > 1
    return pow(2, n - 1, n) == 1
""",
        (341,),
    ),
    Wrong(
        "HumanEval/32",
        "type-boundary",
        "bisects until the interval is 1e-7 wide, too coarse for large coefficients",
        """
import math


def poly(xs: list, x: float):
    return sum([coeff * math.pow(x, i) for i, coeff in enumerate(xs)])


def find_zero(xs: list):
    lo, hi = -1.0, 1.0
    while poly(xs, lo) * poly(xs, hi) > 0:
        lo *= 2
        hi *= 2
    while hi - lo > 1e-7:
        mid = (lo + hi) / 2
        if poly(xs, lo) * poly(xs, mid) <= 0:
            hi = mid
        else:
            lo = mid
    return (lo + hi) / 2
""",
        ([-30000, 10000],),
    ),
    Wrong(
        "HumanEval/40",
        "type-boundary",
        "stops the sorted scan once the smallest remaining value is >= 0, so three zeros are never tried",
        """
def triples_sum_to_zero(l: list):
    s = sorted(l)
    for i in range(len(s) - 2):
        if s[i] >= 0:
            break
        lo, hi = i + 1, len(s) - 1
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
        ([0, 0, 0],),
    ),
    Wrong(
        "HumanEval/44",
        "type-boundary",
        "counts the digits with int(math.log(x, base)) + 1, one short when the logarithm of a power comes out just below an integer",
        """
import math


def change_base(x: int, base: int):
    digits = int(math.log(x, base)) + 1
    return "".join(str(x // base**k % base) for k in range(digits - 1, -1, -1))
""",
        (243, 3),
    ),
    Wrong(
        "HumanEval/46",
        "string-off-by-one",
        "stores the four seeds in a table of n + 1 entries, which has no room for them when n < 3",
        """
def fib4(n: int):
    dp = [0] * (n + 1)
    dp[0], dp[1], dp[2], dp[3] = 0, 0, 2, 0
    for i in range(4, n + 1):
        dp[i] = dp[i - 1] + dp[i - 2] + dp[i - 3] + dp[i - 4]
    return dp[n]
""",
        (2,),
    ),
    Wrong(
        "HumanEval/51",
        "model-style",
        "removes the vowels recursively, one call per character, so a text of a few thousand characters exceeds the recursion limit",
        """
def remove_vowels(text):
    if not text:
        return ""
    head = "" if text[0].lower() in "aeiou" else text[0]
    return head + remove_vowels(text[1:])
""",
        ("The quick brown fox jumps over the lazy dog. " * 40,),
    ),
    Wrong(
        "HumanEval/54",
        "empty-negative",
        "returns False as soon as either word is empty, so two empty words do not match",
        """
def same_chars(s0: str, s1: str):
    if not s0 or not s1:
        return False
    return set(s0) == set(s1)
""",
        ("", ""),
    ),
    Wrong(
        "HumanEval/56",
        "empty-negative",
        "rejects odd lengths and the empty string up front, though the empty string is correctly bracketed",
        """
def correct_bracketing(brackets: str):
    if not brackets or len(brackets) % 2:
        return False
    depth = 0
    for b in brackets:
        depth += 1 if b == "<" else -1
        if depth < 0:
            return False
    return depth == 0
""",
        ("",),
    ),
    Wrong(
        "HumanEval/57",
        "empty-negative",
        "answers False for a list of fewer than two elements, which is trivially monotonic",
        """
def monotonic(l: list):
    if len(l) < 2:
        return False
    increasing = all(a <= b for a, b in zip(l, l[1:]))
    decreasing = all(a >= b for a, b in zip(l, l[1:]))
    return increasing or decreasing
""",
        ([5],),
    ),
    Wrong(
        "HumanEval/61",
        "empty-negative",
        "rejects the empty string together with strings opening with ')'",
        """
def correct_bracketing(brackets: str):
    if not brackets or brackets[0] == ")":
        return False
    stack = []
    for b in brackets:
        if b == "(":
            stack.append(b)
        elif not stack:
            return False
        else:
            stack.pop()
    return not stack
""",
        ("",),
    ),
    Wrong(
        "HumanEval/64",
        "order-ties",
        "intersects the set of the word's letters with the vowels, so a repeated vowel is counted once",
        """
def vowels_count(s):
    count = len(set(s.lower()) & set("aeiou"))
    if s and s[-1] in "yY":
        count += 1
    return count
""",
        ("banana",),
    ),
    Wrong(
        "HumanEval/66",
        "model-style",
        "sums the upper-case codes recursively, one call per character, so a text of a few thousand characters exceeds the recursion limit",
        """
def digitSum(s):
    if not s:
        return 0
    return (ord(s[0]) if s[0].isupper() else 0) + digitSum(s[1:])
""",
        ("Hello World " * 200,),
    ),
    Wrong(
        "HumanEval/68",
        "string-off-by-one",
        "scans range(len(arr) - 1), so an even value in the last position is never plucked",
        """
def pluck(arr):
    best = []
    for i in range(len(arr) - 1):
        if arr[i] % 2 == 0 and (not best or arr[i] < best[0]):
            best = [arr[i], i]
    return best
""",
        ([3, 1, 2],),
    ),
    Wrong(
        "HumanEval/68",
        "type-boundary",
        "packs value and index into one key, value * 1000 + index, which misorders arrays longer than 2000",
        """
def pluck(arr):
    evens = [(v, i) for i, v in enumerate(arr) if v % 2 == 0]
    if not evens:
        return []
    v, i = min(evens, key=lambda t: t[0] * 1000 + t[1])
    return [v, i]
""",
        ([4] + [1] * 2500 + [2],),
    ),
    Wrong(
        "HumanEval/72",
        "empty-negative",
        "answers False for an empty object, though it is balanced and weighs nothing",
        """
def will_it_fly(q, w):
    if not q:
        return False
    return q == q[::-1] and sum(q) <= w
""",
        ([], 5),
    ),
    Wrong(
        "HumanEval/75",
        "model-style",
        "divides by the candidates up to the square root of a and forgets a prime factor left over above it",
        """
def is_multiply_prime(a):
    count = 0
    for p in range(2, int(a**0.5) + 1):
        while a % p == 0:
            a //= p
            count += 1
    return count == 3
""",
        (42,),
    ),
    Wrong(
        "HumanEval/80",
        "model-style",
        "checks the first window and recurses on s[1:], so a string of a few thousand characters exceeds the recursion limit",
        """
def is_happy(s):
    if len(s) < 3:
        return False
    if len(set(s[:3])) < 3:
        return False
    return len(s) == 3 or is_happy(s[1:])
""",
        ("abc" * 1000,),
    ),
    Wrong(
        "HumanEval/80",
        "model-style",
        "lower-cases the string first, so 'a' and 'A' count as the same letter",
        """
def is_happy(s):
    s = s.lower()
    if len(s) < 3:
        return False
    return all(len(set(s[i : i + 3])) == 3 for i in range(len(s) - 2))
""",
        ("aAb",),
    ),
    Wrong(
        "HumanEval/82",
        "model-style",
        "tests divisibility by 2, 3 and 5 only, so a length of 49 = 7 * 7 passes as prime",
        """
def prime_length(string):
    n = len(string)
    if n in (2, 3, 5):
        return True
    return n > 1 and n % 2 != 0 and n % 3 != 0 and n % 5 != 0
""",
        ("a" * 49,),
    ),
    Wrong(
        "HumanEval/89",
        "model-style",
        "encrypts recursively, one call per character, so a text of a few thousand characters exceeds the recursion limit",
        """
def encrypt(s):
    if not s:
        return ""
    c = s[0]
    if c.islower():
        c = chr((ord(c) - ord("a") + 4) % 26 + ord("a"))
    return c + encrypt(s[1:])
""",
        ("attackatdawn" * 200,),
    ),
    Wrong(
        "HumanEval/92",
        "model-style",
        "compares the sums with `is`, which holds only for the small integers Python caches",
        """
def any_int(x, y, z):
    if not all(isinstance(v, int) for v in (x, y, z)):
        return False
    return x + y is z or x + z is y or y + z is x
""",
        (300, 400, 700),
    ),
    Wrong(
        "HumanEval/93",
        "model-style",
        "encodes recursively, one call per character, so a message of a few thousand characters exceeds the recursion limit",
        """
def encode(message):
    if not message:
        return ""
    c = message[0].swapcase()
    if c in "aeiouAEIOU":
        c = chr(ord(c) + 2)
    return c + encode(message[1:])
""",
        ("This is a message " * 150,),
    ),
    Wrong(
        "HumanEval/94",
        "model-style",
        "tests primality by trial division up to n itself, so a prime near 10**9 takes a billion steps",
        """
def skjkasdkd(lst):
    def is_prime(n):
        if n < 2:
            return False
        for d in range(2, n):
            if n % d == 0:
                return False
        return True

    best = max((x for x in lst if is_prime(x)), default=0)
    return sum(int(c) for c in str(best))
""",
        ([3, 1000000007],),
    ),
    Wrong(
        "HumanEval/96",
        "model-style",
        "filters a hard-coded list of the primes below 100, so nothing above 97 is returned",
        """
def count_up_to(n):
    primes = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97]
    return [p for p in primes if p < n]
""",
        (150,),
    ),
    Wrong(
        "HumanEval/96",
        "type-boundary",
        "starts the list with 2 whenever n >= 2, though 2 is not below n = 2",
        """
def count_up_to(n):
    if n < 2:
        return []
    primes = [2]
    for k in range(3, n, 2):
        if all(k % p for p in primes if p * p <= k):
            primes.append(k)
    return primes
""",
        (2,),
    ),
    Wrong(
        "HumanEval/98",
        "model-style",
        "counts recursively two characters at a time, so a string of a few thousand characters exceeds the recursion limit",
        """
def count_upper(s):
    if not s:
        return 0
    return (1 if s[0] in "AEIOU" else 0) + count_upper(s[2:])
""",
        ("AbEcIdOfUg" * 300,),
    ),
    Wrong(
        "HumanEval/99",
        "type-boundary",
        "handles exact halves and otherwise truncates with int(), so 15.7 gives 15",
        """
def closest_integer(value):
    num = float(value)
    whole = int(num)
    if abs(num - whole) == 0.5:
        return whole + (1 if num > 0 else -1)
    return whole
""",
        ("15.7",),
    ),
    Wrong(
        "HumanEval/99",
        "type-boundary",
        "rounds with int(num + 0.5), and 0.49999999999999994 + 0.5 rounds up to 1.0 in floating point",
        """
def closest_integer(value):
    num = float(value)
    if num >= 0:
        return int(num + 0.5)
    return int(num - 0.5)
""",
        ("0.49999999999999994",),
    ),
    Wrong(
        "HumanEval/102",
        "model-style",
        "walks every integer from x to y keeping the last even one, linear in the size of y",
        """
def choose_num(x, y):
    best = -1
    for i in range(x, y + 1):
        if i % 2 == 0:
            best = i
    return best
""",
        (1, 10**9),
    ),
    Wrong(
        "HumanEval/106",
        "model-style",
        "computes each factorial by plain recursion, which exceeds the recursion limit for n = 1000",
        """
def f(n):
    def factorial(k):
        return 1 if k <= 1 else k * factorial(k - 1)

    return [factorial(i) if i % 2 == 0 else i * (i + 1) // 2 for i in range(1, n + 1)]
""",
        (1000,),
    ),
    Wrong(
        "HumanEval/109",
        "string-off-by-one",
        "counts the descents over range(len(arr) - 2), never comparing the last two elements",
        """
def move_one_ball(arr):
    if not arr:
        return True
    drops = sum(1 for i in range(len(arr) - 2) if arr[i] > arr[i + 1])
    if arr[-1] > arr[0]:
        drops += 1
    return drops <= 1
""",
        ([1, 3, 2],),
    ),
    Wrong(
        "HumanEval/110",
        "order-ties",
        "collects the even numbers of lst2 in a set comprehension, so a repeated even number counts once",
        """
def exchange(lst1, lst2):
    odd_in_first = [x for x in lst1 if x % 2 == 1]
    even_in_second = {x for x in lst2 if x % 2 == 0}
    return "YES" if len(even_in_second) >= len(odd_in_first) else "NO"
""",
        ([1, 3], [2, 2]),
    ),
    Wrong(
        "HumanEval/112",
        "model-style",
        "tests the palindrome on the result with its spaces removed, as for sentence palindromes",
        """
def reverse_delete(s, c):
    kept = "".join(ch for ch in s if ch not in c)
    squeezed = kept.replace(" ", "")
    return (kept, squeezed == squeezed[::-1])
""",
        ("ab a", "x"),
    ),
    Wrong(
        "HumanEval/112",
        "empty-negative",
        "answers ('', False) for an empty s, though the empty string is a palindrome",
        """
def reverse_delete(s, c):
    if not s:
        return ("", False)
    kept = "".join(ch for ch in s if ch not in c)
    return (kept, kept == kept[::-1])
""",
        ("", "x"),
    ),
    Wrong(
        "HumanEval/113",
        "order-ties",
        "counts the odd digits in a dict keyed by string and answers per key, so a repeated string is answered once",
        """
def odd_count(lst):
    counts = {s: sum(int(d) % 2 for d in s) for s in lst}
    return [
        f"the number of odd elements {n}n the str{n}ng {n} of the {n}nput."
        for n in counts.values()
    ]
""",
        (["13", "13"],),
    ),
    Wrong(
        "HumanEval/117",
        "model-style",
        "selects the words recursively, one call per word, so a text of a few thousand words exceeds the recursion limit",
        """
def select_words(s, n):
    def pick(words):
        if not words:
            return []
        word = words[0]
        consonants = sum(1 for ch in word if ch.lower() not in "aeiou")
        rest = pick(words[1:])
        return [word] + rest if consonants == n else rest

    return pick(s.split())
""",
        (" ".join(["Mary had a little lamb"] * 400), 3),
    ),
    Wrong(
        "HumanEval/118",
        "model-style",
        "lower-cases the word to find the vowels and returns the vowel from the lower-cased copy",
        """
def get_closest_vowel(word):
    lowered = word.lower()
    for i in range(len(lowered) - 2, 0, -1):
        if lowered[i] in "aeiou" and lowered[i - 1] not in "aeiou" and lowered[i + 1] not in "aeiou":
            return lowered[i]
    return ""
""",
        ("FULL",),
    ),
    Wrong(
        "HumanEval/119",
        "model-style",
        "takes equal counts of '(' and ')' and one string opening with '(' as enough, never tracking the running depth",
        """
def match_parens(lst):
    a, b = lst
    s = a + b
    if s.count("(") != s.count(")"):
        return "No"
    return "Yes" if a.startswith("(") or b.startswith("(") else "No"
""",
        (["))((", "()"],),
    ),
    Wrong(
        "HumanEval/119",
        "empty-negative",
        "checks the running depth with min() over itertools.accumulate, which raises for two empty strings",
        """
from itertools import accumulate


def match_parens(lst):
    def ok(s):
        depths = list(accumulate(1 if c == "(" else -1 for c in s))
        return min(depths) >= 0 and depths[-1] == 0

    return "Yes" if ok(lst[0] + lst[1]) or ok(lst[1] + lst[0]) else "No"
""",
        (["", ""],),
    ),
    Wrong(
        "HumanEval/122",
        "order-ties",
        "keeps the first k elements by arr.index(x) < k, so a repeat beyond k of an early value is added too",
        """
def add_elements(arr, k):
    return sum(x for x in arr if arr.index(x) < k and -100 < x < 100)
""",
        ([5, 7, 5], 1),
    ),
    Wrong(
        "HumanEval/125",
        "model-style",
        "splits with re.split(r'\\s+'), which leaves an empty first word for a leading space",
        """
import re


def split_words(txt):
    if " " in txt:
        return re.split(r"\\s+", txt)
    if "," in txt:
        return [w for w in txt.split(",") if w]
    return sum(1 for c in txt if c.islower() and (ord(c) - ord("a")) % 2 == 1)
""",
        (" Hello world",),
    ),
    Wrong(
        "HumanEval/126",
        "string-off-by-one",
        "looks for three equal neighbours over range(len(lst) - 3), never the last three",
        """
def is_sorted(lst):
    for i in range(len(lst) - 3):
        if lst[i] == lst[i + 1] == lst[i + 2]:
            return False
    return all(a <= b for a, b in zip(lst, lst[1:]))
""",
        ([1, 2, 2, 2],),
    ),
    Wrong(
        "HumanEval/127",
        "empty-negative",
        "takes abs() of the intersection's length, so disjoint intervals get a positive length",
        """
def intersection(interval1, interval2):
    start = max(interval1[0], interval2[0])
    end = min(interval1[1], interval2[1])
    length = abs(end - start)
    if length < 2:
        return "NO"
    for d in range(2, int(length**0.5) + 1):
        if length % d == 0:
            return "NO"
    return "YES"
""",
        ((1, 2), (5, 8)),
    ),
    Wrong(
        "HumanEval/132",
        "model-style",
        "tries every choice of four positions with itertools.combinations, quartic in the length when no nesting exists",
        """
from itertools import combinations


def is_nested(string):
    for i, j, k, l in combinations(range(len(string)), 4):
        if string[i] == "[" and string[j] == "[" and string[k] == "]" and string[l] == "]":
            return True
    return False
""",
        ("]" * 160 + "[" * 160,),
    ),
    Wrong(
        "HumanEval/134",
        "model-style",
        "matches a final lone letter with a regular expression ending in $, which also matches before a final newline",
        """
import re


def check_if_last_char_is_a_letter(txt):
    return re.search(r"(^| )[A-Za-z]$", txt) is not None
""",
        ("apple pi e\n",),
    ),
    Wrong(
        "HumanEval/137",
        "type-boundary",
        "rounds both values to two decimals before comparing, so 1.001 and 1.004 come out equal",
        """
def compare_one(a, b):
    def num(v):
        return round(float(str(v).replace(",", ".")), 2)

    x, y = num(a), num(b)
    if x == y:
        return None
    return a if x > y else b
""",
        (1.001, 1.004),
    ),
    Wrong(
        "HumanEval/138",
        "model-style",
        "searches every triple of even numbers below n, cubic in n for odd n where nothing is found",
        """
def is_equal_to_sum_even(n):
    for a in range(2, n, 2):
        for b in range(2, n, 2):
            for c in range(2, n, 2):
                d = n - a - b - c
                if d > 0 and d % 2 == 0:
                    return True
    return False
""",
        (1001,),
    ),
    Wrong(
        "HumanEval/141",
        "model-style",
        "anchors the regular expression with $, which also matches before a final newline",
        """
import re


def file_name_check(file_name):
    if not re.match(r"^[A-Za-z][^.]*\\.(txt|exe|dll)$", file_name):
        return "No"
    if sum(c.isdigit() for c in file_name) > 3:
        return "No"
    return "Yes"
""",
        ("report.txt\n",),
    ),
    Wrong(
        "HumanEval/141",
        "empty-negative",
        "checks file_name[0] before anything else, which raises on the empty name",
        """
def file_name_check(file_name):
    if not file_name[0].isalpha():
        return "No"
    if file_name.count(".") != 1:
        return "No"
    name, ext = file_name.split(".")
    if not name or ext not in ("txt", "exe", "dll"):
        return "No"
    if sum(ch.isdigit() for ch in file_name) > 3:
        return "No"
    return "Yes"
""",
        ("",),
    ),
    Wrong(
        "HumanEval/144",
        "type-boundary",
        "multiplies the two fractions as floats and tests the product for an integral value, which 3/11 * 11/3 misses",
        """
def simplify(x, n):
    a, b = x.split("/")
    c, d = n.split("/")
    product = (int(a) / int(b)) * (int(c) / int(d))
    return product == int(product)
""",
        ("3/11", "11/3"),
    ),
    Wrong(
        "HumanEval/145",
        "type-boundary",
        "sorts by one packed key, digit sum * 1000 + first index, which misorders lists longer than 1000",
        """
def order_by_points(nums):
    def digit_sum(n):
        digits = [int(d) for d in str(abs(n))]
        if n < 0:
            digits[0] = -digits[0]
        return sum(digits)

    return sorted(nums, key=lambda n: digit_sum(n) * 1000 + nums.index(n))
""",
        ([2] + [0] * 1001 + [1],),
    ),
    Wrong(
        "HumanEval/146",
        "model-style",
        "filters recursively one number per call, so a list of a few thousand numbers exceeds the recursion limit",
        """
def specialFilter(nums):
    if not nums:
        return 0
    digits = str(nums[0])
    hit = 1 if nums[0] > 10 and digits[0] in "13579" and digits[-1] in "13579" else 0
    return hit + specialFilter(nums[1:])
""",
        (list(range(2000)),),
    ),
    Wrong(
        "HumanEval/150",
        "model-style",
        "tests primality with Miller-Rabin to the bases 2 and 3 only, which the strong pseudoprime 1373653 passes",
        """
def x_or_y(n, x, y):
    def is_prime(m):
        if m < 2:
            return False
        for p in (2, 3):
            if m % p == 0:
                return m == p
        d, s = m - 1, 0
        while d % 2 == 0:
            d //= 2
            s += 1
        for a in (2, 3):
            v = pow(a, d, m)
            if v in (1, m - 1):
                continue
            for _ in range(s - 1):
                v = v * v % m
                if v == m - 1:
                    break
            else:
                return False
        return True

    return x if is_prime(n) else y
""",
        (1373653, 34, 12),
    ),
    Wrong(
        "HumanEval/151",
        "order-ties",
        "sums a set comprehension of the squares, so a repeated odd number is added once",
        """
def double_the_difference(lst):
    return sum({x * x for x in lst if isinstance(x, int) and x > 0 and x % 2 == 1})
""",
        ([3, 3],),
    ),
    Wrong(
        "HumanEval/161",
        "model-style",
        "swaps the cases recursively, one call per character, so a string of a few thousand characters exceeds the recursion limit",
        """
def solve(s):
    def swap(t):
        if not t:
            return ""
        return t[0].swapcase() + swap(t[1:])

    if not any(ch.isalpha() for ch in s):
        return s[::-1]
    return swap(s)
""",
        ("#aBc" * 800,),
    ),
    Wrong(
        "HumanEval/162",
        "model-style",
        "treats a blank string as empty and returns None for it",
        """
import hashlib


def string_to_md5(text):
    if not text.strip():
        return None
    return hashlib.md5(text.encode()).hexdigest()
""",
        (" ",),
    ),
    Wrong(
        "HumanEval/163",
        "model-style",
        "filters every integer between a and b for single even digits, linear in the size of the bounds",
        """
def generate_integers(a, b):
    lo, hi = min(a, b), max(a, b)
    return [i for i in range(lo, hi + 1) if i % 2 == 0 and i < 10]
""",
        (1, 10**9),
    ),
    Wrong(
        "HumanEval/163",
        "model-style",
        "steps by 2 from the lower bound, so an odd lower bound yields the odd digits",
        """
def generate_integers(a, b):
    lo = max(2, min(a, b))
    hi = min(8, max(a, b))
    return list(range(lo, hi + 1, 2))
""",
        (3, 9),
    ),
)


def tasks() -> set[str]:
    """The task ids the set covers."""
    return {e.task_id for e in ENTRIES}
