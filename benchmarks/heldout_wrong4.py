"""A fourth held-out set of plausible-wrong HumanEval solutions, written for specverdict.

The first three sets (``benchmarks/heldout_wrong.py``, ``benchmarks/heldout_wrong2.py`` and
``benchmarks/heldout_wrong3.py``) have been read by the amplifier's designers since they were
scored, so their misses no longer measure mistakes nobody chose for the amplifier to catch. This
set was written after all three, apart from the amplifier (``suites/function``'s input
generators, their design notes and the catch rates of the earlier sets were not read to write
it), for a final measurement; it must not be tuned to the amplifier either. It has the first
set's format (``Wrong``, ``KINDS``) and rules: every solution here was written by hand, as a
model might write it, passes HumanEval's own base tests (``check`` in the dataset) and is wrong
on its witness, a concrete input within the task's stated domain on which its output differs
from the project's reference (raising or not returning counts as differing). No entry repeats
one of the first three sets: other tasks, or other bugs on the same task. Tasks whose canonical
solution is disputed on the witness's region (95, 97, 124, the decode tasks, ties of
``find_closest_elements``, ``change_base(0, b)``, ``modp(n, 1)``, ...) and the bugs of
``tests/unit/suites/solutions.py``'s ``PLAUSIBLY_WRONG`` are left out.

Kinds (``KINDS``, as in the first set):

* ``model-style``: hand-written mistakes a model makes (a library call or algorithm that does
  something else, work that grows quadratically where a linear pass does, a search that is
  linear in the size of a number, recursion that exceeds the recursion limit on inputs of
  ordinary length, whitespace and Unicode handling);
* ``type-boundary``: int against float (factorials from ``math.gamma``, float division of
  large integers), inclusive against exclusive bounds (grade rows, digit counts), numeric sort
  keys that overflow their packing;
* ``string-off-by-one``: an index or window one step short or long over a string, or over a
  list read as one (loops that never reach the last pair, comparisons that skip the first);
* ``empty-negative``: empty inputs, zero and negative numbers handled wrongly (``min`` or an
  index into an empty input, ``math.log10(0)``, a recursion whose base case zero never reaches);
* ``order-ties``: order among equal values (``list.index`` on repeated values, duplicates
  collapsed by a dict, a set or a set comprehension written for a list).

``benchmarks/heldout_catch.py --set heldout_wrong4`` scores the set with the amplified tests;
``tests/integration/suites/test_heldout_set.py`` checks the data of all four sets.
"""

from __future__ import annotations

try:
    from benchmarks.heldout_wrong import KINDS, Wrong
except ImportError:  # run as a script from the benchmarks directory
    from heldout_wrong import KINDS, Wrong  # type: ignore[no-redef, import-not-found]

__all__ = ["ENTRIES", "KINDS", "Wrong", "tasks"]

