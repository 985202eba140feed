"""Greedy identity: identical share and first divergent positions."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from specverdict.stats import Divergence, first_divergence, greedy_identity

tokens = st.lists(st.integers(0, 50), max_size=30)


@pytest.mark.parametrize(
    ("base", "cand", "position"),
    [
        ([1, 2, 3], [1, 2, 3], None),
        ([], [], None),
        ([1, 2, 3], [9, 2, 3], 0),
        ([1, 2, 3], [1, 2, 4], 2),
        ([1, 2, 3], [1, 2], 2),  # candidate stopped early
        ([1, 2], [1, 2, 3, 4], 2),  # candidate ran on
        ([], [7], 0),
    ],
)
def test_first_divergence(base: list[int], cand: list[int], position: int | None) -> None:
    assert first_divergence(base, cand) == position


@settings(deadline=None)
@given(prefix=tokens, tail_a=tokens, tail_b=tokens)
def test_first_divergence_is_where_the_common_prefix_ends(
    prefix: list[int], tail_a: list[int], tail_b: list[int]
) -> None:
    base, cand = prefix + tail_a, prefix + tail_b
    expected = len(prefix)
    while expected < min(len(base), len(cand)) and base[expected] == cand[expected]:
        expected += 1
    if base == cand:
        assert first_divergence(base, cand) is None
    else:
        assert first_divergence(base, cand) == expected
        assert base[:expected] == cand[:expected]


def test_identical_share_and_divergences() -> None:
    result = greedy_identity(
        [
            ([1, 2, 3], [1, 2, 3]),
            ([1, 2, 3], [1, 2]),
            (None, [1]),
            ([4, 5], [4, 6]),
            ([8], [8]),
        ]
    )
    assert result.n == 4 and result.identical == 2 and result.missing == 1
    assert result.share == pytest.approx(0.5)
    assert result.divergences == (Divergence(1, 2), Divergence(3, 1))
    assert result.decidable
    assert result.why.startswith("2 of 4 samples token-identical (50.0%), 1 missing")


def test_nothing_to_compare() -> None:
    result = greedy_identity([(None, None)])
    assert result.share is None and not result.decidable and result.missing == 1
