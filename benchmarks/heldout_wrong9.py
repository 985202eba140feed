"""A ninth held-out set of plausible-wrong HumanEval solutions, written for specverdict.

The first eight sets (``benchmarks/heldout_wrong.py`` to ``benchmarks/heldout_wrong8.py``) have
been scored and may have informed the amplifier's design since, so their misses no longer measure
mistakes nobody chose for the amplifier to catch. This set was written after all eight, apart from
the amplifier (``suites/function``'s input generators, their design notes and the catch rates of
the earlier sets were not read to write it), for one measurement; it must not be tuned to the
amplifier either. It has the first set's format (``Wrong``, ``KINDS``) and rules: every solution
here was written by hand, as a model might write it, passes HumanEval's own base tests (``check``
in the dataset) and is wrong on its witness, a concrete input within the task's stated domain on
which its output differs from the project's reference (raising or not returning counts as
differing). No entry repeats one of the first eight sets: other tasks, or other bugs on the same
task. Tasks whose canonical solution is disputed on the witness's region (95, 97, 124, the decode
tasks, ties of ``find_closest_elements``, ``change_base(0, b)``, ``modp(n, 1)``, the float
arithmetic of ``get_odd_collatz``, the ASCII letter and digit tests of ``file_name_check`` and
``check_if_last_char_is_a_letter``, trailing spaces in ``fix_spaces``, the regions that
``REFERENCE_FIXES`` corrects, ...) and the bugs of ``tests/unit/suites/solutions.py``'s
``PLAUSIBLY_WRONG`` are left out; so are candidates on which the reference's own answer is
doubtful (``str.lower()`` of a whole string that turns 'İ' into two characters or a final 'Σ'
into 'ς' for ``count_distinct_characters``, tabs as whitespace for ``split_words`` and
``is_bored``, non-ASCII letters in the alphabet order of ``split_words``).

Size rule (the project's size contract): an entry whose only difference from the reference on its
witness is that it does not return in time counts only when the witness is within the contract
(every list and string at most 65,536 items or characters, every whole number at most 1,000
digits, the reference answering in milliseconds); slowness that needs larger inputs is no wrong
answer. An entry that returns a wrong value or raises (``RecursionError`` included) may use any
input of the task's domain.

After eight sets the small-input mistakes that HumanEval's base tests miss are nearly exhausted:
the candidates written for this set (off-by-one windows and bounds, sentinels, ``set`` and
``dict`` collapses, ``list.index`` on repeats, early returns, ``split(' ')`` against
``split()``, strict against non-strict comparisons, negative numbers, empty inputs, ties; more
than a hundred, some of them tried against the reference on random inputs) were an earlier set's,
right on every input or caught by the base tests. So this set is small (14 entries over 13
tasks) and has no timing entry at all: every entry returns a wrong value or raises. 7 fail on
small inputs (a few items or characters, numbers of at most 19 digits: Unicode case rules, float
rounding and absorption, a negative number); 4 raise ``RecursionError`` on a long input (1,500
operators, characters or digits, 1,100 factors of 2); 3 raise ``OverflowError`` on numbers of
about 400 digits, within the size contract, that the reference answers at once. It has no
``string-off-by-one`` or ``order-ties`` entry and one ``empty-negative`` entry: every other
candidate of those kinds found for it was an earlier set's or failed the base tests.

Kinds (``KINDS``, as in the first set):

* ``model-style``: hand-written mistakes a model makes (a library call or idiom that does
  something else: a case flip by toggling bit 5 of the code point, which is no case flip for 'ß'
  or for letters without case; ``swapcase()`` one character at a time, which loses the
  final-sigma rule of the whole string's ``swapcase()``; ``isupper()`` taken as the only test for
  upper case, which misses titlecase letters; natural recursions, one call per operator,
  character, digit or factor, that exceed the recursion limit);
* ``type-boundary``: floats standing in for whole numbers (``n ** 0.5`` and ``math.sqrt(n)``,
  which overflow beyond the float range where the reference's integer arithmetic does not;
  ``math.log(x, n).is_integer()``, which holds one above a large power; ``math.pow`` squares,
  inexact past 2 ** 53 and absorbing a small square beside a large one);
* ``empty-negative``: a negative number handled wrongly (a primality helper that takes the square
  root before it rejects numbers below 2).

``benchmarks/heldout_catch.py --set heldout_wrong9`` scores the set with the amplified tests;
``tests/integration/suites/test_heldout_set.py`` checks the data of all nine sets.
"""

