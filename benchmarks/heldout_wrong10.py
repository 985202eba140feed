"""A tenth held-out set of plausible-wrong HumanEval solutions, written for specverdict.

The first nine sets (``benchmarks/heldout_wrong.py`` to ``benchmarks/heldout_wrong9.py``) have
been scored and may have informed the amplifier's design since, so their misses no longer measure
mistakes nobody chose for the amplifier to catch. This set was written after all nine, apart from
the amplifier (``suites/function``'s input generators, their design notes and the catch rates of
the earlier sets were not read to write it), for one measurement; it must not be tuned to the
amplifier either. It has the first set's format (``Wrong``, ``KINDS``) and rules: every solution
here was written by hand, as a model might write it, passes HumanEval's own base tests (``check``
in the dataset) and is wrong on its witness, a concrete input within the task's stated domain on
which its output differs from the project's reference (raising or not returning counts as
differing). No entry repeats one of the first nine sets: other tasks, or other bugs on the same
task. Tasks whose canonical solution is disputed on the witness's region (95, 97, 124, the decode
tasks, ties of ``find_closest_elements``, ``change_base(0, b)``, ``modp(n, 1)``, the float
arithmetic of ``get_odd_collatz``, ``tri`` and ``rounded_avg``, the ASCII letter and digit tests
of ``file_name_check`` and ``check_if_last_char_is_a_letter``, trailing spaces in
``fix_spaces``, ``iscube``'s float cube root, ``x_or_y`` and ``add_elements`` on numbers below
2 or negative, the regions that ``REFERENCE_FIXES`` corrects, ...) and the bugs of
``tests/unit/suites/solutions.py``'s ``PLAUSIBLY_WRONG`` are left out, as are the regions the
ninth set's docstring names (Greek final sigma, the dotted and dotless i, tabs where a task speaks
of spaces, letters and digits outside ASCII where a task asks for a letter or a digit), and
candidates whose witness the reference cannot answer in milliseconds (the exponential ``fib``
and ``fibfib``, the linear ``largest_prime_factor`` and ``largest_divisor``, the quadratic
``common``).

Size rule (the project's size contract): an entry whose only difference from the reference on its
witness is that it does not return in time counts only when the witness is within the contract
(every list and string at most 65,536 items or characters, every whole number at most 1,000
digits, the reference answering in milliseconds); slowness that needs larger inputs is no wrong
answer. An entry that returns a wrong value or raises (``RecursionError`` and ``OverflowError``
included) may use any input of the task's domain.

After nine sets the mistakes that HumanEval's base tests miss are very nearly exhausted. For this
set all 164 tasks were gone through for the usual idioms and slips (off-by-one windows and
bounds, sentinels, ``set`` and ``dict`` collapses, ``list.index`` on repeats, ``split(' ')``
against ``split()``, strict against non-strict comparisons, stable and unstable tie orders,
negative numbers and empty inputs, ``%`` and ``//`` on negative numbers, float stand-ins for whole
numbers, quadratic built-ins, case and Unicode rules, readings of the prompt other than the
reference's); of the roughly 150 ideas, most were an earlier set's, caught by the base tests,
right on every input, in a disputed region or only slow where the reference is slow too. 14 were
written out and run against the base tests and the reference: ``0.5 * a * h`` for
``triangle_area`` was right on its witness (the two roundings agree within the comparison), a
``modp`` doubling once per recursive call fails the base tests (``modp(1101, 101)`` exceeds the
recursion limit), and two recursions (``rolling_max`` built from ``numbers[:-1]``,
``get_closest_vowel`` searching one index per call), wrong on their witnesses, were dropped as
unlike what a model writes. So this set is small (10 entries over 10 tasks) and has no timing
entry: every entry returns a wrong value or raises. 1 fails on a small input (five brackets); 8
raise ``RecursionError`` on a long input (two consecutive Fibonacci numbers of 314 and 313 digits,
a number of 1,500 digits, 2,000 brackets, 2,100 notes, lists of 2,000 to 3,000 items, a path of
3,000 cells); 1 raises ``OverflowError`` on sides of 78 digits that the reference answers at once.
It has ``model-style`` and ``type-boundary`` entries only: every ``string-off-by-one``,
``empty-negative`` and ``order-ties`` candidate found for it was an earlier set's, caught by the
base tests or in a disputed region.

Kinds (``KINDS``, as in the first set):

* ``model-style``: hand-written mistakes a model makes (a reading of the prompt other than the
  reference's: nesting checked on contiguously matched brackets with a stack, where the prompt
  asks for a nested subsequence; natural recursions, one call per Euclid step, digit, character,
  note, element or step of a path, that exceed the recursion limit);
* ``type-boundary``: a float standing in for a whole number (Heron's formula in its integer form,
  whose product of four sums ``math.sqrt`` cannot convert to a float for large sides, where the
  reference's product of half-sums still fits).

``benchmarks/heldout_catch.py --set heldout_wrong10`` scores the set with the amplified tests;
``tests/integration/suites/test_heldout_set.py`` checks the data of all ten sets.
"""

from __future__ import annotations

try:
    from benchmarks.heldout_wrong import KINDS, Wrong
except ImportError:  # run as a script from the benchmarks directory
    from heldout_wrong import KINDS, Wrong  # type: ignore[no-redef, import-not-found]

__all__ = ["ENTRIES", "KINDS", "Wrong", "tasks"]


def _fibonacci(n: int) -> int:
    """The ``n``-th Fibonacci number (a witness's argument: Euclid takes ``n`` steps on two
    consecutive ones)."""
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


