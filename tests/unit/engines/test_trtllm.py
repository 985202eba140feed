"""The TensorRT-LLM adapter: options YAML, launch flags, and acceptance from iteration stats.

Payload formats follow NVIDIA/TensorRT-LLM:
- ``/metrics`` answers a JSON list of queued iteration stats and empties the queue:
  ``tensorrt_llm/serve/openai_server.py`` (commit 00057725d9a6591f033e44f31c219e2426827bb7),
  ``get_iteration_stats`` draining ``generator.get_stats_async(2)``.
- Row keys and nesting: ``cpp/tensorrt_llm/executor/jsonSerialization.cpp`` (commit
  092229bb6e1ce6e7f0db2ba010b7fdaf654e1549), ``IterationStats`` / ``SpecDecodingStats`` /
  ``InflightBatchingStats`` / ``KvCacheStats``; the PyTorch backend adds ``attentionDpRank``
  to every row (``tensorrt_llm/executor/base_worker.py`` ``_stats_serializer``, commit
  000bd1a6c3231651a9abe3cc6e7494042b6d2228).
- Attention-DP rows: one per rank, rank 0's ``specDecodingStats`` copied into each, and
  ``numCompletedRequests`` zeroed on ranks other than 0
  (``tensorrt_llm/_torch/pyexecutor/adp_iter_stats.py``, commit
  0cedd9a0400c01cc94e01ea59d87bc6a81890cb7; ``tensorrt_llm/executor/iteration_stats.py``,
  commit b11790149e0e12e52ea82ed7a4d51b51ea98dce6).
- ``speculative_config`` names: ``tensorrt_llm/llmapi/llm_args.py`` and
  ``docs/source/features/speculative-decoding.md`` (commit
  04c8822cc42ffd1f5b6270874e5b9a64a20e7a58); the flag: ``tensorrt_llm/commands/serve.py``
  (commit 00209af149e7774406881a37283dce303571eb11).
The payloads below are written for these tests; only their shape follows the sources.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.model import Launch
from specverdict.campaign.spec import RunSpec
from specverdict.engines.trtllm import OPTIONS_FILE, TRTLLMAdapter
from specverdict.records import MetricsSnapshot

CAMPAIGN = """\
name: trt
engine: {{kind: trtllm, base_url: 'http://127.0.0.1:8000', reconfigure: between-runs}}
model: {{family: llama3, served_name: Llama-3.1-8B-Instruct}}
quantization: bf16
candidates:
  - {candidate}
stages:
  function: {{suite: builtin-code@1, samples: {{first: 2}}}}
