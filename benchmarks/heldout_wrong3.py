"""A third held-out set of plausible-wrong HumanEval solutions, written for specverdict.

The first two sets (``benchmarks/heldout_wrong.py`` and ``benchmarks/heldout_wrong2.py``) have
been read by the amplifier's designers since they were scored, so their misses no longer measure
mistakes nobody chose for the amplifier to catch. This set was written after both, apart from the
amplifier (``suites/function``'s input generators, their design notes and the catch rates of the
first two sets were not read to write it), for a final measurement; it must not be tuned to the
amplifier either. It has the first set's format (``Wrong``, ``KINDS``) and rules: every solution
here was written by hand, as a model might write it, passes HumanEval's own base tests (``check``
in the dataset) and is wrong on its witness, a concrete input within the task's stated domain on
which its output differs from the project's reference (raising or not returning counts as
differing). No entry repeats one of the first two sets: other tasks, or other bugs on the same
task. Tasks whose canonical solution is disputed on the witness's region (95, 97, 124, the decode
tasks, ties of ``find_closest_elements``, ``change_base(0, b)``, ``modp(n, 1)``, ...) and the bugs
of ``tests/unit/suites/solutions.py``'s ``PLAUSIBLY_WRONG`` are left out.

Kinds (``KINDS``, as in the first set):

* ``model-style``: hand-written mistakes a model makes (a wrong reading of the task, a library
  call or algorithm that does something else, recursion where the prompt asks for an efficient
  loop, hard-coded answers, case folding, stripping, chained comparisons, early returns);
* ``type-boundary``: int against float (float division and ``math.pow`` on large integers,
  ``math.sqrt`` on large squares, rounding before a comparison), bool and str against int,
  inclusive against exclusive bounds, square-root bounds of trial division;
* ``string-off-by-one``: an index or window one step short or long over a string (or a list
  read as one, or the digits of a number);
* ``empty-negative``: empty inputs, zero and negative numbers handled wrongly (truthiness tests
  that take 0 for "unset", indexing into an empty input, ``math.sqrt`` of a negative number);
* ``order-ties``: order among equal values (``list.index`` on repeated values, duplicates
  collapsed by a dict, tie keys, the order of ``Counter.most_common``).

``benchmarks/heldout_catch.py --set heldout_wrong3`` scores the set with the amplified tests;
``tests/integration/suites/test_heldout_set.py`` checks the data of all three sets.
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
        "empty-negative",
        "takes min() over the gaps of the sorted numbers, which raises for fewer than two numbers",
        """
from typing import List


def has_close_elements(numbers: List[float], threshold: float) -> bool:
    ordered = sorted(numbers)
    smallest_gap = min(b - a for a, b in zip(ordered, ordered[1:]))
    return smallest_gap < threshold
""",
        ([1.0], 0.5),
    ),
    Wrong(
        "HumanEval/0",
        "type-boundary",
        "rounds each distance to two decimals before comparing it with the threshold",
        """
from typing import List


def has_close_elements(numbers: List[float], threshold: float) -> bool:
    for i in range(len(numbers)):
        for j in range(i + 1, len(numbers)):
            if round(abs(numbers[i] - numbers[j]), 2) < threshold:
                return True
    return False
""",
        ([1.0, 1.004], 0.003),
    ),
    Wrong(
        "HumanEval/2",
        "type-boundary",
        "rounds the decimal part to four places to hide floating-point noise",
        """
def truncate_number(number: float) -> float:
    return round(number % 1.0, 4)
""",
        (2.71828,),
    ),
    Wrong(
        "HumanEval/3",
        "empty-negative",
        "starts the balance at the first operation without testing it, so a negative first step is missed",
        """
from typing import List


def below_zero(operations: List[int]) -> bool:
    if not operations:
        return False
    balance = operations[0]
    for op in operations[1:]:
        balance += op
        if balance < 0:
            return True
    return False
