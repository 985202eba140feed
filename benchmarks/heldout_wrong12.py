"""A held-out set of plausible-wrong HumanEval solutions for tasks HumanEval/0 to HumanEval/81
(set 12), written for specverdict.

How it was written: apart from the amplifier. The input generators of ``suites/function`` (every
file there but ``humaneval.py``, ``task.py``, ``oracles.py`` and ``harness.py``), the design
notes, the README, ``benchmarks/RESULTS.md``, ``catch_rate.py``, ``amplifier_cost.py``, the
earlier held-out sets (beyond the format of ``heldout_wrong.py``), the unit tests of the suites
and the history were not read, and no catch rate was computed while writing it.

What it samples: the natural distribution of first-attempt mistakes, not rare corners. For each
task the solution a code model writes on a first attempt, and the variants it samples at a
moderate temperature, were written out (common idioms, misreadings of the docstring, off-by-one
bounds, ``<`` for ``<=``, ``split(' ')`` against ``split()``, missing base cases, empty inputs,
zero and negative numbers, set order, floating-point logarithms, recursion depth, unescaped
regular expressions); a variant was kept only if it passes HumanEval's own ``check`` and differs
from the reference on an input within the task's stated domain. No rule kept out mistakes that
earlier sets may also hold (they were not read). Every solution is a complete function with the
prompt's signature, written in good faith: no special-cased values.

Witnesses: each is a small input (the smallest found) that meets the task's contract where it
has one and the docstring's stated domain, that the reference answers in milliseconds, and on
which the solution returns another value (as ``oracles.is_right`` compares), raises, or does not
return. Two entries differ only by not returning in time (HumanEval/25 on the prime 1000000007,
HumanEval/76 on ``(2, 1)``); both witnesses are far within the size contract (65,536 items, 1,000
digits).

Left out as disputed: tasks 95, 97 and 124; the decode tasks (38, 50); ties of
``find_closest_elements``; ``change_base(0, b)``; ``modp(n, 1)``; the float arithmetic of
``get_odd_collatz``, ``tri`` and ``rounded_avg``; the ASCII letter and digit tests of
``file_name_check`` and ``check_if_last_char_is_a_letter``; trailing spaces in ``fix_spaces``;
``iscube``'s float cube root; ``x_or_y`` and ``add_elements`` below 2 or negative; the Greek final
sigma; the dotted and dotless i; tabs where a task speaks of spaces; letters and digits outside
ASCII; negative ``gcd``. Candidates whose witness the reference cannot answer quickly (the
exponential ``fib`` and ``fibfib``, the linear ``largest_prime_factor``, ``largest_divisor`` and
``sum_to_n`` on huge n, the quadratic ``common``) were left out too.

What was found: 37 entries over 31 tasks, at most 2 per task: 14 model-style, 14 empty-negative,
4 order-ties, 3 type-boundary, 2 string-off-by-one. 51 of the 82 tasks yielded none (their base
tests already pin down the natural variants, or their mistakes lie only in the disputed regions):
1, 3, 5, 8, 12, 14, 15, 16, 20, 21, 23, 24, 27, 28, 29, 30, 33, 36, 37, 38, 39, 41, 42, 44, 45,
47, 49, 50, 51, 53, 54, 56, 59, 61, 62, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 77, 78, 79,
80, 81.
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
        "Compares the distance with <= instead of <, so two numbers exactly the threshold apart count as close; [1.0, 2.0] with threshold 1.0 is not closer than 1.0.",
        """
from typing import List


def has_close_elements(numbers: List[float], threshold: float) -> bool:
    sorted_numbers = sorted(numbers)
    for i in range(len(sorted_numbers) - 1):
        if sorted_numbers[i + 1] - sorted_numbers[i] <= threshold:
            return True
    return False
""",
        ([1.0, 2.0], 1.0),
    ),
    Wrong(
        "HumanEval/2",
        "model-style",
        "Reads the decimals off the string form of the number, which has no '.' in scientific notation: 1e-05 raises IndexError.",
        """
def truncate_number(number: float) -> float:
    return float("0." + str(number).split(".")[1])
""",
        (1e-05,),
    ),
    Wrong(
        "HumanEval/4",
        "model-style",
        "Measures the deviations around the median instead of the mean, which agrees only on symmetric data such as evenly spaced numbers.",
        """
from typing import List


