"""Generator 4's character-class variants: each kind is made, the docstring's statement limits
them, and no space or mark is ever moved to a string's end."""

from __future__ import annotations

from specverdict.suites.function.charclass import KINDS, marks, string_variants, variants
from specverdict.suites.function.profile import Profile
from specverdict.suites.function.stated import Statement

OPEN = Statement(spaces=True)


def _by_kind(text: str, statement: Statement = OPEN) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for kind, variant in string_variants(text, statement):
        out.setdefault(kind, []).append(variant)
    return out


def test_case_of_one_letter_and_of_whole_words() -> None:
    found = _by_kind("aba")
    assert {"Aba", "abA"} <= set(found["case-one"])
    assert "prRk" in _by_kind("prrk")["case-one"]  # a second occurrence of a letter
    assert {"HELLO WORLD", "Hello World"} <= set(_by_kind("hello world")["case-word"])


def test_spaces_doubled_swapped_marked_and_put_inside_a_word() -> None:
    found = _by_kind("Exa   mple 1")
    assert {"Exa    mple 1", "Exa   mple  1"} <= set(found["space-double"])
    assert {"Exa\t  mple 1", "Exa   mple\n1"} <= set(found["space-swap"])
    assert {"Exa   mple,1", "Exa   mple-1"} <= set(found["space-mark"])
    assert _by_kind("aba")["space-inner"] == ["a ba"]
    assert "space-inner" not in _by_kind("ab cd")  # only a string without spaces


def test_spaces_at_the_ends_are_never_touched() -> None:
    for variant in (v for kind, v in string_variants(" ab cd ", OPEN) if kind.startswith("space")):
        assert variant.startswith(" ab") and variant.endswith("cd ")
    assert "word-repeat" not in _by_kind(" ab cd")


def test_marks_swapped_inside_words_and_never_at_an_end() -> None:
    statement = Statement(marks=("!", ".", "?"))
    assert marks(statement) == ("!", ".", "?", ",", "-", "'")
    swapped = _by_kind("I am. You are!", statement)["mark-swap"]
    assert "I am? You are!" in swapped and "I am! You are!" in swapped
    assert not any(v.endswith(("?", ".", ",")) for v in swapped)  # the final "!" stays
    assert "mark-swap" not in _by_kind("//")  # an operator is not punctuation in a text
    inner = _by_kind("well known John")["mark-inner"]
    assert {"well known Joh'n", "we-ll known John"} <= set(inner)
    assert _by_kind("xyx")["mark-token"] == ["x.x"] and _by_kind("x")["mark-token"] == ["."]


def test_digits_words_and_alphabet() -> None:
    assert _by_kind("5,1")["digit-grow"] == ["55,1"]
    assert set(_by_kind("three five")["word-repeat"]) == {"three three five", "five three five"}
    letters = set(_by_kind("EEEE")["alphabet"])
    assert {"ABCD", "BCDE", "WXYZ", "VWXY"} == letters  # both ends, at both parities
    assert _by_kind("aB")["alphabet"][0] == "aB"  # the word's own case pattern


def test_a_closed_alphabet_gets_no_new_character_class() -> None:
    closed = Statement(closed=True, spaces=True)
    kinds = {k for k, _ in string_variants("(()) ()", closed)}
    assert kinds <= {"case-one", "case-word", "space-double", "word-repeat"}
    assert "space-double" in kinds
    separated = Statement(spaces=True, separator=True)
    assert "space-swap" not in _by_kind("a b c", separated)
    assert "space-swap" not in _by_kind("a b c", Statement(spaces=True, whitespace=True))
    assert "space-mark" not in _by_kind("a b c", Statement())  # spaces not spoken of


def test_sequences_get_variants_of_their_first_and_last_string_item() -> None:
    profile = Profile()
    profile.add(["name", "of", "string"])
    made = [v for _, v in variants(["name", "of", "string"], profile, OPEN)]
    assert ["Name", "of", "string"] in made and ["name", "of", "strinG"] in made
    assert not any(v[1] != "of" for v in made)  # the middle item is left alone


def test_every_kind_is_named() -> None:
    made = {
        k for text in ("I am. So  fine 12", "aba", "EEEE") for k, _ in string_variants(text, OPEN)
    }
    assert made == set(KINDS), set(KINDS) ^ made
