"""An eighth held-out set of plausible-wrong HumanEval solutions, written for specverdict.

The first seven sets (``benchmarks/heldout_wrong.py`` to ``benchmarks/heldout_wrong7.py``) have
been scored and may have informed the amplifier's design since, so their misses no longer measure
mistakes nobody chose for the amplifier to catch. This set was written after all seven, apart from
the amplifier (``suites/function``'s input generators, their design notes and the catch rates of
the earlier sets were not read to write it), for one measurement; it must not be tuned to the
amplifier either. It has the first set's format (``Wrong``, ``KINDS``) and rules: every solution
here was written by hand, as a model might write it, passes HumanEval's own base tests (``check``
in the dataset) and is wrong on its witness, a concrete input within the task's stated domain on
which its output differs from the project's reference (raising or not returning counts as
differing). No entry repeats one of the first seven sets: other tasks, or other bugs on the same
task. Tasks whose canonical solution is disputed on the witness's region (95, 97, 124, the decode
tasks, ties of ``find_closest_elements``, ``change_base(0, b)``, ``modp(n, 1)``, the float
arithmetic of ``get_odd_collatz``, the ASCII letter and digit tests of ``file_name_check`` and
``check_if_last_char_is_a_letter``, trailing spaces in ``fix_spaces``, the regions that
``REFERENCE_FIXES`` corrects, ...) and the bugs of ``tests/unit/suites/solutions.py``'s
``PLAUSIBLY_WRONG`` are left out.

After seven sets, the small-input mistakes a model plausibly makes and HumanEval's base tests miss
are very nearly taken: most candidates written for this set were an earlier set's, or the base
tests caught them (their repeated values, empty inputs, zeros, negative numbers and exact
boundaries are well covered by now). So this set is small (28 entries over 26 tasks) and most of
it fails only at scale: 18 entries (recursion past the limit, work that grows quadratically with
the length, with the size of a number or exponentially with a path length), each on a witness of
ordinary size that the reference answers in milliseconds, through mechanisms the earlier sets
used little (``list.insert``, ``list.pop(0)``, ``bisect.insort``, ``sum(..., [])``, strings
rebuilt by ``s = s + a + b`` or by prepending, slicing off the front, ``in`` on a string, an
unreduced power). The other 10 fail on small inputs. It has no ``string-off-by-one``,
``empty-negative`` or ``order-ties`` entry: every candidate of those kinds found for it was an
earlier set's or failed the base tests.

Kinds (``KINDS``, as in the first set):

* ``model-style``: hand-written mistakes a model makes (a library call that does something else:
  ``re.IGNORECASE`` matching the Turkish dotless and dotted i, ``str.isupper()`` and
  ``str.islower()`` holding for cased symbols that are no letters and failing for letters
  without case, ``str.swapcase()`` rebuilt from ``upper()`` and ``lower()``, which changes
  titlecase letters, ``str.strip(",")`` that only trims words; work that does not scale: the
  counts of a growing group taken afresh, copies of a list or string for every element, a tail
  moved for every insertion or removal, a scan of the other string for every character, every
  element compared with the whole list, recursion one call per element, character or bit,
  repeated subtraction, an unreduced power, every path of a grid tried);
* ``type-boundary``: bounds that real values pass (``math.isclose``'s default relative tolerance
  beside an absolute threshold, sentinels ``1e9`` and ``-1e9`` for a minimum and a maximum, a
  sequence generated only below ``10 ** 9``).

``benchmarks/heldout_catch.py --set heldout_wrong8`` scores the set with the amplified tests;
``tests/integration/suites/test_heldout_set.py`` checks the data of all eight sets.
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
        "tests each pair with math.isclose(a, b, abs_tol=threshold), whose default relative tolerance makes large numbers close",
        """
import math
from typing import List


def has_close_elements(numbers: List[float], threshold: float) -> bool:
    for i, a in enumerate(numbers):
        for b in numbers[i + 1 :]:
            if math.isclose(a, b, abs_tol=threshold):
                return True
    return False
