"""The tasks of ``testgen@1``: functions, their specs, hand-written mutants and gold tests.

Written for specverdict (Apache-2.0). Each task is a small standard-library function (the
reference implementation), a short spec, three to five mutants (each one textual change of the
reference that changes its behaviour on some input the spec covers) and a gold test module
that passes on the reference and kills every mutant (the suite's tests check both). Changing
a task changes what the suite measures: bump ``TestGen.version`` when this file changes.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Mutant:
    """One textual change of the reference: ``old`` occurs exactly once and becomes ``new``."""

    name: str
    old: str
    new: str


@dataclass(frozen=True, slots=True)
class TestgenTask:
    """A function to write tests for. ``module`` is the module the tests import it from."""

    __test__ = False  # not a pytest test class

    task_id: str
    module: str
    entry_point: str
    spec: str
    reference: str
    mutants: tuple[Mutant, ...]
    gold: str

    def mutant_source(self, mutant: Mutant) -> str:
        """The mutant's module source; a ValueError when ``old`` is not there exactly once."""
        if self.reference.count(mutant.old) != 1:
            raise ValueError(f"{self.task_id}/{mutant.name}: the change does not apply once")
        return self.reference.replace(mutant.old, mutant.new)


TASKS: tuple[TestgenTask, ...] = (
    TestgenTask(
        task_id="testgen/clamp",
        module="ranges",
        entry_point="clamp",
        spec="Return value limited to the closed range [low, high]. "
        "Raise ValueError when low > high.",
        reference=r"""def clamp(value, low, high):
    if low > high:
        raise ValueError("low must not exceed high")
    if value < low:
        return low
    if value > high:
        return high
    return value
""",
        mutants=(
            Mutant("equal-bounds-raise", "if low > high:", "if low >= high:"),
            Mutant("below-returns-high", "return low\n", "return high\n"),
            Mutant("above-unclamped", "return high\n    return value", "return value"),
            Mutant("no-range-check", 'raise ValueError("low must not exceed high")', "pass"),
        ),
        gold=r"""from ranges import clamp


def test_inside():
    assert clamp(5, 1, 10) == 5


def test_below_and_above():
    assert clamp(-3, 0, 10) == 0
    assert clamp(42, 0, 10) == 10


def test_equal_bounds():
    assert clamp(7, 3, 3) == 3


def test_bad_range():
    try:
        clamp(1, 5, 2)
    except ValueError:
        return
    raise AssertionError("expected ValueError")
""",
    ),
    TestgenTask(
        task_id="testgen/is_leap_year",
        module="calendar_rules",
        entry_point="is_leap_year",
        spec="Whether year is a Gregorian leap year: divisible by 4, except years divisible "
        "by 100, which are leap years only when divisible by 400.",
        reference=r"""def is_leap_year(year):
    if year % 400 == 0:
        return True
    if year % 100 == 0:
        return False
    return year % 4 == 0
""",
        mutants=(
            Mutant("400-not-leap", "return True", "return False"),
            Mutant("centuries-leap", "return False", "return True"),
            Mutant("negated-4", "year % 4 == 0", "year % 4 != 0"),
            Mutant("wrong-constant", "% 400", "% 300"),
        ),
        gold=r"""from calendar_rules import is_leap_year


def test_ordinary_years():
    assert is_leap_year(2024)
    assert not is_leap_year(2023)


def test_centuries():
    assert not is_leap_year(1900)
    assert not is_leap_year(2100)
    assert is_leap_year(2000)
    assert is_leap_year(1600)
""",
    ),
    TestgenTask(
        task_id="testgen/word_frequencies",
        module="text_stats",
        entry_point="word_frequencies",
        spec="Map each word of text (split on any whitespace, lower-cased) to how many times "
        "it occurs.",
        reference=r"""def word_frequencies(text):
    counts = {}
    for word in text.split():
        key = word.lower()
        counts[key] = counts.get(key, 0) + 1
    return counts
""",
        mutants=(
            Mutant("case-kept", "word.lower()", "word"),
            Mutant("no-count", "counts.get(key, 0) + 1", "1"),
            Mutant("space-split", "text.split()", "text.split(' ')"),
            Mutant("off-by-one", "counts.get(key, 0) + 1", "counts.get(key, 1) + 1"),
        ),
        gold=r"""from text_stats import word_frequencies


def test_counts_and_case():
    assert word_frequencies("The cat the\nDOG  cat") == {"the": 2, "cat": 2, "dog": 1}


def test_single_and_empty():
    assert word_frequencies("hello") == {"hello": 1}
    assert word_frequencies("") == {}
""",
    ),
    TestgenTask(
        task_id="testgen/chunks",
        module="listing",
        entry_point="chunks",
        spec="Split the list items into consecutive lists of length size; the last one may be "
        "shorter. Raise ValueError when size < 1.",
        reference=r"""def chunks(items, size):
    if size < 1:
        raise ValueError("size must be positive")
    return [items[i : i + size] for i in range(0, len(items), size)]
""",
        mutants=(
            Mutant("short-chunks", "items[i : i + size]", "items[i : i + size - 1]"),
            Mutant("drops-tail", "range(0, len(items), size)", "range(0, len(items) - 1, size)"),
            Mutant("skips-first", "range(0, len(items), size)", "range(1, len(items), size)"),
            Mutant("zero-size-empty", 'raise ValueError("size must be positive")', "return []"),
            Mutant("negative-size", "size < 1", "size < -1"),
        ),
        gold=r"""from listing import chunks


def test_even_and_uneven():
    assert chunks([1, 2, 3, 4], 2) == [[1, 2], [3, 4]]
    assert chunks([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]


def test_small_inputs():
    assert chunks([], 3) == []
    assert chunks([1], 5) == [[1]]


def test_bad_sizes():
    for size in (0, -1):
        try:
            chunks([1, 2], size)
        except ValueError:
            continue
        raise AssertionError(f"size {size} accepted")
""",
    ),
    TestgenTask(
        task_id="testgen/run_lengths",
        module="encoding",
        entry_point="run_lengths",
        spec="Run-length encode a string as a list of (character, run length) tuples, in order.",
        reference=r"""def run_lengths(text):
    runs = []
    for ch in text:
        if runs and runs[-1][0] == ch:
            runs[-1] = (ch, runs[-1][1] + 1)
        else:
            runs.append((ch, 1))
    return runs
""",
        mutants=(
            Mutant("double-step", "runs[-1][1] + 1", "runs[-1][1] + 2"),
            Mutant("zero-start", "runs.append((ch, 1))", "runs.append((ch, 0))"),
            Mutant("first-run", "runs[-1][0] == ch", "runs[0][0] == ch"),
            Mutant(
                "append-not-extend",
                "runs[-1] = (ch, runs[-1][1] + 1)",
                "runs.append((ch, runs[-1][1] + 1))",
            ),
        ),
        gold=r"""from encoding import run_lengths


def test_runs():
    assert run_lengths("aaabcc") == [("a", 3), ("b", 1), ("c", 2)]


def test_alternating_and_empty():
    assert run_lengths("aba") == [("a", 1), ("b", 1), ("a", 1)]
    assert run_lengths("") == []
""",
    ),
    TestgenTask(
        task_id="testgen/find_index",
        module="searching",
        entry_point="find_index",
        spec="Return the index of target in the ascending list items using binary search, or "
        "-1 when it is absent.",
        reference=r"""def find_index(items, target):
    low, high = 0, len(items) - 1
    while low <= high:
        mid = (low + high) // 2
        if items[mid] == target:
            return mid
        if items[mid] < target:
            low = mid + 1
        else:
            high = mid - 1
    return -1
""",
        mutants=(
            Mutant("strict-loop", "while low <= high", "while low < high"),
            Mutant("wrong-direction", "items[mid] < target", "items[mid] > target"),
            Mutant("none-when-absent", "return -1", "return None"),
            Mutant("misses-last", "len(items) - 1", "len(items) - 2"),
        ),
        gold=r"""from searching import find_index


def test_found_everywhere():
    items = [1, 3, 5, 7, 9, 11]
    for i, value in enumerate(items):
        assert find_index(items, value) == i


def test_single_and_absent():
    assert find_index([4], 4) == 0
    assert find_index([1, 3, 5], 4) == -1
    assert find_index([], 1) == -1
""",
    ),
    TestgenTask(
        task_id="testgen/slugify",
        module="urls",
        entry_point="slugify",
        spec="Lower-case title, keep runs of letters and digits as words, and join the words "
        "with single hyphens.",
        reference=r"""def slugify(title):
    words = []
    current = ""
    for ch in title.lower():
        if ch.isalnum():
            current += ch
        elif current:
            words.append(current)
            current = ""
    if current:
        words.append(current)
    return "-".join(words)
""",
        mutants=(
            Mutant("case-kept", "title.lower()", "title"),
            Mutant("drops-last-word", "    if current:\n        words.append(current)\n", ""),
            Mutant("underscores", '"-".join(words)', '"_".join(words)'),
            Mutant("drops-digits", "ch.isalnum()", "ch.isalpha()"),
        ),
        gold=r"""from urls import slugify


def test_basic():
    assert slugify("Hello, World!") == "hello-world"


def test_digits_and_spaces():
    assert slugify("  Python 3.12 rocks ") == "python-3-12-rocks"
    assert slugify("Already Slugged") == "already-slugged"
    assert slugify("") == ""
""",
    ),
    TestgenTask(
        task_id="testgen/to_roman",
        module="numerals",
        entry_point="to_roman",
        spec="Return the Roman numeral of an integer from 1 to 3999 (subtractive forms such as "
        "IV and CM); raise ValueError outside that range.",
        reference=r"""def to_roman(number):
    if not 1 <= number <= 3999:
        raise ValueError("out of range")
    values = [
        (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
        (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
    ]
    parts = []
    for value, letters in values:
        while number >= value:
            parts.append(letters)
            number -= value
    return "".join(parts)
""",
        mutants=(
            Mutant("no-iv", '(4, "IV"), ', ""),
            Mutant("bad-cm", '(900, "CM")', '(900, "DCD")'),
            Mutant("wide-range", "number <= 3999", "number <= 4999"),
            Mutant("strict-compare", "while number >= value", "while number > value"),
        ),
        gold=r"""from numerals import to_roman


def test_small():
    assert [to_roman(n) for n in (1, 4, 9, 14, 40, 90, 400)] == [
        "I", "IV", "IX", "XIV", "XL", "XC", "CD"
    ]


def test_large():
    assert to_roman(1994) == "MCMXCIV"
    assert to_roman(3999) == "MMMCMXCIX"


def test_out_of_range():
    for n in (0, 4000):
        try:
            to_roman(n)
        except ValueError:
            continue
        raise AssertionError(n)
""",
    ),
    TestgenTask(
        task_id="testgen/merge_intervals",
        module="intervals",
        entry_point="merge_intervals",
        spec="Merge overlapping or touching closed intervals given as (start, end) tuples; "
        "return the merged intervals as tuples sorted by start.",
        reference=r"""def merge_intervals(intervals):
    merged = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
""",
        mutants=(
            Mutant("touching-kept", "start <= merged[-1][1]", "start < merged[-1][1]"),
            Mutant("contained-shrinks", "max(merged[-1][1], end)", "end"),
            Mutant("unsorted", "sorted(intervals)", "intervals"),
            Mutant("start-moves", "(merged[-1][0], max", "(start, max"),
        ),
        gold=r"""from intervals import merge_intervals


def test_overlap_and_touch():
    assert merge_intervals([(1, 3), (2, 5), (5, 7), (9, 10)]) == [(1, 7), (9, 10)]


def test_contained_and_unsorted():
    assert merge_intervals([(4, 6), (1, 10), (2, 3)]) == [(1, 10)]
    assert merge_intervals([(5, 6), (1, 2)]) == [(1, 2), (5, 6)]
    assert merge_intervals([]) == []
""",
    ),
    TestgenTask(
        task_id="testgen/caesar",
        module="ciphers",
        entry_point="caesar",
        spec="Shift each ASCII letter of text by shift places in the alphabet, wrapping around "
        "and keeping its case; other characters are unchanged. shift may be negative or large.",
        reference=r"""def caesar(text, shift):
    out = []
    for ch in text:
        if "a" <= ch <= "z":
            out.append(chr((ord(ch) - ord("a") + shift) % 26 + ord("a")))
        elif "A" <= ch <= "Z":
            out.append(chr((ord(ch) - ord("A") + shift) % 26 + ord("A")))
        else:
            out.append(ch)
    return "".join(out)
""",
        mutants=(
            Mutant("mod-25", '% 26 + ord("a")', '% 25 + ord("a")'),
            Mutant("upper-unshifted", 'ord("A") + shift', 'ord("A") + 0'),
            Mutant("drops-others", "out.append(ch)", "pass"),
            Mutant("shifts-back", '+ shift) % 26 + ord("a")', '- shift) % 26 + ord("a")'),
        ),
        gold=r"""from ciphers import caesar


def test_lower_wraps():
    assert caesar("abc xyz", 3) == "def abc"


def test_mixed_case_and_punctuation():
    assert caesar("Hello, World!", 1) == "Ifmmp, Xpsme!"


def test_negative_and_large():
    assert caesar("abc", -1) == "zab"
    assert caesar("z", 27) == "a"
""",
    ),
    TestgenTask(
        task_id="testgen/median",
        module="statistics_lite",
        entry_point="median",
        spec="Median of a non-empty list of numbers in any order: the middle value, or the mean "
        "of the two middle values for an even count. Raise ValueError for an empty list.",
        reference=r"""def median(values):
    if not values:
        raise ValueError("median of an empty list")
    ordered = sorted(values)
    mid = len(ordered) // 2
    if len(ordered) % 2 == 1:
        return ordered[mid]
    return (ordered[mid - 1] + ordered[mid]) / 2
""",
        mutants=(
            Mutant("unsorted", "sorted(values)", "list(values)"),
            Mutant(
                "shifted-pair", "ordered[mid - 1] + ordered[mid]", "ordered[mid] + ordered[mid]"
            ),
            Mutant("floor-division", ") / 2", ") // 2"),
            Mutant("lower-middle", "return ordered[mid]\n", "return ordered[mid - 1]\n"),
            Mutant("empty-none", 'raise ValueError("median of an empty list")', "return None"),
        ),
        gold=r"""from statistics_lite import median


def test_odd():
    assert median([3, 1, 2]) == 2
    assert median([5, 9, 1, 7, 3]) == 5


def test_even():
    assert median([4, 1, 3, 2]) == 2.5
    assert median([1, 2]) == 1.5


def test_empty():
    try:
        median([])
    except ValueError:
        return
    raise AssertionError("expected ValueError")
""",
    ),
    TestgenTask(
        task_id="testgen/parse_duration",
        module="durations",
        entry_point="parse_duration",
        spec="Return the number of seconds in a duration such as '1h30m', '45s' or '2h5s': "
        "units h, m and s, each at most once and in that order, at least one present. Raise "
        "ValueError for anything else.",
        reference=r"""import re

_PATTERN = re.compile(r"(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?")


def parse_duration(text):
    match = _PATTERN.fullmatch(text)
    if match is None or not text:
        raise ValueError(f"not a duration: {text!r}")
    hours, minutes, seconds = (int(g) if g else 0 for g in match.groups())
    return hours * 3600 + minutes * 60 + seconds
""",
        mutants=(
            Mutant("hour-constant", "hours * 3600", "hours * 360"),
            Mutant("minute-constant", "minutes * 60", "minutes * 100"),
            Mutant("empty-accepted", " or not text", ""),
            Mutant("prefix-match", "_PATTERN.fullmatch(text)", "_PATTERN.match(text)"),
        ),
        gold=r"""from durations import parse_duration


def test_valid():
    assert parse_duration("1h30m") == 5400
    assert parse_duration("45s") == 45
    assert parse_duration("2h5s") == 7205
    assert parse_duration("90m") == 5400


def test_invalid():
    for text in ("", "5x", "1h30x", "30m1h"):
        try:
            parse_duration(text)
        except ValueError:
            continue
        raise AssertionError(text)
""",
    ),
    TestgenTask(
        task_id="testgen/is_balanced",
        module="brackets",
        entry_point="is_balanced",
        spec="Whether the brackets (), [] and {} in text are balanced and properly nested; "
        "other characters are ignored.",
        reference=r"""def is_balanced(text):
    pairs = {")": "(", "]": "[", "}": "{"}
    stack = []
    for ch in text:
        if ch in "([{":
            stack.append(ch)
        elif ch in pairs:
            if not stack or stack.pop() != pairs[ch]:
                return False
    return not stack
""",
        mutants=(
            Mutant("unclosed-ok", "return not stack", "return True"),
            Mutant("stray-closer-ok", "if not stack or", "if stack and"),
            Mutant("no-nesting-check", "stack.pop() != pairs[ch]", "stack.pop() is None"),
            Mutant("square-ignored", '"]": "[", ', ""),
        ),
        gold=r"""from brackets import is_balanced


def test_balanced():
    assert is_balanced("")
    assert is_balanced("([]{})")
    assert is_balanced("a(b)c[d]")


def test_unbalanced():
    assert not is_balanced("([)]")
    assert not is_balanced("((")
    assert not is_balanced(")")
    assert not is_balanced("[")
""",
    ),
    TestgenTask(
        task_id="testgen/rotate",
        module="sequences",
        entry_point="rotate",
        spec="Return a new list with items rotated right by steps places (negative steps "
        "rotate left; steps may exceed the length). An empty list gives an empty list.",
        reference=r"""def rotate(items, steps):
    if not items:
        return []
    steps %= len(items)
    return items[-steps:] + items[:-steps]
""",
        mutants=(
            Mutant("no-modulo", "    steps %= len(items)\n", ""),
            Mutant(
                "left-rotation", "items[-steps:] + items[:-steps]", "items[steps:] + items[:steps]"
            ),
            Mutant("empty-placeholder", "return []", "return [None]"),
            Mutant("drops-item", "items[:-steps]", "items[:-steps - 1]"),
        ),
        gold=r"""from sequences import rotate


def test_right_and_left():
    assert rotate([1, 2, 3, 4], 1) == [4, 1, 2, 3]
    assert rotate([1, 2, 3], -1) == [2, 3, 1]


def test_wrap_and_edges():
    assert rotate([1, 2, 3], 5) == [2, 3, 1]
    assert rotate([1, 2], 0) == [1, 2]
    assert rotate([], 3) == []
""",
    ),
    TestgenTask(
        task_id="testgen/flatten",
        module="nesting",
        entry_point="flatten",
        spec="Flatten arbitrarily nested lists and tuples into one list, left to right; any "
        "other value (strings included) is a leaf.",
        reference=r"""def flatten(nested):
    flat = []
    for item in nested:
        if isinstance(item, (list, tuple)):
            flat.extend(flatten(item))
        else:
            flat.append(item)
    return flat
""",
        mutants=(
            Mutant("tuples-kept", "(list, tuple)", "list"),
            Mutant("one-level", "flat.extend(flatten(item))", "flat.extend(item)"),
            Mutant("nested-kept", "flat.extend(flatten(item))", "flat.append(flatten(item))"),
            Mutant("reversed", "flat.append(item)", "flat.insert(0, item)"),
        ),
        gold=r"""from nesting import flatten


def test_deep():
    assert flatten([1, [2, [3, (4, 5)]], "ab"]) == [1, 2, 3, 4, 5, "ab"]


def test_flat_and_empty():
    assert flatten([1, 2, 3]) == [1, 2, 3]
    assert flatten([]) == []
""",
    ),
    TestgenTask(
        task_id="testgen/unique",
        module="dedupe",
        entry_point="unique",
        spec="Return the hashable items without repeats, keeping the first occurrence of each, "
        "in their original order.",
        reference=r"""def unique(items):
    seen = set()
    result = []
    for item in items:
        if item not in seen:
            seen.add(item)
            result.append(item)
    return result
""",
        mutants=(
            Mutant("no-memory", "            seen.add(item)\n", ""),
            Mutant("sorted", "return result", "return sorted(result)"),
            Mutant("reversed", "result.append(item)", "result.insert(0, item)"),
        ),
        gold=r"""from dedupe import unique


def test_order_kept():
    assert unique([3, 1, 3, 2, 1]) == [3, 1, 2]


def test_empty_and_distinct():
    assert unique([]) == []
    assert unique(["b", "a"]) == ["b", "a"]
""",
    ),
    TestgenTask(
        task_id="testgen/human_size",
        module="sizes",
        entry_point="human_size",
        spec="Format a byte count: below 1024 as '<n> B'; otherwise divide by 1024 until the "
        "value is below 1024 (units KB, MB, GB; GB is the largest) and format it with one "
        "decimal, e.g. '1.5 KB'.",
        reference=r"""def human_size(size):
    if size < 1024:
        return f"{size} B"
    value = float(size)
    for unit in ("KB", "MB", "GB"):
        value /= 1024
        if value < 1024 or unit == "GB":
            return f"{value:.1f} {unit}"
""",
        mutants=(
            Mutant("boundary", "size < 1024", "size <= 1024"),
            Mutant("decimal-units", "value /= 1024", "value /= 1000"),
            Mutant("no-decimal", "{value:.1f}", "{value:.0f}"),
            Mutant("no-gb-cap", ' or unit == "GB"', ""),
        ),
        gold=r"""from sizes import human_size


def test_bytes():
    assert human_size(512) == "512 B"
    assert human_size(0) == "0 B"


def test_units():
    assert human_size(1024) == "1.0 KB"
    assert human_size(1536) == "1.5 KB"
    assert human_size(1048576) == "1.0 MB"


def test_cap():
    assert human_size(5 * 1024**4) == "5120.0 GB"
""",
    ),
)