def mean_absolute_deviation(numbers: List[float]) -> float:
    s = sorted(numbers)
    n = len(s)
    center = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    return sum(abs(x - center) for x in numbers) / n
""",
        ([1.0, 2.0, 6.0],),
    ),
    Wrong(
        "HumanEval/6",
        "empty-negative",
        "Splits on ' ' without dropping empty pieces, so the empty string yields one group of depth 0 instead of no groups.",
        """
from typing import List


def parse_nested_parens(paren_string: str) -> List[int]:
    result = []
    for group in paren_string.split(' '):
        depth = 0
        max_depth = 0
        for c in group:
            if c == '(':
                depth += 1
                max_depth = max(max_depth, depth)
            elif c == ')':
                depth -= 1
        result.append(max_depth)
    return result
""",
        ("",),
    ),
    Wrong(
        "HumanEval/7",
        "model-style",
        "Uses re.search with the substring as an unescaped pattern, so '.' matches any character and 'abc' is kept.",
        """
import re
from typing import List


def filter_by_substring(strings: List[str], substring: str) -> List[str]:
    return [s for s in strings if re.search(substring, s)]
""",
        (["abc"], "."),
    ),
    Wrong(
        "HumanEval/9",
        "empty-negative",
        "Starts the running maximum at 0 instead of the first element, so an all-negative list reports 0s.",
        """
from typing import List, Tuple


def rolling_max(numbers: List[int]) -> List[int]:
    result = []
    current_max = 0
    for n in numbers:
        current_max = max(current_max, n)
        result.append(current_max)
    return result
""",
        ([-1],),
    ),
    Wrong(
        "HumanEval/10",
        "model-style",
        "Appends the reverse of all but the last character whenever the string is not already a palindrome, ignoring a longer palindromic suffix: 'abb' becomes 'abbba' instead of 'abba'.",
        """
def is_palindrome(string: str) -> bool:
    return string == string[::-1]


def make_palindrome(string: str) -> str:
    if is_palindrome(string):
        return string
    return string + string[:-1][::-1]
""",
        ("abb",),
    ),
    Wrong(
        "HumanEval/11",
        "empty-negative",
        "Converts both strings with int(x, 2), which raises ValueError on empty strings whose XOR is the empty string.",
        """
from typing import List


def string_xor(a: str, b: str) -> str:
    return bin(int(a, 2) ^ int(b, 2))[2:].zfill(len(a))
""",
        ("", ""),
    ),
    Wrong(
        "HumanEval/13",
        "empty-negative",
        "Counts down from min(a, b) looking for a common divisor, so with a 0 argument the loop is empty and it returns 1 instead of the other number.",
        """
def greatest_common_divisor(a: int, b: int) -> int:
    for i in range(min(a, b), 0, -1):
        if a % i == 0 and b % i == 0:
            return i
    return 1
""",
        (0, 5),
    ),
    Wrong(
        "HumanEval/17",
        "string-off-by-one",
        "Splits on a single space without dropping empty pieces, so two spaces between notes raise KeyError on ''.",
        """
from typing import List


def parse_music(music_string: str) -> List[int]:
    if not music_string:
        return []
    note_map = {'o': 4, 'o|': 2, '.|': 1}
    return [note_map[note] for note in music_string.split(' ')]
""",
        ("o  o",),
    ),
    Wrong(
        "HumanEval/18",
        "model-style",
        "Counts overlapping matches with a regular-expression lookahead but does not escape the substring, so '.' matches every character.",
        """
import re


def how_many_times(string: str, substring: str) -> int:
    return len(re.findall(f'(?={substring})', string))
""",
        ("a.b", "."),
    ),
    Wrong(
        "HumanEval/19",
        "string-off-by-one",
        "Guards the empty string but splits on a single space without dropping empty pieces, so two spaces between words raise ValueError on ''.",
        """
from typing import List


def sort_numbers(numbers: str) -> str:
    if not numbers:
        return ''
    order = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine']
    words = numbers.split(' ')
    return ' '.join(sorted(words, key=order.index))
""",
        ("three  one",),
    ),
    Wrong(
        "HumanEval/22",
        "type-boundary",
        "Tests type(x) == int, which drops booleans that isinstance(x, int) keeps.",
        """
from typing import List, Any


def filter_integers(values: List[Any]) -> List[int]:
    return [x for x in values if type(x) == int]
""",
        ([True, 1],),
    ),
    Wrong(
        "HumanEval/25",
        "model-style",
        "Trial-divides by every number up to the largest prime factor instead of stopping at its square root, so a large prime does not return in time.",
        """
