"""Repository tasks 1-11 (written for specverdict; Apache-2.0)."""

from __future__ import annotations

from specverdict.suites.repository.task import RepoTask
from specverdict.suites.repository.tasks._build import make_task

SLUGIFY = make_task(
    "slugify-separators",
    """
    `slugify` leaves runs of separators in the slug. `slugify("Hello,  World!")` returns
    `"hello---world"`; a slug should never hold two separators in a row, so this should be
    `"hello-world"`.
    """,
    {
        "textkit/__init__.py": "from textkit.slug import slugify\n",
        "textkit/slug.py": r'''
            """URL slugs."""

            import re


            def slugify(text: str, sep: str = "-") -> str:
                """Lower-case ``text`` and join its words with ``sep``."""
                text = text.strip().lower()
                text = re.sub(r"[^a-z0-9]", sep, text)
                return text.strip(sep)
            ''',
        "tests/test_slug.py": """
            from textkit.slug import slugify


            def test_simple_words():
                assert slugify("Hello World") == "hello-world"


            def test_custom_separator():
                assert slugify("a b", sep="_") == "a_b"
            """,
    },
    (("textkit/slug.py", 'r"[^a-z0-9]"', 'r"[^a-z0-9]+"'),),
    {
        "tests/test_issue.py": """
            from textkit import slugify


            def test_runs_of_separators_collapse():
                assert slugify("Hello,  World!") == "hello-world"


            def test_symbols_between_words():
                assert slugify("C++ & Rust", sep="_") == "c_rust"
            """
    },
)

MEDIAN = make_task(
    "median-even",
    """
    `median` of an even number of values returns the upper of the two middle values:
    `median([1, 2, 3, 4])` gives `3`. The median of an even-sized sample is the mean of the two
    middle values (`2.5` here).
    """,
    {
        "stats/__init__.py": "",
        "stats/central.py": '''
            """Measures of central tendency."""


            def mean(values):
                if not values:
                    raise ValueError("mean of no values")
                return sum(values) / len(values)


            def median(values):
                if not values:
                    raise ValueError("median of no values")
                ordered = sorted(values)
                middle = len(ordered) // 2
                return ordered[middle]
            ''',
        "tests/test_central.py": """
            from stats.central import mean, median


            def test_mean():
                assert mean([1, 2, 3, 6]) == 3


            def test_median_odd():
                assert median([5, 1, 3]) == 3


            def test_median_empty():
                try:
                    median([])
                except ValueError:
                    return
                raise AssertionError("no error")
            """,
    },
    (
        (
            "stats/central.py",
            "    return ordered[middle]\n",
            "    if len(ordered) % 2 == 0:\n"
            "        return (ordered[middle - 1] + ordered[middle]) / 2\n"
            "    return ordered[middle]\n",
        ),
    ),
    {
        "tests/test_issue.py": """
            from stats.central import median


            def test_median_even():
                assert median([1, 2, 3, 4]) == 2.5


            def test_median_two_unsorted():
                assert median([4, 1]) == 2.5
            """
    },
)

INTERVALS = make_task(
    "merge-touching-intervals",
    """
    `merge` treats intervals as closed (`[start, end]`), but intervals that only touch are not
    merged: `merge([(1, 3), (3, 5)])` returns `[(1, 3), (3, 5)]` instead of `[(1, 5)]`.
    """,
    {
        "spans/__init__.py": "",
        "spans/merge.py": '''
            """Interval arithmetic."""


            def merge(intervals):
                """Merge overlapping closed intervals [start, end]; returns them sorted."""
                result = []
                for start, end in sorted(intervals):
                    if result and start < result[-1][1]:
                        result[-1][1] = max(result[-1][1], end)
                    else:
                        result.append([start, end])
                return [tuple(i) for i in result]


            def total_length(intervals):
                return sum(end - start for start, end in merge(intervals))
            ''',
        "tests/test_merge.py": """
            from spans.merge import merge, total_length


            def test_overlapping():
                assert merge([(1, 4), (2, 3), (6, 8)]) == [(1, 4), (6, 8)]


            def test_empty():
                assert merge([]) == []


            def test_total_length():
                assert total_length([(0, 2), (1, 5)]) == 5
            """,
    },
    (("spans/merge.py", "start < result[-1][1]", "start <= result[-1][1]"),),
    {
        "tests/test_issue.py": """
            from spans.merge import merge


            def test_touching_intervals_merge():
                assert merge([(1, 3), (3, 5)]) == [(1, 5)]


            def test_touching_unsorted():
                assert merge([(5, 9), (0, 5)]) == [(0, 9)]
            """
    },
)

