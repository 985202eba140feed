"""A sixth held-out set of plausible-wrong HumanEval solutions, written for specverdict.

The first five sets (``benchmarks/heldout_wrong.py`` to ``benchmarks/heldout_wrong5.py``) have been
scored and may have informed the amplifier's design since, so their misses no longer measure
mistakes nobody chose for the amplifier to catch. This set was written after all five, apart from
the amplifier (``suites/function``'s input generators, their design notes and the catch rates of
the earlier sets were not read to write it), for one measurement; it must not be tuned to the
amplifier either. It has the first set's format (``Wrong``, ``KINDS``) and rules: every solution
here was written by hand, as a model might write it, passes HumanEval's own base tests (``check``
in the dataset) and is wrong on its witness, a concrete input within the task's stated domain on
which its output differs from the project's reference (raising or not returning counts as
differing). No entry repeats one of the first five sets: other tasks, or other bugs on the same
task. Tasks whose canonical solution is disputed on the witness's region (95, 97, 124, the decode
tasks, ties of ``find_closest_elements``, ``change_base(0, b)``, ``modp(n, 1)``, the regions that
``REFERENCE_FIXES`` corrects, ...) and the bugs of ``tests/unit/suites/solutions.py``'s
``PLAUSIBLY_WRONG`` are left out. About a fifth of the entries only fail at scale (recursion past
the limit, work that grows with the size of a number or quadratically with the length), each on a
witness of ordinary size; the rest fail on small inputs.

Kinds (``KINDS``, as in the first set):

* ``model-style``: hand-written mistakes a model makes (an algorithm that does something else:
  Fermat's little theorem applied to a modulus that need not be prime, base-2 Fermat tests and
  tables of small primes taken for primality tests, the midpoint of the extremes read as the
  centerpoint, a comparison with the largest earlier element instead of the preceding one, a
  ``return False`` indented into the outer loop; a library call that does something else:
  ``lstrip('0b')`` stripping a digit, ``str.split()`` splitting at a tab, a substring test with
  ``in``, a regular expression joined with ``|`` from arbitrary characters; ASCII-only case
  swapping and consonant lists, letters without case taken for capitals; recursion, pairwise
  comparisons, bubble and insertion sorts, repeated ``min()`` and reversed copies that do not
  scale);
* ``type-boundary``: int against float (``int(math.pow(...))``, ``int(a / b)``, ``x / n``, a
  product accumulated in a float, a rounded mean, ``round()`` for the integer part), sentinel
  values such as ``1e9`` or ``10 ** 9`` that real values exceed, searches and tables bounded to
  small values;
* ``string-off-by-one``: an index or window one step short or long over a string, or over a list
  read as one (an index ``i - 1`` that wraps at 0, a scan that never reaches the last element, a
  bound one short, a table one entry short, a group closed once too often, ``str.find(...) > 0``
  reading position 0 as not found);
* ``empty-negative``: empty selections and zero handled wrongly (``functools.reduce`` without a
  start value, an ``if x`` filter that drops zeros, a digit loop that collects nothing for 0, a
  division loop that never ends for 0, the logarithm of 0);
* ``order-ties``: repeated values (set comprehensions that collapse repeated values, a multiset
  comparison that ignores positions).

``benchmarks/heldout_catch.py --set heldout_wrong6`` scores the set with the amplified tests;
``tests/integration/suites/test_heldout_set.py`` checks the data of all six sets.
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
        "string-off-by-one",
        "compares each sorted number with ordered[i - 1] from i = 0, which wraps a single number onto itself",
        """
from typing import List


def has_close_elements(numbers: List[float], threshold: float) -> bool:
    ordered = sorted(numbers)
    for i in range(len(ordered)):
        if abs(ordered[i] - ordered[i - 1]) < threshold:
            return True
    return False
""",
        ([2.5], 1.0),
    ),
    Wrong(
        "HumanEval/2",
        "type-boundary",
        "takes the distance to round(number), so a decimal part above one half comes out as its complement",
        """
def truncate_number(number: float) -> float:
    return abs(number - round(number))
""",
        (2.7,),
    ),
    Wrong(
        "HumanEval/4",
        "model-style",
        "reads the centerpoint as the midpoint of the smallest and largest numbers",
        """