from typing import List


def factorize(n: int) -> List[int]:
    factors = []
    d = 2
    while n > 1:
        while n % d == 0:
            factors.append(d)
            n //= d
        d += 1
    return factors
""",
        (1000000007,),
    ),
    Wrong(
        "HumanEval/26",
        "order-ties",
        "Iterates over set(numbers) to count occurrences, so the kept elements come out in set order, not input order.",
        """
from typing import List


def remove_duplicates(numbers: List[int]) -> List[int]:
    return [n for n in set(numbers) if numbers.count(n) == 1]
""",
        ([3, 1],),
    ),
    Wrong(
        "HumanEval/31",
        "empty-negative",
        "Rejects every even number before checking for 2 itself, so 2 is called composite.",
        """
def is_prime(n):
    if n < 2:
        return False
    if n % 2 == 0:
        return False
    i = 3
    while i * i <= n:
        if n % i == 0:
            return False
        i += 2
    return True
""",
        (2,),
    ),
    Wrong(
        "HumanEval/31",
        "empty-negative",
        "Special-cases only 1 as not prime, so 0 (and the trial loop's empty range) is called prime.",
        """
def is_prime(n):
    if n == 1:
        return False
    for i in range(2, int(n ** 0.5) + 1):
        if n % i == 0:
            return False
    return True
""",
        (0,),
    ),
    Wrong(
        "HumanEval/32",
        "model-style",
        "Bisects on a fixed interval [-100, 100] instead of widening it until the signs differ, so a root beyond 100 is missed.",
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
        "Runs Newton's method from x = 0 without guarding the derivative, which is zero there for x^3 + 1 and raises ZeroDivisionError.",
        """
import math


def poly(xs: list, x: float):
    return sum([coeff * math.pow(x, i) for i, coeff in enumerate(xs)])


def find_zero(xs: list):
    x = 0.0
    for _ in range(1000):
        fx = poly(xs, x)
        if abs(fx) < 1e-10:
            return x
        dfx = sum(i * c * math.pow(x, i - 1) for i, c in enumerate(xs) if i > 0)
        x = x - fx / dfx
    return x
""",
        ([1, 0, 0, 1],),
    ),
    Wrong(
        "HumanEval/34",
        "order-ties",
        "Returns list(set(l)) without sorting; small non-negative integers often come out sorted, but 8 hashes before 1.",
        """
def unique(l: list):
    return list(set(l))
""",
        ([8, 1],),
    ),
    Wrong(
        "HumanEval/35",
        "empty-negative",
        "Starts the maximum at 0 instead of the first element, so a list of negative numbers returns 0.",
        """
def max_element(l: list):
    m = 0
    for e in l:
        if e > m:
            m = e
    return m
""",
        ([-3, -1, -2],),
    ),
    Wrong(
        "HumanEval/40",
        "model-style",
        "Looks for the third element anywhere in the list, including the two already chosen, so [2, -1] finds 2 + (-1) + (-1).",
        """
def triples_sum_to_zero(l: list):
    for i in range(len(l)):
        for j in range(i + 1, len(l)):
            if -(l[i] + l[j]) in l:
                return True
    return False
""",
        ([2, -1],),
    ),
    Wrong(
        "HumanEval/43",
        "empty-negative",
        "Skips 0 so that an element does not pair with itself, which also misses two distinct zeros.",
        """
def pairs_sum_to_zero(l):
    seen = set(l)
    for x in l:
        if x != 0 and -x in seen:
            return True
    return False
""",
        ([0, 0],),
    ),
    Wrong(
        "HumanEval/46",
        "empty-negative",
        "Sizes the table to n + 1 and then writes dp[2], which raises IndexError for n < 2.",
        """
def fib4(n: int):
    dp = [0] * (n + 1)
    dp[2] = 2
    for i in range(4, n + 1):
        dp[i] = dp[i - 1] + dp[i - 2] + dp[i - 3] + dp[i - 4]
    return dp[n]
""",
        (1,),
    ),
    Wrong(
        "HumanEval/46",
        "model-style",
        "Rolls four variables forward n - 3 times and returns the last, which is right from n = 3 on but returns 0 instead of 2 for n = 2.",
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
        "Uses the everyday palindrome idiom that lowercases and drops non-alphanumerics, so 'Aa' counts as a palindrome.",
        """
