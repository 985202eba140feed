"""The thirteenth held-out set of plausible-wrong HumanEval solutions: HumanEval/82 to 163.

Written apart from the amplifier: the input generators of ``suites/function`` (every file there
but ``humaneval.py``, ``task.py``, ``oracles.py`` and ``harness.py``), the design notes, the
README, ``benchmarks/RESULTS.md``, ``catch_rate.py``, ``amplifier_cost.py``, the unit tests of the
suites, the repository's history and the earlier held-out sets (beyond the format of
``heldout_wrong.py``) were not read, and no amplified test was scored while writing it.

Unlike the earlier sets, which hunted rare corners, this one samples the natural distribution of
model mistakes: for each task, the solution a code model writes on a first attempt and the
variants it samples at temperature ~0.8 (common idioms, misreadings of the docstring, loop
bounds one step off, ``<`` for ``<=``, ``split(' ')`` against ``split()``, float rounding,
zero, negative and repeated values, recursion, brute force). A candidate was kept only if it
passes HumanEval's base tests (the dataset's ``check``) and is wrong on a witness within the
task's stated domain; nothing was ruled out for repeating an earlier set's mistake (those sets
were not read). Each entry is one complete function a model could write in good faith, at most
three per task, each a different mistake.

Witness rules: the witness satisfies the task's ``contract`` and the docstring's domain (types,
ranges, "positive", "non-empty"); the reference answers it in milliseconds; the solution returns
another value (as ``oracles.is_right`` compares), raises, or does not return. An entry that
differs only by not returning counts only with every list or string at most 65,536 items and
every whole number at most 1,000 digits. The witness is the simplest small input that shows
the difference.

Left out as disputed: HumanEval/95, 97 and 124; the decode tasks; ties of
``find_closest_elements``; ``change_base(0, b)``; ``modp(n, 1)``; the float arithmetic of
``get_odd_collatz``, ``tri`` and ``rounded_avg``; the ASCII letter and digit tests of
``file_name_check`` and ``check_if_last_char_is_a_letter``; trailing spaces in ``fix_spaces``;
``iscube``'s float cube root; ``x_or_y`` and ``add_elements`` on numbers below 2 or negative;
Greek final sigma; the dotted and dotless i; tabs where a task speaks of spaces; letters and
digits outside ASCII; negative ``gcd``; and witnesses the reference cannot answer in
milliseconds. Also left out were candidates that differ only where the reference's own answer
is questionable: ``is_bored`` on a sentence that is just "I", integral floats such as 3.0 in
``double_the_difference``, ``select_words`` with n = 0, case-insensitive "alphabetical" order in
``sorted_list_sum``, ``encrypt`` rotating uppercase letters.

What it holds: 40 entries over 29 of the 82 tasks: 17 model-style, 12 type-boundary,
5 empty-negative, 3 order-ties, 3 string-off-by-one. The mistakes that recur are primality
loops one step short (``i * i < n``, ``range(2, int(sqrt(n)))``, ``range(2, n // 2)``;
HumanEval/82, 94, 127, 143, 150), splitting idioms that keep or lose empty pieces (86, 101,
111, 125), float precision on whole-number answers (99, 144, 157) and sets that drop repeated
values (104, 149). Three entries differ only by not returning within the size contract
(HumanEval/83's brute-force count, HumanEval/94's linear primality test, HumanEval/114's
quadratic scan) and one by recursing too deep (HumanEval/130). The other 53 tasks yielded none
(95, 97, 103, 122, 123, 124 and 134 lie wholly or mostly inside the disputed regions; on the
rest the base tests already reject the natural slips, or the natural solutions are right):
85, 87, 88, 92, 93, 95, 97, 98, 100, 102, 103, 105, 106, 107, 108, 110, 112, 113, 115, 116,
117, 119, 120, 121, 122, 123, 124, 126, 128, 129, 131, 133, 134, 135, 136, 137, 138, 139, 141,
142, 145, 146, 147, 148, 151, 152, 153, 155, 156, 158, 159, 161, 162.
"""