sampling: {{temperature: 0.0, max_tokens: 16, seed: 0}}
load: {{concurrency: [1]}}
"""

# One /metrics body as the PyTorch backend sends it: two iterations of a speculative run
# (iteration 41 also finishes a request), keys in the server's order.
POLL_BODY = """[
 {"timestamp": "03-02-2026 10:15:01", "iter": 41, "iterLatencyMS": 21.7,
  "newActiveRequestsQueueLatencyMS": 0.0, "numNewActiveRequests": 0, "numActiveRequests": 2,
  "numQueuedRequests": 0, "numCompletedRequests": 1, "maxNumActiveRequests": 2048,
  "maxBatchSizeStatic": 0, "maxBatchSizeTunerRecommended": 0, "maxBatchSizeRuntime": 0,
  "maxNumTokensStatic": 0, "maxNumTokensTunerRecommended": 0, "maxNumTokensRuntime": 0,
  "gpuMemUsage": 61203283968, "cpuMemUsage": 0, "pinnedMemUsage": 0,
  "kvCacheStats": {"maxNumBlocks": 4096, "freeNumBlocks": 4040, "usedNumBlocks": 56,
   "tokensPerBlock": 32, "allocTotalBlocks": 56, "allocNewBlocks": 0, "reusedBlocks": 0,
   "missedBlocks": 0, "cacheHitRate": 0.0},
  "staticBatchingStats": null,
  "inflightBatchingStats": {"numScheduledRequests": 2, "numContextRequests": 0,
   "numGenRequests": 2, "numPausedRequests": 0, "numCtxTokens": 0, "microBatchId": 0,
   "avgNumDecodedTokensPerIter": 0.0},
  "specDecodingStats": {"numDraftTokens": 6, "numAcceptedTokens": 4,
   "numRequestsWithDraftTokens": 2, "acceptanceLength": 3.0, "iterLatencyMS": 0.0,
   "draftOverhead": 0.0},
  "attentionDpRank": 0},
 {"timestamp": "03-02-2026 10:15:01", "iter": 42, "iterLatencyMS": 19.2,
  "newActiveRequestsQueueLatencyMS": 0.0, "numNewActiveRequests": 0, "numActiveRequests": 1,
  "numQueuedRequests": 0, "numCompletedRequests": 0, "maxNumActiveRequests": 2048,
  "maxBatchSizeStatic": 0, "maxBatchSizeTunerRecommended": 0, "maxBatchSizeRuntime": 0,
  "maxNumTokensStatic": 0, "maxNumTokensTunerRecommended": 0, "maxNumTokensRuntime": 0,
  "gpuMemUsage": 61203283968, "cpuMemUsage": 0, "pinnedMemUsage": 0,
  "kvCacheStats": {"maxNumBlocks": 4096, "freeNumBlocks": 4041, "usedNumBlocks": 55,
   "tokensPerBlock": 32, "allocTotalBlocks": 56, "allocNewBlocks": 0, "reusedBlocks": 0,
   "missedBlocks": 0, "cacheHitRate": 0.0},
  "staticBatchingStats": null,
  "inflightBatchingStats": {"numScheduledRequests": 1, "numContextRequests": 0,
   "numGenRequests": 1, "numPausedRequests": 0, "numCtxTokens": 0, "microBatchId": 0,
   "avgNumDecodedTokensPerIter": 0.0},
  "specDecodingStats": {"numDraftTokens": 3, "numAcceptedTokens": 1,
   "numRequestsWithDraftTokens": 1, "acceptanceLength": 2.0, "iterLatencyMS": 0.0,
   "draftOverhead": 0.0},
  "attentionDpRank": 0}
]"""


def spec_for(candidate: str, run: int = 1) -> RunSpec:
    """Run 0 is the baseline, run 1 the candidate."""
    text = CAMPAIGN.format(candidate=candidate)
    return build_plan(parse_campaign(text, Path("x.yaml"))).runs[run]


def options(candidate: str) -> dict[str, Any]:
    files = TRTLLMAdapter().launch_files(spec_for(candidate))
    assert list(files) == [OPTIONS_FILE]
    loaded = yaml.safe_load(files[OPTIONS_FILE])
    assert isinstance(loaded, dict)
    return loaded


def row(
    iteration: int,
    drafted: int,
    accepted: int,
    with_drafts: int,
    completed: int = 0,
    rank: int | None = None,
    spec_stats: bool = True,
) -> dict[str, Any]:
    """An iteration row with the fields the summary reads, shaped as POLL_BODY's rows."""
    out: dict[str, Any] = {
        "iter": iteration,
        "iterLatencyMS": 20.0,
        "numCompletedRequests": completed,
        "inflightBatchingStats": {"numGenRequests": with_drafts, "microBatchId": 0},
        "specDecodingStats": {
            "numDraftTokens": drafted,
            "numAcceptedTokens": accepted,
            "numRequestsWithDraftTokens": with_drafts,
            "acceptanceLength": (accepted + with_drafts) / with_drafts if with_drafts else 0.0,
            "iterLatencyMS": 0.0,
            "draftOverhead": 0.0,
        }
        if spec_stats
        else None,
    }
    if rank is not None:
        out["attentionDpRank"] = rank
    return out


def snap(phase: str, body: str | list[dict[str, Any]]) -> MetricsSnapshot:
    text = body if isinstance(body, str) else json.dumps(body)
    return MetricsSnapshot(run_id="r", phase=phase, taken_at=0.0, text=text, source="/metrics")


def snaps(*items: MetricsSnapshot) -> dict[str, MetricsSnapshot]:
    return {s.key: s for s in items}


# --- the options YAML ------------------------------------------------------------------------


