"""The error spent over a sequential design's looks (stats.looks)."""

from __future__ import annotations

import math

import pytest

from specverdict.stats.looks import (
    declared_looks,
    look_share,
    look_size,
    look_sizes,
    pocock_spending,
)


@pytest.mark.parametrize("declared", [1, 2, 3, 8, 25])
def test_the_shares_of_the_declared_looks_add_up_to_all_of_alpha(declared: int) -> None:
    shares = [look_share(j, declared).share for j in range(1, declared + 1)]
    assert math.isclose(sum(shares), 1.0, rel_tol=1e-12)
    assert all(s > 0 for s in shares)


def test_pocock_spending_front_loads_and_matches_its_closed_form() -> None:
    # f(t) = ln(1 + (e - 1) t): f(0) = 0, f(1) = 1, f(1/2) = ln((1 + e) / 2)
    assert pocock_spending(0.0) == 0.0
    assert math.isclose(pocock_spending(1.0), 1.0)
    assert math.isclose(pocock_spending(0.5), math.log((1 + math.e) / 2))
    shares = [look_share(j, 8).share for j in range(1, 9)]
    assert shares == sorted(shares, reverse=True)  # earlier looks get more than later ones
    assert shares[0] > 1 / 8 > shares[-1]  # unlike Bonferroni's equal eighths
    assert math.isclose(shares[0], math.log1p((math.e - 1) / 8))


def test_a_look_past_the_declared_ones_has_nothing_left() -> None:
    share = look_share(4, 3)
    assert share.share == 0.0 and share.beyond
    assert "past the 3 declared" in share.describe()
    assert not look_share(3, 3).beyond
    assert "look 3 of 3" in look_share(3, 3).describe()


def test_looks_follow_the_batches_up_to_the_maximum() -> None:
    assert declared_looks(400, 50) == 8
    assert look_sizes(400, 50) == [50, 100, 150, 200, 250, 300, 350, 400]
    # a remainder under a batch joins the last look: no look spends a share on 10 samples
    assert declared_looks(130, 40) == 3
    assert look_sizes(130, 40) == [40, 80, 130]
    assert look_sizes(30, 40) == [30]
    # at concurrency 16 (blocks of 32, looks of at least 8 blocks) 400 samples are one look
    assert look_sizes(400, 256) == [400]
    assert look_sizes(512, 256) == [256, 512]


def test_a_design_recorded_under_the_older_count_reads_the_same_sizes() -> None:
    # K was ceil(N / B): 4 looks of 40 up to 130, the last one at 130
    assert [look_size(j, 4, 40, 130) for j in range(1, 5)] == [40, 80, 120, 130]
    assert [look_size(j, 3, 40, 130) for j in range(1, 4)] == look_sizes(130, 40)


@pytest.mark.parametrize(
    ("call", "word"),
    [
        (lambda: look_share(0, 3), "look index"),
        (lambda: look_share(1, 0), "declared looks"),
        (lambda: declared_looks(10, 0), "batch"),
        (lambda: pocock_spending(1.5), "information fraction"),
    ],
)
def test_bad_arguments_are_named(call: object, word: str) -> None:
    with pytest.raises(ValueError, match=word):
        call()  # type: ignore[operator]