from __future__ import annotations

try:
    from benchmarks.heldout_wrong import KINDS, Wrong
except ImportError:  # run as a script from the benchmarks directory
    from heldout_wrong import KINDS, Wrong  # type: ignore[no-redef, import-not-found]

__all__ = ["ENTRIES", "KINDS", "Wrong", "tasks"]

ENTRIES: tuple[Wrong, ...] = (
    Wrong(
        "HumanEval/82",
        "type-boundary",
        "Tests divisors in the 6k +/- 1 loop while i * i < n, strict where it must be <=, so a "
        "square of a prime passes: a string of length 25 is called prime.",
        """
def prime_length(string):
    n = len(string)
    if n <= 1:
        return False
    if n <= 3:
        return True
    if n % 2 == 0 or n % 3 == 0:
        return False
    i = 5
    while i * i < n:
        if n % i == 0 or n % (i + 2) == 0:
            return False
        i += 6
    return True
""",
        ("a" * 25,),
    ),
    Wrong(
        "HumanEval/83",
        "model-style",
        "Counts by brute force over every n-digit number: right, but for n = 10 it walks nine "
        "billion numbers and does not return.",
        """
def starts_one_ends(n):
    count = 0
    for x in range(10 ** (n - 1), 10 ** n):
        s = str(x)
        if s[0] == '1' or s[-1] == '1':
            count += 1
    return count
""",
        (10,),
    ),
    Wrong(
        "HumanEval/84",
        "empty-negative",
        "Converts the digit sum to binary by hand with a while loop that never runs for a sum "
        "of 0, so N = 0 gives '' instead of '0'.",
        """
def solve(N):
    total = sum(int(d) for d in str(N))
    result = ""
    while total > 0:
        result = str(total % 2) + result
        total //= 2
    return result
""",
        (0,),
    ),
    Wrong(
        "HumanEval/86",
        "model-style",
        "Splits the sentence with split() and joins with one space, so runs of blanks collapse: "
        "'a  b' comes back as 'a b'.",
        """
def anti_shuffle(s):
    return ' '.join(''.join(sorted(word)) for word in s.split())
""",
        ("a  b",),
    ),
    Wrong(
        "HumanEval/89",
        "model-style",
        "Assumes the string holds only lowercase letters and shifts every character, so a "
        "space turns into a letter: 'a b' gives 'erf'.",
        """
def encrypt(s):
    return ''.join(chr((ord(c) - ord('a') + 4) % 26 + ord('a')) for c in s)
""",
        ("a b",),
    ),
    Wrong(
        "HumanEval/90",
        "empty-negative",
        "Tracks the two smallest values in one pass but tests the second with `not second`, "
        "so a second smallest of 0 is taken for 'none yet' and overwritten: [-1, 0, 5] gives 5.",
        """
def next_smallest(lst):
    smallest = None
    second = None
    for x in lst:
        if smallest is None or x < smallest:
            second = smallest
            smallest = x
        elif x != smallest and (not second or x < second):
            second = x
    return second
""",
        ([-1, 0, 5],),
    ),
    Wrong(
        "HumanEval/90",
        "order-ties",
        "Sorts and returns None when the first two sorted values tie, instead of looking past "
        "the repeated minimum: [1, 1, 2] gives None, not 2.",
        """
def next_smallest(lst):
    if len(lst) < 2:
        return None
    s = sorted(lst)
    if s[0] == s[1]:
        return None
    return s[1]
""",
        ([1, 1, 2],),
    ),
    Wrong(
        "HumanEval/91",
        "string-off-by-one",
        "Splits sentences on a delimiter plus exactly one space, so after a double space the "
        "next sentence starts with ' I' and is not counted: 'Hi.  I am' gives 0.",
        """
import re

def is_bored(S):
    sentences = re.split(r'[.?!] ', S)
    return sum(1 for s in sentences if s.startswith('I '))
""",
        ("Hi.  I am",),
    ),
    Wrong(
        "HumanEval/94",
        "type-boundary",
        "Its 6k +/- 1 primality test loops while i * i < n, so 25 = 5 * 5 counts as prime and "
        "is the largest: [25, 2] gives 7 instead of 2.",
        """
def skjkasdkd(lst):
    def is_prime(n):
        if n <= 1:
            return False
        if n <= 3:
            return True
        if n % 2 == 0 or n % 3 == 0:
            return False
        i = 5
        while i * i < n:
            if n % i == 0 or n % (i + 2) == 0:
                return False
            i += 6
        return True
    largest = max(x for x in lst if is_prime(x))
    return sum(int(d) for d in str(largest))
""",
        ([25, 2],),
    ),
    Wrong(
        "HumanEval/94",
        "empty-negative",
        "Runs its primality test (no n < 2 guard) on every element, and a negative number's "
        "square root is complex, so int() raises TypeError on [-3, 2].",
        """
def skjkasdkd(lst):
    def is_prime(n):
        for i in range(2, int(n ** 0.5) + 1):
            if n % i == 0:
                return False
        return True
    primes = [x for x in lst if is_prime(x)]
    largest = max(primes)
    return sum(int(d) for d in str(largest))
""",
        ([-3, 2],),
    ),
    Wrong(
        "HumanEval/94",
        "model-style",
        "Tests primality by trial division over range(2, n), linear in the value: right, but "
        "on the prime 1000000007 it does not return.",
        """
def skjkasdkd(lst):
    def is_prime(n):
        if n < 2:
            return False
        for i in range(2, n):
            if n % i == 0:
                return False
        return True
    largest = max(x for x in lst if is_prime(x))
    return sum(int(d) for d in str(largest))
""",
        ([1000000007],),
    ),
    Wrong(
        "HumanEval/96",
        "type-boundary",
        "Seeds the list with 2 and tests only odd numbers after n < 2 is handled, so n = 2 "
        "returns [2] although 2 is not less than n.",
        """
def count_up_to(n):
    if n < 2:
        return []
    primes = [2]
    for i in range(3, n, 2):
        if all(i % p != 0 for p in primes if p * p <= i):
            primes.append(i)
    return primes
""",
        (2,),
    ),
    Wrong(
        "HumanEval/99",
        "string-off-by-one",
        "Detects a half by value.endswith('.5') without stripping trailing zeros, so '14.50' "
        "falls through to round() and banker's rounding gives 14, not 15.",
        """
def closest_integer(value):
    num = float(value)
    if value.endswith('.5'):
        return int(num + 0.5) if num > 0 else int(num - 0.5)
    return int(round(num))
""",
        ("14.50",),
    ),
    Wrong(
        "HumanEval/99",
        "type-boundary",
        "Rounds half away from zero as int(x + 0.5), and the float addition rounds "
        "0.49999999999999994 + 0.5 up to 1.0, so it answers 1 instead of 0.",
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
        "HumanEval/99",
        "empty-negative",
        "Special-cases a fractional part of exactly 0.5 but not -0.5, so a negative half "
        "falls to round()'s half-to-even: '-14.5' gives -14 instead of -15.",
        """
def closest_integer(value):
    num = float(value)
    if num - int(num) == 0.5:
        return int(num) + 1
    return round(num)
""",
        ("-14.5",),
    ),
    Wrong(
        "HumanEval/101",
        "model-style",
        "Takes the words as re.findall(r'\\w+'), which also breaks words at apostrophes and "
        "hyphens: \"don't\" gives ['don', 't'].",
        """
import re

def words_string(s):
    return re.findall(r'\\w+', s)
""",
        ("don't",),
    ),
    Wrong(
        "HumanEval/101",
        "model-style",
        "Deletes the commas instead of treating them as separators (every example has a space "
        "after its comma), so 'a,b' becomes one word 'ab'.",
        """
def words_string(s):
    return s.replace(',', '').split()
""",
        ("a,b",),
    ),
    Wrong(
        "HumanEval/104",
        "order-ties",
        "Collects the qualifying numbers in a set before sorting, so a repeated number "
        "appears once: [1, 1] gives [1].",
        """
def unique_digits(x):
    return sorted(set(n for n in x if all(int(d) % 2 == 1 for d in str(n))))
""",
        ([1, 1],),
    ),
    Wrong(
        "HumanEval/109",
        "model-style",
        "Counts the descents between neighbours but forgets the wrap-around pair (last, "
        "first), so [1, 3, 2] with one descent is called rotatable.",
        """
def move_one_ball(arr):
    if not arr:
        return True
    drops = 0
    for i in range(len(arr) - 1):
        if arr[i] > arr[i + 1]:
            drops += 1
    return drops <= 1
""",
        ([1, 3, 2],),
    ),
    Wrong(
        "HumanEval/111",
        "model-style",
        "Counts the pieces of split(' '), so a double space yields an empty-string 'letter' "
        "that enters the histogram: 'a  b' gives {'a': 1, '': 1, 'b': 1}.",
        """
def histogram(test):
    if not test:
        return {}
    counts = {}
    for letter in test.split(' '):
        counts[letter] = counts.get(letter, 0) + 1
    most = max(counts.values())
    return {k: v for k, v in counts.items() if v == most}
""",
        ("a  b",),
    ),
    Wrong(
        "HumanEval/114",
        "model-style",
        "Tries every start and extends a running sum to every end, quadratic time: right, but "
        "on 30,000 items it does not return.",
        """
def minSubArraySum(nums):
    best = nums[0]
    for i in range(len(nums)):
        total = 0
        for j in range(i, len(nums)):
            total += nums[j]
            best = min(best, total)
    return best
""",
        ([1] * 30000,),
    ),
    Wrong(
        "HumanEval/118",
        "model-style",
        "Lists only the lowercase vowels, reading 'case sensitive' as 'lowercase', so the "
        "uppercase vowel of 'bAd' is treated as a consonant and '' is returned.",
        """
def get_closest_vowel(word):
    vowels = "aeiou"
    for i in range(len(word) - 2, 0, -1):
        if word[i] in vowels and word[i - 1] not in vowels and word[i + 1] not in vowels:
            return word[i]
    return ""
""",
        ("bAd",),
    ),
    Wrong(
        "HumanEval/125",
        "model-style",
        "Splits on commas with split(','), which keeps the empty pieces between adjacent "
        "commas: 'a,,b' gives ['a', '', 'b'].",
        """
def split_words(txt):
    if ' ' in txt:
        return txt.split()
    if ',' in txt:
        return txt.split(',')
    return sum(1 for c in txt if c.islower() and (ord(c) - ord('a')) % 2 == 1)
""",
        ("a,,b",),
    ),
    Wrong(
        "HumanEval/125",
        "model-style",
        "Splits on whitespace with split(' ') instead of split(), so a double space yields an "
        "empty word: 'a  b' gives ['a', '', 'b'].",
        """
def split_words(txt):
    if ' ' in txt:
        return txt.split(' ')
    elif ',' in txt:
        return txt.split(',')
    else:
        return len([c for c in txt if c.islower() and (ord(c) - ord('a')) % 2 == 1])
""",
        ("a  b",),
    ),
    Wrong(
        "HumanEval/127",
        "type-boundary",
        "Tries divisors over range(2, int(math.sqrt(length))), one short, so a length of 4 "
        "has no divisor tried and is called prime: (0, 4) with (0, 4) gives 'YES'.",
        """
import math

def intersection(interval1, interval2):
    start = max(interval1[0], interval2[0])
    end = min(interval1[1], interval2[1])
    if start > end:
        return "NO"
    length = end - start
    if length < 2:
        return "NO"
    for i in range(2, int(math.sqrt(length))):
        if length % i == 0:
            return "NO"
    return "YES"
""",
        ((0, 4), (0, 4)),
    ),
    Wrong(
        "HumanEval/127",
        "empty-negative",
        "Takes the intersection length as abs(end - start) without checking that the "
        "intervals meet, so the disjoint (1, 2) and (4, 6) get 'length' 2 and 'YES'.",
        """
def intersection(interval1, interval2):
    start = max(interval1[0], interval2[0])
    end = min(interval1[1], interval2[1])
    length = abs(end - start)
    if length < 2:
        return "NO"
    for i in range(2, int(length ** 0.5) + 1):
        if length % i == 0:
            return "NO"
    return "YES"
""",
        ((1, 2), (4, 6)),
    ),
    Wrong(
        "HumanEval/130",
        "model-style",
        "Follows the recurrence recursively (tri(odd k) calls tri(k - 2)), which nests about "
        "n / 2 calls deep and raises RecursionError for n = 3000.",
        """
def tri(n):
    def t(k):
        if k == 0:
            return 1
        if k == 1:
            return 3
        if k % 2 == 0:
            return 1 + k / 2
        return t(k - 1) + t(k - 2) + t(k + 1)
    return [t(i) for i in range(n + 1)]
""",
        (3000,),
    ),
    Wrong(
        "HumanEval/132",
        "model-style",
        "Matches brackets with a stack and looks for a matched pair inside another, but the "
        "task asks for a nested subsequence: '[][]]' holds '[[]]' (positions 0, 2, 3, 4) "
        "yet its greedy pairs are side by side.",
        """
def is_nested(string):
    stack = []
    pairs = []
    for i, c in enumerate(string):
        if c == '[':
            stack.append(i)
        elif stack:
            pairs.append((stack.pop(), i))
    for a, b in pairs:
        for c, d in pairs:
            if a < c and d < b:
                return True
    return False
""",
        ("[][]]",),
    ),
    Wrong(
        "HumanEval/132",
        "model-style",
        "Looks for the substring '[[' before a later ']]', but the nested brackets need not "
        "be adjacent: '[][]]' has the subsequence '[[]]' and no '[['.",
        """
def is_nested(string):
    first = string.find('[[')
    last = string.rfind(']]')
    return first != -1 and last != -1 and first < last
""",
        ("[][]]",),
    ),
    Wrong(
        "HumanEval/140",
        "model-style",
        "Replaces exactly three spaces with '-' by str.replace, so a run of four leaves a "
        "space behind that becomes '_': 'a    b' gives 'a-_b'.",
        """
def fix_spaces(text):
    return text.replace("   ", "-").replace(" ", "_")
""",
        ("a    b",),
    ),
    Wrong(
        "HumanEval/143",
        "type-boundary",
        "Its 6k +/- 1 primality test loops while i * i < n, so a 25-letter word (25 = 5 * 5) "
        "is kept as having a prime length.",
        """
def words_in_sentence(sentence):
    def is_prime(n):
        if n <= 1:
            return False
        if n <= 3:
            return True
        if n % 2 == 0 or n % 3 == 0:
            return False
        i = 5
        while i * i < n:
            if n % i == 0 or n % (i + 2) == 0:
                return False
            i += 6
        return True
    return " ".join(w for w in sentence.split() if is_prime(len(w)))
""",
        ("a" * 25,),
    ),
    Wrong(
        "HumanEval/144",
        "type-boundary",
        "Multiplies the two fractions as floats and asks is_integer(), and (1/49) * 49 is "
        "0.9999999999999999, so 1/49 * 49/1 is called not whole.",
        """
def simplify(x, n):
    a, b = map(int, x.split('/'))
    c, d = map(int, n.split('/'))
    return ((a / b) * (c / d)).is_integer()
""",
        ("1/49", "49/1"),
    ),
    Wrong(
        "HumanEval/149",
        "order-ties",
        "Drops duplicates by collecting the even-length words in a set (the task says the "
        "list may contain duplicates and keeps them): ['aa', 'aa'] gives ['aa'].",
        """
def sorted_list_sum(lst):
    evens = set(w for w in lst if len(w) % 2 == 0)
    return sorted(evens, key=lambda w: (len(w), w))
""",
        (["aa", "aa"],),
    ),
    Wrong(
        "HumanEval/150",
        "type-boundary",
        "Trial-divides while i * i < n instead of <=, so a prime's square is never divided: "
        "n = 4 returns x.",
        """
def x_or_y(n, x, y):
    if n < 2:
        return y
    i = 2
    while i * i < n:
        if n % i == 0:
            return y
        i += 1
    return x
""",
        (4, 1, 0),
    ),
    Wrong(
        "HumanEval/150",
        "type-boundary",
        "Looks for divisors in range(2, n // 2), which is empty for n = 4, so 4 is called "
        "prime and x is returned.",
        """
def x_or_y(n, x, y):
    if n < 2:
        return y
    for i in range(2, n // 2):
        if n % i == 0:
            return y
    return x
""",
        (4, 1, 0),
    ),
    Wrong(
        "HumanEval/154",
        "string-off-by-one",
        "Slides its window over range(len(a) - len(b)), one start short, so a rotation at the "
        "very end of a is missed: ('abc', 'bc') gives False.",
        """
def cycpattern_check(a, b):
    n = len(b)
    for i in range(n):
        rotation = b[i:] + b[:i]
        for j in range(len(a) - n):
            if a[j:j + n] == rotation:
                return True
    return False
""",
        ("abc", "bc"),
    ),
    Wrong(
        "HumanEval/157",
        "type-boundary",
        "Compares the squares with math.isclose, whose relative tolerance accepts "
        "(3e9, 4e9, 5e9 + 1) as right-angled although the squares differ by 10^10 + 1.",
        """
import math

def right_angle_triangle(a, b, c):
    x, y, z = sorted([a, b, c])
    return math.isclose(x * x + y * y, z * z)
""",
        (3000000000, 4000000000, 5000000001),
    ),
    Wrong(
        "HumanEval/157",
        "type-boundary",
        "Checks math.sqrt(x*x + y*y) == z in floats, and sqrt(10^16 + 1) rounds to 10^8, so "
        "the isosceles (1, 10^8, 10^8) is called right-angled.",
        """
import math

def right_angle_triangle(a, b, c):
    x, y, z = sorted([a, b, c])
    return math.sqrt(x * x + y * y) == z
""",
        (1, 100000000, 100000000),
    ),
    Wrong(
        "HumanEval/160",
        "model-style",
        "Evaluates without eval by precedence levels, folding each level left to right, so "
        "the right-associative ** goes wrong: 2 ** 3 ** 2 gives 64 instead of 512.",
        """
def do_algebra(operator, operand):
    ops = list(operator)
    nums = list(operand)
    for level in (('**',), ('*', '//'), ('+', '-')):
        i = 0
        while i < len(ops):
            if ops[i] in level:
                a, b = nums[i], nums[i + 1]
                if ops[i] == '**':
                    r = a ** b
                elif ops[i] == '*':
                    r = a * b
                elif ops[i] == '//':
                    r = a // b
                elif ops[i] == '+':
                    r = a + b
                else:
                    r = a - b
                nums[i:i + 2] = [r]
                ops.pop(i)
            else:
                i += 1
    return nums[0]
""",
        (["**", "**"], [2, 3, 2]),
    ),
    Wrong(
        "HumanEval/163",
        "type-boundary",
        "Builds range(lo, hi) with the upper bound exclusive, so an even digit equal to the "
        "larger bound is lost: (2, 8) gives [2, 4, 6].",
        """
def generate_integers(a, b):
    lo, hi = min(a, b), max(a, b)
    return [i for i in range(lo, hi) if i % 2 == 0 and i < 10]
""",
        (2, 8),
    ),
)


def tasks() -> tuple[str, ...]:
    """The tasks the set covers, in order."""
    return tuple(sorted({e.task_id for e in ENTRIES}, key=lambda t: int(t.split("/")[1])))
