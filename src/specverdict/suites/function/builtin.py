"""``builtin-code@1``: function openings to complete (no scoring; speed and acceptance only).

Written for specverdict; each prompt is a signature and a docstring, the shape of IDE completion.
"""

from __future__ import annotations

from specverdict.suites.base import Sample, Suite

_FUNCTIONS = (
    (
        "is_palindrome(text: str) -> bool",
        "Return True if text reads the same both ways, ignoring case and spaces.",
    ),
    ("flatten(items)", "Flatten a list of lists into one list, keeping the order."),
    ("count_words(text)", "Return a dict mapping each word in text to how often it occurs."),
    ("merge_sorted(a, b)", "Merge two sorted lists into one sorted list."),
    (
        "parse_key_value(line)",
        "Split a line of the form key=value and return (key, value), both stripped.",
    ),
    ("chunked(seq, size)", "Yield successive chunks of length size from seq."),
    (
        "unique_in_order(items)",
        "Return the items without duplicates, keeping the first occurrence of each.",
    ),
    ("read_lines(path)", "Return the lines of the file at path without their line endings."),
    ("clamp(value, low, high)", "Return value limited to the range [low, high]."),
    ("to_snake_case(name)", "Convert a CamelCase name to snake_case."),
    ("mean(values)", "Return the arithmetic mean of a non-empty sequence of numbers."),
    ("transpose(matrix)", "Return the transpose of a matrix given as a list of rows."),
    ("is_prime(n)", "Return True if n is a prime number."),
    ("gcd(a, b)", "Return the greatest common divisor of a and b."),
    ("format_bytes(size)", "Format a size in bytes as a human-readable string such as '1.5 KB'."),
    ("find_duplicates(items)", "Return a sorted list of the items that occur more than once."),
)


class BuiltinCode(Suite):
    name = "builtin-code"
    version = 1
    stage = "function"

    def samples(self) -> list[Sample]:
        return [
            Sample(
                id=f"builtin-code/{i}",
                endpoint="completions",
                prompt=f'def {sig}:\n    """{doc}"""\n',
            )
            for i, (sig, doc) in enumerate(_FUNCTIONS)
        ]
