"""A seventh held-out set of plausible-wrong HumanEval solutions, written for specverdict.

The first six sets (``benchmarks/heldout_wrong.py`` to ``benchmarks/heldout_wrong6.py``) have been
scored and may have informed the amplifier's design since, so their misses no longer measure
mistakes nobody chose for the amplifier to catch. This set was written after all six, apart from
the amplifier (``suites/function``'s input generators, their design notes and the catch rates of
the earlier sets were not read to write it), for one measurement; it must not be tuned to the
amplifier either. It has the first set's format (``Wrong``, ``KINDS``) and rules: every solution
here was written by hand, as a model might write it, passes HumanEval's own base tests (``check``
in the dataset) and is wrong on its witness, a concrete input within the task's stated domain on
which its output differs from the project's reference (raising or not returning counts as
differing). No entry repeats one of the first six sets: other tasks, or other bugs on the same
task. Tasks whose canonical solution is disputed on the witness's region (95, 97, 124, the decode
tasks, ties of ``find_closest_elements``, ``change_base(0, b)``, ``modp(n, 1)``, the float
arithmetic of ``get_odd_collatz``, the ASCII letter test of ``check_if_last_char_is_a_letter``,
trailing spaces in ``fix_spaces``, the regions that ``REFERENCE_FIXES`` corrects, ...) and the
bugs of ``tests/unit/suites/solutions.py``'s ``PLAUSIBLY_WRONG`` are left out.

After six sets of about seventy entries each, the small-input mistakes a model plausibly makes
and HumanEval's base tests miss are largely taken, so this set is smaller (47 entries over 44
tasks) and leans more than the earlier sets on mistakes that only fail at scale: 17 of its
entries (recursion past the limit, work that grows quadratically with the length or with the
size of a number), each on a witness of ordinary size that the reference answers in
milliseconds; the other 30 fail on small inputs, many of them on a case the base tests leave out
(a sign, an argument order, a repeated value, a number beyond a fixed-width bound). It has only
two ``order-ties`` entries: most tie and repeated-value mistakes found for it were an earlier
set's or were caught by the base tests.

Kinds (``KINDS``, as in the first set):

* ``model-style``: hand-written mistakes a model makes (an algorithm that does something else:
  the index of the largest drop read as the largest index of a drop, an array cut at its minimum
  taken as sorted when both parts are, only odd-length palindromic suffixes tried, a vowel search
  that gives up at the rightmost vowel, a ``return`` in the ``else`` branch of a palindrome loop,
  one of three cases left out of a symmetric test; a library call that does something else:
  ``str.isnumeric()`` counting numerals that are no digits, ``str.swapcase()`` changing cased
  symbols that are no letters; recursion on the rest of a list, string or number, recursive
  descent over nested brackets, quickselect with the first element as pivot, selection by
  repeated ``min()``, a sort or a ``str.count`` of every prefix redone for every position, sums
  over a range from 1 instead of from n, all of which do not scale);
* ``type-boundary``: int against float (``round(x - 0.5)`` for the integer part, which rounds
  halves to even; signs from ``math.copysign`` multiplied into an int; a value rounded to one
  decimal before it is compared with a table of bounds), sentinel values such as ``-10 ** 9`` or
  ``-sys.maxsize - 1`` that real values pass, a counting table sized for digits, floor division
  of a negated operand;
* ``string-off-by-one``: an index or window one step short over a list read as a string (a
  mirrored slice that stops one element early, a counting table one slot short of its range, a
  bound that stops one row short of a grid's edge);
* ``empty-negative``: empty selections handled wrongly (``functools.reduce`` without a start
  value, a group flushed once more after the loop, so the empty string yields one empty group),
  negative numbers (a table indexed by value, which a negative value wraps round, a best score
  started at -1, a difference taken without ``abs()``);
* ``order-ties``: repeated values collapsed (a dict keyed by the item, a ``set`` of the items).

``benchmarks/heldout_catch.py --set heldout_wrong7`` scores the set with the amplified tests;
``tests/integration/suites/test_heldout_set.py`` checks the data of all seven sets.
"""