""",
        ([-5, 10],),
    ),
    Wrong(
        "HumanEval/7",
        "empty-negative",
        "scans start positions over range(len(s)), so the empty string never contains the empty substring",
        """
from typing import List


def filter_by_substring(strings: List[str], substring: str) -> List[str]:
    result = []
    for s in strings:
        for i in range(len(s)):
            if s[i:i + len(substring)] == substring:
                result.append(s)
                break
    return result
""",
        (["", "a"], ""),
    ),
    Wrong(
        "HumanEval/9",
        "empty-negative",
        "tests 'not running_max' for an unset maximum, so a maximum of 0 is replaced by a smaller value",
        """
from typing import List, Tuple


def rolling_max(numbers: List[int]) -> List[int]:
    result = []
    running_max = None
    for n in numbers:
        if not running_max or n > running_max:
            running_max = n
        result.append(running_max)
    return result
""",
        ([0, -3, -1],),
    ),
    Wrong(
        "HumanEval/11",
        "empty-negative",
        "XORs the strings as base-2 integers: int('', 2) raises on empty strings",
        """
from typing import List


def string_xor(a: str, b: str) -> str:
    return bin(int(a, 2) ^ int(b, 2))[2:].zfill(len(a))
""",
        ("", ""),
    ),
    Wrong(
        "HumanEval/12",
        "model-style",
        "measures the strings without their surrounding whitespace",
        """
from typing import List, Optional


def longest(strings: List[str]) -> Optional[str]:
    if not strings:
        return None
    return max(strings, key=lambda s: len(s.strip()))
""",
        (["a  ", "bb"],),
    ),
    Wrong(
        "HumanEval/14",
        "model-style",
        "builds the prefixes recursively, one call per character, so a long string exceeds the recursion limit",
        """
from typing import List


def all_prefixes(string: str) -> List[str]:
    if not string:
        return []
    return all_prefixes(string[:-1]) + [string]
""",
        ("a" * 1100,),
    ),
    Wrong(
        "HumanEval/16",
        "model-style",
        "counts the distinct characters of string.upper(): dotless 'ı' and 'i' both become 'I'",
        """
def count_distinct_characters(string: str) -> int:
    return len(set(string.upper()))
""",
        ("Kılıç ile",),
    ),
    Wrong(
        "HumanEval/18",
        "model-style",
        "lower-cases both strings before counting, so matches of another case are counted",
        """
def how_many_times(string: str, substring: str) -> int:
    string, substring = string.lower(), substring.lower()
    count = 0
    for i in range(len(string) - len(substring) + 1):
        if string[i:i + len(substring)] == substring:
            count += 1
    return count
""",
        ("Banana", "b"),
    ),
    Wrong(
        "HumanEval/22",
        "type-boundary",
        "keeps values whose str() is made of digits, so digit strings pass as integers",
        """
from typing import List, Any


def filter_integers(values: List[Any]) -> List[int]:
    return [v for v in values if str(v).lstrip('-').isdigit()]
""",
        (["7", -3],),
    ),
    Wrong(
        "HumanEval/23",
        "model-style",
        "returns the length of the UTF-8 encoding, counting bytes rather than characters",
        """
def strlen(string: str) -> int:
    return len(string.encode('utf-8'))
""",
        ("naïve",),
    ),
    Wrong(
        "HumanEval/25",
        "model-style",
        "divides only by a fixed list of small primes and appends the rest as one factor",
        """
from typing import List


def factorize(n: int) -> List[int]:
    factors = []
    for p in [2, 3, 5, 7, 11, 13, 17, 19]:
        while n % p == 0:
            factors.append(p)
            n //= p
    if n > 1:
        factors.append(n)
    return factors
""",
        (667,),
    ),
    Wrong(
        "HumanEval/28",
        "model-style",
        "concatenates recursively, one call per string, so a long list exceeds the recursion limit",
        """
from typing import List


