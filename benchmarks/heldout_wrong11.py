"""An eleventh held-out set of plausible-wrong HumanEval solutions, written for specverdict.

The first ten sets (``benchmarks/heldout_wrong.py`` to ``benchmarks/heldout_wrong10.py``) have
been scored and may have informed the amplifier's design since, so their misses no longer measure
mistakes nobody chose for the amplifier to catch. This set was written after all ten, apart from
the amplifier (``suites/function``'s input generators, their design notes and the catch rates of
the earlier sets were not read to write it), for one measurement; it must not be tuned to the
amplifier either. It has the first set's format (``Wrong``, ``KINDS``) and rules: every solution
here was written by hand, as a model might write it, passes HumanEval's own base tests (``check``
in the dataset) and is wrong on its witness, a concrete input within the task's stated domain on
which its output differs from the project's reference (raising or not returning counts as
differing). No entry repeats one of the first ten sets: other tasks, or other bugs on the same
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
and ``fibfib``, the linear ``largest_prime_factor``, ``largest_divisor`` and ``sum_to_n``, the
quadratic ``common``, the cubic ``get_max_triples``).

Size rule (the project's size contract): an entry whose only difference from the reference on its
witness is that it does not return in time counts only when the witness is within the contract
(every list and string at most 65,536 items or characters, every whole number at most 1,000
digits, the reference answering in milliseconds); slowness that needs larger inputs is no wrong
answer. An entry that returns a wrong value or raises (``RecursionError`` and ``OverflowError``
included) may use any input of the task's domain.

After ten sets the mistakes that HumanEval's base tests miss are exhausted but for a few. For this
set all 164 tasks were gone through again, first the ten that no earlier set covers (38, 50, 95,
97 and 124, disputed, and 53, 107, 115, 156 and 159, whose domains are so small or statements so
plain that the base tests pin them), for the usual idioms and slips (off-by-one windows and bounds, sentinels, ``set`` and
``dict`` collapses, ``list.index`` on repeats, ``split(' ')`` against ``split()``, strict against
non-strict comparisons, ``sorted(...)[::-1]`` against a stable descending sort, square-root bounds
of trial division and sieves, float stand-ins for whole numbers, fixed tables and packed keys,
``%`` and ``//`` on negative numbers, empty inputs, Unicode case mappings, quadratic built-ins in
sort keys, natural recursions); of the roughly 120 ideas, almost all were an earlier set's,
caught by the base tests, right on every input or in a disputed region. Some were run: a sieve
marking multiples only below ``int(n ** 0.5)`` fails ``count_up_to(10)``; the usual
``n * (n + 1) / 2`` for ``sum_to_n`` is wrong only from n = 134,217,729 on, where the linear
reference takes more than a second and a half; no Fibonacci number below the 49th is a base-2
Fermat pseudoprime, so a Fermat ``prime_fib`` is right on every input the reference answers; the
only character outside 'aeiouAEIOU' whose case mapping is a vowel is the dotless i, a disputed
region. So this set is small (6 entries over 6 tasks) and has ``model-style`` entries only: every
``type-boundary``, ``string-off-by-one``, ``empty-negative`` and ``order-ties`` candidate found for
it was an earlier set's, caught by the base tests or in a disputed region. 1 entry is timing
only, on a list of 65,536 numbers within the contract (about 15 s on the machine it was written
on, where the reference takes about 50 ms); 5 raise ``RecursionError`` on inputs the reference
answers within a second (n = 1,500, a prime of 7 digits, a number of 1,501 digits, lists of 1,500 and
2,000 numbers). None fails on a small input.

Kinds (``KINDS``, as in the first set):

* ``model-style``: hand-written mistakes a model makes (the tie rule "in the order of the
  original list" spelled as ``nums.index(n)`` in a sort key, a linear search per element that
  makes the sort quadratic; natural recursions that exceed the recursion limit: the count of
  n-digit numbers as ten times the count for n - 1, a trial-division helper that recurses on the
  next divisor, a first-digit helper that recurses on ``n // 10``, and the head of a list
  compared with the rest before a recursive call on the rest).

``benchmarks/heldout_catch.py --set heldout_wrong11`` scores the set with the amplified tests;
``tests/integration/suites/test_heldout_set.py`` checks the data of all eleven sets.
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
        "model-style",
        "compares the first number with each of the rest and recurses on numbers[1:], one call per number, so a list of 1500 numbers with no close pair exceeds the recursion limit",
        """
from typing import List


def has_close_elements(numbers: List[float], threshold: float) -> bool:
    if len(numbers) < 2:
        return False
    first, rest = numbers[0], numbers[1:]
    if any(abs(first - x) < threshold for x in rest):
        return True
    return has_close_elements(rest, threshold)
""",
        ([float(i) for i in range(1500)], 0.5),
    ),
    Wrong(
        "HumanEval/31",
        "model-style",
        "tries the divisors with a helper that recurses on the next divisor until its square passes n, one call per divisor up to the square root, so a prime above two million, whose square root is 1500, exceeds the recursion limit",
        """
def is_prime(n):
    def no_divisor_from(d):
        if d * d > n:
            return True
        if n % d == 0:
            return False
        return no_divisor_from(d + 1)

    if n < 2:
        return False
    return no_divisor_from(2)
""",
        (2250013,),
    ),
    Wrong(
        "HumanEval/43",
        "model-style",
        "looks for the negation of the first element in the rest and recurses on l[1:], one call per element, so a list of 2000 numbers without such a pair exceeds the recursion limit",
        """
def pairs_sum_to_zero(l):
    if len(l) < 2:
        return False
    if -l[0] in l[1:]:
        return True
    return pairs_sum_to_zero(l[1:])
""",
        (list(range(1, 2001)),),
    ),
    Wrong(
        "HumanEval/83",
        "model-style",
        "counts the n-digit numbers recursively as ten times the count for n - 1 from the cases n = 1 and n = 2, one call per digit, so n = 1500 exceeds the recursion limit",
        """
def starts_one_ends(n):
    if n == 1:
        return 1
    if n == 2:
        return 18
    return 10 * starts_one_ends(n - 1)
""",
        (1500,),
    ),
    Wrong(
        "HumanEval/145",
        "model-style",
        "breaks ties on the digit sum by nums.index(n) in the sort key, a linear search per number, so sorting a list of 65,536 distinct numbers is quadratic in its length",
        """
def order_by_points(nums):
    def digit_sum(n):
        digits = [int(d) for d in str(abs(n))]
        if n < 0:
            digits[0] = -digits[0]
        return sum(digits)

    return sorted(nums, key=lambda n: (digit_sum(n), nums.index(n)))
""",
        (list(range(-32768, 32768)),),
    ),
    Wrong(
        "HumanEval/146",
        "model-style",
        "finds a number's first digit with a helper that recurses on n // 10, one call per digit, so a number of 1501 digits exceeds the recursion limit",
        """
def specialFilter(nums):
    def first_digit(n):
        if n < 10:
            return n
        return first_digit(n // 10)

    count = 0
    for num in nums:
        if num > 10 and first_digit(num) % 2 == 1 and num % 10 % 2 == 1:
            count += 1
    return count
""",
        ([int("3" * 1500 + "1"), 15, 22],),
    ),
)


def tasks() -> set[str]:
    """The task ids the set covers."""
    return {e.task_id for e in ENTRIES}