def test_baseline_options_only_turn_the_iteration_stats_on() -> None:
    files = TRTLLMAdapter().launch_files(spec_for("{method: mtp, k: 2}", run=0))
    assert yaml.safe_load(files[OPTIONS_FILE]) == {"enable_iter_perf_stats": True}


def test_mtp_writes_k_as_max_draft_len_and_as_the_older_layer_count() -> None:
    got = options("{method: mtp, k: 3, params: {use_relaxed_acceptance_for_thinking: false}}")
    assert got == {
        "enable_iter_perf_stats": True,
        "speculative_config": {
            "decoding_type": "MTP",
            "max_draft_len": 3,
            "num_nextn_predict_layers": 3,
            "use_relaxed_acceptance_for_thinking": False,
        },
    }


def test_eagle3_names_the_draft_checkpoint() -> None:
    got = options("{method: eagle3, k: 4, draft: yuhuili/EAGLE3-LLaMA3.1-Instruct-8B}")
    assert got["speculative_config"] == {
        "decoding_type": "Eagle3",
        "max_draft_len": 4,
        "speculative_model_dir": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B",
    }


def test_ngram_parameters_pass_through() -> None:
    got = options(
        "{method: ngram, k: 5, params: {max_matching_ngram_size: 4, is_public_pool: false}}"
    )
    assert got["speculative_config"] == {
        "decoding_type": "NGram",
        "max_draft_len": 5,
        "is_public_pool": False,
        "max_matching_ngram_size": 4,
    }


@pytest.mark.parametrize(
    ("candidate", "decoding_type"),
    [
        ("{method: draft_model, k: 3, draft: /models/llama-1b}", "Draft_Target"),
        ("{method: dflash, k: 8, draft: /models/dflash}", "DFlash"),
        ("{method: dspark, k: 7, draft: /models/dspark}", "DSpark"),
    ],
)
def test_draft_methods_get_their_decoding_type(candidate: str, decoding_type: str) -> None:
    config = options(candidate)["speculative_config"]
    assert config["decoding_type"] == decoding_type
    assert config["speculative_model_dir"].startswith("/models/")
    assert "num_nextn_predict_layers" not in config


def test_suffix_maps_to_the_suffix_automaton_drafter() -> None:
    got = options("{method: suffix, k: 4}")
    assert got["speculative_config"] == {"decoding_type": "SA", "max_draft_len": 4}


def test_params_override_the_mapped_fields_and_key_order_is_stable() -> None:
    files = TRTLLMAdapter().launch_files(
        spec_for("{method: ngram, k: 2, params: {max_draft_len: 6, is_keep_all: true}}")
    )
    body = files[OPTIONS_FILE]
    config = yaml.safe_load(body)["speculative_config"]
    assert config["max_draft_len"] == 6
    assert list(config) == ["decoding_type", "max_draft_len", "is_keep_all"]
    assert body.index("enable_iter_perf_stats") < body.index("speculative_config")
    assert (
        TRTLLMAdapter().launch_files(
            spec_for("{method: ngram, k: 2, params: {is_keep_all: true, max_draft_len: 6}}")
        )
        == files
    )


@pytest.mark.parametrize("method", ["eagle", "medusa"])
def test_unsupported_methods_name_the_supported_ones(method: str) -> None:
    spec = spec_for(f"{{method: {method}, k: 3, draft: /models/d}}")
    with pytest.raises(ValueError, match=rf"'{method}'.*implements: dflash, draft_model, dspark"):
        TRTLLMAdapter().launch_files(spec)
    with pytest.raises(ValueError, match="eagle3, mtp, ngram, suffix"):
        TRTLLMAdapter().speculative_args(spec, "/runs/r")


def test_draft_quantization_and_missing_drafts_are_refused() -> None:
    with pytest.raises(ValueError, match="draft quantization"):
        TRTLLMAdapter().launch_files(
            spec_for("{method: eagle3, k: 3, draft: /models/d, draft_quantization: fp8}")
        )
    with pytest.raises(ValueError, match="needs a draft"):
        TRTLLMAdapter().launch_files(spec_for("{method: eagle3, k: 3}"))


# --- launch flags ----------------------------------------------------------------------------