def concatenate(strings: List[str]) -> str:
    if not strings:
        return ''
    return strings[0] + concatenate(strings[1:])
""",
        (["ab"] * 1500,),
    ),
    Wrong(
        "HumanEval/30",
        "type-boundary",
        "keeps only int values, dropping positive floats",
        """
def get_positive(l: list):
    return [e for e in l if isinstance(e, int) and e > 0]
""",
        ([0.5, -2, 3],),
    ),
    Wrong(
        "HumanEval/31",
        "empty-negative",
        "special-cases 0 and 1 only, so a negative number reaches math.sqrt and raises",
        """
import math


def is_prime(n):
    if n == 0 or n == 1:
        return False
    for k in range(2, int(math.sqrt(n)) + 1):
        if n % k == 0:
            return False
    return True
""",
        (-7,),
    ),
    Wrong(
        "HumanEval/33",
        "order-ties",
        "maps each value at a multiple of three to its sorted counterpart through a dict, which collapses repeated values",
        """
def sort_third(l: list):
    thirds = l[::3]
    mapping = dict(zip(thirds, sorted(thirds)))
    return [mapping[x] if i % 3 == 0 else x for i, x in enumerate(l)]
""",
        ([3, 0, 0, 1, 0, 0, 3],),
    ),
    Wrong(
        "HumanEval/35",
        "empty-negative",
        "tests 'not best' for an unset maximum, so a maximum of 0 is replaced by a smaller value",
        """
def max_element(l: list):
    best = None
    for e in l:
        if not best or e > best:
            best = e
    return best
""",
        ([0, -4, -2],),
    ),
    Wrong(
        "HumanEval/37",
        "order-ties",
        "maps each even-index value to its sorted counterpart through a dict, which collapses repeated values",
        """
def sort_even(l: list):
    evens = l[::2]
    mapping = dict(zip(evens, sorted(evens)))
    return [mapping[x] if i % 2 == 0 else x for i, x in enumerate(l)]
""",
        ([2, 9, 1, 9, 2],),
    ),
    Wrong(
        "HumanEval/39",
        "model-style",
        "looks the answer up in the docstring's and tests' first ten values",
        """
def prime_fib(n: int):
    known = [2, 3, 5, 13, 89, 233, 1597, 28657, 514229, 433494437]
    return known[n - 1]
""",
        (11,),
    ),
    Wrong(
        "HumanEval/40",
        "model-style",
        "the chained test i != j != k lets i equal k, so one element is used twice",
        """
def triples_sum_to_zero(l: list):
    n = len(l)
    for i in range(n):
        for j in range(n):
            for k in range(n):
                if i != j != k and l[i] + l[j] + l[k] == 0:
                    return True
    return False
""",
        ([1, -2, 5],),
    ),
    Wrong(
        "HumanEval/41",
        "type-boundary",
        "squares with math.pow and converts back with int(), inexact above 2**53",
        """
import math


def car_race_collision(n: int):
    return int(math.pow(n, 2))
""",
        (100000001,),
    ),
    Wrong(
        "HumanEval/43",
        "string-off-by-one",
        "the inner loop stops one short, so the last element is never paired",
        """
def pairs_sum_to_zero(l):
    for i in range(len(l)):
        for j in range(i + 1, len(l) - 1):
            if l[i] + l[j] == 0:
                return True
    return False
""",
        ([1, 2, -2],),
    ),
    Wrong(
        "HumanEval/44",
        "type-boundary",
        "moves to the next digit with int(x / base), a float division that rounds large numbers",
        """
def change_base(x: int, base: int):
    digits = ''
    while x > 0:
        digits = str(x % base) + digits
        x = int(x / base)
    return digits
""",
        (1152921504606846979, 2),
    ),
    Wrong(
        "HumanEval/46",
        "model-style",
        "recursion with lru_cache despite the prompt: a large n exceeds the recursion limit",
        """
from functools import lru_cache