""",
        ([1e10, 1e10 + 1.0], 0.5),
    ),
    Wrong(
        "HumanEval/1",
        "model-style",
        "closes a group when the counts of '(' and ')' in it are equal, counting the growing group afresh for every character, quadratic in its length",
        """
from typing import List


def separate_paren_groups(paren_string: str) -> List[str]:
    groups = []
    current = ""
    for ch in paren_string:
        if ch == " ":
            continue
        current += ch
        if current.count("(") == current.count(")"):
            groups.append(current)
            current = ""
    return groups
""",
        ("(" * 50000 + ")" * 50000,),
    ),
    Wrong(
        "HumanEval/5",
        "model-style",
        "inserts the delimiter into a copy of the list with list.insert, moving the tail for every gap, quadratic in the length",
        """
from typing import List


def intersperse(numbers: List[int], delimeter: int) -> List[int]:
    result = list(numbers)
    for i in range(len(numbers) - 1, 0, -1):
        result.insert(i, delimeter)
    return result
""",
        (list(range(100000)), -1),
    ),
    Wrong(
        "HumanEval/17",
        "model-style",
        "consumes the string from the front by slicing off each note, copying the rest every time, quadratic in the length",
        """
from typing import List


def parse_music(music_string: str) -> List[int]:
    beats = []
    rest = music_string
    while rest:
        if rest.startswith("o|"):
            beats.append(2)
            rest = rest[2:]
        elif rest.startswith(".|"):
            beats.append(1)
            rest = rest[2:]
        elif rest.startswith("o"):
            beats.append(4)
            rest = rest[1:]
        else:
            rest = rest[1:]
    return beats
""",
        (" ".join(["o|"] * 200000),),
    ),
    Wrong(
        "HumanEval/27",
        "model-style",
        "flips with upper() and lower() by islower(), which turns a titlecase letter into lower case",
        """
def flip_case(string: str) -> str:
    return "".join(ch.upper() if ch.islower() else ch.lower() for ch in string)
""",
        ("\u01c5emo",),
    ),
    Wrong(
        "HumanEval/54",
        "model-style",
        "tests every character of each word for membership in the other string, a scan of the other string per character, quadratic in the length",
        """
def same_chars(s0: str, s1: str):
    return all(c in s1 for c in s0) and all(c in s0 for c in s1)
""",
        ("b" * 400000 + "a", "a" * 400000 + "b"),
    ),
    Wrong(
        "HumanEval/79",
        "model-style",
        "writes the binary digits by recursing on decimal // 2, one call per bit, so a number of 1500 bits exceeds the recursion limit",
        """
