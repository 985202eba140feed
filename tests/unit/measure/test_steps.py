"""Acceptance against the output position, from per-step arrays: exact counts on hand-made
requests, and the invariants on random ones."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from specverdict.measure.steps import (
    StepBin,
    bin_tokens_for,
    step_curve,
    step_curves,
    step_positions,
)
from specverdict.records import RequestAcceptance, SampleRecord


def rec(
    sid: str,
    accepted: list[int] | None,
    drafted: list[int] | None,
    completion_tokens: int | None = None,
    status: str = "ok",
) -> SampleRecord:
    acceptance = None
    if accepted is not None and drafted is not None:
        acceptance = {
            "num_draft_tokens": sum(drafted),
            "num_accepted_draft_tokens": sum(accepted),
            "num_spec_steps": len(accepted),
            "per_step_accepted": accepted,
            "per_step_drafted": drafted,
        }
    return SampleRecord.model_validate(
        {
            "run_id": "r",
            "sample_id": sid,
            "status": status,
            "completion_tokens": completion_tokens,
            "acceptance": acceptance,
        }
    )


# r1: steps at positions 1, 4, 5 (1 + Σ(a+1) = 7 tokens: its whole output, so exact)
R1 = rec("r1", [2, 0, 1], [2, 2, 2], completion_tokens=7)
# r2: steps at positions 1, 3 covering 5 tokens of 10 (n-gram misses between them): not exact
R2 = rec("r2", [1, 1], [2, 2], completion_tokens=10)
FAILED = rec("r3", [2, 2], [2, 2], completion_tokens=5, status="error")
NO_ARRAYS = SampleRecord.model_validate(
    {
        "run_id": "r",
        "sample_id": "r4",
        "status": "ok",
        "acceptance": {"num_draft_tokens": 4, "num_accepted_draft_tokens": 1},
    }
)
MALFORMED = SampleRecord.model_validate(
    {
        "run_id": "r",
        "sample_id": "r5",
        "status": "ok",
        "acceptance": {
            "num_draft_tokens": 4,
            "num_accepted_draft_tokens": 1,
            "per_step_accepted": [3],  # more than the step drafted
            "per_step_drafted": [2],
        },
    }
)


def test_positions_advance_by_each_steps_accepted_drafts_and_its_bonus_token() -> None:
    assert step_positions([2, 0, 1]) == [1, 4, 5]
    assert step_positions([]) == []


def test_bins_of_two_tokens_sum_accepted_and_drafted_over_requests() -> None:
    curve = step_curve([R1, R2, FAILED, NO_ARRAYS, MALFORMED], bin_tokens=2)
    assert curve.bins == (
        # position 1 of r1 (accepted 2 of 2) and of r2 (1 of 2)
        StepBin(start=0, end=2, steps=2, drafted=4, accepted=3, requests=2),
        # position 3 of r2
        StepBin(start=2, end=4, steps=1, drafted=2, accepted=1, requests=1),
        # positions 4 and 5 of r1: two steps, one request
        StepBin(start=4, end=6, steps=2, drafted=4, accepted=1, requests=1),
    )
    assert [b.rate for b in curve.bins] == [0.75, 0.5, 0.25]
    # the failed request is left out; the one without arrays and the malformed one are counted
    assert (curve.requests, curve.exact, curve.without) == (2, 1, 2)
    assert curve.bin_tokens == 2


def test_bins_of_one_token_are_the_steps_themselves() -> None:
    curve = step_curve([R1, R2], bin_tokens=1)
    assert [(b.start, b.accepted, b.drafted, b.requests) for b in curve.bins] == [
        (1, 3, 4, 2),
        (3, 1, 2, 1),
        (4, 0, 2, 1),
        (5, 1, 2, 1),
    ]


def test_a_request_without_a_completion_count_is_not_exact() -> None:
    curve = step_curve([rec("x", [1], [1])], bin_tokens=4)
    assert (curve.requests, curve.exact) == (1, 0)


def test_no_per_step_arrays_is_an_empty_curve_that_counts_them() -> None:
    curve = step_curve([NO_ARRAYS, rec("b", None, None)], bin_tokens=4)
    assert curve.bins == () and (curve.requests, curve.without) == (0, 2)
    with pytest.raises(ValueError, match="bin_tokens"):
        step_curve([R1], bin_tokens=0)


def test_one_curve_per_slice_in_the_slices_order() -> None:
    curves = step_curves([R1, R2], {"long": {"r2"}, "short": {"r1", "elsewhere"}}, bin_tokens=8)
    assert list(curves) == ["long", "short"]
    assert curves["long"].bins == (
        StepBin(start=0, end=8, steps=2, drafted=4, accepted=2, requests=1),
    )
    assert curves["short"].bins == (
        StepBin(start=0, end=8, steps=3, drafted=6, accepted=3, requests=1),
    )


def test_the_bin_width_is_the_smallest_power_of_two_within_the_bin_count() -> None:
    # the last step begins at position 5 (r1)
    assert bin_tokens_for([R1, R2]) == 1
    assert bin_tokens_for([R1, R2], most=3) == 2  # bins 0-1, 2-3, 4-5
    assert bin_tokens_for([R1, R2], most=2) == 4
    assert bin_tokens_for([NO_ARRAYS]) == 1


@st.composite
def requests(draw: st.DrawFn) -> list[SampleRecord]:
    out = []
    for i in range(draw(st.integers(0, 6))):
        drafted = draw(st.lists(st.integers(0, 5), max_size=30))
        accepted = [draw(st.integers(0, d)) for d in drafted]
        out.append(rec(str(i), accepted, drafted, draw(st.none() | st.integers(1, 200))))
    return out


@settings(max_examples=200, deadline=None)
@given(requests(), st.integers(1, 40))
def test_binning_keeps_every_step_and_token(samples: list[SampleRecord], width: int) -> None:
    curve = step_curve(samples, width)
    parsed = [RequestAcceptance.parse(s) for s in samples]
    arrays = [(a.per_step_accepted or (), a.per_step_drafted or ()) for a in parsed]
    assert sum(b.steps for b in curve.bins) == sum(len(a) for a, _ in arrays)
    assert sum(b.accepted for b in curve.bins) == sum(sum(a) for a, _ in arrays)
    assert sum(b.drafted for b in curve.bins) == sum(sum(d) for _, d in arrays)
    assert all(0 < b.requests <= curve.requests and b.accepted <= b.drafted for b in curve.bins)
    assert all(b.end - b.start == width for b in curve.bins)
    assert [b.start for b in curve.bins] == sorted({b.start for b in curve.bins})
    # the first bin holds every request's first step
    if curve.bins:
        assert curve.bins[0].requests == sum(bool(a) for a, _ in arrays)
    # at the width bin_tokens_for picks, there are at most that many bins
    assert len(step_curve(samples, bin_tokens_for(samples, most=5)).bins) <= 5