from __future__ import annotations

try:
    from benchmarks.heldout_wrong import KINDS, Wrong
except ImportError:  # run as a script from the benchmarks directory
    from heldout_wrong import KINDS, Wrong  # type: ignore[no-redef, import-not-found]

__all__ = ["ENTRIES", "KINDS", "Wrong", "tasks"]

ENTRIES: tuple[Wrong, ...] = (
    Wrong(
        "HumanEval/3",
        "model-style",
        "walks the operations recursively, passing the balance on, so a long list exceeds the recursion limit",
        """
from typing import List


def below_zero(operations: List[int]) -> bool:
    def walk(i: int, balance: int) -> bool:
        if i == len(operations):
            return False
        balance += operations[i]
        return balance < 0 or walk(i + 1, balance)

    return walk(0, 0)
""",
        ([1] * 2000,),
    ),
    Wrong(
        "HumanEval/5",
        "model-style",
        "pairs the head with the delimiter and recurses on numbers[1:], so a long list exceeds the recursion limit",
        """
from typing import List


def intersperse(numbers: List[int], delimeter: int) -> List[int]:
    if len(numbers) < 2:
        return list(numbers)
    return [numbers[0], delimeter] + intersperse(numbers[1:], delimeter)
""",
        (list(range(2000)), -1),
    ),
    Wrong(
        "HumanEval/6",
        "model-style",
        "measures a group's depth recursively on group[1:], one call per character, so a long group exceeds the recursion limit",
        """
from typing import List


def parse_nested_parens(paren_string: str) -> List[int]:
    def deepest(group: str, level: int = 0) -> int:
        if not group:
            return 0
        if group[0] == "(":
            return max(level + 1, deepest(group[1:], level + 1))
        return deepest(group[1:], level - 1)

    return [deepest(g) for g in paren_string.split()]
""",
        ("(" * 600 + ")" * 600,),
    ),
    Wrong(
        "HumanEval/25",
        "model-style",
        "splits off the smallest divisor and recurses on the quotient, one call per prime factor, so 2 ** 1010 exceeds the recursion limit",
        """
from typing import List


def factorize(n: int) -> List[int]:
    for d in range(2, int(n**0.5) + 1):
        if n % d == 0:
            return [d] + factorize(n // d)
    return [n] if n > 1 else []
""",
        (2**1010,),
    ),
    Wrong(
        "HumanEval/33",
        "model-style",
        "sorts the values at multiples of three afresh for every position it fills, quadratic in the length",
        """
def sort_third(l: list):
    return [sorted(l[::3])[i // 3] if i % 3 == 0 else x for i, x in enumerate(l)]
""",
        ([(i * 7919) % 30011 for i in range(30000)],),
    ),
    Wrong(
        "HumanEval/44",
        "model-style",
        "writes the digits by recursing on x // base, one call per digit, so a number of 1500 binary digits exceeds the recursion limit",
        """
def change_base(x: int, base: int):
    if x < base:
        return str(x)
    return change_base(x // base, base) + str(x % base)
""",
        (2**1500, 2),
    ),
    Wrong(
        "HumanEval/47",
        "model-style",
        "selects the middle values by quickselect with the first element as pivot, which recurses once per element on a sorted list",
        """
def median(l: list):
    def select(items, k):
        pivot = items[0]
        lows = [x for x in items if x < pivot]
        highs = [x for x in items if x > pivot]
        same = len(items) - len(lows) - len(highs)
        if k < len(lows):
            return select(lows, k)
        if k < len(lows) + same:
            return pivot
        return select(highs, k - len(lows) - same)

    n = len(l)
    if n % 2:
        return select(l, n // 2)
    return (select(l, n // 2 - 1) + select(l, n // 2)) / 2
""",
        (list(range(3000)),),
    ),
    Wrong(
        "HumanEval/56",
        "model-style",
        "parses the brackets by recursive descent, one call per nesting level, so deep nesting exceeds the recursion limit",
        """
def correct_bracketing(brackets: str):
    def group(i):
        # brackets[i] is "<": the index after its matching ">", or -1
        i += 1
        while i < len(brackets) and brackets[i] == "<":
            i = group(i)
            if i == -1:
                return -1
        if i < len(brackets) and brackets[i] == ">":
            return i + 1
        return -1

    i = 0
    while i < len(brackets):
        if brackets[i] != "<":
            return False
        i = group(i)
        if i == -1:
            return False
    return True
""",
        ("<" * 1500 + ">" * 1500,),
    ),
    Wrong(
        "HumanEval/57",
        "model-style",
        "checks the direction recursively from the next index on, so a long list exceeds the recursion limit",
        """
def monotonic(l: list):
    def check(i, direction):
        if i >= len(l):
            return True
        step = (l[i] > l[i - 1]) - (l[i] < l[i - 1])
        if step and direction and step != direction:
            return False
        return check(i + 1, direction or step)

    return check(1, 0)
""",
        (list(range(2000)),),
    ),
    Wrong(
        "HumanEval/103",
        "model-style",
        "sums the integers from 1 to m and subtracts those below n, linear in the size of m rather than the length of the range",
        """
def rounded_avg(n, m):
    if n > m:
        return -1
    total = sum(range(1, m + 1)) - sum(range(1, n))
    return bin(round(total / (m - n + 1)))
""",
        (10**9, 10**9),
    ),
    Wrong(
        "HumanEval/119",
        "model-style",
        "checks each concatenation's balance recursively on s[1:], so strings of a few hundred brackets each exceed the recursion limit",
        """
def match_parens(lst):
    def balanced(s, depth=0):
        if depth < 0:
            return False
        if not s:
            return depth == 0
        return balanced(s[1:], depth + (1 if s[0] == "(" else -1))

    a, b = lst
    return "Yes" if balanced(a + b) or balanced(b + a) else "No"
""",
        (["(" * 800, ")" * 800],),
    ),
    Wrong(
        "HumanEval/155",
        "model-style",
        "counts the digits recursively on num // 10, one call per digit, so a number of 1500 digits exceeds the recursion limit",
        """
def even_odd_count(num):
    num = abs(num)
    if num < 10:
        return (1, 0) if num % 2 == 0 else (0, 1)
    even, odd = even_odd_count(num // 10)
    if num % 2 == 0:
        return (even + 1, odd)
    return (even, odd + 1)
""",
        (10**1500,),
    ),
    Wrong(
        "HumanEval/1",
        "model-style",
        "splits off the first complete group and recurses on the rest, one call per group, so a string of a few thousand groups exceeds the recursion limit",
        """
from typing import List


def separate_paren_groups(paren_string: str) -> List[str]:
    s = paren_string.replace(" ", "")
    if not s:
        return []
    depth = 0
    for i, ch in enumerate(s):
        depth += 1 if ch == "(" else -1
        if depth == 0:
            return [s[: i + 1]] + separate_paren_groups(s[i + 1 :])
    return [s]
""",
        ("()" * 1500,),
    ),
    Wrong(
        "HumanEval/2",
        "type-boundary",
        "takes the integer part as round(number - 0.5), which rounds halves to even, so a whole number such as 3.0 keeps a part of 1.0",
        """
def truncate_number(number: float) -> float:
    return number - round(number - 0.5)
""",
        (3.0,),
    ),
    Wrong(
        "HumanEval/61",
        "model-style",
        "counts the brackets of every prefix afresh with str.count, quadratic in the length",
        """
def correct_bracketing(brackets: str):
    for i in range(len(brackets)):
        prefix = brackets[: i + 1]
        if prefix.count(")") > prefix.count("("):
            return False
    return brackets.count("(") == brackets.count(")")
""",
        ("(" * 100000 + ")" * 100000,),
    ),
    Wrong(
        "HumanEval/72",
        "model-style",
        "returns from the palindrome loop after comparing the first pair, as the else branch of the comparison",
        """
def will_it_fly(q, w):
    if sum(q) > w:
        return False
    for i in range(len(q) // 2):
        if q[i] != q[-i - 1]:
            return False
        else:
            return True
    return True
""",
        ([1, 2, 3, 1], 10),
    ),
    Wrong(
        "HumanEval/72",
        "string-off-by-one",
        "compares the first half with q[-1:half:-1], which stops one element short of the mirrored half for even lengths",
        """
def will_it_fly(q, w):
    half = len(q) // 2
    return q[:half] == q[-1:half:-1] and sum(q) <= w
""",
        ([1, 1], 5),
    ),
    Wrong(
        "HumanEval/109",
        "model-style",
        "cuts the array at its minimum and checks that both parts are sorted, never that the part before the minimum can follow the part after it",
        """
def move_one_ball(arr):
    if not arr:
        return True
    i = arr.index(min(arr))
    return arr[i:] == sorted(arr[i:]) and arr[:i] == sorted(arr[:i])
""",
        ([2, 3, 1, 4],),
    ),
    Wrong(
        "HumanEval/128",
        "type-boundary",
        "multiplies the signs from math.copysign, floats, into the sum of magnitudes and converts back with int(), inexact above 2 ** 53",
        """
import math


def prod_signs(arr):
    if not arr:
        return None
    if 0 in arr:
        return 0
    sign = math.prod(math.copysign(1, x) for x in arr)
    return int(sign * sum(abs(x) for x in arr))
""",
        ([2**53 + 1, 2, -2],),
    ),
    Wrong(
        "HumanEval/135",
        "model-style",
        "returns the index of the largest drop instead of the largest index of a drop",
        """
def can_arrange(arr):
    best, drop = -1, 0
    for i in range(1, len(arr)):
        if arr[i - 1] - arr[i] > drop:
            best, drop = i, arr[i - 1] - arr[i]
    return best
""",
        ([5, 1, 3, 2],),
    ),
    Wrong(
        "HumanEval/136",
        "type-boundary",
        "starts the largest negative at -10 ** 9 as an unset value, so a negative number below it is reported missing",
        """
def largest_smallest_integers(lst):
    largest_negative = -(10**9)
    smallest_positive = 10**9
    for x in lst:
        if x < 0 and x > largest_negative:
            largest_negative = x
        elif x > 0 and x < smallest_positive:
            smallest_positive = x
    return (
        None if largest_negative == -(10**9) else largest_negative,
        None if smallest_positive == 10**9 else smallest_positive,
    )
""",
        ([-(10**10), 3],),
    ),
    Wrong(
        "HumanEval/141",
        "model-style",
        "counts the digits with str.isnumeric(), which also counts numerals such as '五' that are no digits '0'-'9'",
        """
def file_name_check(file_name):
    if file_name.count(".") != 1:
        return "No"
    name, ext = file_name.split(".")
    if not name or not name[0].isalpha():
        return "No"
    if ext not in ("txt", "exe", "dll"):
        return "No"
    if sum(c.isnumeric() for c in file_name) > 3:
        return "No"
    return "Yes"
""",
        ("a五五五五.txt",),
    ),
    Wrong(
        "HumanEval/1",
        "empty-negative",
        "closes a group when the next one starts and once more after the loop, so the empty string yields one empty group",
        """
from typing import List


def separate_paren_groups(paren_string: str) -> List[str]:
    groups = []
    current = ""
    depth = 0
    for ch in paren_string.replace(" ", ""):
        if depth == 0 and current:
            groups.append(current)
            current = ""
        current += ch
        depth += 1 if ch == "(" else -1
    groups.append(current)
    return groups
""",
        ("",),
    ),
    Wrong(
        "HumanEval/19",
        "model-style",
        "sorts the words by selection sort, one min() over the rest for every position, quadratic in the number of words",
        """
def sort_numbers(numbers: str) -> str:
    values = {
        "zero": 0,
        "one": 1,
        "two": 2,
        "three": 3,
        "four": 4,
        "five": 5,
        "six": 6,
        "seven": 7,
        "eight": 8,
        "nine": 9,
    }
    words = [w for w in numbers.split(" ") if w]
    for i in range(len(words)):
        m = min(range(i, len(words)), key=lambda j: values[words[j]])
        words[i], words[m] = words[m], words[i]
    return " ".join(words)
""",
        (
            " ".join(
                ["nine", "eight", "seven", "six", "five", "four", "three", "two", "one", "zero"]
                * 2000
            ),
        ),
    ),
    Wrong(
        "HumanEval/62",
        "model-style",
        "builds the derivative recursively from xs[:-1], one call per coefficient, so a long polynomial exceeds the recursion limit",
        """
def derivative(xs: list):
    if len(xs) <= 1:
        return []
    return derivative(xs[:-1]) + [(len(xs) - 1) * xs[-1]]
""",
        (list(range(2000)),),
    ),
    Wrong(
        "HumanEval/112",
        "model-style",
        "returns from the palindrome loop after comparing the first pair, as the else branch of the comparison",
        """
def reverse_delete(s, c):
    result = "".join(ch for ch in s if ch not in c)
    for i in range(len(result) // 2):
        if result[i] != result[-i - 1]:
            return (result, False)
        else:
            return (result, True)
    return (result, True)
""",
        ("abca", "x"),
    ),
    Wrong(
        "HumanEval/113",
        "empty-negative",
        "counts the odd digits with functools.reduce and no start value, which raises for a string without odd digits",
        """
from functools import reduce


def odd_count(lst):
    out = []
    for s in lst:
        n = reduce(lambda a, b: a + b, (1 for d in s if int(d) % 2 == 1))
        out.append(f"the number of odd elements {n}n the str{n}ng {n} of the {n}nput.")
    return out
""",
        (["2468"],),
    ),
    Wrong(
        "HumanEval/118",
        "model-style",
        "gives up at the rightmost vowel when it is not between consonants instead of looking further left",
        """
def get_closest_vowel(word):
    vowels = "aeiouAEIOU"
    for i in range(len(word) - 2, 0, -1):
        if word[i] in vowels:
            if word[i - 1] not in vowels and word[i + 1] not in vowels:
                return word[i]
            return ""
    return ""
""",
        ("cakeo",),
    ),
    Wrong(
        "HumanEval/149",
        "model-style",
        "orders the kept words by taking min() of the rest and removing it, over and over, quadratic in the number of words",
        """
def sorted_list_sum(lst):
    words = [w for w in lst if len(w) % 2 == 0]
    result = []
    while words:
        smallest = min(words, key=lambda w: (len(w), w))
        words.remove(smallest)
        result.append(smallest)
    return result
""",
        ([f"{(i * 7919) % 1000003:06d}" for i in range(30000)],),
    ),
    Wrong(
        "HumanEval/10",
        "model-style",
        "tests only the suffixes of odd length for palindromes, as centre expansion around one character does, so an even palindromic suffix is missed",
        """
def make_palindrome(string: str) -> str:
    n = len(string)
    for start in range(n):
        length = n - start
        if length % 2 == 0:
            continue
        mid = start + length // 2
        if all(string[mid - k] == string[mid + k] for k in range(1, length // 2 + 1)):
            return string + string[:start][::-1]
    return string
""",
        ("abb",),
    ),
    Wrong(
        "HumanEval/120",
        "string-off-by-one",
        "counts the values in a table of 2000 slots for the range -1000 to 1000, one slot short, so 1000 falls off its end",
        """
def maximum(arr, k):
    counts = [0] * 2000
    for x in arr:
        counts[x + 1000] += 1
    result = []
    for v in range(1999, -1, -1):
        while counts[v] and len(result) < k:
            result.append(v - 1000)
            counts[v] -= 1
    return sorted(result)
""",
        ([1000, 5], 1),
    ),
    Wrong(
        "HumanEval/81",
        "type-boundary",
        "rounds each GPA to one decimal before comparing it with the table, so 3.72 lands on the 3.7 boundary and drops a grade",
        """
def numerical_letter_grade(grades):
    table = [
        (3.7, "A"),
        (3.3, "A-"),
        (3.0, "B+"),
        (2.7, "B"),
        (2.3, "B-"),
        (2.0, "C+"),
        (1.7, "C"),
        (1.3, "C-"),
        (1.0, "D+"),
        (0.7, "D"),
        (0.0, "D-"),
    ]
    letters = []
    for gpa in grades:
        gpa = round(gpa, 1)
        if gpa == 4.0:
            letters.append("A+")
            continue
        for limit, letter in table:
            if gpa > limit:
                letters.append(letter)
                break
        else:
            letters.append("E")
    return letters
""",
        ([3.72],),
    ),
    Wrong(
        "HumanEval/160",
        "type-boundary",
        "folds a subtraction into the next term as its negation, so a floor division after a minus rounds the negated quotient away from zero",
        """
def do_algebra(operator, operand):
    ops = list(operator)
    nums = list(operand)
    i = len(ops) - 1
    while i >= 0:
        if ops[i] == "**":
            nums[i : i + 2] = [nums[i] ** nums[i + 1]]
            del ops[i]
        i -= 1
    terms = [nums[0]]
    for op, x in zip(ops, nums[1:]):
        if op == "+":
            terms.append(x)
        elif op == "-":
            terms.append(-x)
        elif op == "*":
            terms[-1] *= x
        else:
            terms[-1] //= x
    return sum(terms)
""",
        (["-", "//"], [10, 7, 2]),
    ),
    Wrong(
        "HumanEval/35",
        "type-boundary",
        "starts the running maximum at -sys.maxsize - 1, the smallest 64-bit integer, which Python's integers go below",
        """
import sys


def max_element(l: list):
    best = -sys.maxsize - 1
    for x in l:
        if x > best:
            best = x
    return best
""",
        ([-(2**64), -(2**65)],),
    ),
    Wrong(
        "HumanEval/126",
        "type-boundary",
        "counts repeated values in a table of ten slots, as if the numbers were digits, so a value of 10 or more falls off its end",
        """
def is_sorted(lst):
    counts = [0] * 10
    for x in lst:
        counts[x] += 1
        if counts[x] > 2:
            return False
    return all(lst[i] <= lst[i + 1] for i in range(len(lst) - 1))
""",
        ([1, 2, 10],),
    ),
    Wrong(
        "HumanEval/129",
        "string-off-by-one",
        "looks for the cell below the 1 only while i < n - 2, one row short, so a smallest neighbour in the row below is missed when that row is the last",
        """
def minPath(grid, k):
    n = len(grid)
    for i in range(n):
        for j in range(n):
            if grid[i][j] == 1:
                r, c = i, j
    neighbours = []
    if r > 0:
        neighbours.append(grid[r - 1][c])
    if r < n - 2:
        neighbours.append(grid[r + 1][c])
    if c > 0:
        neighbours.append(grid[r][c - 1])
    if c < n - 1:
        neighbours.append(grid[r][c + 1])
    smallest = min(neighbours)
    return [1 if i % 2 == 0 else smallest for i in range(k)]
""",
        ([[9, 8, 7], [6, 1, 5], [4, 2, 3]], 2),
    ),
    Wrong(
        "HumanEval/64",
        "empty-negative",
        "adds up the vowels with functools.reduce and no start value, which raises for a word without vowels",
        """
from functools import reduce


def vowels_count(s):
    count = reduce(lambda a, b: a + b, (1 for c in s if c in "aeiouAEIOU"))
    if s and s[-1] in "yY":
        count += 1
    return count
""",
        ("bcd",),
    ),
    Wrong(
        "HumanEval/153",
        "empty-negative",
        "starts the best strength at -1, so when every extension has a strength below -1 the first one is kept",
        """
def Strongest_Extension(class_name, extensions):
    best = extensions[0]
    best_strength = -1
    for ext in extensions:
        cap = sum(1 for c in ext if c.isupper())
        sm = sum(1 for c in ext if c.islower())
        if cap - sm > best_strength:
            best, best_strength = ext, cap - sm
    return class_name + "." + best
""",
        ("Slices", ["aaa", "ab"]),
    ),
    Wrong(
        "HumanEval/26",
        "empty-negative",
        "counts the numbers in a table of max(numbers) + 1 slots, so a negative number wraps round onto a positive one's count",
        """
from typing import List


def remove_duplicates(numbers: List[int]) -> List[int]:
    if not numbers:
        return []
    counts = [0] * (max(numbers) + 1)
    for x in numbers:
        counts[x] += 1
    return [x for x in numbers if counts[x] == 1]
""",
        ([-1, 1],),
    ),
    Wrong(
        "HumanEval/6",
        "order-ties",
        "keeps the depths in a dict keyed by group, so a group that occurs twice is answered once",
        """
from typing import List


def parse_nested_parens(paren_string: str) -> List[int]:
    depths = {}
    for group in paren_string.split():
        depth = deepest = 0
        for ch in group:
            depth += 1 if ch == "(" else -1
            deepest = max(deepest, depth)
        depths[group] = deepest
    return list(depths.values())
""",
        ("(()) ()  (())",),
    ),
    Wrong(
        "HumanEval/74",
        "order-ties",
        "adds up the lengths over set(lst), so a string listed twice is counted once",
        """
def total_match(lst1, lst2):
    total1 = sum(len(s) for s in set(lst1))
    total2 = sum(len(s) for s in set(lst2))
    return lst1 if total1 <= total2 else lst2
""",
        (["ab", "ab"], ["abc"]),
    ),
    Wrong(
        "HumanEval/9",
        "type-boundary",
        "starts the running maximum at -sys.maxsize - 1, the smallest 64-bit integer, which Python's integers go below",
        """
import sys
from typing import List


def rolling_max(numbers: List[int]) -> List[int]:
    result = []
    running = -sys.maxsize - 1
    for x in numbers:
        running = max(running, x)
        result.append(running)
    return result
""",
        ([-(2**70), -(2**64)],),
    ),
    Wrong(
        "HumanEval/161",
        "model-style",
        "swaps the case with str.swapcase(), which also changes cased symbols such as the circled letter 'ⓐ' that are no letters",
        """
def solve(s):
    if any(c.isalpha() for c in s):
        return s.swapcase()
    return s[::-1]
""",
        ("aⓐ",),
    ),
    Wrong(
        "HumanEval/34",
        "empty-negative",
        "marks the values in a table of max(l) + 1 slots and reads them back by index, so a negative value lands on another value's slot",
        """
def unique(l: list):
    seen = [False] * (max(l) + 1)
    for x in l:
        seen[x] = True
    return [i for i, s in enumerate(seen) if s]
""",
        ([-1, 2],),
    ),
    Wrong(
        "HumanEval/152",
        "empty-negative",
        "takes the difference game - guess without abs(), so a guess above the score gives a negative distance",
        """
def compare(game, guess):
    return [g - s if g != s else 0 for g, s in zip(game, guess)]
""",
        ([1, 5], [3, 5]),
    ),
    Wrong(
        "HumanEval/157",
        "model-style",
        "tests the Pythagorean equality with the longest side as c or as a, never as b",
        """
def right_angle_triangle(a, b, c):
    return a * a + b * b == c * c or b * b + c * c == a * a
""",
        (3, 5, 4),
    ),
    Wrong(
        "HumanEval/71",
        "model-style",
        "checks the triangle inequality for a + b and a + c only, so a first side longer than the other two together reaches Heron's formula",
        """
def triangle_area(a, b, c):
    if a + b <= c or a + c <= b:
        return -1
    s = (a + b + c) / 2
    area = (s * (s - a) * (s - b) * (s - c)) ** 0.5
    return round(area, 2)
""",
        (10, 2, 3),
    ),
)


def tasks() -> set[str]:
    """The task ids the set covers."""
    return {e.task_id for e in ENTRIES}