from typing import List


def mean_absolute_deviation(numbers: List[float]) -> float:
    centre = (min(numbers) + max(numbers)) / 2
    return sum(abs(x - centre) for x in numbers) / len(numbers)
""",
        ([1.0, 2.0, 3.0, 10.0],),
    ),
    Wrong(
        "HumanEval/4",
        "type-boundary",
        "rounds the mean to two decimals before measuring the deviations from it",
        """
from typing import List


def mean_absolute_deviation(numbers: List[float]) -> float:
    mean = round(sum(numbers) / len(numbers), 2)
    return sum(abs(x - mean) for x in numbers) / len(numbers)
""",
        ([1.0, 2.0, 4.0],),
    ),
    Wrong(
        "HumanEval/5",
        "empty-negative",
        "interleaves with zip_longest and filters the padding with `if x`, which also drops zeros",
        """
from itertools import chain, zip_longest
from typing import List


def intersperse(numbers: List[int], delimeter: int) -> List[int]:
    pairs = zip_longest(numbers, [delimeter] * (len(numbers) - 1))
    return [x for x in chain.from_iterable(pairs) if x]
""",
        ([1, 2, 3], 0),
    ),
    Wrong(
        "HumanEval/6",
        "string-off-by-one",
        "closes a group at every space and once more at the end, so an empty string yields one group of depth 0",
        """
from typing import List


def parse_nested_parens(paren_string: str) -> List[int]:
    result = []
    depth = max_depth = 0
    for ch in paren_string:
        if ch == "(":
            depth += 1
            max_depth = max(max_depth, depth)
        elif ch == ")":
            depth -= 1
        elif ch == " ":
            result.append(max_depth)
            max_depth = 0
    result.append(max_depth)
    return result
""",
        ("",),
    ),
    Wrong(
        "HumanEval/8",
        "type-boundary",
        "accumulates the product in a float started at 1.0 and converts it back with int(), inexact above 2 ** 53",
        """
from typing import List, Tuple


def sum_product(numbers: List[int]) -> Tuple[int, int]:
    total = 0
    product = 1.0
    for n in numbers:
        total += n
        product *= n
    return total, int(product)
""",
        ([123456789, 987654321],),
    ),
    Wrong(
        "HumanEval/12",
        "string-off-by-one",
        "the scan runs over range(1, len(strings) - 1), so the last string is never a candidate",
        """
from typing import List, Optional


def longest(strings: List[str]) -> Optional[str]:
    if not strings:
        return None
    best = strings[0]
    for i in range(1, len(strings) - 1):
        if len(strings[i]) > len(best):
            best = strings[i]
    return best
""",
        (["dog", "horse"],),
    ),
    Wrong(
        "HumanEval/13",
        "model-style",
        "tries every candidate from min(a, b) down to 1, so two large coprime numbers take about a billion steps",
        """
def greatest_common_divisor(a: int, b: int) -> int:
    if a == 0 or b == 0:
        return a or b
    for d in range(min(a, b), 0, -1):
        if a % d == 0 and b % d == 0:
            return d
""",
        (1000000007, 998244353),
    ),
    Wrong(
        "HumanEval/20",
        "type-boundary",
        "starts the smallest gap at 1e9, so numbers further apart than that leave no pair chosen",
        """
from typing import List, Tuple


def find_closest_elements(numbers: List[float]) -> Tuple[float, float]:
    ordered = sorted(numbers)
    best = None
    best_gap = 1e9
    for a, b in zip(ordered, ordered[1:]):
        if b - a < best_gap:
            best_gap = b - a
            best = (a, b)
    return best
""",
        ([1.0, 3000000000.0],),
    ),
    Wrong(
        "HumanEval/24",
        "string-off-by-one",
        "searches odd divisors over range(3, n // 3, 2), one short of the bound, so 9 finds no divisor",
        """