PAGES = make_task(
    "page-count-exact",
    """
    `page_count(10, 5)` says there are 3 pages, and `page(items, 3, 5)` on ten items returns an
    empty page instead of raising `IndexError`. Ten items at five per page are two pages; no
    items are zero pages.
    """,
    {
        "pager/__init__.py": "from pager.pages import page, page_count\n",
        "pager/pages.py": '''
            """Splitting a list into numbered pages."""


            def page_count(total, per_page):
                if per_page <= 0:
                    raise ValueError("per_page must be positive")
                return total // per_page + 1


            def page(items, number, per_page):
                """The items of 1-based page ``number``."""
                if number < 1 or number > page_count(len(items), per_page):
                    raise IndexError(f"no page {number}")
                start = (number - 1) * per_page
                return items[start : start + per_page]
            ''',
        "tests/test_pages.py": """
            from pager import page, page_count


            def test_partial_last_page():
                assert page_count(11, 5) == 3


            def test_second_page():
                assert page(list(range(7)), 2, 5) == [5, 6]
            """,
    },
    (("pager/pages.py", "return total // per_page + 1", "return -(-total // per_page)"),),
    {
        "tests/test_issue.py": """
            from pager import page, page_count


            def test_exact_multiple():
                assert page_count(10, 5) == 2
                assert page_count(0, 5) == 0


            def test_page_past_the_end():
                try:
                    page(list(range(10)), 3, 5)
                except IndexError:
                    return
                raise AssertionError("page 3 of 2 returned")
            """
    },
)

CONFIG = make_task(
    "config-equals-in-value",
    """
    The config parser fails on values that contain `=`: the line
    `url = http://example.org/?a=1` raises `ValueError: too many values to unpack`. Only the
    first `=` separates the key from the value.
    """,
    {
        "confkit/__init__.py": "",
        "confkit/parser.py": '''
            """``key = value`` configuration files."""


            def parse(text):
                """Parse ``key = value`` lines; ``#`` starts a comment line; blank lines are
                skipped."""
                result = {}
                for number, line in enumerate(text.splitlines(), 1):
                    line = line.strip()
                    if not line or line.startswith("#"):
                        continue
                    if "=" not in line:
                        raise ValueError(f"line {number}: expected key = value")
                    key, value = line.split("=")
                    result[key.strip()] = value.strip()
                return result
            ''',
        "confkit/loader.py": """
            from confkit.parser import parse


            def load(path):
                with open(path, encoding="utf-8") as fh:
                    return parse(fh.read())
            """,
        "tests/test_parser.py": """
            from confkit.parser import parse


            def test_pairs_and_comments():
                assert parse("# c\\nname = demo\\n\\nsize=3\\n") == {"name": "demo", "size": "3"}


            def test_line_without_equals():
                try:
                    parse("oops")
                except ValueError as exc:
                    assert "line 1" in str(exc)
                    return
                raise AssertionError("no error")
            """,
    },
    (("confkit/parser.py", 'line.split("=")', 'line.split("=", 1)'),),
    {
        "tests/test_issue.py": """
            from confkit.parser import parse


            def test_equals_in_value():
                assert parse("url = http://example.org/?a=1") == {
                    "url": "http://example.org/?a=1"
                }
            """
    },
)

