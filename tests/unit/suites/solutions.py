"""Hand-written HumanEval answers used by the tests (written for specverdict).

``PLAUSIBLY_WRONG``: bugs a model plausibly makes that HumanEval's own base tests miss, each
labelled with its kind; the amplified tests must catch them.

``ALTERNATIVE_RIGHT``: correct solutions written differently from the canonical ones, for 151
tasks (all but HumanEval/1, 6, 17, 19, 20, 31, 39, 50, 56, 61, 72, 83 and 132). They must pass
the amplified tests too: a failure means the amplifier left the task's domain (formats, ranges,
"assume ...") or the canonical solution is wrong beyond its own tests (how HumanEval/95, 97 and
124 were found).
"""

from __future__ import annotations

PLAUSIBLY_WRONG: dict[str, tuple[str, str]] = {
    "HumanEval/31": (
        "missing edge case: 2 is even but prime",
        """
def is_prime(n):
    if n < 2 or n % 2 == 0:
        return False
    for k in range(3, int(n ** 0.5) + 1, 2):
        if n % k == 0:
            return False
    return True
""",
    ),
    "HumanEval/59": (
        "off-by-one: the divisor n // 2 is never tried",
        """
def largest_prime_factor(n: int):
    best = 1
    for d in range(2, n // 2):
        if n % d == 0 and all(d % k for k in range(2, d)):
            best = d
    return best
""",
    ),
    "HumanEval/72": (
        "incomplete check: compares only the ends of the list",
        """
def will_it_fly(q, w):
    if sum(q) > w:
        return False
    return len(q) == 0 or q[0] == q[-1]
""",
    ),
    "HumanEval/20": (
        "off-by-one in a comparison: ties keep the last pair, not the first",
        """
from typing import List, Tuple


def find_closest_elements(numbers: List[float]) -> Tuple[float, float]:
    ordered = sorted(numbers)
    best = (ordered[0], ordered[1])
    for a, b in zip(ordered, ordered[1:]):
        if b - a <= best[1] - best[0]:
            best = (a, b)
    return best
""",
    ),
    "HumanEval/151": (
        "wrong type: a float such as 3.0 is counted as an odd integer",
        """
def double_the_difference(lst):
    return sum(x * x for x in lst if x > 0 and x % 2 == 1)
""",
    ),
}