def test_the_options_flag_is_given_to_the_baseline_and_the_candidate() -> None:
    adapter = TRTLLMAdapter()
    for run in (0, 1):
        args = adapter.speculative_args(spec_for("{method: mtp, k: 2}", run), "/runs/r")
        assert args == ["--extra_llm_api_options", "/runs/r/extra_llm_api_options.yaml"]


def test_builtin_command_serves_on_the_pytorch_backend_with_the_options_file() -> None:
    spec = spec_for("{method: mtp, k: 2}")
    command = TRTLLMAdapter().launch_command(spec, None, 8123, "/ckpt/llama", Path("/runs/r"))
    assert command == [
        "trtllm-serve",
        "/ckpt/llama",
        "--host",
        "127.0.0.1",
        "--port",
        "8123",
        "--backend",
        "pytorch",
        "--extra_llm_api_options",
        "/runs/r/extra_llm_api_options.yaml",
    ]


def test_a_launch_template_gets_the_options_flag_in_its_placeholder() -> None:
    spec = spec_for("{method: mtp, k: 2}", run=0)
    launch = Launch(command="trtllm-serve {model} --port {port} --tp_size 2 {speculative_args}")
    command = TRTLLMAdapter().launch_command(spec, launch, 9000, "/ckpt", Path("/runs/b"))
    assert command[-2:] == ["--extra_llm_api_options", "/runs/b/extra_llm_api_options.yaml"]


# --- acceptance from iteration stats ---------------------------------------------------------


def test_iteration_stats_in_the_server_format_are_summed() -> None:
    spec = spec_for("{method: mtp, k: 3}")
    acc = TRTLLMAdapter().summarize_acceptance(
        spec,
        [],
        snaps(snap("poll-000000", POLL_BODY), snap("after", "[]")),
        segment_requests=1,
    )
    assert (acc.source, acc.valid, acc.why) == ("iteration-stats", True, None)
    assert (acc.drafts, acc.draft_tokens, acc.accepted) == (3.0, 9.0, 5.0)
    assert acc.acceptance_rate == 5 / 9
    assert acc.mean_accepted_length == 1 + 5 / 3
    assert acc.accepted_per_pos == ()


def test_the_same_iteration_read_twice_counts_once_and_warm_up_reads_are_left_out() -> None:
    spec = spec_for("{method: mtp, k: 3}")
    warm_up = [row(5, 30, 30, 10, completed=1)]
    first = [row(10, 3, 2, 1), row(11, 3, 3, 1)]
    second = [row(11, 3, 3, 1), row(12, 3, 0, 1, completed=1)]
    after = [row(13, 6, 6, 2, completed=1)]
    acc = TRTLLMAdapter().summarize_acceptance(
        spec,
        [],
        snaps(
            snap("before", warm_up),
            snap("poll-000000", first),
            snap("poll-000001", second),
            snap("after", after),
        ),
        segment_requests=2,
    )
    assert acc.valid, acc.why
    assert (acc.drafts, acc.draft_tokens, acc.accepted) == (5.0, 15.0, 11.0)


def test_only_rank_zero_rows_count_under_attention_data_parallelism() -> None:
    spec = spec_for("{method: mtp, k: 1}")
    rows = []
    for it in (7, 8):
        # rank 0's spec stats are copied into every rank's row, completions only into rank 0's;
        # the server sorts rows by rank, reversed here so that order cannot stand in for rank
        for rank in (3, 2, 1, 0):
            rows.append(row(it, 4, 3, 4, completed=(1 if rank == 0 else 0), rank=rank))
    # rows tagged with the producing rank (``rank``) are counted from rank 0 only, too
    rows.append({**row(9, 50, 50, 5, completed=1), "rank": 1})
    acc = TRTLLMAdapter().summarize_acceptance(
        spec, [], snaps(snap("poll-000000", rows)), segment_requests=2
    )
    assert acc.valid, acc.why
    assert (acc.drafts, acc.draft_tokens, acc.accepted) == (8.0, 8.0, 6.0)


