"""Per-sample latency figures."""

from __future__ import annotations

from specverdict.measure.summary import tpot
from specverdict.records import SampleRecord


def rec(tokens: int, ttft: float, e2e: float) -> SampleRecord:
    return SampleRecord(
        run_id="r", sample_id="s", status="ok", completion_tokens=tokens, ttft_s=ttft, e2e_s=e2e
    )


def test_tpot_is_the_time_per_token_after_the_first() -> None:
    assert tpot(rec(11, 0.1, 0.6)) == 0.05
    assert tpot(rec(1, 0.1, 0.1)) is None  # one token: no inter-token time


def test_an_answer_that_arrived_in_one_event_has_no_tpot_not_a_zero_one() -> None:
    """Under speculation a short answer can come as one chunk: TTFT = e2e. A TPOT of 0 would
    crash the ratio of means (and mean an infinite speed); it is unmeasured."""
    assert tpot(rec(6, 0.2, 0.2)) is None
