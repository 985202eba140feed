"""Generator 4's reading of the docstring: stated bounds, case, closed alphabets, separators,
ties asked of the input (not of the output), and the domain widened only where it leaves room."""

from __future__ import annotations

from typing import Any

from specverdict.suites.function.boundary import boundaries
from specverdict.suites.function.corners import widen_by_docstring
from specverdict.suites.function.edges import widen
from specverdict.suites.function.profile import Domain
from specverdict.suites.function.stated import (
    TINY,
    Statement,
    parameters,
    read_statement,
    widen_by_statement,
)

Args = tuple[Any, ...]


def _domain(seeds: list[Args], doc: str, params: tuple[str, ...]) -> Domain:
    """Generator 4's domain of a function ``f(*params)`` whose docstring is ``doc``."""
    reference = f'def f({", ".join(params)}):\n    """{doc}"""\n    return 0\n'
    bounds = boundaries(reference, "f")
    wide = widen_by_docstring(widen(Domain.infer(seeds), bounds), bounds, doc)
    return widen_by_statement(wide, bounds, read_statement(doc, "f", params), params)


def test_parameters_are_read_in_order() -> None:
    assert parameters("def g(a, b, /, c):\n    pass\n", "g") == ("a", "b", "c")
    assert parameters("def g(", "g") == ()


def test_stated_bounds_of_values_and_lengths() -> None:
    doc = """Constraints:
        * 0 <= number <= 1000
        * 1 <= len(arr) <= 10^2
        * k > 0
        * 1 <= i <= k (an index, not a parameter)
    Example: f(5, [1], 1) => 3 <= 4
    """
    found = read_statement(doc, "f", ("number", "arr", "k"))
    assert found.values == {"number": (0.0, 1000.0), "k": (1.0, None)}
    assert found.lengths == {"arr": (1.0, 100.0)}
    assert read_statement("Constraints: 0 ≤ N ≤ 10000.", "f", ("N",)).values == {
        "N": (0.0, 10000.0)
    }


def test_words_about_strings() -> None:
    assert read_statement("Given a string of lowercase letters.", "f", ()).cased
    assert not read_statement("Check if a string is a palindrome.", "f", ()).cased
    assert read_statement("Strings consisting only of 1s and 0s.", "f", ()).closed
    assert read_statement("A date in the format mm-dd-yyyy.", "f", ()).closed
    assert not read_statement("Count the words of a sentence.", "f", ()).closed
    spaced = read_statement("Words separated by spaces.", "f", ())
    assert spaced.separator and spaced.spaces and not spaced.whitespace
    assert read_statement("A space-delimited string of numerals.", "f", ()).separator
    assert read_statement("Split on whitespace.", "f", ()).whitespace
    content = read_statement("Replace all spaces in it with underscores.", "f", ())
    assert content.spaces and not content.separator
    quoted = read_statement("Sentences are delimited by '.', '?' or '!'.", "f", ())
    assert quoted.marks == ("!", ".", "?")


def test_ties_are_forbidden_only_for_the_input() -> None:
    assert read_statement("The list contains different words.", "f", ()).ties_forbidden
    assert read_statement("Given a list of unique numbers, sort it.", "f", ()).ties_forbidden
    assert not read_statement("Return sorted unique elements in a list.", "f", ()).ties_forbidden
    examples = "Given a list of numbers.\n>>> unique_digits([15, 33])\n[15, 33]"
    assert not read_statement(examples, "unique_digits", ()).ties_forbidden


def test_case_letters_and_digits_widen_where_the_alphabet_is_open() -> None:
    seeds: list[Args] = [("abc",), ("level",)]
    open_words = _domain(seeds, "Check if a string is a palindrome.", ("text",))
    assert open_words.admits(("Abc",)) and open_words.admits(("xyz",))
    assert not _domain(seeds, "A string of lowercase letters.", ("s",)).admits(("Abc",))
    closed = _domain([("ab",), ("ba",)], "A string made of a and b only.", ("s",))
    assert not closed.admits(("Ab",)) and not closed.admits(("ax",))
    digits = _domain([("1",), ("5,2",)], "A real number as a string.", ("s",))
    assert digits.admits(("11",)) and not digits.admits(("111",))  # one digit longer at most


def test_numbers_widen_to_zero_tiny_floats_and_mirrored_negatives() -> None:
    ints = [(3, 7), (10, 15)]
    assert _domain(ints, "The gcd of two integers a and b.", ("a", "b")).admits((0, 7))
    assert not _domain(ints, "The gcd of two numbers a and b.", ("a", "b")).admits((0, 7))
    assert not _domain(ints, "Two positive integers a and b.", ("a", "b")).admits((0, 7))
    floats = _domain([(3.5,), (1.33,)], "Given a floating point number.", ("x",))
    assert floats.admits((TINY,)) and not floats.admits((TINY / 2,))
    items = _domain([([1, -2, 300],), ([5],)], "Sum the numbers.", ("arr",))
    assert items.admits(([-300, 5],)) and not items.admits(([-301],))


def test_stated_bounds_replace_the_seeds_range_but_keep_the_seeds() -> None:
    seeds: list[Args] = [(5,), (147,)]
    stated = _domain(seeds, "Given a positive integer N.\nConstraints: 0 <= N <= 10000.", ("N",))
    assert stated.admits((0,)) and stated.admits((10000,)) and not stated.admits((10001,))
    above = _domain([(0,), (3,)], "Constraints: 1 <= n <= 9", ("n",))
    assert above.admits((0,)) and above.admits((9,))  # a seed below the stated bound stays


def test_empty_lists_and_ties_unless_stated_otherwise() -> None:
    seeds: list[Args] = [([5, 3, 9, 0],), ([1, 2, 4, 7],)]  # every seed four distinct items
    free = _domain(seeds, "Return sorted unique elements in a list.", ("l",))
    assert free.admits(([],)) and free.admits(([2, 2, 1],))  # a chance length, chance ties
    sized = _domain(seeds, "Given a non-empty list of unique numbers.", ("l",))
    assert not sized.admits(([],)) and not sized.admits(([2, 2, 1, 3],))
    stated = _domain(seeds, "Constraints: 1 <= len(l) <= 100", ("l",))
    assert not stated.admits(([],))
    pairs = _domain([([1, 2],), ([3, 4],)], "A pair of numbers.", ("p",))
    assert not pairs.admits(([],)) and not pairs.admits(([1, 2, 3],))  # a pair stays a pair


def test_statement_defaults_state_nothing() -> None:
    nothing = Statement()
    assert not (nothing.cased or nothing.closed or nothing.separator or nothing.ties_forbidden)
    assert nothing.values == {} and nothing.marks == ()