LRU = make_task(
    "lru-get-refreshes",
    """
    `LRUCache.get` does not count as a use: after `put("a")`, `put("b")`, `get("a")` and
    `put("c")` on a cache of capacity 2, `"a"` is evicted although `"b"` is the least recently
    used entry.
    """,
    {
        "cachekit/__init__.py": "from cachekit.lru import LRUCache\n",
        "cachekit/lru.py": '''
            """A least-recently-used cache."""

            from collections import OrderedDict


            class LRUCache:
                def __init__(self, capacity):
                    if capacity < 1:
                        raise ValueError("capacity must be at least 1")
                    self.capacity = capacity
                    self._data = OrderedDict()

                def get(self, key, default=None):
                    if key not in self._data:
                        return default
                    return self._data[key]

                def put(self, key, value):
                    if key in self._data:
                        self._data.move_to_end(key)
                    self._data[key] = value
                    if len(self._data) > self.capacity:
                        self._data.popitem(last=False)

                def __len__(self):
                    return len(self._data)
            ''',
        "tests/test_lru.py": """
            from cachekit import LRUCache


            def test_evicts_oldest():
                cache = LRUCache(2)
                cache.put("a", 1)
                cache.put("b", 2)
                cache.put("c", 3)
                assert cache.get("a") is None and cache.get("c") == 3 and len(cache) == 2


            def test_default():
                assert LRUCache(1).get("x", 7) == 7
            """,
    },
    (
        (
            "cachekit/lru.py",
            "            return default\n        return self._data[key]\n",
            "            return default\n"
            "        self._data.move_to_end(key)\n"
            "        return self._data[key]\n",
        ),
    ),
    {
        "tests/test_issue.py": """
            from cachekit import LRUCache


            def test_get_refreshes():
                cache = LRUCache(2)
                cache.put("a", 1)
                cache.put("b", 2)
                assert cache.get("a") == 1
                cache.put("c", 3)
                assert cache.get("a") == 1
                assert cache.get("b") is None
            """
    },
)

ROMAN = make_task(
    "roman-subtractive",
    """
    `to_roman(4)` returns `"IIII"` and `to_roman(1994)` returns `"MDCCCCLXXXXIIII"`. Roman
    numerals use the subtractive forms: `"IV"` and `"MCMXCIV"`. (`from_roman` already reads
    them.)
    """,
    {
        "numerals/__init__.py": "",
        "numerals/roman.py": '''
            """Writing Roman numerals."""

            _TABLE = [(1000, "M"), (500, "D"), (100, "C"), (50, "L"), (10, "X"), (5, "V"), (1, "I")]


            def to_roman(number):
                if not 0 < number < 4000:
                    raise ValueError("number out of range 1..3999")
                out = []
                for value, letters in _TABLE:
                    count, number = divmod(number, value)
                    out.append(letters * count)
                return "".join(out)
            ''',
        "numerals/parse.py": '''
            """Reading Roman numerals."""

            _VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}


            def from_roman(text):
                total = 0
                for here, after in zip(text, text[1:] + " "):
                    value = _VALUES[here]
                    total += -value if _VALUES.get(after, 0) > value else value
                return total
            ''',
        "tests/test_roman.py": """
            from numerals.parse import from_roman
            from numerals.roman import to_roman


            def test_additive():
                assert to_roman(3) == "III"
                assert to_roman(2023) == "MMXXIII"


            def test_out_of_range():
                try:
                    to_roman(0)
                except ValueError:
                    return
                raise AssertionError("no error")


            def test_from_roman():
                assert from_roman("XIV") == 14
            """,
    },
    (
        (
            "numerals/roman.py",
            '_TABLE = [(1000, "M"), (500, "D"), (100, "C"), (50, "L"), (10, "X"), (5, "V"), '
            '(1, "I")]\n',
            "_TABLE = [\n"
            '    (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),\n'
            '    (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),\n'
            "]\n",
        ),
    ),
    {
        "tests/test_issue.py": """
            from numerals.parse import from_roman
            from numerals.roman import to_roman


            def test_subtractive():
                assert to_roman(4) == "IV"
                assert to_roman(1994) == "MCMXCIV"


            def test_round_trip():
                for n in range(1, 400):
                    assert from_roman(to_roman(n)) == n
                    assert "IIII" not in to_roman(n)
            """
    },
)

