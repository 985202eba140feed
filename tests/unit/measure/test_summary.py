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


def test_the_summary_gives_the_percentiles_serving_benchmarks_report() -> None:
    """p50/p90/p95/p99 of TTFT, TPOT, ITL and end-to-end latency, and request throughput, from
    exact arrivals: every figure checked against a hand count."""
    import numpy as np

    from specverdict.measure.summary import summarize_samples

    samples = []
    for i in range(100):
        arrivals = tuple(0.01 * (i + 1) + 0.002 * k for k in range(5))  # four gaps of 2 ms
        samples.append(
            SampleRecord(
                run_id="r",
                sample_id=str(i),
                status="ok",
                completion_tokens=9,
                ttft_s=arrivals[0],
                e2e_s=arrivals[-1],
                chunk_arrivals_s=arrivals,
            )
        )
    samples.append(SampleRecord(run_id="r", sample_id="x", status="error", error="HTTP 500"))
    s = summarize_samples(samples, wall_s=4.0)
    ttfts = [0.01 * (i + 1) for i in range(100)]
    assert s.ttft_p50_s == np.percentile(ttfts, 50) and s.ttft_p99_s == np.percentile(ttfts, 99)
    assert s.ttft_p90_s == np.percentile(ttfts, 90)
    assert s.itl_p50_s is not None and s.itl_p99_s is not None
    assert abs(s.itl_p50_s - 0.002) < 1e-12 and abs(s.itl_p99_s - 0.002) < 1e-12
    assert s.e2e_p99_s is not None and abs(s.e2e_p99_s - (np.percentile(ttfts, 99) + 0.008)) < 1e-12
    assert s.tpot_p99_s is not None and abs(s.tpot_p99_s - 0.001) < 1e-12  # 8 ms over 8 tokens
    assert s.requests_per_s == 100 / 4.0 and s.tokens_per_s == 900 / 4.0
    assert s.errored == 1
