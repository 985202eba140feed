"""Prompt lookup (n-gram) semantics against a brute-force oracle."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from specverdict.reference.proposers import ngram_lookup


def oracle(tokens: list[int], k: int, lo: int, hi: int) -> list[int]:
    for n in range(min(hi, len(tokens) - 1), lo - 1, -1):
        suffix = tokens[len(tokens) - n :]
        for start in range(len(tokens) - n):  # earliest occurrence, not the suffix itself
            if tokens[start : start + n] == suffix:
                return tokens[start + n : start + n + k]
    return []


def test_longest_match_wins_and_the_earliest_occurrence_is_used() -> None:
    tokens = [1, 2, 3, 9, 2, 3, 8, 1, 2, 3]
    # n=3 suffix [1,2,3] occurs at 0 -> propose what followed it
    assert ngram_lookup(tokens, 3, 1, 3) == [9, 2, 3]
    # with n capped at 2, [2,3] first occurs at 1 -> same continuation
    assert ngram_lookup(tokens, 2, 2, 2) == [9, 2]


def test_no_match_proposes_nothing_and_near_the_end_fewer_than_k() -> None:
    assert ngram_lookup([1, 2, 3, 4], 3, 1, 3) == []
    assert ngram_lookup([5, 6, 5], 4, 1, 2) == [6, 5]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 3), min_size=1, max_size=40),
    st.integers(1, 8),
    st.integers(1, 4),
    st.integers(0, 3),
)
def test_matches_the_brute_force_oracle(tokens: list[int], k: int, lo: int, extra: int) -> None:
    assert ngram_lookup(tokens, k, lo, lo + extra) == oracle(tokens, k, lo, lo + extra)
