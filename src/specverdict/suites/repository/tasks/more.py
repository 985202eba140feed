"""Repository tasks 12-22 (written for specverdict; Apache-2.0)."""

from __future__ import annotations

from specverdict.suites.repository.task import RepoTask
from specverdict.suites.repository.tasks._build import make_task

CHUNKED = make_task(
    "chunked-last-chunk",
    """
    `chunked([1, 2, 3, 4, 5], 2)` returns `[[1, 2], [3, 4]]`: the shorter last chunk is lost.
    As documented, the last chunk may be shorter, so the result should end with `[5]`.
    """,
    {
        "seqtools/__init__.py": "",
        "seqtools/chunks.py": '''
            """Splitting sequences."""


            def chunked(items, size):
                """Split ``items`` into lists of ``size``; the last one may be shorter."""
                if size < 1:
                    raise ValueError("size must be at least 1")
                items = list(items)
                return [items[i : i + size] for i in range(0, len(items) - size + 1, size)]


            def pairs(items):
                return [tuple(chunk) for chunk in chunked(items, 2)]
            ''',
        "tests/test_chunks.py": """
            from seqtools.chunks import chunked, pairs


            def test_exact_multiple():
                assert chunked(range(6), 3) == [[0, 1, 2], [3, 4, 5]]


            def test_empty():
                assert chunked([], 4) == []


            def test_pairs():
                assert pairs("abcd") == [("a", "b"), ("c", "d")]
            """,
    },
    (
        (
            "seqtools/chunks.py",
            "range(0, len(items) - size + 1, size)",
            "range(0, len(items), size)",
        ),
    ),
    {
        "tests/test_issue.py": """
            from seqtools.chunks import chunked


            def test_short_last_chunk():
                assert chunked([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]
                assert chunked("ab", 5) == [["a", "b"]]
            """
    },
)

TEMPERATURE = make_task(
    "fahrenheit-to-celsius",
    """
    `fahrenheit_to_celsius(212)` returns about 194.2 instead of 100. The conversion subtracts
    32 after scaling instead of before.
    """,
    {
        "units/__init__.py": "",
        "units/temperature.py": '''
            """Temperature scales."""


            def celsius_to_fahrenheit(c):
                return c * 9 / 5 + 32


            def fahrenheit_to_celsius(f):
                return f - 32 * 5 / 9
            ''',
        "tests/test_temperature.py": """
            from units.temperature import celsius_to_fahrenheit


            def test_c_to_f():
                assert celsius_to_fahrenheit(100) == 212
                assert celsius_to_fahrenheit(0) == 32
            """,
    },
    (("units/temperature.py", "return f - 32 * 5 / 9", "return (f - 32) * 5 / 9"),),
    {
        "tests/test_issue.py": """
            from units.temperature import celsius_to_fahrenheit, fahrenheit_to_celsius


            def test_f_to_c():
                assert fahrenheit_to_celsius(212) == 100
                assert fahrenheit_to_celsius(32) == 0


            def test_round_trip():
                for c in (-40, 0, 37, 100):
                    assert abs(fahrenheit_to_celsius(celsius_to_fahrenheit(c)) - c) < 1e-9
            """
    },
)

WORDS = make_task(
    "word-counts-case",
    """
    `word_counts` is documented to ignore case (keys lower-case) but counts `"The"` and
    `"the"` separately, so `most_common("The cat saw the dog")` is `[("The", 1)]`.
    """,
    {
        "textstats/__init__.py": "",
        "textstats/words.py": '''
            """Word statistics."""

            import re
            from collections import Counter

            _WORD = re.compile(r"[A-Za-z']+")


            def words(text):
                """The words of ``text``, as written."""
                return _WORD.findall(text)


            def word_counts(text):
                """How often each word occurs, ignoring case (keys are lower-case)."""
                return Counter(words(text))


            def most_common(text, n=1):
                return word_counts(text).most_common(n)
            ''',
        "tests/test_words.py": """
            from textstats.words import word_counts, words


            def test_words_keep_case():
                assert words("Hi there, Bob's") == ["Hi", "there", "Bob's"]


            def test_counts():
                assert word_counts("a b a") == {"a": 2, "b": 1}
            """,
    },
    (
        (
            "textstats/words.py",
            "    return Counter(words(text))\n",
            "    return Counter(word.lower() for word in words(text))\n",
        ),
    ),
    {
        "tests/test_issue.py": """
            from textstats.words import most_common, word_counts


            def test_case_is_ignored():
                assert word_counts("The cat saw the dog")["the"] == 2
                assert most_common("The cat saw the dog") == [("the", 2)]
            """
    },
)