def test_foreign_traffic_pollutes_the_window() -> None:
    spec = spec_for("{method: mtp, k: 3}")
    acc = TRTLLMAdapter().summarize_acceptance(
        spec, [], snaps(snap("poll-000000", POLL_BODY)), segment_requests=0
    )
    assert (acc.source, acc.valid, acc.polluted) == ("iteration-stats", False, True)
    assert acc.why is not None and acc.why.startswith("polluted")
    assert acc.acceptance_rate is None


def test_missed_iterations_make_the_window_incomplete_not_polluted() -> None:
    spec = spec_for("{method: mtp, k: 3}")
    acc = TRTLLMAdapter().summarize_acceptance(
        spec, [], snaps(snap("poll-000000", POLL_BODY)), segment_requests=4
    )
    assert (acc.valid, acc.polluted) == (False, False)
    assert acc.why is not None and acc.why.startswith("incomplete")


def test_a_speculative_run_without_spec_stats_is_invalid() -> None:
    spec = spec_for("{method: mtp, k: 3}")
    rows = [row(1, 0, 0, 0, completed=1, spec_stats=False)]
    acc = TRTLLMAdapter().summarize_acceptance(
        spec, [], snaps(snap("poll-000000", rows)), segment_requests=1
    )
    assert (acc.source, acc.valid) == ("iteration-stats", False)
    assert acc.why is not None and "specDecodingStats" in acc.why
    no_reads = TRTLLMAdapter().summarize_acceptance(spec, [], {}, segment_requests=1)
    assert (no_reads.source, no_reads.valid) == ("none", False)


def test_a_read_that_was_not_json_loses_its_iterations() -> None:
    spec = spec_for("{method: mtp, k: 3}")
    acc = TRTLLMAdapter().summarize_acceptance(
        spec,
        [],
        snaps(snap("poll-000000", POLL_BODY), snap("poll-000001", "Internal Server Error")),
        segment_requests=1,
    )
    assert not acc.valid
    assert acc.why is not None and "poll-000001" in acc.why


def test_the_baseline_has_no_acceptance_source() -> None:
    spec = spec_for("{method: mtp, k: 3}", run=0)
    acc = TRTLLMAdapter().summarize_acceptance(
        spec, [], snaps(snap("poll-000000", POLL_BODY)), segment_requests=1
    )
    # the poll carried specDecodingStats: this baseline's server speculates
    assert (acc.source, acc.valid, acc.drafted) == ("iteration-stats", True, True)
    quiet = TRTLLMAdapter().summarize_acceptance(spec, [], {}, segment_requests=1)
    assert (quiet.source, quiet.drafted) == ("none", None)


def test_adapter_polls_and_snapshots_the_iteration_stats() -> None:
    adapter = TRTLLMAdapter()
    assert adapter.kind == "trtllm"
    assert adapter.poll_paths == ("/metrics",)
    assert adapter.snapshot_paths == ("/metrics",)
    assert adapter.per_request_acceptance({"usage": {"completion_tokens": 3}}) is None


# --- probe -----------------------------------------------------------------------------------


def probe_with(handler: Any) -> dict[str, Any]:
    async def main() -> dict[str, Any]:
        transport = httpx.MockTransport(handler)
        async with httpx.AsyncClient(transport=transport) as client:
            return await TRTLLMAdapter().probe(client, "http://trt")

    return asyncio.run(main())


def test_probe_records_json_iteration_stats_and_the_version() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/version":
            return httpx.Response(200, json={"version": "1.3.0rc2"})
        if request.url.path == "/metrics":
            return httpx.Response(200, text=POLL_BODY)
        return httpx.Response(404)

    found = probe_with(handler)
    assert found["version"] == "1.3.0rc2"
    assert found["/metrics"] == "json"
    assert found["iterations_read"] == 2
    assert found["spec_decoding_stats_seen"] is True
    assert found["competing_stats_reader"] is False


def test_probe_reports_a_server_without_json_stats() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/metrics":
            return httpx.Response(200, text="# HELP x\nx 1\n")
        if request.url.path == "/prometheus/metrics":
            return httpx.Response(200, text="")
        return httpx.Response(404)

    found = probe_with(handler)
    assert found["version"] is None
    assert found["/metrics"] == "not a JSON list"
    assert found["competing_stats_reader"] is True