BANK = make_task(
    "withdraw-overdraft",
    """
    `Account.withdraw` lets the balance go negative. Withdrawing more than the balance must
    raise `InsufficientFunds` and leave the account unchanged; `transfer` must then leave both
    accounts unchanged too.
    """,
    {
        "bank/__init__.py": "",
        "bank/account.py": '''
            """Bank accounts."""


            class InsufficientFunds(Exception):
                pass


            class Account:
                def __init__(self, owner, balance=0):
                    self.owner = owner
                    self.balance = balance
                    self.history = []

                def deposit(self, amount):
                    if amount <= 0:
                        raise ValueError("deposit must be positive")
                    self.balance += amount
                    self.history.append(("deposit", amount))

                def withdraw(self, amount):
                    if amount <= 0:
                        raise ValueError("withdrawal must be positive")
                    self.balance -= amount
                    self.history.append(("withdraw", amount))
            ''',
        "bank/transfer.py": '''
            def transfer(source, target, amount):
                """Move ``amount`` from ``source`` to ``target``."""
                source.withdraw(amount)
                target.deposit(amount)
            ''',
        "tests/test_account.py": """
            from bank.account import Account
            from bank.transfer import transfer


            def test_deposit_and_withdraw():
                acc = Account("ann", 10)
                acc.deposit(5)
                acc.withdraw(12)
                assert acc.balance == 3
                assert acc.history == [("deposit", 5), ("withdraw", 12)]


            def test_transfer():
                a, b = Account("a", 10), Account("b")
                transfer(a, b, 4)
                assert (a.balance, b.balance) == (6, 4)
            """,
    },
    (
        (
            "bank/account.py",
            '            raise ValueError("withdrawal must be positive")\n',
            '            raise ValueError("withdrawal must be positive")\n'
            "        if amount > self.balance:\n"
            '            raise InsufficientFunds(f"balance {self.balance} < {amount}")\n',
        ),
    ),
    {
        "tests/test_issue.py": """
            from bank.account import Account, InsufficientFunds
            from bank.transfer import transfer


            def test_overdraft_refused():
                acc = Account("ann", 10)
                try:
                    acc.withdraw(11)
                except InsufficientFunds:
                    assert acc.balance == 10 and acc.history == []
                    return
                raise AssertionError("overdraft allowed")


            def test_transfer_refused():
                a, b = Account("a", 3), Account("b", 1)
                try:
                    transfer(a, b, 5)
                except InsufficientFunds:
                    assert (a.balance, b.balance) == (3, 1)
                    return
                raise AssertionError("overdraft allowed")
            """
    },
)

LEAP = make_task(
    "leap-century",
    """
    `is_leap_year(1900)` returns True, so `days_in_month(1900, 2)` is 29. Century years are
    leap years only when divisible by 400 (2000 was, 1900 and 2100 are not).
    """,
    {
        "cal/__init__.py": "",
        "cal/dates.py": '''
            """Calendar arithmetic (proleptic Gregorian)."""


            def is_leap_year(year):
                return year % 4 == 0


            def days_in_month(year, month):
                if month == 2:
                    return 29 if is_leap_year(year) else 28
                return 30 if month in (4, 6, 9, 11) else 31


            def day_of_year(year, month, day):
                return sum(days_in_month(year, m) for m in range(1, month)) + day
            ''',
        "tests/test_dates.py": """
            from cal.dates import day_of_year, days_in_month, is_leap_year


            def test_ordinary_leap_years():
                assert is_leap_year(2024) and is_leap_year(2000) and not is_leap_year(2023)


            def test_day_of_year():
                assert day_of_year(2023, 3, 1) == 60
                assert days_in_month(2023, 4) == 30
            """,
    },
    (
        (
            "cal/dates.py",
            "    return year % 4 == 0\n",
            "    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)\n",
        ),
    ),
    {
        "tests/test_issue.py": """
            from cal.dates import day_of_year, days_in_month, is_leap_year


            def test_centuries():
                assert not is_leap_year(1900)
                assert not is_leap_year(2100)
                assert days_in_month(2100, 2) == 28


            def test_day_of_year_1900():
                assert day_of_year(1900, 12, 31) == 365
            """
    },
)