def is_palindrome(text: str):
    cleaned = ''.join(c.lower() for c in text if c.isalnum())
    return cleaned == cleaned[::-1]
""",
        ("Aa",),
    ),
    Wrong(
        "HumanEval/52",
        "empty-negative",
        "Compares max(l) with the threshold, which raises ValueError on an empty list where every element (none) is below it.",
        """
def below_threshold(l: list, t: int):
    return max(l) < t
""",
        ([], 5),
    ),
    Wrong(
        "HumanEval/55",
        "empty-negative",
        "Returns 1 for every n <= 2, so fib(0) is 1 instead of 0.",
        """
def fib(n: int):
    if n <= 2:
        return 1
    a, b = 1, 1
    for _ in range(n - 2):
        a, b = b, a + b
    return b
""",
        (0,),
    ),
    Wrong(
        "HumanEval/57",
        "order-ties",
        "Fixes the direction from the first two elements with >=, so a list starting with a tie and then decreasing, [1, 1, 0], is judged increasing and rejected.",
        """
def monotonic(l: list):
    if len(l) <= 2:
        return True
    increasing = l[1] >= l[0]
    for i in range(1, len(l)):
        if increasing and l[i] < l[i - 1]:
            return False
        if not increasing and l[i] > l[i - 1]:
            return False
    return True
""",
        ([1, 1, 0],),
    ),
    Wrong(
        "HumanEval/57",
        "empty-negative",
        "Picks the direction from l[0] and l[-1], which raises IndexError on the empty list.",
        """
def monotonic(l: list):
    if l[0] <= l[-1]:
        return all(l[i] <= l[i + 1] for i in range(len(l) - 1))
    return all(l[i] >= l[i + 1] for i in range(len(l) - 1))
""",
        ([],),
    ),
    Wrong(
        "HumanEval/58",
        "model-style",
        "Keeps the elements of l1 found in l2 and sorts them but does not remove duplicates.",
        """
def common(l1: list, l2: list):
    return sorted([x for x in l1 if x in l2])
""",
        ([1, 1], [1]),
    ),
    Wrong(
        "HumanEval/58",
        "order-ties",
        "Intersects two sets but forgets to sort, returning the set's iteration order.",
        """
def common(l1: list, l2: list):
    return list(set(l1) & set(l2))
""",
        ([8, 1], [1, 8]),
    ),
    Wrong(
        "HumanEval/60",
        "model-style",
        "Sums recursively, one call per number, so n = 1000 exceeds Python's recursion limit.",
        """
def sum_to_n(n: int):
    if n == 1:
        return 1
    return n + sum_to_n(n - 1)
""",
        (1000,),
    ),
    Wrong(
        "HumanEval/63",
        "empty-negative",
        "Handles n == 1 and n == 2 but not n == 0, which falls through to the iteration and returns 1.",
        """
def fibfib(n: int):
    if n == 1:
        return 0
    if n == 2:
        return 1
    a, b, c = 0, 0, 1
    for _ in range(3, n + 1):
        a, b, c = b, c, a + b + c
    return c
""",
        (0,),
    ),
    Wrong(
        "HumanEval/75",
        "model-style",
        "Counts prime factors by trial division up to the square root of a but forgets the prime left over above it, so 42 = 2 * 3 * 7 counts two factors.",
        """
def is_multiply_prime(a):
    count = 0
    n = a
    for i in range(2, int(a ** 0.5) + 1):
        while n % i == 0:
            count += 1
            n //= i
    return count == 3
""",
        (42,),
    ),
    Wrong(
        "HumanEval/76",
        "type-boundary",
        "Takes int() of a floating-point logarithm, which truncates log(243, 3) = 4.999... to 4.",
        """
import math


def is_simple_power(x, n):
    if n == 1:
        return x == 1
    p = int(math.log(x, n))
    return n ** p == x
""",
        (243, 3),
    ),
    Wrong(
        "HumanEval/76",
        "empty-negative",
        "Multiplies a power of n until it reaches x without handling n == 1, so is_simple_power(2, 1) never returns.",
        """
def is_simple_power(x, n):
    power = 1
    while power < x:
        power *= n
    return power == x
""",
        (2, 1),
    ),
)


def tasks() -> tuple[str, ...]:
    """The tasks the set covers, in order."""
    return tuple(sorted({e.task_id for e in ENTRIES}, key=lambda t: int(t.split("/")[1])))