ALTERNATIVE_RIGHT: dict[str, str] = {
    "HumanEval/0": """
def has_close_elements(numbers, threshold):
    s = sorted(numbers)
    return any(b - a < threshold for a, b in zip(s, s[1:]))
""",
    "HumanEval/2": """
import math
def truncate_number(number):
    return number - math.floor(number)
""",
    "HumanEval/3": """
from itertools import accumulate
def below_zero(operations):
    return any(x < 0 for x in accumulate(operations))
""",
    "HumanEval/4": """
def mean_absolute_deviation(numbers):
    m = sum(numbers) / len(numbers)
    return sum(abs(x - m) for x in numbers) / len(numbers)
""",
    "HumanEval/5": """
def intersperse(numbers, delimeter):
    out = []
    for i, x in enumerate(numbers):
        if i:
            out.append(delimeter)
        out.append(x)
    return out
""",
    "HumanEval/7": """
def filter_by_substring(strings, substring):
    return list(filter(lambda s: substring in s, strings))
""",
    "HumanEval/8": """
import math
def sum_product(numbers):
    return (sum(numbers), math.prod(numbers))
""",
    "HumanEval/9": """
def rolling_max(numbers):
    out, m = [], None
    for x in numbers:
        m = x if m is None else max(m, x)
        out.append(m)
    return out
""",
    "HumanEval/10": """
def make_palindrome(string: str) -> str:
    for i in range(len(string) + 1):
        tail = string[i:]
        if tail == tail[::-1]:
            return string + string[:i][::-1]
    return string
""",
    "HumanEval/11": """
def string_xor(a, b):
    return "".join("1" if x != y else "0" for x, y in zip(a, b))
""",
    "HumanEval/12": """
def longest(strings):
    best = None
    for s in strings:
        if best is None or len(s) > len(best):
            best = s
    return best
""",
    "HumanEval/13": """
import math
def greatest_common_divisor(a, b):
    return math.gcd(a, b)
""",
    "HumanEval/14": """
def all_prefixes(string):
    return [string[:i] for i in range(1, len(string) + 1)]
""",
    "HumanEval/15": """
def string_sequence(n):
    return " ".join(map(str, range(n + 1)))
""",
    "HumanEval/16": """
def count_distinct_characters(string):
    return len(set(string.casefold()))
""",
    "HumanEval/18": """
def how_many_times(string, substring):
    return sum(string.startswith(substring, i) for i in range(len(string))) if substring else 0
""",
    "HumanEval/21": """
def rescale_to_unit(numbers):
    lo, hi = min(numbers), max(numbers)
    return [(x - lo) / (hi - lo) for x in numbers]
""",
    "HumanEval/22": """
def filter_integers(values):
    return [v for v in values if type(v) is int]
""",
    "HumanEval/23": """
def strlen(string):
    n = 0
    for _ in string:
        n += 1
    return n
""",
    "HumanEval/24": """
def largest_divisor(n):
    return max(d for d in range(1, n) if n % d == 0)
""",
    "HumanEval/25": """
def factorize(n):
    out, d = [], 2
    while d * d <= n:
        while n % d == 0:
            out.append(d)
            n //= d
        d += 1
    if n > 1:
        out.append(n)
    return out
""",
    "HumanEval/26": """
from collections import Counter
def remove_duplicates(numbers):
    c = Counter(numbers)
    return [x for x in numbers if c[x] == 1]
""",
    # swaps only what is upper or lower case: a titlecase letter ("ǅ") is neither, and the
    # docstring flips only those two (rebuilding it from upper() for the rest is wrong, 054)
    "HumanEval/27": """
def flip_case(string):
    return "".join(
        c.lower() if c.isupper() else c.upper() if c.islower() else c for c in string
    )
""",
    "HumanEval/28": """
def concatenate(strings):
    out = ""
    for s in strings:
        out += s
    return out
""",
    "HumanEval/29": """
def filter_by_prefix(strings, prefix):
    return [s for s in strings if s[:len(prefix)] == prefix]
""",
    "HumanEval/30": """
def get_positive(l):
    return [x for x in l if x > 0]
""",
    "HumanEval/32": """
def find_zero(xs):
    def f(x):
        return sum(c * x ** i for i, c in enumerate(xs))
    lo, hi = -1.0, 1.0
    while f(lo) * f(hi) > 0:
        lo, hi = lo * 2, hi * 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if f(lo) * f(mid) <= 0:
            hi = mid
        else:
            lo = mid
    return (lo + hi) / 2
""",
    "HumanEval/33": """
def sort_third(l):
    out = list(l)
    out[::3] = sorted(l[::3])
    return out
""",
    "HumanEval/34": """
def unique(l):
    return sorted(set(l))
""",
    "HumanEval/35": """
def max_element(l):
    m = l[0]
    for x in l:
        if x > m:
            m = x
    return m
""",
    "HumanEval/36": """
def fizz_buzz(n):
    return sum(str(i).count("7") for i in range(n) if i % 11 == 0 or i % 13 == 0)
""",
    "HumanEval/37": """
def sort_even(l):
    out = list(l)
    out[::2] = sorted(l[::2])
    return out
""",
    "HumanEval/38": """
def decode_cyclic(s: str):
    return encode_cyclic(encode_cyclic(s))
""",
    "HumanEval/40": """
from itertools import combinations
def triples_sum_to_zero(l):
    return any(a + b + c == 0 for a, b, c in combinations(l, 3))
""",
    "HumanEval/41": """
def car_race_collision(n):
    return n * n
""",
    "HumanEval/42": """
def incr_list(l):
    return [x + 1 for x in l]
""",
    "HumanEval/43": """
def pairs_sum_to_zero(l):
    seen = set()
    for x in l:
        if -x in seen:
            return True
        seen.add(x)
    return False
""",
    "HumanEval/44": """
def change_base(x, base):
    if x == 0:
        return "0"
    digits = ""
    while x:
        digits = str(x % base) + digits
        x //= base
    return digits
""",
    "HumanEval/45": """
def triangle_area(a, h):
    return 0.5 * a * h
""",
    "HumanEval/46": """
def fib4(n):
    a = [0, 0, 2, 0]
    if n < 4:
        return a[n]
    for _ in range(n - 3):
        a = a[1:] + [sum(a)]
    return a[-1]
""",
    "HumanEval/47": """
import statistics
def median(l):
    return statistics.median(l)
""",
    "HumanEval/48": """
def is_palindrome(text):
    return all(text[i] == text[-1 - i] for i in range(len(text) // 2))
""",
    "HumanEval/49": """
def modp(n, p):
    return pow(2, n, p)
""",
    "HumanEval/51": """
def remove_vowels(text):
    return "".join(c for c in text if c.lower() not in "aeiou")
""",
    "HumanEval/52": """
def below_threshold(l, t):
    return max(l, default=t - 1) < t
""",
    "HumanEval/53": """
def add(x, y):
    return sum((x, y))
""",
    "HumanEval/54": """
def same_chars(s0, s1):
    return set(s0) == set(s1)
""",
    "HumanEval/55": """
def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a
""",
    "HumanEval/57": """
def monotonic(l):
    return all(a <= b for a, b in zip(l, l[1:])) or all(a >= b for a, b in zip(l, l[1:]))
""",
    "HumanEval/58": """
def common(l1, l2):
    return sorted(set(l1) & set(l2))
""",
    "HumanEval/59": """
def largest_prime_factor(n: int):
    factor, last = 2, 1
    while n > 1:
        if n % factor == 0:
            last = factor
            n //= factor
        else:
            factor += 1
    return last
""",
    "HumanEval/60": """
def sum_to_n(n):
    return n * (n + 1) // 2
""",
    "HumanEval/62": """
def derivative(xs):
    return [i * c for i, c in enumerate(xs)][1:]
""",
    "HumanEval/63": """
def fibfib(n):
    a, b, c = 0, 0, 1
    for _ in range(n):
        a, b, c = b, c, a + b + c
    return a
""",
    "HumanEval/64": """
def vowels_count(s):
    n = sum(ch in "aeiouAEIOU" for ch in s)
    return n + (1 if s[-1:] in ("y", "Y") else 0)
""",
    "HumanEval/65": """
def circular_shift(x, shift):
    s = str(x)
    if shift > len(s):
        return s[::-1]
    shift %= len(s)
    return s[len(s) - shift:] + s[:len(s) - shift]
""",
    "HumanEval/66": """
def digitSum(s):
    return sum(ord(ch) for ch in s if "A" <= ch <= "Z")
""",
    "HumanEval/67": """
import re


def fruit_distribution(s, n):
    return n - sum(int(x) for x in re.findall(r"\\d+", s))
""",
    "HumanEval/68": """
def pluck(arr):
    evens = [(v, i) for i, v in enumerate(arr) if v % 2 == 0]
    return list(min(evens)) if evens else []
""",
    "HumanEval/69": """
from collections import Counter
def search(lst):
    c = Counter(lst)
    ok = [x for x, n in c.items() if n >= x > 0]
    return max(ok) if ok else -1
""",
    "HumanEval/70": """
def strange_sort_list(lst):
    s = sorted(lst)
    out = []
    while s:
        out.append(s.pop(0))
        if s:
            out.append(s.pop())
    return out
""",
    "HumanEval/71": """
import math
def triangle_area(a, b, c):
    x, y, z = sorted((a, b, c))
    if x + y <= z:
        return -1
    s = (a + b + c) / 2
    return round(math.sqrt(s * (s - a) * (s - b) * (s - c)), 2)
""",
    "HumanEval/73": """
def smallest_change(arr):
    return sum(a != b for a, b in zip(arr, arr[::-1])) // 2
""",
    "HumanEval/74": """
def total_match(lst1, lst2):
    return lst1 if sum(map(len, lst1)) <= sum(map(len, lst2)) else lst2
""",
    "HumanEval/75": """
def is_multiply_prime(a):
    count, d = 0, 2
    while a > 1 and d <= a:
        while a % d == 0:
            a //= d
            count += 1
        d += 1
    return count == 3
""",
    "HumanEval/76": """
def is_simple_power(x, n):
    if x == 1:
        return True
    if n in (0, 1, -1):
        return False
    p = n
    while abs(p) < abs(x):
        p *= n
    return p == x
""",
    "HumanEval/77": """
def iscube(a):
    r = round(abs(a) ** (1 / 3))
    return any((r + d) ** 3 == abs(a) for d in (-1, 0, 1))
""",
    "HumanEval/78": """
def hex_key(num):
    return sum(ch in "2357BD" for ch in num)
""",
    "HumanEval/79": """
def decimal_to_binary(decimal):
    return f"db{decimal:b}db"
""",
    "HumanEval/80": """
def is_happy(s):
    return len(s) >= 3 and all(len({s[i], s[i + 1], s[i + 2]}) == 3 for i in range(len(s) - 2))
""",
    "HumanEval/81": """
def numerical_letter_grade(grades):
    table = [(3.7, "A"), (3.3, "A-"), (3.0, "B+"), (2.7, "B"), (2.3, "B-"), (2.0, "C+"),
             (1.7, "C"), (1.3, "C-"), (1.0, "D+"), (0.7, "D"), (0.0, "D-")]
    out = []
    for g in grades:
        if g == 4.0:
            out.append("A+")
            continue
        out.append(next((letter for bound, letter in table if g > bound), "E"))
    return out
""",
    "HumanEval/82": """
def prime_length(string):
    n = len(string)
    return n > 1 and all(n % d for d in range(2, n))
""",
    "HumanEval/84": """
def solve(N):
    return format(sum(map(int, str(N))), "b")
""",
    "HumanEval/85": """
def add(lst):
    return sum(x for x in lst[1::2] if x % 2 == 0)
""",
    "HumanEval/86": """
def anti_shuffle(s):
    return " ".join("".join(sorted(w)) for w in s.split(" "))
""",
    "HumanEval/87": """
def get_row(lst, x):
    out = []
    for i, row in enumerate(lst):
        cols = [j for j, v in enumerate(row) if v == x]
        out.extend((i, j) for j in sorted(cols, reverse=True))
    return out
""",
    "HumanEval/88": """
def sort_array(array):
    if not array:
        return []
    return sorted(array, reverse=(array[0] + array[-1]) % 2 == 0)
""",
    "HumanEval/89": """
def encrypt(s):
    return "".join(chr((ord(c) - 97 + 4) % 26 + 97) if c.islower() else c for c in s)
""",
    "HumanEval/90": """
def next_smallest(lst):
    s = sorted(set(lst))
    return s[1] if len(s) > 1 else None
""",
    "HumanEval/91": """
import re
def is_bored(S):
    return sum(1 for s in re.split(r"[.?!]", S) if s.strip().split(" ")[:1] == ["I"])
""",
    "HumanEval/92": """
def any_int(x, y, z):
    if not all(type(v) is int for v in (x, y, z)):
        return False
    return x + y == z or x + z == y or y + z == x
""",
    "HumanEval/93": """
def encode(message):
    out = []
    for c in message:
        c = c.swapcase()
        if c.lower() in "aeiou":
            c = chr(ord(c) + 2)
        out.append(c)
    return "".join(out)
""",
    "HumanEval/94": """
def skjkasdkd(lst):
    def prime(n):
        return n > 1 and all(n % d for d in range(2, int(n ** 0.5) + 1))
    ps = [x for x in lst if prime(x)]
    return sum(map(int, str(max(ps)))) if ps else 0
""",
    "HumanEval/95": """
def check_dict_case(dict):
    keys = list(dict)
    if not keys or not all(isinstance(k, str) for k in keys):
        return False
    return all(k.islower() for k in keys) or all(k.isupper() for k in keys)
""",
    "HumanEval/96": """
def count_up_to(n):
    return [p for p in range(2, n) if all(p % d for d in range(2, int(p ** 0.5) + 1))]
""",
    "HumanEval/97": """
def multiply(a, b):
    return (abs(a) % 10) * (abs(b) % 10)
""",
    "HumanEval/98": """
def count_upper(s):
    return sum(c in "AEIOU" for c in s[::2])
""",
    "HumanEval/99": """
from decimal import Decimal, ROUND_HALF_UP


def closest_integer(value):
    return int(Decimal(value).quantize(Decimal("1"), rounding=ROUND_HALF_UP))
""",
    "HumanEval/100": """
def make_a_pile(n):
    return list(range(n, 3 * n, 2))
""",
    "HumanEval/101": """
import re


def words_string(s):
    return [w for w in re.split(r"[,\\s]+", s) if w]
""",
    "HumanEval/102": """
def choose_num(x, y):
    if x > y:
        return -1
    top = y if y % 2 == 0 else y - 1
    return top if top >= x else -1
""",
    "HumanEval/103": """
def rounded_avg(n, m):
    if m < n:
        return -1
    return bin(round((n + m) / 2))
""",
    "HumanEval/104": """
def unique_digits(x):
    return sorted(v for v in x if all(int(d) % 2 for d in str(v)))
""",
    "HumanEval/105": """
def by_length(arr):
    names = ["One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine"]
    return [names[v - 1] for v in sorted((v for v in arr if 1 <= v <= 9), reverse=True)]
""",
    "HumanEval/106": """
import math
def f(n):
    return [math.factorial(i) if i % 2 == 0 else i * (i + 1) // 2 for i in range(1, n + 1)]
""",
    "HumanEval/107": """
def even_odd_palindrome(n):
    pals = [i for i in range(1, n + 1) if str(i) == str(i)[::-1]]
    even = sum(p % 2 == 0 for p in pals)
    return (even, len(pals) - even)
""",
    "HumanEval/108": """
def count_nums(arr):
    def s(n):
        d = [int(c) for c in str(abs(n))]
        if n < 0:
            d[0] = -d[0]
        return sum(d)
    return sum(s(n) > 0 for n in arr)
""",
    "HumanEval/109": """
def move_one_ball(arr):
    s = sorted(arr)
    return not arr or any(arr[i:] + arr[:i] == s for i in range(len(arr)))
""",
    "HumanEval/110": """
def exchange(lst1, lst2):
    odd1 = sum(x % 2 for x in lst1)
    even2 = sum(1 - x % 2 for x in lst2)
    return "YES" if even2 >= odd1 else "NO"
""",
    "HumanEval/111": """
from collections import Counter


def histogram(test):
    counts = Counter(test.split())
    if not counts:
        return {}
    top = max(counts.values())
    return {k: v for k, v in counts.items() if v == top}
""",
    "HumanEval/112": """
def reverse_delete(s, c):
    r = "".join(ch for ch in s if ch not in c)
    return (r, r == r[::-1])
""",
    "HumanEval/113": """
def odd_count(lst):
    out = []
    for s in lst:
        n = str(sum(int(d) % 2 for d in s))
        out.append(f"the number of odd elements {n}n the str{n}ng {n} of the {n}nput.")
    return out
""",
    "HumanEval/114": """
def minSubArraySum(nums):
    best = cur = nums[0]
    for x in nums[1:]:
        cur = min(x, cur + x)
        best = min(best, cur)
    return best
""",
    "HumanEval/115": """
import math
def max_fill(grid, capacity):
    return sum(math.ceil(sum(row) / capacity) for row in grid)
""",
    "HumanEval/116": """
def sort_array(arr):
    return sorted(arr, key=lambda x: (bin(x)[2:].count("1"), x))
""",
    "HumanEval/117": """
def select_words(s, n):
    return [w for w in s.split() if sum(c.lower() not in "aeiou" for c in w) == n]
""",
    "HumanEval/118": """
def get_closest_vowel(word):
    v = "aeiouAEIOU"
    for i in range(len(word) - 2, 0, -1):
        if word[i] in v and word[i - 1] not in v and word[i + 1] not in v:
            return word[i]
    return ""
""",
    "HumanEval/119": """
def match_parens(lst):
    def ok(s):
        depth = 0
        for ch in s:
            depth += 1 if ch == "(" else -1
            if depth < 0:
                return False
        return depth == 0
    a, b = lst
    return "Yes" if ok(a + b) or ok(b + a) else "No"
""",
    "HumanEval/120": """
def maximum(arr, k):
    return sorted(arr)[len(arr) - k:] if k else []
""",
    "HumanEval/121": """
def solution(lst):
    return sum(x for x in lst[::2] if x % 2 == 1)
""",
    "HumanEval/122": """
def add_elements(arr, k):
    return sum(x for x in arr[:k] if -100 < x < 100)
""",
    "HumanEval/123": """
def get_odd_collatz(n):
    odd = set()
    while True:
        if n % 2:
            odd.add(n)
        if n == 1:
            break
        n = n // 2 if n % 2 == 0 else 3 * n + 1
    return sorted(odd)
""",
    "HumanEval/124": """
import re


def valid_date(date):
    m = re.fullmatch(r"(\\d\\d)-(\\d\\d)-(\\d\\d\\d\\d)", date)
    if not m:
        return False
    month, day = int(m.group(1)), int(m.group(2))
    if not 1 <= month <= 12:
        return False
    limit = 29 if month == 2 else 30 if month in (4, 6, 9, 11) else 31
    return 1 <= day <= limit
""",
    "HumanEval/125": """
def split_words(txt):
    if " " in txt:
        return txt.split()
    if "," in txt:
        return txt.split(",")
    return sum(1 for c in txt if c.islower() and (ord(c) - ord("a")) % 2 == 1)
""",
    "HumanEval/126": """
from collections import Counter
def is_sorted(lst):
    if any(n > 2 for n in Counter(lst).values()):
        return False
    return lst == sorted(lst)
""",
    "HumanEval/127": """
def intersection(interval1, interval2):
    length = min(interval1[1], interval2[1]) - max(interval1[0], interval2[0])
    if length < 2:
        return "NO"
    return "YES" if all(length % d for d in range(2, int(length ** 0.5) + 1)) else "NO"
""",
    "HumanEval/128": """
def prod_signs(arr):
    if not arr:
        return None
    sign = 1
    for x in arr:
        sign *= (x > 0) - (x < 0)
    return sign * sum(abs(x) for x in arr)
""",
    "HumanEval/129": """
def minPath(grid, k):
    n = len(grid)
    r, c = next((i, j) for i in range(n) for j in range(n) if grid[i][j] == 1)
    near = [grid[i][j] for i, j in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
            if 0 <= i < n and 0 <= j < n]
    return [1 if i % 2 == 0 else min(near) for i in range(k)]
""",
    "HumanEval/130": """
def tri(n):
    if n == 0:
        return [1]
    seq = [1, 3]
    for i in range(2, n + 1):
        if i % 2 == 0:
            seq.append(i / 2 + 1)
        else:
            seq.append(seq[i - 1] + seq[i - 2] + (i + 3) / 2)
    return seq
""",
    "HumanEval/131": """
def digits(n):
    odd = [int(d) for d in str(n) if int(d) % 2]
    p = 1
    for d in odd:
        p *= d
    return p if odd else 0
""",
    "HumanEval/133": """
import math
def sum_squares(lst):
    return sum(math.ceil(x) ** 2 for x in lst)
""",
    "HumanEval/134": """
def check_if_last_char_is_a_letter(txt):
    return len(txt) > 0 and txt[-1].isalpha() and (len(txt) == 1 or txt[-2] == " ")
""",
    "HumanEval/135": """
def can_arrange(arr):
    return max((i for i in range(1, len(arr)) if arr[i] < arr[i - 1]), default=-1)
""",
    "HumanEval/136": """
def largest_smallest_integers(lst):
    neg = [x for x in lst if x < 0]
    pos = [x for x in lst if x > 0]
    return (max(neg) if neg else None, min(pos) if pos else None)
""",
    "HumanEval/137": """
def compare_one(a, b):
    def value(x):
        return float(x.replace(",", ".")) if isinstance(x, str) else x
    if value(a) == value(b):
        return None
    return a if value(a) > value(b) else b
""",
    "HumanEval/138": """
def is_equal_to_sum_even(n):
    return n >= 8 and n % 2 == 0
""",
    "HumanEval/139": """
import math
def special_factorial(n):
    out = 1
    for i in range(1, n + 1):
        out *= math.factorial(i)
    return out
""",
    "HumanEval/140": """
import re
def fix_spaces(text):
    text = re.sub(r" {3,}", "-", text)
    return text.replace(" ", "_")
""",
    "HumanEval/141": """
def file_name_check(file_name):
    if file_name.count(".") != 1:
        return "No"
    name, ext = file_name.split(".")
    if ext not in ("txt", "exe", "dll") or not name or not name[0].isalpha():
        return "No"
    if not all(ch.isascii() for ch in name[:1]):
        return "No"
    return "Yes" if sum(ch.isdigit() for ch in file_name) <= 3 else "No"
""",
    "HumanEval/142": """
def sum_squares(lst):
    total = 0
    for i, x in enumerate(lst):
        total += x ** 2 if i % 3 == 0 else x ** 3 if i % 4 == 0 else x
    return total
""",
    "HumanEval/143": """
def words_in_sentence(sentence):
    def prime(n):
        return n > 1 and all(n % d for d in range(2, n))
    return " ".join(w for w in sentence.split() if prime(len(w)))
""",
    "HumanEval/144": """
from fractions import Fraction


def simplify(x, n):
    return (Fraction(x) * Fraction(n)).denominator == 1
""",
    "HumanEval/145": """
def order_by_points(nums):
    def key(n):
        d = [int(c) for c in str(abs(n))]
        if n < 0:
            d[0] = -d[0]
        return sum(d)
    return sorted(nums, key=key)
""",
    "HumanEval/146": """
def specialFilter(nums):
    return sum(1 for n in nums if n > 10 and str(n)[0] in "13579" and str(n)[-1] in "13579")
""",
    "HumanEval/147": """
def get_max_triples(n):
    r = [0, 0, 0]
    for i in range(1, n + 1):
        r[(i * i - i + 1) % 3] += 1
    return r[0] * (r[0] - 1) * (r[0] - 2) // 6 + r[1] * (r[1] - 1) * (r[1] - 2) // 6 + r[2] * (r[2] - 1) * (r[2] - 2) // 6 + r[0] * r[1] * r[2]
""",
    "HumanEval/148": """
def bf(planet1, planet2):
    p = ["Mercury", "Venus", "Earth", "Mars", "Jupiter", "Saturn", "Uranus", "Neptune"]
    if planet1 not in p or planet2 not in p or planet1 == planet2:
        return ()
    i, j = sorted((p.index(planet1), p.index(planet2)))
    return tuple(p[i + 1:j])
""",
    "HumanEval/149": """
def sorted_list_sum(lst):
    return sorted((w for w in lst if len(w) % 2 == 0), key=lambda w: (len(w), w))
""",
    "HumanEval/150": """
def x_or_y(n, x, y):
    return x if n > 1 and all(n % d for d in range(2, n)) else y
""",
    "HumanEval/151": """
def double_the_difference(lst):
    return sum(x * x for x in lst if type(x) is int and x > 0 and x % 2 == 1)
""",
    "HumanEval/152": """
def compare(game, guess):
    return [abs(a - b) for a, b in zip(game, guess)]
""",
    # counts upper- and lower-case letters, as the docstring says: a cased symbol ("Ⓐ") is no
    # letter (counting every isupper() character is wrong, 054)
    "HumanEval/153": """
def Strongest_Extension(class_name, extensions):
    def strength(e):
        letters = [c for c in e if c.isalpha()]
        return sum(c.isupper() for c in letters) - sum(c.islower() for c in letters)
    best = max(extensions, key=strength)
    return f"{class_name}.{best}"
""",
    "HumanEval/154": """
def cycpattern_check(a, b):
    return any(b[i:] + b[:i] in a for i in range(len(b) or 1))
""",
    "HumanEval/155": """
def even_odd_count(num):
    ds = str(abs(num))
    even = sum(int(d) % 2 == 0 for d in ds)
    return (even, len(ds) - even)
""",
    "HumanEval/156": """
def int_to_mini_roman(number):
    vals = [(1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"),
            (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")]
    out = ""
    for v, s in vals:
        while number >= v:
            out += s
            number -= v
    return out
""",
    "HumanEval/157": """
def right_angle_triangle(a, b, c):
    x, y, z = sorted((a, b, c))
    return x * x + y * y == z * z
""",
    "HumanEval/158": """
def find_max(words):
    return sorted(words, key=lambda w: (-len(set(w)), w))[0]
""",
    "HumanEval/159": """
def eat(number, need, remaining):
    took = min(need, remaining)
    return [number + took, remaining - took]
""",
    "HumanEval/160": """
def do_algebra(operator, operand):
    expr = str(operand[0])
    for op, v in zip(operator, operand[1:]):
        expr += f" {op} {v}"
    return eval(expr)
""",
    "HumanEval/161": """
def solve(s):
    if not any(c.isalpha() for c in s):
        return s[::-1]
    return s.swapcase()
""",
    "HumanEval/162": """
import hashlib
def string_to_md5(text):
    return hashlib.md5(text.encode("ascii")).hexdigest() if text else None
""",
    "HumanEval/163": """
def generate_integers(a, b):
    lo, hi = sorted((a, b))
    return [d for d in (2, 4, 6, 8) if lo <= d <= hi]
""",
}
