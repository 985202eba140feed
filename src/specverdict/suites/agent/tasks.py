"""The coding-agent tasks of ``agent-tasks@1``: small workspaces written for specverdict.

Each task is a workspace (Python modules), read-only tests, an instruction, a gold edit (the
files as they should end) and a reference trajectory: the tool calls a careful agent makes
(look, edit, run the tests). Most tasks fix a planted bug; some add a missing function; a few do
not name the file to change, so that the agent has to list or search the workspace first.
"""

from __future__ import annotations

from dataclasses import dataclass

from specverdict.suites.agent.loop import Step


@dataclass(frozen=True, slots=True)
class AgentTask:
    id: str
    instruction: str
    files: dict[str, str]
    tests: dict[str, str]
    gold: dict[str, str]
    trajectory: tuple[Step, ...]


def _fix(id: str, instruction: str, path: str, before: str, after: str, tests: str) -> AgentTask:
    """A task whose instruction names the file: read it, write it, run the tests."""
    return AgentTask(
        id,
        instruction,
        {path: before},
        {f"tests/test_{id.replace('-', '_')}.py": tests},
        {path: after},
        (Step("read_file", path), Step("write_file", path), Step("run_tests")),
    )


def _find(
    id: str, instruction: str, files: dict[str, str], path: str, after: str, tests: str, first: Step
) -> AgentTask:
    """A task whose instruction does not name the file: find it first (``first``)."""
    return AgentTask(
        id,
        instruction,
        files,
        {f"tests/test_{id.replace('-', '_')}.py": tests},
        {path: after},
        (first, Step("read_file", path), Step("write_file", path), Step("run_tests")),
    )