def largest_divisor(n: int) -> int:
    if n % 2 == 0:
        return n // 2
    for i in range(3, n // 3, 2):
        if n % i == 0:
            return n // i
    return 1
""",
        (9,),
    ),
    Wrong(
        "HumanEval/29",
        "model-style",
        "filters recursively on strings[1:], so a list of a few thousand strings exceeds the recursion limit",
        """
from typing import List


def filter_by_prefix(strings: List[str], prefix: str) -> List[str]:
    if not strings:
        return []
    head, rest = strings[0], strings[1:]
    kept = [head] if head.startswith(prefix) else []
    return kept + filter_by_prefix(rest, prefix)
""",
        (["apple", "banana"] * 1000, "a"),
    ),
    Wrong(
        "HumanEval/31",
        "model-style",
        "tries only the primes up to 23 as divisors, so a product of two larger primes passes as prime",
        """
def is_prime(n):
    if n < 2:
        return False
    for p in (2, 3, 5, 7, 11, 13, 17, 19, 23):
        if n % p == 0:
            return n == p
    return True
""",
        (899,),
    ),
    Wrong(
        "HumanEval/36",
        "empty-negative",
        "adds up the counts with functools.reduce and no start value, which raises when no number qualifies",
        """
from functools import reduce


def fizz_buzz(n: int):
    counts = [str(i).count("7") for i in range(n) if i % 11 == 0 or i % 13 == 0]
    return reduce(lambda a, b: a + b, counts)
""",
        (0,),
    ),
    Wrong(
        "HumanEval/37",
        "order-ties",
        "collects the even-index values in a set comprehension, so a repeated value leaves too few to place back",
        """
def sort_even(l: list):
    evens = sorted({l[i] for i in range(0, len(l), 2)})
    result = list(l)
    for k, i in enumerate(range(0, len(l), 2)):
        result[i] = evens[k]
    return result
""",
        ([4, 1, 2, 1, 4],),
    ),
    Wrong(
        "HumanEval/40",
        "model-style",
        "`return False` is indented into the outer loop, so only triples using the first element are tried",
        """
def triples_sum_to_zero(l: list):
    for i in range(len(l)):
        for j in range(i + 1, len(l)):
            for k in range(j + 1, len(l)):
                if l[i] + l[j] + l[k] == 0:
                    return True
        return False
    return False
""",
        ([5, 1, 2, -3],),
    ),
    Wrong(
        "HumanEval/49",
        "model-style",
        "reduces the exponent modulo p - 1 by Fermat's little theorem, which holds only for a prime p",
        """
def modp(n: int, p: int):
    return pow(2, n % (p - 1), p)
""",
        (12, 10),
    ),
    Wrong(
        "HumanEval/52",
        "model-style",
        "checks the head and recurses on l[1:], so a list of a few thousand numbers exceeds the recursion limit",
        """
def below_threshold(l: list, t: int):
    if not l:
        return True
    return l[0] < t and below_threshold(l[1:], t)
""",
        (list(range(2000)), 5000),
    ),
    Wrong(
        "HumanEval/55",
        "string-off-by-one",
        "fills a table of n + 1 entries and sets its second entry first, so there is no room for it when n = 0",
        """
def fib(n: int):
    table = [0] * (n + 1)
    table[1] = 1
    for i in range(2, n + 1):
        table[i] = table[i - 1] + table[i - 2]
    return table[n]
""",
        (0,),
    ),
    Wrong(
        "HumanEval/57",
        "model-style",
        "compares every pair of elements, not just neighbours, quadratic in the length",
        """
def monotonic(l: list):
    n = len(l)
    increasing = all(l[i] <= l[j] for i in range(n) for j in range(i + 1, n))
    decreasing = all(l[i] >= l[j] for i in range(n) for j in range(i + 1, n))
    return increasing or decreasing
""",
        (list(range(20000)),),
    ),
    Wrong(
        "HumanEval/59",
        "model-style",
        "divides out only the primes up to 13 and returns what is left, which may be a product of larger primes",
        """
def largest_prime_factor(n: int):
    largest = 1
    for p in (2, 3, 5, 7, 11, 13):
        while n % p == 0:
            largest = p
            n //= p
    return n if n > 1 else largest
""",
        (323,),
    ),
    Wrong(
        "HumanEval/60",
        "empty-negative",
        "sums range(1, n + 1) with functools.reduce and no start value, which raises for n = 0",
        """
from functools import reduce


def sum_to_n(n: int):
    return reduce(lambda a, b: a + b, range(1, n + 1))
""",
        (0,),
    ),
    Wrong(
        "HumanEval/65",
        "empty-negative",
        "collects the digits with `while x > 0`, which collects none for 0",
        """
def circular_shift(x, shift):
    digits = []
    while x > 0:
        digits.append(str(x % 10))
        x //= 10
    digits.reverse()
    n = len(digits)
    if shift > n:
        return "".join(reversed(digits))
    return "".join(digits[n - shift :] + digits[: n - shift])
""",
        (0, 1),
    ),
    Wrong(
        "HumanEval/65",
        "type-boundary",
        "splits off digits with int(x / 10), a float division that changes the digits of large numbers",
        """
def circular_shift(x, shift):
    digits = []
    while x > 0:
        digits.append(x % 10)
        x = int(x / 10)
    s = "".join(str(d) for d in reversed(digits)) or "0"
    if shift > len(s):
        return s[::-1]
    return s[len(s) - shift :] + s[: len(s) - shift]
""",
        (12345678901234567891, 3),
    ),
    Wrong(
        "HumanEval/66",
        "order-ties",
        "sums a set comprehension of the codes, so a repeated capital letter is added once",
        """
def digitSum(s):
    return sum({ord(c) for c in s if c.isupper()})
""",
        ("HELLO",),
    ),
    Wrong(
        "HumanEval/66",
        "model-style",
        "takes a letter equal to its upper-case form for a capital, so letters without case are added too",
        """
def digitSum(s):
    return sum(ord(c) for c in s if c.isalpha() and c == c.upper())
""",
        ("Tokyo 東京",),
    ),
    Wrong(
        "HumanEval/67",
        "order-ties",
        "collects the numbers in a set comprehension, so equal apple and orange counts are subtracted once",
        """
def fruit_distribution(s, n):
    return n - sum({int(word) for word in s.split() if word.isdigit()})
""",
        ("5 apples and 5 oranges", 19),
    ),
    Wrong(
        "HumanEval/68",
        "type-boundary",
        "starts the smallest even value at 10 ** 9, so an even node above it is never plucked",
        """
def pluck(arr):
    best_value, best_index = 10**9, -1
    for i, value in enumerate(arr):
        if value % 2 == 0 and value < best_value:
            best_value, best_index = value, i
    return [] if best_index == -1 else [best_value, best_index]
""",
        ([3000000000, 7],),
    ),
    Wrong(
        "HumanEval/68",
        "model-style",
        "recomputes the smallest even value for every even node it scans, quadratic on an array of 10000 nodes",
        """
def pluck(arr):
    if not any(v % 2 == 0 for v in arr):
        return []
    for i, x in enumerate(arr):
        if x % 2 == 0 and x == min(v for v in arr if v % 2 == 0):
            return [x, i]
""",
        (list(range(20000, 0, -2)),),
    ),
    Wrong(
        "HumanEval/69",
        "type-boundary",
        "counts frequencies in a fixed table of 11 slots, as if no value could exceed 10",
        """
def search(lst):
    freq = [0] * 11
    for x in lst:
        freq[x] += 1
    for value in range(10, 0, -1):
        if freq[value] >= value:
            return value
    return -1
""",
        ([12] * 12,),
    ),
    Wrong(
        "HumanEval/73",
        "order-ties",
        "compares the halves as multisets with Counter subtraction, ignoring the positions of the values",
        """
from collections import Counter


def smallest_change(arr):
    half = len(arr) // 2
    front = Counter(arr[:half])
    back = Counter(arr[::-1][:half])
    return sum((front - back).values())
""",
        ([1, 2, 1, 2],),
    ),
    Wrong(
        "HumanEval/73",
        "model-style",
        "compares arr[i] with arr[::-1][i], reversing a copy of the array for every index",
        """
def smallest_change(arr):
    changes = 0
    for i in range(len(arr) // 2):
        if arr[i] != arr[::-1][i]:
            changes += 1
    return changes
""",
        (list(range(100000)),),
    ),
    Wrong(
        "HumanEval/75",
        "empty-negative",
        "divides out each prime below 100 while it divides a, which never ends for a = 0",
        """
def is_multiply_prime(a):
    count = 0
    for p in range(2, 100):
        while a % p == 0:
            a //= p
            count += 1
    return count == 3
""",
        (0,),
    ),
    Wrong(
        "HumanEval/76",
        "empty-negative",
        "rounds math.log(x, n) to an exponent, and the logarithm of 0 raises",
        """
import math


def is_simple_power(x, n):
    if n == 1:
        return x == 1
    k = round(math.log(x, n))
    return n**k == x
""",
        (0, 2),
    ),
    Wrong(
        "HumanEval/76",
        "type-boundary",
        "divides x by n with /, so a large power turns into an inexact float that never reaches 1",
        """
def is_simple_power(x, n):
    if n == 1:
        return x == 1
    while x > 1 and x % n == 0:
        x = x / n
    return x == 1
""",
        (10**30, 10),
    ),
    Wrong(
        "HumanEval/76",
        "type-boundary",
        "tries the exponents 0 to 9 only, so a power of n beyond n ** 9 is missed",
        """
def is_simple_power(x, n):
    return any(n**k == x for k in range(10))
""",
        (1024, 2),
    ),
    Wrong(
        "HumanEval/77",
        "type-boundary",
        "looks a up in the cubes of -20 to 20 only",
        """
def iscube(a):
    cubes = {i**3 for i in range(-20, 21)}
    return a in cubes
""",
        (9261,),
    ),
    Wrong(
        "HumanEval/78",
        "model-style",
        "counts recursively on num[1:], one call per digit, so a hexadecimal string of a few thousand digits exceeds the recursion limit",
        """
def hex_key(num):
    if not num:
        return 0
    return (1 if num[0] in "2357BD" else 0) + hex_key(num[1:])
""",
        ("1077E" * 500,),
    ),
    Wrong(
        "HumanEval/84",
        "model-style",
        "strips the prefix with lstrip('0b'), which also strips the only digit of '0b0'",
        """
def solve(N):
    return bin(sum(int(d) for d in str(N))).lstrip("0b")
""",
        (0,),
    ),
    Wrong(
        "HumanEval/85",
        "empty-negative",
        "adds the chosen elements with functools.reduce and no start value, which raises when none is chosen",
        """
from functools import reduce


def add(lst):
    chosen = [lst[i] for i in range(1, len(lst), 2) if lst[i] % 2 == 0]
    return reduce(lambda a, b: a + b, chosen)
""",
        ([1, 3, 5],),
    ),
    Wrong(
        "HumanEval/90",
        "type-boundary",
        "uses 10 ** 9 as the unset value, so a second smallest of 10 ** 9 or more is reported missing",
        """
def next_smallest(lst):
    smallest = second = 10**9
    for x in lst:
        if x < smallest:
            smallest, second = x, smallest
        elif smallest < x < second:
            second = x
    return None if second == 10**9 else second
""",
        ([1, 2000000000],),
    ),
    Wrong(
        "HumanEval/91",
        "order-ties",
        "counts a set comprehension of the boring sentences, so a repeated sentence counts once",
        """
import re


def is_bored(S):
    sentences = [s.strip() for s in re.split(r"[.?!]", S)]
    return len({s for s in sentences if s.startswith("I ")})
""",
        ("I win! I win!",),
    ),
    Wrong(
        "HumanEval/93",
        "model-style",
        "swaps case by ASCII code arithmetic, so a letter such as 'é' keeps its case",
        """
def encode(message):
    result = []
    for ch in message:
        if "a" <= ch <= "z":
            ch = chr(ord(ch) - 32)
        elif "A" <= ch <= "Z":
            ch = chr(ord(ch) + 32)
        if ch in "aeiouAEIOU":
            ch = chr(ord(ch) + 2)
        result.append(ch)
    return "".join(result)
""",
        ("Café",),
    ),
    Wrong(
        "HumanEval/94",
        "model-style",
        "tests primality by the primes up to 13 only, so the square of a larger prime is taken for a prime",
        """
def skjkasdkd(lst):
    def is_prime(n):
        if n < 2:
            return False
        for p in (2, 3, 5, 7, 11, 13):
            if n % p == 0:
                return n == p
        return True

    best = max((x for x in lst if is_prime(x)), default=0)
    return sum(int(d) for d in str(best))
""",
        ([289, 7, 4],),
    ),
    Wrong(
        "HumanEval/94",
        "model-style",
        "tests primality with a base-2 Fermat test, which the pseudoprime 341 passes",
        """
def skjkasdkd(lst):
    def is_prime(n):
        if n < 4:
            return n > 1
        return pow(2, n - 1, n) == 1

    best = max(x for x in lst if is_prime(x))
    return sum(int(d) for d in str(best))
""",
        ([341, 7, 4],),
    ),
    Wrong(
        "HumanEval/96",
        "model-style",
        "keeps the numbers that pass a base-2 Fermat test, which lets the pseudoprime 341 in",
        """
def count_up_to(n):
    return [k for k in range(2, n) if k == 2 or pow(2, k - 1, k) == 1]
""",
        (400,),
    ),
    Wrong(
        "HumanEval/98",
        "string-off-by-one",
        "tests membership with 'AEIOU'.find(c) > 0, so the 'A' at position 0 of the vowels is never counted",
        """
def count_upper(s):
    count = 0
    for i in range(0, len(s), 2):
        if "AEIOU".find(s[i]) > 0:
            count += 1
    return count
""",
        ("Apple",),
    ),
    Wrong(
        "HumanEval/102",
        "type-boundary",
        "rounds y down to an even number with int(y / 2) * 2, a float division that loses large values",
        """
def choose_num(x, y):
    if x > y:
        return -1
    even = int(y / 2) * 2
    return even if even >= x else -1
""",
        (3, 10**17 + 3),
    ),
    Wrong(
        "HumanEval/105",
        "model-style",
        "keeps x when str(x) is in '123456789', a substring test that also lets 12 through",
        """
def by_length(arr):
    names = ["One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine"]
    digits = [x for x in arr if str(x) in "123456789"]
    return [names[x - 1] for x in sorted(digits, reverse=True)]
""",
        ([12, 3],),
    ),
    Wrong(
        "HumanEval/108",
        "model-style",
        "counts recursively on arr[1:], one call per number, so a list of a few thousand numbers exceeds the recursion limit",
        """
def count_nums(arr):
    if not arr:
        return 0
    n = arr[0]
    digits = [int(c) for c in str(abs(n))]
    if n < 0:
        digits[0] = -digits[0]
    return (1 if sum(digits) > 0 else 0) + count_nums(arr[1:])
""",
        (list(range(-1000, 1000)),),
    ),
    Wrong(
        "HumanEval/112",
        "model-style",
        "deletes with re.sub('|'.join(c), ...), so a '.' in c matches and deletes every character",
        """
import re


def reverse_delete(s, c):
    result = re.sub("|".join(c), "", s) if c else s
    return (result, result == result[::-1])
""",
        ("a.b", "."),
    ),
    Wrong(
        "HumanEval/114",
        "type-boundary",
        "starts the minimum at 10 ** 9, so sub-array sums that are all larger are never reported",
        """
def minSubArraySum(nums):
    best = 10**9
    current = 0
    for x in nums:
        current = min(x, current + x)
        best = min(best, current)
    return best
""",
        ([2000000000, 3000000000],),
    ),
    Wrong(
        "HumanEval/114",
        "model-style",
        "extends a running sum from every start position, quadratic in the length",
        """
def minSubArraySum(nums):
    best = nums[0]
    for i in range(len(nums)):
        total = 0
        for j in range(i, len(nums)):
            total += nums[j]
            if total < best:
                best = total
    return best
""",
        (list(range(20000)),),
    ),
    Wrong(
        "HumanEval/116",
        "model-style",
        "sorts a copy with a hand-written bubble sort on the (ones, value) key, quadratic in the length",
        """
def sort_array(arr):
    arr = list(arr)

    def key(x):
        return (bin(x).count("1"), x)

    for i in range(len(arr)):
        for j in range(len(arr) - 1 - i):
            if key(arr[j]) > key(arr[j + 1]):
                arr[j], arr[j + 1] = arr[j + 1], arr[j]
    return arr
""",
        (list(range(5000, 0, -1)),),
    ),
    Wrong(
        "HumanEval/117",
        "model-style",
        "counts consonants from the ASCII list 'bcdfghjklmnpqrstvwxyz', missing letters such as 'ñ'",
        """
def select_words(s, n):
    consonants = "bcdfghjklmnpqrstvwxyz"
    return [w for w in s.split() if sum(1 for c in w.lower() if c in consonants) == n]
""",
        ("Señor mañana", 3),
    ),
    Wrong(
        "HumanEval/123",
        "model-style",
        "builds the odd numbers recursively from the next term, so a sequence of more than a thousand steps exceeds the recursion limit",
        """
def get_odd_collatz(n):
    if n == 1:
        return [1]
    nxt = n // 2 if n % 2 == 0 else 3 * n + 1
    odds = get_odd_collatz(nxt)
    if n % 2 == 1:
        odds = sorted(odds + [n])
    return odds
""",
        (9780657630,),
    ),
    Wrong(
        "HumanEval/125",
        "string-off-by-one",
        "tests for a space with txt.find(' ') > 0, so a space at position 0 reads as no whitespace",
        """
def split_words(txt):
    if txt.find(" ") > 0:
        return txt.split()
    elif txt.find(",") > 0:
        return txt.replace(",", " ").split()
    return len([c for c in txt if c.islower() and (ord(c) - ord("a")) % 2 == 1])
""",
        (" Hello world",),
    ),
    Wrong(
        "HumanEval/127",
        "model-style",
        "tests the length with a base-2 Fermat test, which the pseudoprime 341 passes",
        """
def intersection(interval1, interval2):
    start = max(interval1[0], interval2[0])
    end = min(interval1[1], interval2[1])
    length = end - start
    if length < 2:
        return "NO"
    if length in (2, 3):
        return "YES"
    return "YES" if pow(2, length - 1, length) == 1 else "NO"
""",
        ((0, 341), (0, 400)),
    ),
    Wrong(
        "HumanEval/128",
        "model-style",
        "walks the array recursively for the sign and the magnitude, one call per element, exceeding the recursion limit",
        """
def prod_signs(arr):
    if not arr:
        return None

    def walk(i):
        if i == len(arr):
            return 1, 0
        sign, total = walk(i + 1)
        x = arr[i]
        s = 0 if x == 0 else (1 if x > 0 else -1)
        return sign * s, total + abs(x)

    sign, total = walk(0)
    return sign * total
""",
        ([1, -1] * 1000,),
    ),
    Wrong(
        "HumanEval/131",
        "type-boundary",
        "multiplies the odd digits into a float started at 1.0 and converts it back with int(), inexact above 2 ** 53",
        """
def digits(n):
    product = 1.0
    found = False
    for d in str(n):
        if int(d) % 2 == 1:
            product *= int(d)
            found = True
    return int(product) if found else 0
""",
        (99999999999999999999,),
    ),
    Wrong(
        "HumanEval/133",
        "model-style",
        "adds the first ceiling squared to a recursive call on lst[1:], so a long list exceeds the recursion limit",
        """
import math


def sum_squares(lst):
    if not lst:
        return 0
    return math.ceil(lst[0]) ** 2 + sum_squares(lst[1:])
""",
        ([1.5] * 2000,),
    ),
    Wrong(
        "HumanEval/134",
        "model-style",
        "takes the last word from str.split(), which also splits at a tab, though words are separated by spaces",
        """
def check_if_last_char_is_a_letter(txt):
    if not txt or txt[-1] == " ":
        return False
    words = txt.split()
    return len(words[-1]) == 1 and words[-1].isalpha()
""",
        ("apple\te",),
    ),
    Wrong(
        "HumanEval/135",
        "model-style",
        "compares each element with the largest one before it instead of the one immediately preceding it",
        """
def can_arrange(arr):
    ind = -1
    for i in range(1, len(arr)):
        if arr[i] < max(arr[:i]):
            ind = i
    return ind
""",
        ([1, 5, 3, 4],),
    ),
    Wrong(
        "HumanEval/136",
        "model-style",
        "finds both values recursively from lst[1:], so a list of a few thousand numbers exceeds the recursion limit",
        """
def largest_smallest_integers(lst):
    if not lst:
        return (None, None)
    a, b = largest_smallest_integers(lst[1:])
    x = lst[0]
    if x < 0 and (a is None or x > a):
        a = x
    if x > 0 and (b is None or x < b):
        b = x
    return (a, b)
""",
        (list(range(-1500, 1500)),),
    ),
    Wrong(
        "HumanEval/138",
        "type-boundary",
        "searches sums of four even numbers from 2 to 18 only, so numbers above 72 are never reached",
        """
from itertools import product


def is_equal_to_sum_even(n):
    evens = range(2, 20, 2)
    return any(sum(combo) == n for combo in product(evens, repeat=4))
""",
        (100,),
    ),
    Wrong(
        "HumanEval/141",
        "order-ties",
        "counts the digits of the name in a set comprehension, so repeated digits count once",
        """
def file_name_check(file_name):
    if file_name.count(".") != 1:
        return "No"
    name, ext = file_name.split(".")
    if ext not in ["txt", "exe", "dll"]:
        return "No"
    if not name or not name[0].isalpha():
        return "No"
    if len({c for c in name if c.isdigit()}) > 3:
        return "No"
    return "Yes"
""",
        ("report2023.txt",),
    ),
    Wrong(
        "HumanEval/142",
        "type-boundary",
        "squares and cubes with int(math.pow(...)), whose floats are inexact above 2 ** 53",
        """
import math


def sum_squares(lst):
    total = 0
    for i, x in enumerate(lst):
        if i % 3 == 0:
            total += int(math.pow(x, 2))
        elif i % 4 == 0:
            total += int(math.pow(x, 3))
        else:
            total += x
    return total
""",
        ([100000007, 1, 2],),
    ),
    Wrong(
        "HumanEval/145",
        "model-style",
        "inserts each number into place by scanning back from the end, quadratic in the length",
        """
def order_by_points(nums):
    def digit_sum(n):
        s = str(abs(n))
        total = sum(int(c) for c in s)
        return total - 2 * int(s[0]) if n < 0 else total

    result = []
    for n in nums:
        i = len(result)
        while i > 0 and digit_sum(result[i - 1]) > digit_sum(n):
            i -= 1
        result.insert(i, n)
    return result
""",
        (list(range(5000, 0, -1)),),
    ),
    Wrong(
        "HumanEval/147",
        "empty-negative",
        "adds up the valid triples with functools.reduce and no start value, which raises when there is none",
        """
from functools import reduce


def get_max_triples(n):
    a = [i * i - i + 1 for i in range(1, n + 1)]
    hits = [
        1
        for i in range(n)
        for j in range(i + 1, n)
        for k in range(j + 1, n)
        if (a[i] + a[j] + a[k]) % 3 == 0
    ]
    return reduce(lambda x, y: x + y, hits)
""",
        (3,),
    ),
    Wrong(
        "HumanEval/150",
        "model-style",
        "tests primality by divisibility by 2, 3, 5 and 7 only, so 121 passes as prime",
        """
def x_or_y(n, x, y):
    if n < 2:
        return y
    for p in (2, 3, 5, 7):
        if n % p == 0 and n != p:
            return y
    return x
""",
        (121, 1, 0),
    ),
    Wrong(
        "HumanEval/151",
        "type-boundary",
        "squares with int(math.pow(x, 2)), whose float is inexact above 2 ** 53",
        """
import math


def double_the_difference(lst):
    return sum(int(math.pow(x, 2)) for x in lst if isinstance(x, int) and x > 0 and x % 2 == 1)
""",
        ([100000007],),
    ),
    Wrong(
        "HumanEval/160",
        "type-boundary",
        "evaluates with an operator stack and does floor division as int(a / b), inexact for large operands",
        """
def do_algebra(operator, operand):
    prec = {"+": 1, "-": 1, "*": 2, "//": 2, "**": 3}

    def apply(op, a, b):
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "//":
            return int(a / b)
        return a**b

    values = [operand[0]]
    ops = []
    for op, num in zip(operator, operand[1:]):
        while ops and (prec[ops[-1]] > prec[op] or (prec[ops[-1]] == prec[op] and op != "**")):
            b = values.pop()
            a = values.pop()
            values.append(apply(ops.pop(), a, b))
        ops.append(op)
        values.append(num)
    while ops:
        b = values.pop()
        a = values.pop()
        values.append(apply(ops.pop(), a, b))
    return values[0]
""",
        (["**", "//"], [10, 18, 7]),
    ),
)


def tasks() -> set[str]:
    """The task ids the set covers."""
    return {e.task_id for e in ENTRIES}