ENTRIES: tuple[Wrong, ...] = (
    Wrong(
        "HumanEval/12",
        "model-style",
        "compares the first string with the longest of the rest, found by a recursive call on strings[1:], one call per string, so a list of a few thousand strings exceeds the recursion limit",
        """
from typing import List, Optional


def longest(strings: List[str]) -> Optional[str]:
    if not strings:
        return None
    rest = longest(strings[1:])
    if rest is None or len(strings[0]) >= len(rest):
        return strings[0]
    return rest
""",
        ([str(i) for i in range(3000)],),
    ),
    Wrong(
        "HumanEval/13",
        "model-style",
        "runs Euclid's algorithm recursively as gcd(b, a % b), one call per step, so two consecutive Fibonacci numbers of a few hundred digits exceed the recursion limit",
        """
def greatest_common_divisor(a: int, b: int) -> int:
    if b == 0:
        return a
    return greatest_common_divisor(b, a % b)
""",
        (_fibonacci(1500), _fibonacci(1499)),
    ),
    Wrong(
        "HumanEval/17",
        "model-style",
        "parses the first note and recurses on the rest of the string, one call per note, so a song of a few thousand notes exceeds the recursion limit",
        """
from typing import List


def parse_music(music_string: str) -> List[int]:
    music_string = music_string.lstrip(" ")
    if not music_string:
        return []
    if music_string.startswith("o|"):
        return [2] + parse_music(music_string[2:])
    if music_string.startswith(".|"):
        return [1] + parse_music(music_string[2:])
    return [4] + parse_music(music_string[1:])
""",
        (" ".join(["o|", ".|", "o"] * 700),),
    ),
    Wrong(
        "HumanEval/61",
        "model-style",
        "walks the brackets with a recursive helper that passes the index and the depth on, one call per character, so a string of a few thousand brackets exceeds the recursion limit",
        """
def correct_bracketing(brackets: str):
    def walk(i, depth):
        if depth < 0:
            return False
        if i == len(brackets):
            return depth == 0
        return walk(i + 1, depth + 1 if brackets[i] == "(" else depth - 1)

    return walk(0, 0)
""",
        ("()" * 1000,),
    ),
    Wrong(
        "HumanEval/71",
        "type-boundary",
        "takes Heron's formula in its integer form, math.sqrt of (a + b + c)(-a + b + c)(a - b + c)(a + b - c) over 4, whose product no longer converts to a float for sides of 78 digits, where the reference's product of half-sums still does",
        """
import math


def triangle_area(a, b, c):
    if a + b <= c or a + c <= b or b + c <= a:
        return -1
    area = math.sqrt((a + b + c) * (-a + b + c) * (a - b + c) * (a + b - c)) / 4
    return round(area, 2)
""",
        (10**77, 10**77, 10**77),
    ),
    Wrong(
        "HumanEval/104",
        "model-style",
        "tests a number's digits with a recursive helper on n // 10, one call per digit, so a number of 1500 odd digits exceeds the recursion limit",
        """
def unique_digits(x):
    def all_odd(n):
        if n == 0:
            return True
        return n % 2 == 1 and all_odd(n // 10)

    return sorted(n for n in x if all_odd(n))
""",
        ([int("13579" * 300), 24, 7],),
    ),
    Wrong(
        "HumanEval/126",
        "model-style",
        "checks the first two or three elements and recurses on lst[1:], one call per element, so a sorted list of a few thousand numbers exceeds the recursion limit",
        """
def is_sorted(lst):
    if len(lst) < 2:
        return True
    if lst[0] > lst[1]:
        return False
    if len(lst) > 2 and lst[0] == lst[1] == lst[2]:
        return False
    return is_sorted(lst[1:])
""",
        (list(range(2000)),),
    ),
    Wrong(
        "HumanEval/129",
        "model-style",
        "walks from the cell holding 1 to its smallest neighbour and back with a recursive call per step, so a path of a few thousand cells exceeds the recursion limit",
        """
def minPath(grid, k):
    n = len(grid)
    for i in range(n):
        for j in range(n):
            if grid[i][j] == 1:
                start = (i, j)

    def walk(i, j, steps):
        if steps == 0:
            return []
        neighbours = [(i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)]
        value, x, y = min((grid[x][y], x, y) for x, y in neighbours if 0 <= x < n and 0 <= y < n)
        return [grid[i][j]] + walk(x, y, steps - 1)

    return walk(start[0], start[1], k)
""",
        ([[5, 9, 3], [4, 1, 6], [7, 8, 2]], 3000),
    ),
    Wrong(
        "HumanEval/132",
        "model-style",
        "matches the brackets with a stack and answers True only when a matched pair closes around another, so the nested subsequence '[[]]' of '[[][]', whose outer '[' never closes, is missed",
        """
def is_nested(string):
    stack = []
    for ch in string:
        if ch == "[":
            stack.append(False)
        elif stack:
            has_inner = stack.pop()
            if has_inner:
                return True
            if stack:
                stack[-1] = True
    return False
""",
        ("[[][]",),
    ),
    Wrong(
        "HumanEval/135",
        "model-style",
        "looks at the last two elements and recurses on arr[:-1] until it finds a drop, one call per element, so a drop near the front of a list of a few thousand numbers exceeds the recursion limit",
        """
def can_arrange(arr):
    if len(arr) < 2:
        return -1
    if arr[-1] < arr[-2]:
        return len(arr) - 1
    return can_arrange(arr[:-1])
""",
        ([3, 1, *range(5, 2005)],),
    ),
)


def tasks() -> set[str]:
    """The task ids the set covers."""
    return {e.task_id for e in ENTRIES}