PATHS = make_task(
    "shortest-path-same-node",
    """
    `shortest_path(graph, "a", "a")` returns None, as if `"a"` could not reach itself. The
    path from a node to itself is `["a"]`, even in a graph without edges.
    """,
    {
        "graphs/__init__.py": "",
        "graphs/paths.py": '''
            """Unweighted shortest paths."""

            from collections import deque


            def shortest_path(graph, start, goal):
                """A shortest path from start to goal as a list of nodes, or None."""
                previous = {start: None}
                queue = deque([start])
                while queue:
                    node = queue.popleft()
                    for neighbour in graph.get(node, ()):
                        if neighbour in previous:
                            continue
                        previous[neighbour] = node
                        if neighbour == goal:
                            return _walk_back(previous, goal)
                        queue.append(neighbour)
                return None


            def _walk_back(previous, node):
                path = []
                while node is not None:
                    path.append(node)
                    node = previous[node]
                return path[::-1]
            ''',
        "tests/test_paths.py": """
            from graphs.paths import shortest_path

            GRAPH = {"a": ["b", "c"], "b": ["d"], "c": ["d"], "d": ["e"], "x": []}


            def test_path():
                assert shortest_path(GRAPH, "a", "e") == ["a", "b", "d", "e"]


            def test_unreachable():
                assert shortest_path(GRAPH, "e", "a") is None
            """,
    },
    (
        (
            "graphs/paths.py",
            '    """A shortest path from start to goal as a list of nodes, or None."""\n',
            '    """A shortest path from start to goal as a list of nodes, or None."""\n'
            "    if start == goal:\n"
            "        return [start]\n",
        ),
    ),
    {
        "tests/test_issue.py": """
            from graphs.paths import shortest_path


            def test_same_node():
                assert shortest_path({"a": ["b"]}, "a", "a") == ["a"]
                assert shortest_path({}, "x", "x") == ["x"]
            """
    },
)

VERSIONS = make_task(
    "version-numeric-compare",
    """
    Versions compare as text: `compare("1.10", "1.9")` returns -1 and `newest(["1.9",
    "1.10"])` is `"1.9"`. Version parts are numbers; `parse("1.10.2")` should be `(1, 10, 2)`.
    """,
    {
        "versions/__init__.py": "",
        "versions/compare.py": '''
            """Dotted version numbers."""


            def parse(version):
                """'1.10.2' -> (1, 10, 2)."""
                return tuple(version.split("."))


            def compare(a, b):
                """-1, 0 or 1 as version a is older than, equal to or newer than b."""
                pa, pb = parse(a), parse(b)
                return (pa > pb) - (pa < pb)


            def newest(versions):
                return max(versions, key=parse)
            ''',
        "tests/test_compare.py": """
            from versions.compare import compare


            def test_simple():
                assert compare("1.2", "1.3") == -1
                assert compare("2.0", "2.0") == 0
                assert compare("3.1", "2.9") == 1
            """,
    },
    (
        (
            "versions/compare.py",
            'return tuple(version.split("."))',
            'return tuple(int(part) for part in version.split("."))',
        ),
    ),
    {
        "tests/test_issue.py": """
            from versions.compare import compare, newest, parse


            def test_numeric_parts():
                assert parse("1.10.2") == (1, 10, 2)
                assert compare("1.10", "1.9") == 1
                assert newest(["1.9", "1.10", "1.2"]) == "1.10"
            """
    },
)

MATRIX = make_task(
    "transpose-rectangular",
    """
    `transpose([[1, 2, 3]])` returns `[[1]]` (or fails with IndexError for a tall matrix), and
    `multiply` gives wrong results for matrices that are not square.
    """,
    {
        "matrix/__init__.py": "",
        "matrix/ops.py": '''
            """Matrices as lists of rows."""


            def transpose(rows):
                if not rows:
                    return []
                n = len(rows)
                return [[rows[i][j] for i in range(n)] for j in range(n)]


            def multiply(a, b):
                columns = transpose(b)
                return [[sum(x * y for x, y in zip(row, col)) for col in columns] for row in a]
            ''',
        "tests/test_ops.py": """
            from matrix.ops import multiply, transpose


            def test_square_transpose():
                assert transpose([[1, 2], [3, 4]]) == [[1, 3], [2, 4]]


            def test_identity():
                assert multiply([[1, 0], [0, 1]], [[5, 6], [7, 8]]) == [[5, 6], [7, 8]]
            """,
    },
    (
        (
            "matrix/ops.py",
            "    n = len(rows)\n    return [[rows[i][j] for i in range(n)] for j in range(n)]\n",
            "    return [[row[j] for row in rows] for j in range(len(rows[0]))]\n",
        ),
    ),
    {
        "tests/test_issue.py": """
            from matrix.ops import multiply, transpose


            def test_rectangular():
                assert transpose([[1, 2, 3]]) == [[1], [2], [3]]
                assert transpose([[1], [2]]) == [[1, 2]]


            def test_multiply_rectangular():
                assert multiply([[1, 2, 3], [4, 5, 6]], [[1, 0], [0, 1], [1, 1]]) == [
                    [4, 5],
                    [10, 11],
                ]
            """
    },
)