def fib4(n: int):
    @lru_cache(maxsize=None)
    def go(k):
        if k < 4:
            return [0, 0, 2, 0][k]
        return go(k - 1) + go(k - 2) + go(k - 3) + go(k - 4)

    return go(n)
""",
        (5000,),
    ),
    Wrong(
        "HumanEval/46",
        "model-style",
        "plain recursion on the definition, exponential in n, never returns for moderate n",
        """
def fib4(n: int):
    if n < 4:
        return [0, 0, 2, 0][n]
    return fib4(n - 1) + fib4(n - 2) + fib4(n - 3) + fib4(n - 4)
""",
        (40,),
    ),
    Wrong(
        "HumanEval/56",
        "empty-negative",
        "rejects early by brackets[0] and brackets[-1], which raises on the empty string",
        """
def correct_bracketing(brackets: str):
    if brackets[0] == ">" or brackets[-1] == "<":
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
        "string-off-by-one",
        "the pairwise checks run over range(len(l) - 2), never comparing the last two elements",
        """
def monotonic(l: list):
    rising = all(l[i] <= l[i + 1] for i in range(len(l) - 2))
    falling = all(l[i] >= l[i + 1] for i in range(len(l) - 2))
    return rising or falling
""",
        ([1, 2, 3, 2],),
    ),
    Wrong(
        "HumanEval/60",
        "model-style",
        "sums recursively, one call per number, so a large n exceeds the recursion limit",
        """
def sum_to_n(n: int):
    if n <= 0:
        return 0
    return n + sum_to_n(n - 1)
""",
        (5000,),
    ),
    Wrong(
        "HumanEval/62",
        "order-ties",
        "takes each coefficient's power from xs.index, so a repeated coefficient gets its first position",
        """
def derivative(xs: list):
    return [xs.index(c) * c for c in xs][1:]
""",
        ([2, 3, 3],),
    ),
    Wrong(
        "HumanEval/68",
        "string-off-by-one",
        "the scan starts at index 1, so an even value at index 0 is never plucked",
        """
def pluck(arr):
    best = None
    for i in range(1, len(arr)):
        if arr[i] % 2 == 0 and (best is None or arr[i] < arr[best]):
            best = i
    return [] if best is None else [arr[best], best]
""",
        ([2, 3],),
    ),
    Wrong(
        "HumanEval/72",
        "model-style",
        "reads 'balanced' as equal weight on both halves instead of a palindrome",
        """
def will_it_fly(q,w):
    half = len(q) // 2
    balanced = sum(q[:half]) == sum(q[len(q) - half:])
    return balanced and sum(q) <= w
""",
        ([1, 3, 2, 2], 10),
    ),
    Wrong(
        "HumanEval/73",
        "order-ties",
        "finds each value's mirror position with arr.index, so a repeated value is compared from its first position",
        """
def smallest_change(arr):
    changes = 0
    for x in arr[:len(arr) // 2]:
        if x != arr[-arr.index(x) - 1]:
            changes += 1
    return changes
""",
        ([1, 1, 1, 2],),
    ),
    Wrong(
        "HumanEval/74",
        "model-style",
        "leaves spaces out of the character count",
        """
def total_match(lst1, lst2):
    count1 = sum(len(s.replace(' ', '')) for s in lst1)
    count2 = sum(len(s.replace(' ', '')) for s in lst2)
    return lst1 if count1 <= count2 else lst2
""",
        (["a  b"], ["abc"]),
    ),
    Wrong(
        "HumanEval/75",
        "type-boundary",
        "trial division runs while p * p < n, so a leftover square of a prime counts as one factor",
        """
def is_multiply_prime(a):
    count = 0
    n = a
    p = 2
    while p * p < n:
        while n % p == 0:
            n //= p
            count += 1
        p += 1
    if n > 1:
        count += 1
    return count == 3
""",
        (18,),
    ),
    Wrong(
        "HumanEval/79",
        "type-boundary",
        "halves the number with int(decimal / 2), a float division that rounds large numbers",
        """
def decimal_to_binary(decimal):
    if decimal == 0:
        return "db0db"
    bits = ""
    while decimal > 0:
        bits = str(decimal % 2) + bits
        decimal = int(decimal / 2)
    return "db" + bits + "db"
""",
        (1152921504606846979,),
    ),
    Wrong(
        "HumanEval/80",
        "string-off-by-one",
        "compares each character with the two before it from index 2 on, so the first two are never compared",
        """
def is_happy(s):
    if len(s) < 3:
        return False
    for i in range(2, len(s)):
        if s[i] == s[i - 1] or s[i] == s[i - 2]:
            return False
    return True
""",
        ("aabc",),
    ),
    Wrong(
        "HumanEval/81",
        "type-boundary",
        "the B row taken as 2.7 and above, not above 2.7",
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
        elif gpa >= 2.7:
            letters.append("B")
        elif gpa > 2.3:
            letters.append("B-")
        elif gpa > 2.0:
            letters.append("C+")
        elif gpa > 1.7:
            letters.append("C")
        elif gpa > 1.3:
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
        ([2.7],),
    ),
    Wrong(
        "HumanEval/82",
        "model-style",
        "a hard-coded tuple of prime lengths that stops at 13",
        """
def prime_length(string):
    return len(string) in (2, 3, 5, 7, 11, 13)
""",
        ("a" * 17,),
    ),
    Wrong(
        "HumanEval/83",
        "type-boundary",
        "simplifies the count to 1.8 * 10 ** (n - 1) in floating point and truncates it",
        """
def starts_one_ends(n):
    return int(1.8 * 10 ** (n - 1))
""",
        (25,),
    ),
    Wrong(
        "HumanEval/83",
        "model-style",
        "counts by looping over every n-digit number, which does not finish for larger n",
        """
def starts_one_ends(n):
    count = 0
    for x in range(10 ** (n - 1), 10 ** n):
        s = str(x)
        if s[0] == '1' or s[-1] == '1':
            count += 1
    return count
""",
        (9,),
    ),
    Wrong(
        "HumanEval/86",
        "model-style",
        "strips the sentence before splitting, losing its leading and trailing spaces",
        """
def anti_shuffle(s):
    return ' '.join(''.join(sorted(word)) for word in s.strip().split(' '))
""",
        (" hi there ",),
    ),
    Wrong(
        "HumanEval/90",
        "empty-negative",
        "tests 'not second' for an unset second smallest, so a second smallest of 0 is overwritten",
        """
def next_smallest(lst):
    smallest = second = None
    for x in lst:
        if smallest is None or x < smallest:
            second, smallest = smallest, x
        elif x != smallest and (not second or x < second):
            second = x
    return second
""",
        ([-1, 0, 5],),
    ),
    Wrong(
        "HumanEval/91",
        "string-off-by-one",
        "collects a sentence only at its closing punctuation, so a last sentence without one is dropped",
        """
def is_bored(S):
    sentences = []
    current = ''
    for ch in S:
        if ch in '.?!':
            sentences.append(current)
            current = ''
        else:
            current += ch
    return sum(1 for s in sentences if s.strip().startswith('I '))
""",
        ("The sky is blue. I love this weather",),
    ),
    Wrong(
        "HumanEval/91",
        "model-style",
        "splits sentences only at a delimiter followed by a space",
        """
import re


def is_bored(S):
    sentences = re.split(r'[.?!] ', S)
    return sum(1 for s in sentences if s.startswith('I '))
""",
        ("It is late.I am tired",),
    ),
    Wrong(
        "HumanEval/91",
        "model-style",
        "lower-cases the sentences, so a sentence starting with 'i' counts",
        """
import re


def is_bored(S):
    sentences = re.split(r'[.?!]\\s*', S)
    return sum(1 for s in sentences if s.lower().startswith('i '))
""",
        ("Hello. i am bored",),
    ),
    Wrong(
        "HumanEval/92",
        "type-boundary",
        "type(v) is int rejects booleans, which isinstance accepts",
        """
def any_int(x, y, z):
    if not all(type(v) is int for v in (x, y, z)):
        return False
    return x + y == z or x + z == y or y + z == x
""",
        (True, 1, 2),
    ),
    Wrong(
        "HumanEval/99",
        "type-boundary",
        "detects a half on the parsed float, so a value just below .5 that parses to .5 goes away from zero",
        """
import math


def closest_integer(value):
    num = float(value)
    if num - math.floor(num) == 0.5:
        return math.ceil(num) if num > 0 else math.floor(num)
    return int(round(num))
""",
        ("2.4999999999999999",),
    ),
    Wrong(
        "HumanEval/99",
        "model-style",
        "treats any value whose text ends in 5 as a half",
        """
import math


def closest_integer(value):
    num = float(value)
    if value.endswith('5'):
        return math.ceil(num) if num > 0 else math.floor(num)
    return int(round(num))
""",
        ("2.25",),
    ),
    Wrong(
        "HumanEval/104",
        "string-off-by-one",
        "the digit loop runs while n > 9, so the leading digit is never tested",
        """
def unique_digits(x):
    result = []
    for num in x:
        n = num
        all_odd = True
        while n > 9:
            if (n % 10) % 2 == 0:
                all_odd = False
                break
            n //= 10
        if all_odd:
            result.append(num)
    return sorted(result)
""",
        ([21],),
    ),
    Wrong(
        "HumanEval/108",
        "type-boundary",
        "splits off digits with int(n / 10), a float division that rounds large numbers",
        """
def count_nums(arr):
    def digit_sum(n):
        negative = n < 0
        n = abs(n)
        digits = []
        while n > 0:
            digits.append(n % 10)
            n = int(n / 10)
        digits.reverse()
        if negative and digits:
            digits[0] = -digits[0]
        return sum(digits)

    return sum(1 for n in arr if digit_sum(n) > 0)
""",
        ([-89999999999999999],),
    ),
    Wrong(
        "HumanEval/111",
        "empty-negative",
        "counts the words of split(' '), so the empty word between two spaces is reported",
        """
def histogram(test):
    if test == '':
        return {}
    counts = {}
    for letter in test.split(' '):
        counts[letter] = counts.get(letter, 0) + 1
    best = max(counts.values())
    return {k: v for k, v in counts.items() if v == best}
""",
        ("a  b",),
    ),
    Wrong(
        "HumanEval/114",
        "model-style",
        "tries every sub-array with sum(), cubic in the length",
        """
def minSubArraySum(nums):
    best = None
    for i in range(len(nums)):
        for j in range(i + 1, len(nums) + 1):
            s = sum(nums[i:j])
            if best is None or s < best:
                best = s
    return best
""",
        (list(range(-1500, 1500)),),
    ),
    Wrong(
        "HumanEval/118",
        "order-ties",
        "locates a vowel with word.index, which finds its first occurrence, not the one scanned",
        """
def get_closest_vowel(word):
    vowels = "aeiouAEIOU"
    for c in reversed(word[1:-1]):
        if c in vowels:
            i = word.index(c)
            if word[i - 1] not in vowels and word[i + 1] not in vowels:
                return c
    return ""
""",
        ("beetles",),
    ),
    Wrong(
        "HumanEval/119",
        "model-style",
        "tries only one order, the string with more '(' first",
        """
def match_parens(lst):
    def good(s):
        depth = 0
        for c in s:
            depth += 1 if c == '(' else -1
            if depth < 0:
                return False
        return depth == 0

    first, second = lst
    if second.count('(') > first.count('('):
        first, second = second, first
    return 'Yes' if good(first + second) else 'No'
""",
        ([")(())", "("],),
    ),
    Wrong(
        "HumanEval/125",
        "model-style",
        "strips the text before looking for whitespace, so surrounding spaces are ignored",
        """
def split_words(txt):
    txt = txt.strip()
    if ' ' in txt:
        return txt.split()
    if ',' in txt:
        return [w for w in txt.split(',') if w]
    return len([c for c in txt if c.islower() and (ord(c) - ord('a')) % 2 == 1])
""",
        (" abc",),
    ),
    Wrong(
        "HumanEval/126",
        "string-off-by-one",
        "the order check runs over range(1, len(lst) - 1), never comparing the last two elements",
        """
def is_sorted(lst):
    for x in lst:
        if lst.count(x) > 2:
            return False
    for i in range(1, len(lst) - 1):
        if lst[i] < lst[i - 1]:
            return False
    return True
""",
        ([1, 2, 4, 3],),
    ),
    Wrong(
        "HumanEval/127",
        "type-boundary",
        "trial division runs while i * i < length, so the square of a prime passes as prime",
        """
def intersection(interval1, interval2):
    start = max(interval1[0], interval2[0])
    end = min(interval1[1], interval2[1])
    length = end - start
    if length < 2:
        return "NO"
    i = 2
    while i * i < length:
        if length % i == 0:
            return "NO"
        i += 1
    return "YES"
""",
        ((0, 9), (0, 9)),
    ),
    Wrong(
        "HumanEval/127",
        "model-style",
        "the primality loop returns from its first iteration, so every odd length passes",
        """
def intersection(interval1, interval2):
    def is_prime(n):
        if n < 2:
            return False
        for i in range(2, n):
            if n % i == 0:
                return False
            else:
                return True
        return True

    length = min(interval1[1], interval2[1]) - max(interval1[0], interval2[0])
    return "YES" if is_prime(length) else "NO"
""",
        ((0, 15), (0, 20)),
    ),
    Wrong(
        "HumanEval/127",
        "model-style",
        "a hard-coded tuple of prime lengths that stops at 7",
        """
def intersection(interval1, interval2):
    length = min(interval1[1], interval2[1]) - max(interval1[0], interval2[0])
    return "YES" if length in (2, 3, 5, 7) else "NO"
""",
        ((0, 11), (0, 11)),
    ),
    Wrong(
        "HumanEval/130",
        "model-style",
        "builds the list recursively from tri(n - 1), so a large n exceeds the recursion limit",
        """
def tri(n):
    if n == 0:
        return [1]
    if n == 1:
        return [1, 3]
    seq = tri(n - 1)
    if n % 2 == 0:
        seq.append(1 + n / 2)
    else:
        seq.append(seq[n - 1] + seq[n - 2] + 1 + (n + 1) / 2)
    return seq
""",
        (5000,),
    ),
    Wrong(
        "HumanEval/132",
        "model-style",
        "looks for an adjacent '[[' followed by an adjacent ']]', missing nesting spread over a subsequence",
        """
def is_nested(string):
    start = string.find('[[')
    return start != -1 and ']]' in string[start:]
""",
        ("[][]]",),
    ),
    Wrong(
        "HumanEval/133",
        "type-boundary",
        "converts each number to float before the ceiling, which rounds integers above 2**53",
        """
import math


def sum_squares(lst):
    return sum(math.ceil(float(x)) ** 2 for x in lst)
""",
        ([9007199254740993],),
    ),
    Wrong(
        "HumanEval/135",
        "string-off-by-one",
        "the backward scan stops at index 2, never comparing arr[1] with arr[0]",
        """
def can_arrange(arr):
    for i in range(len(arr) - 1, 1, -1):
        if arr[i] < arr[i - 1]:
            return i
    return -1
""",
        ([2, 1, 3],),
    ),
    Wrong(
        "HumanEval/141",
        "model-style",
        "strips the name before checking it, so leading or trailing spaces are accepted",
        """
def file_name_check(file_name):
    name = file_name.strip()
    parts = name.split('.')
    if len(parts) != 2:
        return 'No'
    stem, ext = parts
    if ext not in ('txt', 'exe', 'dll'):
        return 'No'
    if not stem or not stem[0].isalpha():
        return 'No'
    if sum(c.isdigit() for c in stem) > 3:
        return 'No'
    return 'Yes'
""",
        (" notes.txt",),
    ),
    Wrong(
        "HumanEval/143",
        "order-ties",
        "keeps the words in a dict keyed by word, so a repeated word appears once",
        """
def words_in_sentence(sentence):
    def is_prime(n):
        return n > 1 and all(n % d for d in range(2, int(n ** 0.5) + 1))

    lengths = {word: len(word) for word in sentence.split()}
    return " ".join(word for word, n in lengths.items() if is_prime(n))
""",
        ("to be or not to be",),
    ),
    Wrong(
        "HumanEval/148",
        "model-style",
        "strips the planet names before looking them up, so a name with surrounding spaces is accepted",
        """
def bf(planet1, planet2):
    planets = ("Mercury", "Venus", "Earth", "Mars", "Jupiter", "Saturn", "Uranus", "Neptune")
    planet1, planet2 = planet1.strip(), planet2.strip()
    if planet1 not in planets or planet2 not in planets or planet1 == planet2:
        return ()
    i, j = planets.index(planet1), planets.index(planet2)
    lo, hi = min(i, j), max(i, j)
    return planets[lo + 1:hi]
""",
        (" Earth", "Jupiter"),
    ),
    Wrong(
        "HumanEval/149",
        "order-ties",
        "breaks length ties alphabetically ignoring case",
        """
def sorted_list_sum(lst):
    kept = [w for w in lst if len(w) % 2 == 0]
    return sorted(kept, key=lambda w: (len(w), w.lower()))
""",
        (["ba", "Bc"],),
    ),
    Wrong(
        "HumanEval/151",
        "type-boundary",
        "type(x) is int drops booleans, which the reference counts as integers",
        """
def double_the_difference(lst):
    return sum(x * x for x in lst if type(x) is int and x > 0 and x % 2 == 1)
""",
        ([True, 3],),
    ),
    Wrong(
        "HumanEval/154",
        "model-style",
        "lower-cases both words, so rotations of another case match",
        """
def cycpattern_check(a , b):
    a, b = a.lower(), b.lower()
    for i in range(len(b)):
        if b[i:] + b[:i] in a:
            return True
    return False
""",
        ("HELLO", "ell"),
    ),
    Wrong(
        "HumanEval/154",
        "empty-negative",
        "tries the rotations over range(len(b)), so an empty second word has none and gives False",
        """
def cycpattern_check(a , b):
    for i in range(len(b)):
        if b[i:] + b[:i] in a:
            return True
    return False
""",
        ("abc", ""),
    ),
    Wrong(
        "HumanEval/157",
        "type-boundary",
        "compares math.sqrt of the two shorter squares with the longest side, which rounds for large sides",
        """
import math


def right_angle_triangle(a, b, c):
    x, y, z = sorted([a, b, c])
    return math.sqrt(x * x + y * y) == z
""",
        (1000000000, 1, 1000000000),
    ),
    Wrong(
        "HumanEval/157",
        "model-style",
        "compares math.hypot of the two shorter sides with the longest, which rounds for large sides",
        """
import math


def right_angle_triangle(a, b, c):
    x, y, z = sorted([a, b, c])
    return math.hypot(x, y) == z
""",
        (1, 1000000000, 1000000000),
    ),
    Wrong(
        "HumanEval/158",
        "order-ties",
        "breaks ties on the unique-character count by the first character only",
        """
def find_max(words):
    return max(words, key=lambda w: (len(set(w)), -ord(w[0])))
""",
        (["abd", "abc"],),
    ),
)


def tasks() -> set[str]:
    """The task ids the set covers."""
    return {e.task_id for e in ENTRIES}
