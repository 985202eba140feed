"""Spec-decode counters from a vLLM-shaped exposition (two data-parallel engines)."""

from __future__ import annotations

import pytest

from specverdict.engines.prometheus import parse_spec_counters

EXPOSITION = """\
# HELP vllm:spec_decode_num_drafts_total Number of spec decoding drafts.
# TYPE vllm:spec_decode_num_drafts_total counter
vllm:spec_decode_num_drafts_total{engine="0",model_name="m"} 10.0
vllm:spec_decode_num_drafts_total{engine="1",model_name="m"} 5.0
# HELP vllm:spec_decode_num_drafts_created Number of spec decoding drafts.
# TYPE vllm:spec_decode_num_drafts_created gauge
vllm:spec_decode_num_drafts_created{engine="0",model_name="m"} 1.7e+09
# HELP vllm:spec_decode_num_draft_tokens_total Number of draft tokens.
# TYPE vllm:spec_decode_num_draft_tokens_total counter
vllm:spec_decode_num_draft_tokens_total{engine="0",model_name="m"} 30.0
vllm:spec_decode_num_draft_tokens_total{engine="1",model_name="m"} 15.0
# HELP vllm:spec_decode_num_accepted_tokens_total Number of accepted tokens.
# TYPE vllm:spec_decode_num_accepted_tokens_total counter
vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="m"} 12.0
vllm:spec_decode_num_accepted_tokens_total{engine="1",model_name="m"} 6.0
# HELP vllm:spec_decode_num_accepted_tokens_per_pos_total Accepted tokens per draft position.
# TYPE vllm:spec_decode_num_accepted_tokens_per_pos_total counter
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="0"} 7.0
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="1"} 4.0
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="2"} 1.0
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="1",model_name="m",position="0"} 4.0
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="1",model_name="m",position="1"} 2.0
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="1",model_name="m",position="2"} 0.0
# HELP vllm:request_success_total Count of successfully processed requests.
# TYPE vllm:request_success_total counter
vllm:request_success_total{engine="0",finished_reason="stop",model_name="m"} 3.0
vllm:request_success_total{engine="0",finished_reason="length",model_name="m"} 2.0
"""


def test_counters_are_summed_over_engines_and_created_samples_ignored() -> None:
    c = parse_spec_counters(EXPOSITION)
    assert (c.drafts, c.draft_tokens, c.accepted) == (15.0, 45.0, 18.0)
    assert c.accepted_per_pos == (11.0, 6.0, 1.0)
    assert c.requests == 5.0
    assert c.acceptance_rate == pytest.approx(18 / 45)
    assert c.mean_accepted_length == pytest.approx(1 + 18 / 15)
    # MAL = 1 + sum of per-position rates (docs/statistics.md section 5)
    assert c.mean_accepted_length == pytest.approx(
        1 + sum(a / c.drafts for a in c.accepted_per_pos)
    )


def test_deltas_and_a_server_without_speculation() -> None:
    before = parse_spec_counters(EXPOSITION)
    after = parse_spec_counters(EXPOSITION.replace("10.0", "20.0"))
    assert (after - before).drafts == 10.0
    empty = parse_spec_counters("")
    assert empty.acceptance_rate is None and empty.mean_accepted_length is None