BACKOFF = make_task(
    "backoff-exponential",
    """
    Retry delays grow linearly (`delays(4, base=1)` is `[1, 2, 3, 4]`) although the docstring
    promises doubling: `[1, 2, 4, 8]`, still capped at `cap`.
    """,
    {
        "retrykit/__init__.py": "",
        "retrykit/backoff.py": '''
            """Backoff schedules."""


            def delays(attempts, base=0.5, cap=30.0):
                """Wait before each retry: base, 2*base, 4*base, ... never more than cap."""
                return [min(cap, base * (attempt + 1)) for attempt in range(attempts)]
            ''',
        "retrykit/retry.py": '''
            from retrykit.backoff import delays


            def retry(func, attempts=3, base=0.5, sleep=None):
                """Call func until it returns without raising; re-raise the last error."""
                for wait in delays(attempts - 1, base):
                    try:
                        return func()
                    except Exception:
                        if sleep is not None:
                            sleep(wait)
                return func()
            ''',
        "tests/test_retry.py": """
            from retrykit.backoff import delays
            from retrykit.retry import retry


            def test_first_delay():
                assert delays(1) == [0.5]


            def test_success_first_time():
                assert retry(lambda: 7) == 7


            def test_gives_up():
                calls = []

                def boom():
                    calls.append(1)
                    raise OSError("down")

                try:
                    retry(boom, attempts=3, sleep=lambda s: None)
                except OSError:
                    assert len(calls) == 3
                    return
                raise AssertionError("no error")
            """,
    },
    (("retrykit/backoff.py", "base * (attempt + 1)", "base * 2**attempt"),),
    {
        "tests/test_issue.py": """
            from retrykit.backoff import delays
            from retrykit.retry import retry


            def test_doubling():
                assert delays(4, base=1) == [1, 2, 4, 8]
                assert delays(6, base=10, cap=30) == [10, 20, 30, 30, 30, 30]


            def test_retry_sleeps():
                waits, state = [], {"n": 0}

                def flaky():
                    state["n"] += 1
                    if state["n"] < 4:
                        raise OSError("again")
                    return "ok"

                assert retry(flaky, attempts=4, sleep=waits.append) == "ok"
                assert waits == [0.5, 1.0, 2.0]
            """
    },
)

TRUNCATE = make_task(
    "truncate-width",
    """
    `truncate("abcdefghij", 6)` returns `"abcdef..."`, nine characters. The result must never
    be longer than `width`, ellipsis included: `"abc..."`.
    """,
    {
        "strtools/__init__.py": "",
        "strtools/truncate.py": '''
            """Shortening strings for display."""


            def truncate(text, width, ellipsis="..."):
                """Shorten text to at most ``width`` characters, ending with ``ellipsis`` when
                cut."""
                if len(text) <= width:
                    return text
                return text[:width] + ellipsis
            ''',
        "tests/test_truncate.py": """
            from strtools.truncate import truncate


            def test_short_text_unchanged():
                assert truncate("abc", 5) == "abc"
                assert truncate("abcde", 5) == "abcde"
            """,
    },
    (
        (
            "strtools/truncate.py",
            "return text[:width] + ellipsis",
            "return text[: max(0, width - len(ellipsis))] + ellipsis",
        ),
    ),
    {
        "tests/test_issue.py": """
            from strtools.truncate import truncate


            def test_width_includes_ellipsis():
                assert truncate("abcdefghij", 6) == "abc..."
                assert truncate("abcdefghij", 8, ellipsis="~") == "abcdefg~"
            """
    },
)