INVENTORY = make_task(
    "inventory-sold-out",
    """
    After removing the last unit of an item, `Inventory.items()` still lists it (with
    quantity 0). Items that are sold out must disappear from `items()`.
    """,
    {
        "shop/__init__.py": "",
        "shop/inventory.py": '''
            """Stock keeping."""


            class Inventory:
                def __init__(self):
                    self._stock = {}

                def add(self, item, quantity=1):
                    if quantity <= 0:
                        raise ValueError("quantity must be positive")
                    self._stock[item] = self._stock.get(item, 0) + quantity

                def remove(self, item, quantity=1):
                    have = self._stock.get(item, 0)
                    if quantity > have:
                        raise KeyError(f"not enough {item!r} in stock")
                    self._stock[item] = have - quantity

                def items(self):
                    """Items in stock, sorted by name."""
                    return sorted(self._stock)

                def quantity(self, item):
                    return self._stock.get(item, 0)
            ''',
        "shop/report.py": """
            def stock_report(inventory):
                return "\\n".join(f"{item}: {inventory.quantity(item)}" for item in inventory.items())
            """,
        "tests/test_inventory.py": """
            from shop.inventory import Inventory
            from shop.report import stock_report


            def test_add_and_remove():
                inv = Inventory()
                inv.add("pear", 3)
                inv.remove("pear")
                assert inv.quantity("pear") == 2 and inv.items() == ["pear"]


            def test_remove_too_many():
                inv = Inventory()
                inv.add("fig")
                try:
                    inv.remove("fig", 2)
                except KeyError:
                    return
                raise AssertionError("no error")


            def test_report():
                inv = Inventory()
                inv.add("b", 2)
                inv.add("a")
                assert stock_report(inv) == "a: 1\\nb: 2"
            """,
    },
    (
        (
            "shop/inventory.py",
            "        self._stock[item] = have - quantity\n",
            "        if quantity == have:\n"
            "            self._stock.pop(item, None)\n"
            "        else:\n"
            "            self._stock[item] = have - quantity\n",
        ),
    ),
    {
        "tests/test_issue.py": """
            from shop.inventory import Inventory
            from shop.report import stock_report


            def test_sold_out_disappears():
                inv = Inventory()
                inv.add("apple", 2)
                inv.add("kiwi")
                inv.remove("apple", 2)
                assert inv.items() == ["kiwi"]
                assert stock_report(inv) == "kiwi: 1"
            """
    },
)

TEMPLATE = make_task(
    "template-spaces",
    """
    `render("Hi {{ name }}!", {"name": "Ada"})` returns the template unchanged. Fields written
    with spaces inside the braces (`{{ name }}`) must be filled like `{{name}}`.
    """,
    {
        "tmpl/__init__.py": "from tmpl.render import render\n",
        "tmpl/render.py": r'''
            """A tiny template language."""

            import re

            _FIELD = re.compile(r"\{\{(\w+)\}\}")


            def render(template, values):
                """Replace ``{{ name }}`` fields with ``values[name]``; unknown names raise
                KeyError."""
                return _FIELD.sub(lambda m: str(values[m.group(1)]), template)
            ''',
        "tests/test_render.py": """
            from tmpl import render


            def test_plain_field():
                assert render("{{a}}+{{b}}", {"a": 1, "b": 2}) == "1+2"


            def test_unknown_field():
                try:
                    render("{{nope}}", {})
                except KeyError:
                    return
                raise AssertionError("no error")
            """,
    },
    (("tmpl/render.py", r'r"\{\{(\w+)\}\}"', r'r"\{\{\s*(\w+)\s*\}\}"'),),
    {
        "tests/test_issue.py": """
            from tmpl import render


            def test_spaces_inside_braces():
                assert render("Hi {{ name }}!", {"name": "Ada"}) == "Hi Ada!"
                assert render("{{x }}{{  y}}", {"x": 1, "y": 2}) == "12"
            """
    },
)

TASKS: tuple[RepoTask, ...] = (
    SLUGIFY,
    MEDIAN,
    INTERVALS,
    PAGES,
    CONFIG,
    LRU,
    ROMAN,
    BANK,
    LEAP,
    INVENTORY,
    TEMPLATE,
)