from __future__ import annotations

try:
    from benchmarks.heldout_wrong import KINDS, Wrong
except ImportError:  # run as a script from the benchmarks directory
    from heldout_wrong import KINDS, Wrong  # type: ignore[no-redef, import-not-found]

__all__ = ["ENTRIES", "KINDS", "Wrong", "tasks"]

ENTRIES: tuple[Wrong, ...] = (
    Wrong(
        "HumanEval/10",
        "model-style",
        "builds the palindrome recursively as string[0] + make_palindrome(string[1:]) + string[0], one call per character before the palindromic suffix, so a long string exceeds the recursion limit",
        """
def is_palindrome(string: str) -> bool:
    return string == string[::-1]


def make_palindrome(string: str) -> str:
    if is_palindrome(string):
        return string
    return string[0] + make_palindrome(string[1:]) + string[0]
""",
        ("abc" * 500,),
    ),
    Wrong(
        "HumanEval/27",
        "model-style",
        "flips the case of every letter by toggling bit 5 of its code point, which turns 'ß' into 'ÿ' and changes letters without case such as '東' into other characters",
        """
def flip_case(string: str) -> str:
    return "".join(chr(ord(c) ^ 32) if c.isalpha() else c for c in string)
""",
        ("Straße \u6771\u4eac",),
    ),
    Wrong(
        "HumanEval/31",
        "type-boundary",
        "tries divisors up to int(n ** 0.5), whose conversion of n to a float overflows for a number of a few hundred digits",
        """
def is_prime(n):
    if n < 2:
        return False
    for i in range(2, int(n ** 0.5) + 1):
        if n % i == 0:
            return False
    return True
""",
        (10**400,),
    ),
    Wrong(
        "HumanEval/76",
        "type-boundary",
        "tests math.log(x, n).is_integer(), which holds for a number one above a large power of n, whose logarithm rounds to a whole number",
        """
import math


def is_simple_power(x, n):
    if x == 1:
        return True
    if n <= 1 or x <= 0:
        return False
    return math.log(x, n).is_integer()
""",
        (2**60 + 1, 2),
    ),
    Wrong(
        "HumanEval/76",
        "model-style",
        "divides x by n recursively, one call per factor of n, so a power of 2 with more than a thousand factors exceeds the recursion limit",
        """
def is_simple_power(x, n):
    if x == 1:
        return True
    if n <= 1 or x < n or x % n != 0:
        return False
    return is_simple_power(x // n, n)
""",
        (2**1100, 2),
    ),
    Wrong(
        "HumanEval/93",
        "model-style",
        "swaps the case one character at a time with ch.swapcase(), which loses the final-sigma rule that message.swapcase() applies, so 'ΟΔΟΣ' ends in 'σ' instead of 'ς'",
        """
def encode(message):
    vowels = "aeiouAEIOU"
    result = []
    for ch in message:
        ch = ch.swapcase()
        if ch in vowels:
            ch = chr(ord(ch) + 2)
        result.append(ch)
    return "".join(result)
""",
        ("\u039f\u0394\u039f\u03a3",),
    ),
    Wrong(
        "HumanEval/94",
        "empty-negative",
        "tests primality with range(2, int(n ** 0.5) + 1) before rejecting numbers below 2, so a negative number gives a complex square root and int() raises",
        """
def skjkasdkd(lst):
    def is_prime(n):
        for i in range(2, int(n ** 0.5) + 1):
            if n % i == 0:
                return False
        return n > 1

    largest = max(x for x in lst if is_prime(x))
    return sum(int(d) for d in str(largest))
""",
        ([-7, 3, 11, -4],),
    ),
    Wrong(
        "HumanEval/127",
        "type-boundary",
        "tests the length for primality up to int(length ** 0.5), whose float conversion overflows for a long intersection",
        """
def intersection(interval1, interval2):
    start = max(interval1[0], interval2[0])
    end = min(interval1[1], interval2[1])
    length = end - start
    if length < 2:
        return "NO"
    for d in range(2, int(length ** 0.5) + 1):
        if length % d == 0:
            return "NO"
    return "YES"
""",
        ((0, 10**400), (2, 10**401)),
    ),
    Wrong(
        "HumanEval/131",
        "model-style",
        "multiplies the odd digits recursively on n // 10, one call per digit, so a number of 1500 digits exceeds the recursion limit",
        """
def digits(n):
    if n < 10:
        return n if n % 2 == 1 else 0
    rest = digits(n // 10)
    last = n % 10
    if last % 2 == 0:
        return rest
    return last if rest == 0 else rest * last
""",
        (int("2" * 1499 + "3"),),
    ),
    Wrong(
        "HumanEval/133",
        "type-boundary",
        "squares each ceiling with math.pow and converts the float sum back with int(), inexact once a square passes 2 ** 53",
        """
import math


def sum_squares(lst):
    return int(sum(math.pow(math.ceil(x), 2) for x in lst))
""",
        ([3037000501, 1.5],),
    ),
    Wrong(
        "HumanEval/150",
        "type-boundary",
        "tries divisors up to int(math.sqrt(n)), which raises OverflowError for a number beyond the float range",
        """
import math


def x_or_y(n, x, y):
    if n < 2:
        return y
    for i in range(2, int(math.sqrt(n)) + 1):
        if n % i == 0:
            return y
    return x
""",
        (10**400, 34, 12),
    ),
    Wrong(
        "HumanEval/157",
        "type-boundary",
        "adds the squares as math.pow floats, where the square of a short side vanishes beside a large one, so a thin isosceles triangle passes as right-angled",
        """
import math


def right_angle_triangle(a, b, c):
    x, y, z = sorted([a, b, c])
    return math.pow(x, 2) + math.pow(y, 2) == math.pow(z, 2)
""",
        (10**9, 1, 10**9),
    ),
    Wrong(
        "HumanEval/160",
        "model-style",
        "evaluates by recursive descent, splitting at the last operator of the lowest precedence, one call per operator, so a long expression exceeds the recursion limit",
        """
def do_algebra(operator, operand):
    def evaluate(ops, nums):
        for group in (("+", "-"), ("*", "//"), ("**",)):
            positions = [i for i, op in enumerate(ops) if op in group]
            if positions:
                i = positions[0] if group == ("**",) else positions[-1]
                left = evaluate(ops[:i], nums[: i + 1])
                right = evaluate(ops[i + 1 :], nums[i + 1 :])
                op = ops[i]
                if op == "+":
                    return left + right
                if op == "-":
                    return left - right
                if op == "*":
                    return left * right
                if op == "//":
                    return left // right
                return left**right
        return nums[0]

    return evaluate(operator, operand)
""",
        (["+"] * 1500, [1] * 1501),
    ),
    Wrong(
        "HumanEval/161",
        "model-style",
        "swaps the case with lower() for isupper() letters and upper() for the other letters, which turns a titlecase letter such as 'ǅ' into upper case",
        """
def solve(s):
    if not any(c.isalpha() for c in s):
        return s[::-1]
    result = []
    for c in s:
        if c.isupper():
            result.append(c.lower())
        elif c.isalpha():
            result.append(c.upper())
        else:
            result.append(c)
    return "".join(result)
""",
        ("\u01c5ungla 1",),
    ),
)


def tasks() -> set[str]:
    """The task ids the set covers."""
    return {e.task_id for e in ENTRIES}