QUERY = make_task(
    "query-encoding",
    """
    `build_query({"q": "x y&z"})` returns `"q=x y&z"`, which breaks the URL. Keys and values
    must be percent-encoded (`"q=x%20y%26z"`).
    """,
    {
        "urlkit/__init__.py": "",
        "urlkit/query.py": '''
            """Query strings."""


            def build_query(params):
                """'a=1&b=x%20y' from a mapping; keys sorted; None values are left out."""
                parts = []
                for key in sorted(params):
                    value = params[key]
                    if value is None:
                        continue
                    parts.append(f"{key}={value}")
                return "&".join(parts)
            ''',
        "urlkit/url.py": """
            from urlkit.query import build_query


            def with_query(base, params):
                query = build_query(params)
                return f"{base}?{query}" if query else base
            """,
        "tests/test_query.py": """
            from urlkit.query import build_query
            from urlkit.url import with_query


            def test_sorted_and_none_left_out():
                assert build_query({"b": 2, "a": 1, "c": None}) == "a=1&b=2"


            def test_no_params():
                assert with_query("http://h/p", {}) == "http://h/p"
            """,
    },
    (
        (
            "urlkit/query.py",
            '"""Query strings."""\n',
            '"""Query strings."""\n\nfrom urllib.parse import quote\n',
        ),
        (
            "urlkit/query.py",
            'parts.append(f"{key}={value}")',
            "parts.append(f\"{quote(str(key), safe='')}={quote(str(value), safe='')}\")",
        ),
    ),
    {
        "tests/test_issue.py": """
            from urlkit.query import build_query
            from urlkit.url import with_query


            def test_percent_encoding():
                assert build_query({"q": "x y&z"}) == "q=x%20y%26z"
                assert with_query("http://h/s", {"a b": "1/2"}) == "http://h/s?a%20b=1%2F2"
            """
    },
)

MERGE = make_task(
    "deep-merge-nested",
    """
    `load({"server": {"port": 9000}})` drops the default `server.host`: `deep_merge` replaces
    nested dictionaries instead of merging them key by key as documented.
    """,
    {
        "settings/__init__.py": "",
        "settings/merge.py": '''
            """Merging nested settings."""


            def deep_merge(base, override):
                """A new dict: override's keys win; nested dicts are merged key by key."""
                result = dict(base)
                for key, value in override.items():
                    result[key] = value
                return result
            ''',
        "settings/load.py": """
            from settings.merge import deep_merge

            DEFAULTS = {"server": {"host": "localhost", "port": 8000}, "debug": False}


            def load(overrides):
                return deep_merge(DEFAULTS, overrides)
            """,
        "tests/test_merge.py": """
            from settings.load import load
            from settings.merge import deep_merge


            def test_flat_override():
                assert deep_merge({"a": 1, "b": 2}, {"b": 3, "c": 4}) == {"a": 1, "b": 3, "c": 4}


            def test_defaults():
                assert load({})["server"]["port"] == 8000
            """,
    },
    (
        (
            "settings/merge.py",
            "        result[key] = value\n",
            "        if isinstance(value, dict) and isinstance(result.get(key), dict):\n"
            "            result[key] = deep_merge(result[key], value)\n"
            "        else:\n"
            "            result[key] = value\n",
        ),
    ),
    {
        "tests/test_issue.py": """
            from settings.load import DEFAULTS, load


            def test_nested_merge():
                got = load({"server": {"port": 9000}, "debug": True})
                assert got == {"server": {"host": "localhost", "port": 9000}, "debug": True}
                assert DEFAULTS["server"]["port"] == 8000
            """
    },
)

DISTANCE = make_task(
    "distance-units",
    """
    `convert(1, "km", "m")` returns 0.001 instead of 1000, and even with the direction fixed a
    mile comes out as 1690.344 m: a mile is 1609.344 m.
    """,
    {
        "distance/__init__.py": "",
        "distance/factors.py": '''
            """Length units."""

            #: metres per unit
            METRES = {"m": 1.0, "km": 1000.0, "mi": 1690.344, "ft": 0.3048}
            ''',
        "distance/convert.py": '''
            from distance.factors import METRES


            def convert(value, source, target):
                """``value`` in unit ``source`` expressed in unit ``target``."""
                for unit in (source, target):
                    if unit not in METRES:
                        raise ValueError(f"unknown unit {unit!r}")
                return value * METRES[target] / METRES[source]
            ''',
        "tests/test_convert.py": """
            from distance.convert import convert


            def test_same_unit():
                assert convert(5, "m", "m") == 5


            def test_unknown_unit():
                try:
                    convert(1, "m", "league")
                except ValueError:
                    return
                raise AssertionError("no error")
            """,
    },
    (
        ("distance/factors.py", '"mi": 1690.344', '"mi": 1609.344'),
        (
            "distance/convert.py",
            "value * METRES[target] / METRES[source]",
            "value * METRES[source] / METRES[target]",
        ),
    ),
    {
        "tests/test_issue.py": """
            from distance.convert import convert


            def test_direction():
                assert convert(1, "km", "m") == 1000
                assert abs(convert(3, "ft", "m") - 0.9144) < 1e-9


            def test_mile():
                assert abs(convert(1, "mi", "km") - 1.609344) < 1e-9
            """
    },
)

TASKS: tuple[RepoTask, ...] = (
    CHUNKED,
    TEMPERATURE,
    WORDS,
    PATHS,
    VERSIONS,
    MATRIX,
    BACKOFF,
    TRUNCATE,
    QUERY,
    MERGE,
    DISTANCE,
)