TASKS: tuple[AgentTask, ...] = (
    _fix(
        "sum-to",
        "The tests fail: sum_to(n) in mathx.py must return 1 + 2 + ... + n. Fix it.",
        "mathx.py",
        "def sum_to(n):\n    total = 0\n    for i in range(n):\n        total += i\n    return total\n",
        "def sum_to(n):\n    total = 0\n    for i in range(n + 1):\n        total += i\n    return total\n",
        "from mathx import sum_to\n\n\ndef test_small():\n    assert sum_to(3) == 6\n\n\n"
        "def test_zero():\n    assert sum_to(0) == 0\n",
    ),
    _fix(
        "is-even",
        "is_even in parity.py gives the wrong answer. Fix it so that the tests pass.",
        "parity.py",
        "def is_even(n):\n    return n % 2 == 1\n",
        "def is_even(n):\n    return n % 2 == 0\n",
        "from parity import is_even\n\n\ndef test_even():\n    assert is_even(4)\n\n\n"
        "def test_odd():\n    assert not is_even(7)\n",
    ),
    _fix(
        "clamp",
        "clamp(value, low, high) in bounds.py must keep value within [low, high]. Fix the bug.",
        "bounds.py",
        "def clamp(value, low, high):\n    return max(high, min(low, value))\n",
        "def clamp(value, low, high):\n    return max(low, min(high, value))\n",
        "from bounds import clamp\n\n\ndef test_inside():\n    assert clamp(5, 0, 10) == 5\n\n\n"
        "def test_below():\n    assert clamp(-3, 0, 10) == 0\n\n\n"
        "def test_above():\n    assert clamp(42, 0, 10) == 10\n",
    ),
    _fix(
        "word-count",
        "count_words in text.py must count words separated by any whitespace. Fix it.",
        "text.py",
        "def count_words(s):\n    return len(s.split(' '))\n",
        "def count_words(s):\n    return len(s.split())\n",
        "from text import count_words\n\n\ndef test_spaces():\n    assert count_words('a  b c') == 3\n\n\n"
        "def test_newlines():\n    assert count_words('one\\ntwo\\tthree') == 3\n\n\n"
        "def test_empty():\n    assert count_words('') == 0\n",
    ),
    _fix(
        "fizzbuzz",
        "fizzbuzz(n) in game.py returns the wrong word for multiples of 15. Fix it.",
        "game.py",
        "def fizzbuzz(n):\n    if n % 3 == 0:\n        return 'Fizz'\n    if n % 5 == 0:\n"
        "        return 'Buzz'\n    if n % 15 == 0:\n        return 'FizzBuzz'\n    return str(n)\n",
        "def fizzbuzz(n):\n    if n % 15 == 0:\n        return 'FizzBuzz'\n    if n % 3 == 0:\n"
        "        return 'Fizz'\n    if n % 5 == 0:\n        return 'Buzz'\n    return str(n)\n",
        "from game import fizzbuzz\n\n\ndef test_words():\n"
        "    assert [fizzbuzz(i) for i in (3, 5, 15, 7)] == ['Fizz', 'Buzz', 'FizzBuzz', '7']\n",
    ),
    _fix(
        "reverse-words",
        "reverse_words in words.py must reverse the order of the words, not the letters.",
        "words.py",
        "def reverse_words(s):\n    return s[::-1]\n",
        "def reverse_words(s):\n    return ' '.join(reversed(s.split()))\n",
        "from words import reverse_words\n\n\ndef test_three():\n"
        "    assert reverse_words('one two three') == 'three two one'\n\n\n"
        "def test_one():\n    assert reverse_words('solo') == 'solo'\n",
    ),
    _fix(
        "factorial",
        "factorial(0) in fact.py fails. Make factorial correct for every n >= 0.",
        "fact.py",
        "def factorial(n):\n    if n == 1:\n        return 1\n    return n * factorial(n - 1)\n",
        "def factorial(n):\n    if n <= 1:\n        return 1\n    return n * factorial(n - 1)\n",
        "from fact import factorial\n\n\ndef test_zero():\n    assert factorial(0) == 1\n\n\n"
        "def test_five():\n    assert factorial(5) == 120\n",
    ),
    _fix(
        "largest",
        "largest(items) in stats.py must raise ValueError for an empty list. Fix it.",
        "stats.py",
        "def largest(items):\n    best = None\n    for x in items:\n        if best is None or x > best:\n"
        "            best = x\n    return best\n",
        "def largest(items):\n    if not items:\n        raise ValueError('empty')\n    best = items[0]\n"
        "    for x in items:\n        if x > best:\n            best = x\n    return best\n",
        "from stats import largest\n\n\ndef test_max():\n    assert largest([3, 9, 2]) == 9\n\n\n"
        "def test_empty():\n    try:\n        largest([])\n    except ValueError:\n        return\n"
        "    raise AssertionError('no ValueError')\n",
    ),
    _fix(
        "celsius",
        "to_fahrenheit in units.py converts Celsius wrongly. Fix the formula.",
        "units.py",
        "def to_fahrenheit(c):\n    return c * 5 / 9 + 32\n",
        "def to_fahrenheit(c):\n    return c * 9 / 5 + 32\n",
        "from units import to_fahrenheit\n\n\ndef test_boiling():\n    assert to_fahrenheit(100) == 212\n\n\n"
        "def test_freezing():\n    assert to_fahrenheit(0) == 32\n",
    ),
    _fix(
        "palindrome",
        "is_palindrome in pal.py must ignore case and spaces. Fix it.",
        "pal.py",
        "def is_palindrome(s):\n    return s == s[::-1]\n",
        "def is_palindrome(s):\n    t = ''.join(s.split()).lower()\n    return t == t[::-1]\n",
        "from pal import is_palindrome\n\n\ndef test_mixed():\n"
        "    assert is_palindrome('Never odd or even')\n\n\n"
        "def test_not():\n    assert not is_palindrome('python')\n",
    ),
    _fix(
        "dedupe",
        "dedupe(items) in seq.py must drop repeated items while keeping the first order.",
        "seq.py",
        "def dedupe(items):\n    return list(set(items))\n",
        "def dedupe(items):\n    seen = set()\n    out = []\n    for x in items:\n        if x not in seen:\n"
        "            seen.add(x)\n            out.append(x)\n    return out\n",
        "from seq import dedupe\n\n\ndef test_order():\n    assert dedupe([3, 1, 3, 2, 1]) == [3, 1, 2]\n",
    ),
    _fix(
        "median",
        "median(values) in center.py is not written yet. Implement it (the mean of the two middle "
        "values for an even count).",
        "center.py",
        "def median(values):\n    raise NotImplementedError\n",
        "def median(values):\n    v = sorted(values)\n    n = len(v)\n    if n % 2:\n        return v[n // 2]\n"
        "    return (v[n // 2 - 1] + v[n // 2]) / 2\n",
        "from center import median\n\n\ndef test_odd():\n    assert median([5, 1, 3]) == 3\n\n\n"
        "def test_even():\n    assert median([4, 1, 3, 2]) == 2.5\n",
    ),
    _fix(
        "chunk",
        "Implement chunk(items, size) in batching.py: consecutive lists of at most size items.",
        "batching.py",
        "def chunk(items, size):\n    pass\n",
        "def chunk(items, size):\n    return [items[i : i + size] for i in range(0, len(items), size)]\n",
        "from batching import chunk\n\n\ndef test_even():\n    assert chunk([1, 2, 3, 4], 2) == [[1, 2], [3, 4]]\n\n\n"
        "def test_rest():\n    assert chunk([1, 2, 3], 2) == [[1, 2], [3]]\n",
    ),
    _fix(
        "binary-search",
        "find(items, target) in bsearch.py misses the last element. Fix the binary search.",
        "bsearch.py",
        "def find(items, target):\n    lo, hi = 0, len(items) - 1\n    while lo < hi:\n"
        "        mid = (lo + hi) // 2\n        if items[mid] == target:\n            return mid\n"
        "        if items[mid] < target:\n            lo = mid + 1\n        else:\n            hi = mid - 1\n"
        "    return -1\n",
        "def find(items, target):\n    lo, hi = 0, len(items) - 1\n    while lo <= hi:\n"
        "        mid = (lo + hi) // 2\n        if items[mid] == target:\n            return mid\n"
        "        if items[mid] < target:\n            lo = mid + 1\n        else:\n            hi = mid - 1\n"
        "    return -1\n",
        "from bsearch import find\n\n\ndef test_last():\n    assert find([1, 3, 5, 7], 7) == 3\n\n\n"
        "def test_missing():\n    assert find([1, 3, 5], 4) == -1\n",
    ),
    _fix(
        "vowels",
        "count_vowels in letters.py undercounts. Fix it (vowels are a, e, i, o, u, any case).",
        "letters.py",
        "def count_vowels(s):\n    return sum(ch in 'aeio' for ch in s)\n",
        "def count_vowels(s):\n    return sum(ch in 'aeiou' for ch in s.lower())\n",
        "from letters import count_vowels\n\n\ndef test_all():\n    assert count_vowels('Umbrella OU') == 5\n",
    ),
    _fix(
        "leap-year",
        "is_leap in calendar_utils.py is wrong for century years. Fix it.",
        "calendar_utils.py",
        "def is_leap(year):\n    return year % 4 == 0\n",
        "def is_leap(year):\n    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)\n",
        "from calendar_utils import is_leap\n\n\ndef test_century():\n    assert not is_leap(1900)\n\n\n"
        "def test_400():\n    assert is_leap(2000)\n\n\ndef test_plain():\n    assert is_leap(2024)\n",
    ),
    _fix(
        "roman",
        "to_roman in roman.py does not handle subtractive forms such as IV and XC. Fix it.",
        "roman.py",
        "PAIRS = [(1000, 'M'), (500, 'D'), (100, 'C'), (50, 'L'), (10, 'X'), (5, 'V'), (1, 'I')]\n\n\n"
        "def to_roman(n):\n    out = ''\n    for value, numeral in PAIRS:\n        while n >= value:\n"
        "            out += numeral\n            n -= value\n    return out\n",
        "PAIRS = [(1000, 'M'), (900, 'CM'), (500, 'D'), (400, 'CD'), (100, 'C'), (90, 'XC'),\n"
        "         (50, 'L'), (40, 'XL'), (10, 'X'), (9, 'IX'), (5, 'V'), (4, 'IV'), (1, 'I')]\n\n\n"
        "def to_roman(n):\n    out = ''\n    for value, numeral in PAIRS:\n        while n >= value:\n"
        "            out += numeral\n            n -= value\n    return out\n",
        "from roman import to_roman\n\n\ndef test_values():\n"
        "    assert [to_roman(n) for n in (4, 9, 14, 90, 1994)] == "
        "['IV', 'IX', 'XIV', 'XC', 'MCMXCIV']\n",
    ),
    _fix(
        "slugify",
        "The tests import slugify from slug.py, but the module names the function make_slug. "
        "Provide slugify (lower case, words joined by '-').",
        "slug.py",
        "def make_slug(title):\n    return '-'.join(title.lower().split())\n",
        "def make_slug(title):\n    return '-'.join(title.lower().split())\n\n\nslugify = make_slug\n",
        "from slug import slugify\n\n\ndef test_slug():\n    assert slugify('Hello Big World') == 'hello-big-world'\n",
    ),
    _find(
        "rectangle-area",
        "The area of a rectangle comes out wrong somewhere in the geometry package. Find the bug "
        "and fix it.",
        {
            "geometry/__init__.py": "",
            "geometry/circles.py": "import math\n\n\ndef circle_area(r):\n    return math.pi * r * r\n",
            "geometry/shapes.py": "def rectangle_area(w, h):\n    return 2 * (w + h)\n",
        },
        "geometry/shapes.py",
        "def rectangle_area(w, h):\n    return w * h\n",
        "from geometry.shapes import rectangle_area\n\n\ndef test_area():\n"
        "    assert rectangle_area(3, 4) == 12\n",
        Step("list_dir", "geometry"),
    ),
    _find(
        "tax-rate",
        "Prices come out with the wrong tax: the tax rate must be 20%. Find where the rate is "
        "defined and fix it.",
        {
            "shop/__init__.py": "",
            "shop/config.py": "CURRENCY = 'EUR'\nTAX_RATE = 0.02\n",
            "shop/prices.py": "from shop.config import TAX_RATE\n\n\ndef with_tax(price):\n"
            "    return round(price * (1 + TAX_RATE), 2)\n",
        },
        "shop/config.py",
        "CURRENCY = 'EUR'\nTAX_RATE = 0.2\n",
        "from shop.prices import with_tax\n\n\ndef test_tax():\n    assert with_tax(10.0) == 12.0\n",
        Step("search", None),
    ),
    _find(
        "broken-import",
        "Importing the report package fails. Find out why and fix it.",
        {
            "report/__init__.py": "",
            "report/format.py": "from report.numbers import percent\n\n\ndef line(label, part, whole):\n"
            "    return f'{label}: {percent(part, whole)}'\n",
            "report/numbers.py": "def percentage(part, whole):\n    return f'{100 * part / whole:.1f}%'\n",
        },
        "report/numbers.py",
        "def percent(part, whole):\n    return f'{100 * part / whole:.1f}%'\n",
        "from report.format import line\n\n\ndef test_line():\n    assert line('done', 1, 4) == 'done: 25.0%'\n",
        Step("run_tests"),
    ),
    _find(
        "merge-intervals",
        "merge_intervals loses intervals that only touch each other. Find it in the workspace and "
        "fix it.",
        {
            "intervals.py": "def merge_intervals(pairs):\n    out = []\n"
            "    for start, end in sorted(pairs):\n        if out and start < out[-1][1]:\n"
            "            out[-1][1] = max(out[-1][1], end)\n        else:\n"
            "            out.append([start, end])\n    return [tuple(p) for p in out]\n",
            "README.txt": "Interval helpers.\n",
        },
        "intervals.py",
        "def merge_intervals(pairs):\n    out = []\n"
        "    for start, end in sorted(pairs):\n        if out and start <= out[-1][1]:\n"
        "            out[-1][1] = max(out[-1][1], end)\n        else:\n"
        "            out.append([start, end])\n    return [tuple(p) for p in out]\n",
        "from intervals import merge_intervals\n\n\ndef test_touching():\n"
        "    assert merge_intervals([(1, 2), (2, 5), (7, 8)]) == [(1, 5), (7, 8)]\n\n\n"
        "def test_overlap():\n    assert merge_intervals([(3, 6), (1, 4)]) == [(1, 6)]\n",
        Step("search", None),
    ),
)