ENTRIES: tuple[Wrong, ...] = (
    Wrong(
        "HumanEval/25",
        "model-style",
        "trial division counts the divisor up to n itself, so a large prime factor takes as many steps as its size",
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
        (2 * 999999937,),
    ),
    Wrong(
        "HumanEval/26",
        "model-style",
        "counts every number with list.count inside the comprehension, quadratic in the length",
        """
from typing import List


def remove_duplicates(numbers: List[int]) -> List[int]:
    return [n for n in numbers if numbers.count(n) == 1]
""",
        (list(range(60000)),),
    ),
    Wrong(
        "HumanEval/9",
        "model-style",
        "takes max() of a fresh prefix slice for every position, quadratic in the length",
        """
from typing import List, Tuple


def rolling_max(numbers: List[int]) -> List[int]:
    return [max(numbers[: i + 1]) for i in range(len(numbers))]
""",
        (list(range(60000)),),
    ),
    Wrong(
        "HumanEval/69",
        "model-style",
        "counts each distinct value with list.count, quadratic in the number of distinct values",
        """
def search(lst):
    best = -1
    for value in set(lst):
        if lst.count(value) >= value and value > best:
            best = value
    return best
""",
        (list(range(1, 60001)),),
    ),
    Wrong(
        "HumanEval/86",
        "model-style",
        "splits on any whitespace with re.split and keeps tabs and newlines as separators",
        """
import re


def anti_shuffle(s):
    parts = re.split(r"(\\s+)", s)
    return "".join(p if p.isspace() else "".join(sorted(p)) for p in parts)
""",
        ("hello\tworld",),
    ),
    Wrong(
        "HumanEval/17",
        "model-style",
        "split(' ') keeps an empty token between two spaces and looks it up in the note table",
        """
from typing import List


def parse_music(music_string: str) -> List[int]:
    if not music_string:
        return []
    notes = {"o": 4, "o|": 2, ".|": 1}
    return [notes[token] for token in music_string.split(" ")]
""",
        ("o  o|",),
    ),
    Wrong(
        "HumanEval/48",
        "model-style",
        "checks the ends recursively, one call per pair, so a long string exceeds the recursion limit",
        """
def is_palindrome(text: str):
    if len(text) < 2:
        return True
    return text[0] == text[-1] and is_palindrome(text[1:-1])
""",
        ("a" * 5000,),
    ),
    Wrong(
        "HumanEval/4",
        "model-style",
        "recomputes the mean inside the generator for every number, quadratic in the length",
        """
from typing import List


def mean_absolute_deviation(numbers: List[float]) -> float:
    return sum(abs(x - sum(numbers) / len(numbers)) for x in numbers) / len(numbers)
""",
        ([float(i) for i in range(40000)],),
    ),
    Wrong(
        "HumanEval/21",
        "model-style",
        "recomputes min() and max() for every element, quadratic in the length",
        """
from typing import List


def rescale_to_unit(numbers: List[float]) -> List[float]:
    return [(x - min(numbers)) / (max(numbers) - min(numbers)) for x in numbers]
""",
        ([float(i) for i in range(40000)],),
    ),
    Wrong(
        "HumanEval/34",
        "model-style",
        "deduplicates by searching the prefix before each element, quadratic in the length",
        """
def unique(l: list):
    kept = [x for i, x in enumerate(l) if x not in l[:i]]
    return sorted(kept)
""",
        (list(range(40000)),),
    ),
    Wrong(
        "HumanEval/126",
        "model-style",
        "counts every element with lst.count to find triples, quadratic in the length",
        """
def is_sorted(lst):
    if any(lst.count(x) > 2 for x in lst):
        return False
    return all(lst[i] <= lst[i + 1] for i in range(len(lst) - 1))
""",
        (list(range(60000)),),
    ),
    Wrong(
        "HumanEval/109",
        "model-style",
        "builds and compares every rotation with the sorted list, quadratic in the length",
        """
def move_one_ball(arr):
    target = sorted(arr)
    for i in range(len(arr)):
        if arr[i:] + arr[:i] == target:
            return True
    return len(arr) == 0
""",
        (list(range(40000, 0, -1)),),
    ),
    Wrong(
        "HumanEval/12",
        "model-style",
        "takes the first string no other string is longer than, comparing every pair",
        """
from typing import List, Optional


def longest(strings: List[str]) -> Optional[str]:
    for s in strings:
        if all(len(s) >= len(t) for t in strings):
            return s
    return None
""",
        (["a"] * 40000 + ["bb"],),
    ),
    Wrong(
        "HumanEval/15",
        "model-style",
        "builds the sequence recursively from n - 1, so a few thousand exceed the recursion limit",
        """
def string_sequence(n: int) -> str:
    if n == 0:
        return "0"
    return string_sequence(n - 1) + " " + str(n)
""",
        (3000,),
    ),
    Wrong(
        "HumanEval/5",
        "model-style",
        "extends the result with result = result + [...], copying it for every number",
        """
from typing import List


def intersperse(numbers: List[int], delimeter: int) -> List[int]:
    result = []
    for i, n in enumerate(numbers):
        if i:
            result = result + [delimeter]
        result = result + [n]
    return result
""",
        (list(range(60000)), 0),
    ),
    Wrong(
        "HumanEval/77",
        "model-style",
        "searches every integer up to |a| for a cube root, so a large non-cube takes |a| steps",
        """
def iscube(a):
    return any(i ** 3 == abs(a) for i in range(abs(a) + 1))
""",
        (1000000001,),
    ),
    Wrong(
        "HumanEval/112",
        "model-style",
        "tests the palindrome recursively, one call per pair, exceeding the recursion limit",
        """
def reverse_delete(s, c):
    kept = "".join(ch for ch in s if ch not in c)

    def palindrome(t):
        return len(t) < 2 or (t[0] == t[-1] and palindrome(t[1:-1]))

    return (kept, palindrome(kept))
""",
        ("a" * 5000, "b"),
    ),
    Wrong(
        "HumanEval/56",
        "model-style",
        "deletes adjacent '<>' pairs with str.replace until none is left, quadratic when deeply nested",
        """
def correct_bracketing(brackets: str):
    while "<>" in brackets:
        brackets = brackets.replace("<>", "")
    return brackets == ""
""",
        ("<" * 60000 + ">" * 60000,),
    ),
    Wrong(
        "HumanEval/61",
        "model-style",
        "deletes adjacent '()' pairs with str.replace until none is left, quadratic when deeply nested",
        """
def correct_bracketing(brackets: str):
    while "()" in brackets:
        brackets = brackets.replace("()", "")
    return brackets == ""
""",
        ("(" * 60000 + ")" * 60000,),
    ),
    Wrong(
        "HumanEval/3",
        "model-style",
        "sums every prefix afresh with sum(operations[:i + 1]), quadratic in the length",
        """
from typing import List


def below_zero(operations: List[int]) -> bool:
    return any(sum(operations[: i + 1]) < 0 for i in range(len(operations)))
""",
        ([1] * 60000,),
    ),
    Wrong(
        "HumanEval/35",
        "model-style",
        "takes the maximum recursively of the head and the rest, exceeding the recursion limit",
        """
def max_element(l: list):
    if len(l) == 1:
        return l[0]
    rest = max_element(l[1:])
    return l[0] if l[0] > rest else rest
""",
        (list(range(5000)),),
    ),
    Wrong(
        "HumanEval/27",
        "model-style",
        "flips with upper() and lower() by isupper(), which turns a titlecase letter into upper case",
        """
def flip_case(string: str) -> str:
    return "".join(c.lower() if c.isupper() else c.upper() for c in string)
""",
        ("ǅemal",),
    ),
    Wrong(
        "HumanEval/106",
        "type-boundary",
        "computes the factorials with math.gamma, a float that is inexact from 23! on",
        """
import math


def f(n):
    return [int(math.gamma(i + 1)) if i % 2 == 0 else i * (i + 1) // 2 for i in range(1, n + 1)]
""",
        (24,),
    ),
    Wrong(
        "HumanEval/139",
        "type-boundary",
        "multiplies factorials taken from math.gamma, floats that are inexact from 23! on",
        """
import math


def special_factorial(n):
    result = 1
    for i in range(1, n + 1):
        result *= int(math.gamma(i + 1))
    return result
""",
        (23,),
    ),
    Wrong(
        "HumanEval/81",
        "type-boundary",
        "the C- row taken as 1.3 and above, not above 1.3",
        """
def numerical_letter_grade(grades):
    letters = []
    for gpa in grades:
        if gpa == 4.0:
            letters.append("A+")
        elif gpa > 3.7:
            letters.append("A")
        elif gpa > 3.3:
            letters.append("A-")
        elif gpa > 3.0:
            letters.append("B+")
        elif gpa > 2.7:
            letters.append("B")
        elif gpa > 2.3:
            letters.append("B-")
        elif gpa > 2.0:
            letters.append("C+")
        elif gpa > 1.7:
            letters.append("C")
        elif gpa >= 1.3:
            letters.append("C-")
        elif gpa > 1.0:
            letters.append("D+")
        elif gpa > 0.7:
            letters.append("D")
        elif gpa > 0.0:
            letters.append("D-")
        else:
            letters.append("E")
    return letters
""",
        ([1.3],),
    ),
    Wrong(
        "HumanEval/146",
        "type-boundary",
        "reads the first digit as int(num / 10 ** (digits - 1)), a float division that rounds up large numbers",
        """
def specialFilter(nums):
    count = 0
    for num in nums:
        if num > 10:
            first = int(num / 10 ** (len(str(num)) - 1))
            if first % 2 == 1 and num % 10 % 2 == 1:
                count += 1
    return count
""",
        ([29999999999999999],),
    ),
    Wrong(
        "HumanEval/116",
        "type-boundary",
        "packs the tie-break into one number, ones * 1000 + x, which misorders values of 1000 and more",
        """
def sort_array(arr):
    return sorted(arr, key=lambda x: bin(x).count("1") * 1000 + x)
""",
        ([1024, 3],),
    ),
    Wrong(
        "HumanEval/5",
        "order-ties",
        "finds the last position with numbers.index(numbers[-1]), the first copy of a repeated last value",
        """
from typing import List


def intersperse(numbers: List[int], delimeter: int) -> List[int]:
    if not numbers:
        return []
    last = numbers.index(numbers[-1])
    result = []
    for i, n in enumerate(numbers):
        result.append(n)
        if i != last:
            result.append(delimeter)
    return result
""",
        ([1, 2, 1], 0),
    ),
    Wrong(
        "HumanEval/43",
        "order-ties",
        "tells the two elements apart by l.index, so two equal zeros share a position and never pair",
        """
def pairs_sum_to_zero(l):
    for x in l:
        if -x in l and l.index(-x) != l.index(x):
            return True
    return False
""",
        ([0, 0, 3],),
    ),
    Wrong(
        "HumanEval/19",
        "order-ties",
        "keys the words by their value in a dict, so a repeated number word is returned once",
        """
def sort_numbers(numbers: str) -> str:
    value = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4,
             "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}
    by_value = {value[word]: word for word in numbers.split()}
    return " ".join(by_value[v] for v in sorted(by_value))
""",
        ("three one three",),
    ),
    Wrong(
        "HumanEval/21",
        "order-ties",
        "rescales through a dict keyed by value and returns its values, dropping repeated numbers",
        """
from typing import List


def rescale_to_unit(numbers: List[float]) -> List[float]:
    lo, hi = min(numbers), max(numbers)
    scaled = {x: (x - lo) / (hi - lo) for x in numbers}
    return list(scaled.values())
""",
        ([1.0, 2.0, 1.0],),
    ),
    Wrong(
        "HumanEval/146",
        "order-ties",
        "counts the qualifying numbers in a set comprehension, so repeated numbers count once",
        """
def specialFilter(nums):
    odd = "13579"
    return len({n for n in nums if n > 10 and str(n)[0] in odd and str(n)[-1] in odd})
""",
        ([15, 15],),
    ),
    Wrong(
        "HumanEval/85",
        "order-ties",
        "sums a set of the even values at odd indices, so a repeated value is added once",
        """
def add(lst):
    return sum({x for x in lst[1::2] if x % 2 == 0})
""",
        ([1, 2, 3, 2],),
    ),
    Wrong(
        "HumanEval/110",
        "order-ties",
        "counts the distinct odd values of lst1, so repeated odd numbers need one even number",
        """
def exchange(lst1, lst2):
    odd = len({x for x in lst1 if x % 2 == 1})
    even = len([x for x in lst2 if x % 2 == 0])
    return "YES" if even >= odd else "NO"
""",
        ([1, 1], [2]),
    ),
    Wrong(
        "HumanEval/52",
        "empty-negative",
        "answers False for an empty list, for which every number is below the threshold",
        """
def below_threshold(l: list, t: int):
    if not l:
        return False
    return all(x < t for x in l)
""",
        ([], 5),
    ),
    Wrong(
        "HumanEval/60",
        "empty-negative",
        "recursion with base case n == 1, so n = 0 recurses without end",
        """
def sum_to_n(n: int):
    if n == 1:
        return 1
    return n + sum_to_n(n - 1)
""",
        (0,),
    ),
    Wrong(
        "HumanEval/61",
        "empty-negative",
        "rejects early on brackets[0] and brackets[-1], which raises on the empty string",
        """
def correct_bracketing(brackets: str):
    if brackets[0] == ")" or brackets[-1] == "(":
        return False
    depth = 0
    for b in brackets:
        depth += 1 if b == "(" else -1
        if depth < 0:
            return False
    return depth == 0
""",
        ("",),
    ),
    Wrong(
        "HumanEval/122",
        "empty-negative",
        "counts digits with math.log10, which raises on 0",
        """
import math


def add_elements(arr, k):
    total = 0
    for x in arr[:k]:
        if int(math.log10(abs(x))) + 1 <= 2:
            total += x
    return total
""",
        ([0, 5], 2),
    ),
    Wrong(
        "HumanEval/40",
        "empty-negative",
        "returns early when min(l) > 0 or max(l) < 0, which raises on an empty list",
        """
def triples_sum_to_zero(l: list):
    if min(l) > 0 or max(l) < 0:
        return False
    for i in range(len(l)):
        for j in range(i + 1, len(l)):
            for k in range(j + 1, len(l)):
                if l[i] + l[j] + l[k] == 0:
                    return True
    return False
""",
        ([],),
    ),
    Wrong(
        "HumanEval/43",
        "empty-negative",
        "checks the sorted list's ends before the two-pointer scan, which raises on an empty list",
        """
def pairs_sum_to_zero(l):
    s = sorted(l)
    if s[0] > 0 or s[-1] < 0:
        return False
    i, j = 0, len(s) - 1
    while i < j:
        total = s[i] + s[j]
        if total == 0:
            return True
        if total < 0:
            i += 1
        else:
            j -= 1
    return False
""",
        ([],),
    ),
    Wrong(
        "HumanEval/72",
        "empty-negative",
        "compares the ends recursively from q[0] and q[-1], which raises on an empty list",
        """
def will_it_fly(q, w):
    if sum(q) > w:
        return False

    def balanced(items):
        return items[0] == items[-1] and (len(items) <= 2 or balanced(items[1:-1]))

    return balanced(q)
""",
        ([], 0),
    ),
    Wrong(
        "HumanEval/0",
        "string-off-by-one",
        "the outer loop runs over range(len(numbers) - 2), so the last pair is never compared",
        """
from typing import List


def has_close_elements(numbers: List[float], threshold: float) -> bool:
    for i in range(len(numbers) - 2):
        for j in range(i + 1, len(numbers)):
            if abs(numbers[i] - numbers[j]) < threshold:
                return True
    return False
""",
        ([1.0, 5.0, 5.1], 0.5),
    ),
    Wrong(
        "HumanEval/20",
        "string-off-by-one",
        "the outer loop runs over range(len(numbers) - 2), so the last pair is never a candidate",
        """
from typing import List, Tuple


def find_closest_elements(numbers: List[float]) -> Tuple[float, float]:
    best = None
    pair = None
    for i in range(len(numbers) - 2):
        for j in range(i + 1, len(numbers)):
            d = abs(numbers[i] - numbers[j])
            if best is None or d < best:
                best = d
                pair = tuple(sorted((numbers[i], numbers[j])))
    return pair
""",
        ([1.0, 3.0, 4.0, 4.5],),
    ),
    Wrong(
        "HumanEval/40",
        "string-off-by-one",
        "the first index runs over range(len(l) - 3), so a triple of the last three elements is missed",
        """
def triples_sum_to_zero(l: list):
    for i in range(len(l) - 3):
        for j in range(i + 1, len(l)):
            for k in range(j + 1, len(l)):
                if l[i] + l[j] + l[k] == 0:
                    return True
    return False
""",
        ([5, 1, -3, 2],),
    ),
    Wrong(
        "HumanEval/43",
        "string-off-by-one",
        "the outer loop runs over range(len(l) - 2), so the last two elements are never paired",
        """
def pairs_sum_to_zero(l):
    for i in range(len(l) - 2):
        for j in range(i + 1, len(l)):
            if l[i] + l[j] == 0:
                return True
    return False
""",
        ([1, 2, -2],),
    ),
    Wrong(
        "HumanEval/57",
        "string-off-by-one",
        "the pairwise checks start at index 1, so the first two elements are never compared",
        """
def monotonic(l: list):
    pairs = range(1, len(l) - 1)
    return all(l[i] <= l[i + 1] for i in pairs) or all(l[i] >= l[i + 1] for i in pairs)
""",
        ([3, 1, 2],),
    ),
    Wrong(
        "HumanEval/126",
        "string-off-by-one",
        "the order check starts at index 1, so the first two elements are never compared",
        """
def is_sorted(lst):
    counts = {}
    for x in lst:
        counts[x] = counts.get(x, 0) + 1
        if counts[x] > 2:
            return False
    return all(lst[i] <= lst[i + 1] for i in range(1, len(lst) - 1))
""",
        ([2, 1, 3],),
    ),
    Wrong(
        "HumanEval/48",
        "string-off-by-one",
        "compares the first half with text[:half:-1], one character short for even lengths",
        """
def is_palindrome(text: str):
    half = len(text) // 2
    return text[:half] == text[:half:-1]
""",
        ("abba",),
    ),
    Wrong(
        "HumanEval/135",
        "string-off-by-one",
        "scans forward from index 2, so a drop from the first to the second element is missed",
        """
def can_arrange(arr):
    ind = -1
    for i in range(2, len(arr)):
        if arr[i] < arr[i - 1]:
            ind = i
    return ind
""",
        ([2, 1, 3],),
    ),
    Wrong(
        "HumanEval/122",
        "type-boundary",
        "keeps values up to abs(x) <= 100, so the three-digit 100 counts as two digits",
        """
def add_elements(arr, k):
    return sum(x for x in arr[:k] if abs(x) <= 100)
""",
        ([100, 7], 2),
    ),
    Wrong(
        "HumanEval/122",
        "order-ties",
        "sums a set of the small values, so a repeated value is added once",
        """
def add_elements(arr, k):
    return sum({x for x in arr[:k] if len(str(abs(x))) <= 2})
""",
        ([5, 5, 300], 3),
    ),
    Wrong(
        "HumanEval/16",
        "model-style",
        "tests each character against the slice before it, copying the prefix each time: quadratic",
        """
def count_distinct_characters(string: str) -> int:
    s = string.lower()
    return sum(1 for i, c in enumerate(s) if c not in s[:i])
""",
        ("ab" * 500000,),
    ),
    Wrong(
        "HumanEval/88",
        "model-style",
        "sorts a copy with a hand-written bubble sort, quadratic in the length",
        """
def sort_array(array):
    result = list(array)
    if not result:
        return result
    descending = (array[0] + array[-1]) % 2 == 0
    n = len(result)
    for i in range(n):
        for j in range(n - 1 - i):
            if (result[j] > result[j + 1]) != descending and result[j] != result[j + 1]:
                result[j], result[j + 1] = result[j + 1], result[j]
    return result
""",
        ([*range(10000, 0, -1), 1],),
    ),
    Wrong(
        "HumanEval/13",
        "model-style",
        "Euclid by repeated subtraction in recursion, which exceeds the recursion limit for unequal sizes",
        """
def greatest_common_divisor(a: int, b: int) -> int:
    if a == b:
        return a
    if a > b:
        return greatest_common_divisor(a - b, b)
    return greatest_common_divisor(a, b - a)
""",
        (100000, 7),
    ),
    Wrong(
        "HumanEval/41",
        "model-style",
        "adds up n collisions for each left-moving car in a loop, linear in n where a product does",
        """
def car_race_collision(n: int):
    total = 0
    for _ in range(n):
        total += n
    return total
""",
        (300000000,),
    ),
    Wrong(
        "HumanEval/8",
        "model-style",
        "recurses on numbers[1:] for the sum and product, so a long list exceeds the recursion limit",
        """
from typing import List, Tuple


def sum_product(numbers: List[int]) -> Tuple[int, int]:
    if not numbers:
        return (0, 1)
    s, p = sum_product(numbers[1:])
    return (numbers[0] + s, numbers[0] * p)
""",
        ([1] * 5000,),
    ),
    Wrong(
        "HumanEval/42",
        "model-style",
        "builds the list recursively from l[1:], so a long list exceeds the recursion limit",
        """
def incr_list(l: list):
    if not l:
        return []
    return [l[0] + 1] + incr_list(l[1:])
""",
        (list(range(5000)),),
    ),
    Wrong(
        "HumanEval/11",
        "model-style",
        "XORs the strings recursively one character at a time, exceeding the recursion limit",
        """
def string_xor(a: str, b: str) -> str:
    if not a:
        return ""
    return ("0" if a[0] == b[0] else "1") + string_xor(a[1:], b[1:])
""",
        ("10" * 2500, "01" * 2500),
    ),
    Wrong(
        "HumanEval/30",
        "model-style",
        "filters recursively one element per call, so a long list exceeds the recursion limit",
        """
def get_positive(l: list):
    if not l:
        return []
    rest = get_positive(l[1:])
    return [l[0]] + rest if l[0] > 0 else rest
""",
        (list(range(5000)),),
    ),
    Wrong(
        "HumanEval/81",
        "type-boundary",
        "the B- row taken as 2.3 and above, not above 2.3",
        """
def numerical_letter_grade(grades):
    table = [(3.7, "A"), (3.3, "A-"), (3.0, "B+"), (2.7, "B"), (2.3, "B-"), (2.0, "C+"),
             (1.7, "C"), (1.3, "C-"), (1.0, "D+"), (0.7, "D"), (0.0, "D-")]
    letters = []
    for gpa in grades:
        if gpa == 4.0:
            letters.append("A+")
            continue
        for bound, letter in table:
            if gpa > bound or (letter == "B-" and gpa == bound):
                letters.append(letter)
                break
        else:
            letters.append("E")
    return letters
""",
        ([2.3],),
    ),
    Wrong(
        "HumanEval/73",
        "model-style",
        "counts the changes recursively from both ends, so a long array exceeds the recursion limit",
        """
def smallest_change(arr):
    if len(arr) < 2:
        return 0
    return (arr[0] != arr[-1]) + smallest_change(arr[1:-1])
""",
        (list(range(5000)),),
    ),
    Wrong(
        "HumanEval/23",
        "model-style",
        "counts the characters recursively, one call per character, exceeding the recursion limit",
        """
def strlen(string: str) -> int:
    if not string:
        return 0
    return 1 + strlen(string[1:])
""",
        ("x" * 5000,),
    ),
    Wrong(
        "HumanEval/121",
        "model-style",
        "sums recursively two positions at a time, so a long list exceeds the recursion limit",
        """
def solution(lst):
    if not lst:
        return 0
    head = lst[0] if lst[0] % 2 == 1 else 0
    return head + solution(lst[2:])
""",
        ([1] * 5000,),
    ),
    Wrong(
        "HumanEval/47",
        "model-style",
        "removes the smallest value until the middle is reached, quadratic in the length",
        """
def median(l: list):
    s = list(l)
    n = len(s)
    for _ in range((n - 1) // 2):
        s.remove(min(s))
    if n % 2 == 1:
        return min(s)
    a = min(s)
    s.remove(a)
    return (a + min(s)) / 2
""",
        (list(range(60000, 0, -1)),),
    ),
    Wrong(
        "HumanEval/70",
        "model-style",
        "takes min and max and recurses on the rest, so a long list exceeds the recursion limit",
        """
def strange_sort_list(lst):
    if not lst:
        return []
    lo = min(lst)
    rest = list(lst)
    rest.remove(lo)
    if not rest:
        return [lo]
    hi = max(rest)
    rest.remove(hi)
    return [lo, hi] + strange_sort_list(rest)
""",
        (list(range(4000)),),
    ),
    Wrong(
        "HumanEval/142",
        "model-style",
        "walks the indices recursively, one call per element, exceeding the recursion limit",
        """
def sum_squares(lst):
    def go(i):
        if i == len(lst):
            return 0
        x = lst[i]
        value = x * x if i % 3 == 0 else x * x * x if i % 4 == 0 else x
        return value + go(i + 1)

    return go(0)
""",
        ([1] * 5000,),
    ),
    Wrong(
        "HumanEval/152",
        "model-style",
        "compares the lists recursively from the head, so long lists exceed the recursion limit",
        """
def compare(game, guess):
    if not game:
        return []
    return [abs(game[0] - guess[0])] + compare(game[1:], guess[1:])
""",
        ([1] * 5000, [2] * 5000),
    ),
    Wrong(
        "HumanEval/100",
        "model-style",
        "builds the levels recursively, one call per level, so a large n exceeds the recursion limit",
        """
def make_a_pile(n):
    def levels(stones, left):
        if left == 0:
            return []
        return [stones] + levels(stones + 2, left - 1)

    return levels(n, n)
""",
        (5000,),
    ),
    Wrong(
        "HumanEval/22",
        "model-style",
        "filters recursively one value per call, so a long list exceeds the recursion limit",
        """
from typing import Any, List


def filter_integers(values: List[Any]) -> List[int]:
    if not values:
        return []
    rest = filter_integers(values[1:])
    return [values[0]] + rest if isinstance(values[0], int) else rest
""",
        (list(range(5000)),),
    ),
    Wrong(
        "HumanEval/7",
        "model-style",
        "filters recursively one string per call, so a long list exceeds the recursion limit",
        """
from typing import List


def filter_by_substring(strings: List[str], substring: str) -> List[str]:
    if not strings:
        return []
    rest = filter_by_substring(strings[1:], substring)
    return [strings[0]] + rest if substring in strings[0] else rest
""",
        (["ab"] * 5000, "a"),
    ),
    Wrong(
        "HumanEval/151",
        "model-style",
        "sums recursively one number per call, so a long list exceeds the recursion limit",
        """
def double_the_difference(lst):
    if not lst:
        return 0
    x = lst[0]
    head = x * x if isinstance(x, int) and x > 0 and x % 2 == 1 else 0
    return head + double_the_difference(lst[1:])
""",
        ([1] * 5000,),
    ),
    Wrong(
        "HumanEval/113",
        "model-style",
        "builds the answers recursively, one call per string, exceeding the recursion limit",
        """
def odd_count(lst):
    if not lst:
        return []
    n = sum(int(d) % 2 for d in lst[0])
    line = f"the number of odd elements {n}n the str{n}ng {n} of the {n}nput."
    return [line] + odd_count(lst[1:])
""",
        (["1"] * 5000,),
    ),
    Wrong(
        "HumanEval/104",
        "model-style",
        "filters recursively one number per call, so a long list exceeds the recursion limit",
        """
def unique_digits(x):
    def keep(items):
        if not items:
            return []
        n = items[0]
        head = [n] if all(int(d) % 2 == 1 for d in str(n)) else []
        return head + keep(items[1:])

    return sorted(keep(x))
""",
        ([1] * 5000,),
    ),
    Wrong(
        "HumanEval/133",
        "empty-negative",
        "sums with functools.reduce without a start value, which raises on an empty list",
        """
import math
from functools import reduce


def sum_squares(lst):
    return reduce(lambda acc, x: acc + x, (math.ceil(v) ** 2 for v in lst))
""",
        ([],),
    ),
    Wrong(
        "HumanEval/87",
        "type-boundary",
        "sorts by one packed key, row * 100 - column, which misorders rows longer than 100 columns",
        """
def get_row(lst, x):
    coords = [(i, j) for i, row in enumerate(lst) for j, v in enumerate(row) if v == x]
    return sorted(coords, key=lambda c: c[0] * 100 - c[1])
""",
        ([[1], [0] * 101 + [1]], 1),
    ),
)


def tasks() -> set[str]:
    """The task ids the set covers."""
    return {e.task_id for e in ENTRIES}