def decimal_to_binary(decimal):
    def to_bin(n):
        if n < 2:
            return str(n)
        return to_bin(n // 2) + str(n % 2)

    return "db" + to_bin(decimal) + "db"
""",
        (2**1500 + 1,),
    ),
    Wrong(
        "HumanEval/90",
        "model-style",
        "removes the smallest value with list.remove while it is still in the list, moving the tail for every copy, quadratic in the number of copies",
        """
def next_smallest(lst):
    if len(lst) < 2:
        return None
    rest = list(lst)
    smallest = min(rest)
    while smallest in rest:
        rest.remove(smallest)
    return min(rest) if rest else None
""",
        ([0] * 200000 + [1],),
    ),
    Wrong(
        "HumanEval/2",
        "model-style",
        "strips the integer part by subtracting 1 until the number is below 1, one step per unit of its size",
        """
def truncate_number(number: float) -> float:
    while number >= 1:
        number -= 1
    return number
""",
        (1e9 + 0.25,),
    ),
    Wrong(
        "HumanEval/15",
        "model-style",
        "appends with s = s + ' ' + str(i), which builds a new string for every number, quadratic in n",
        """
def string_sequence(n: int) -> str:
    s = "0"
    for i in range(1, n + 1):
        s = s + " " + str(i)
    return s
""",
        (100000,),
    ),
    Wrong(
        "HumanEval/42",
        "model-style",
        "builds the result with result = result + [x + 1], copying it for every element, quadratic in the length",
        """
def incr_list(l: list):
    result = []
    for x in l:
        result = result + [x + 1]
    return result
""",
        (list(range(100000)),),
    ),
    Wrong(
        "HumanEval/49",
        "model-style",
        "doubles an unreduced power n times and takes the remainder once at the end, quadratic in n",
        """
def modp(n: int, p: int):
    power = 1
    for _ in range(n):
        power *= 2
    return power % p
""",
        (1000000, 101),
    ),
    Wrong(
        "HumanEval/51",
        "model-style",
        "removes the vowels with re.sub and re.IGNORECASE, which also matches the dotless and dotted Turkish i",
        """
import re


def remove_vowels(text):
    return re.sub("[aeiou]", "", text, flags=re.IGNORECASE)
""",
        ("k\u0131rm\u0131z\u0131",),
    ),
    Wrong(
        "HumanEval/85",
        "model-style",
        "adds recursively from index 1, two positions per call, so a list of a few thousand numbers exceeds the recursion limit",
        """
def add(lst):
    def walk(i):
        if i >= len(lst):
            return 0
        x = lst[i]
        return (x if x % 2 == 0 else 0) + walk(i + 2)

    return walk(1)
""",
        ([2] * 4000,),
    ),
    Wrong(
        "HumanEval/87",
        "model-style",
        "flattens the coordinates of the rows with sum(..., []), copying the growing list for every row, quadratic in the number of rows",
        """
def get_row(lst, x):
    rows = [
        [(i, j) for j in range(len(row) - 1, -1, -1) if row[j] == x]
        for i, row in enumerate(lst)
    ]
    return sum(rows, [])
""",
        ([[1]] * 100000, 1),
    ),
    Wrong(
        "HumanEval/153",
        "model-style",
        "counts str.isupper() and str.islower() characters without testing for letters, so cased symbols such as the circled letters count",
        """
def Strongest_Extension(class_name, extensions):
    def strength(ext):
        return sum(c.isupper() for c in ext) - sum(c.islower() for c in ext)

    best = extensions[0]
    for ext in extensions[1:]:
        if strength(ext) > strength(best):
            best = ext
    return class_name + "." + best
""",
        ("K", ["B", "\u24b6\u24b7"]),
    ),
    Wrong(
        "HumanEval/37",
        "model-style",
        "places the sorted even-index values back with list.pop(0), which moves the rest of the list for every value, quadratic in the length",
        """
def sort_even(l: list):
    evens = sorted(l[::2])
    result = []
    for i, x in enumerate(l):
        result.append(evens.pop(0) if i % 2 == 0 else x)
    return result
""",
        (list(range(300000, 0, -1)),),
    ),
    Wrong(
        "HumanEval/129",
        "model-style",
        "starts at the cell holding 1 and tries every path of length k, exponential in k",
        """
def minPath(grid, k):
    n = len(grid)
    start = next((i, j) for i in range(n) for j in range(n) if grid[i][j] == 1)
    best = None

    def walk(i, j, path):
        nonlocal best
        if len(path) == k:
            if best is None or path < best:
                best = list(path)
            return
        for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            a, b = i + di, j + dj
            if 0 <= a < n and 0 <= b < n:
                path.append(grid[a][b])
                walk(a, b, path)
                path.pop()

    walk(start[0], start[1], [1])
    return best
""",
        ([[1, 2], [3, 4]], 40),
    ),
    Wrong(
        "HumanEval/161",
        "model-style",
        "reverses a string without letters by prepending each character to the result, a new string per character, quadratic in the length",
        """
def solve(s):
    if any(c.isalpha() for c in s):
        return "".join(c.swapcase() if c.isalpha() else c for c in s)
    result = ""
    for c in s:
        result = c + result
    return result
""",
        ("1234567890" * 100000,),
    ),
    Wrong(
        "HumanEval/161",
        "model-style",
        "tests for letters with isupper() or islower(), so a string whose only letters have no case, such as '\u4e2d', is reversed",
        """
def solve(s):
    if any(c.isupper() or c.islower() for c in s):
        return "".join(c.swapcase() if c.isalpha() else c for c in s)
    return s[::-1]
""",
        ("\u4e2d1",),
    ),
    Wrong(
        "HumanEval/21",
        "type-boundary",
        "finds the smallest and largest numbers from the sentinels 1e9 and -1e9, so numbers all above 1e9 keep the sentinel as their minimum",
        """
from typing import List


def rescale_to_unit(numbers: List[float]) -> List[float]:
    smallest, largest = 1e9, -1e9
    for x in numbers:
        if x < smallest:
            smallest = x
        if x > largest:
            largest = x
    return [(x - smallest) / (largest - smallest) for x in numbers]
""",
        ([2e9, 3e9],),
    ),
    Wrong(
        "HumanEval/101",
        "model-style",
        "splits at spaces and strips commas from the ends of the words, so two words joined by a comma alone stay one word",
        """
def words_string(s):
    words = []
    for word in s.split():
        word = word.strip(",")
        if word:
            words.append(word)
    return words
""",
        ("Hi,John",),
    ),
    Wrong(
        "HumanEval/104",
        "model-style",
        "keeps the result sorted with bisect.insort, which moves the tail for every number placed before it, quadratic in the length",
        """
import bisect


def unique_digits(x):
    result = []
    for n in x:
        if all(int(d) % 2 == 1 for d in str(n)):
            bisect.insort(result, n)
    return result
""",
        ([9, 7, 5, 3, 1] * 120000,),
    ),
    Wrong(
        "HumanEval/35",
        "model-style",
        "returns the first element that no other element exceeds, comparing it with the whole list, quadratic in the length when the maximum comes late",
        """
def max_element(l: list):
    for x in l:
        if all(x >= y for y in l):
            return x
""",
        (list(range(60000)),),
    ),
    Wrong(
        "HumanEval/64",
        "model-style",
        "counts the vowels recursively on s[1:], one call per character, so a word of a few thousand letters exceeds the recursion limit",
        """
def vowels_count(s):
    def count(rest):
        if not rest:
            return 0
        return (rest[0].lower() in "aeiou") + count(rest[1:])

    return count(s) + (1 if s and s[-1] in "yY" else 0)
""",
        ("ab" * 1500,),
    ),
    Wrong(
        "HumanEval/39",
        "type-boundary",
        "generates the Fibonacci numbers only below 10 ** 9, so the eleventh prime one, 2971215073, is never reached",
        """
def prime_fib(n: int):
    def is_prime(k):
        if k < 2:
            return False
        for d in range(2, int(k**0.5) + 1):
            if k % d == 0:
                return False
        return True

    found = []
    a, b = 0, 1
    while b < 10**9:
        a, b = b, a + b
        if is_prime(a):
            found.append(a)
    return found[n - 1]
""",
        (11,),
    ),
    Wrong(
        "HumanEval/93",
        "model-style",
        "swaps the case with lower() for isupper() letters and upper() for the rest, which turns a titlecase letter into upper case",
        """
def encode(message):
    vowels = "aeiouAEIOU"
    result = []
    for ch in message:
        ch = ch.lower() if ch.isupper() else ch.upper()
        result.append(chr(ord(ch) + 2) if ch in vowels else ch)
    return "".join(result)
""",
        ("\u01c5ZAMO",),
    ),
    Wrong(
        "HumanEval/64",
        "model-style",
        "finds the vowels with re.findall and re.IGNORECASE, which also matches the Turkish dotless i",
        """
import re


def vowels_count(s):
    count = len(re.findall("[aeiou]", s, flags=re.IGNORECASE))
    if s and s[-1] in "yY":
        count += 1
    return count
""",
        ("k\u0131z",),
    ),
)


def tasks() -> set[str]:
    """The task ids the set covers."""
    return {e.task_id for e in ENTRIES}
