"""The demo job end to end: real servers, real requests, acceptance cross-checked."""

from __future__ import annotations

from pathlib import Path

from specverdict.demo import CONFIGS, PROMPTS, run_demo, write_report


def test_demo_runs_every_config_and_writes_a_report(tmp_path: Path) -> None:
    rows = run_demo(max_tokens=12)
    assert [r.label for r in rows] == [label for label, _ in CONFIGS]
    for row in rows:
        assert row.failed == 0 and row.requests == len(PROMPTS)
        assert row.counters_match_requests
        assert row.tokens_per_s > 0
    assert rows[0].acceptance_rate is None  # no speculation, no acceptance figure
    for row in rows[1:]:
        assert row.identical_to_baseline == len(PROMPTS)  # greedy speculation is lossless
        assert row.acceptance_rate is not None
    report = write_report(rows, tmp_path).read_text()
    assert "| mtp k=2 |" in report
