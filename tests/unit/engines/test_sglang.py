"""The SGLang adapter: launch flags, per-request acceptance, the server-cumulative fallback.

Pure unit tests: SGLang payloads are fixtures written after SGLang's source (cited where they
are defined), streamed through the real client over an in-process transport.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.model import Launch
from specverdict.campaign.spec import RunSpec
from specverdict.engines.client import StreamedResponse, stream
from specverdict.engines.sglang import SGLangAdapter, rank_accept_lengths, spec_gauges
from specverdict.records import MetricsSnapshot, SampleRecord
from specverdict.records.acceptance import per_request_summary
from tests.conftest import FIXTURES

ADAPTER = SGLangAdapter()
CAMPAIGN = """\
name: sglang-unit
engine: {{kind: sglang, base_url: "http://127.0.0.1:30000", reconfigure: between-runs}}
model: {{family: qwen3, served_name: qwen3-8b}}
quantization: {quantization}
candidates:
  - {candidate}
stages:
  function: {{suite: builtin-code@1, samples: {{first: 2}}}}
sampling: {{temperature: 0.0, max_tokens: 16, seed: 0}}
load: {{concurrency: [1]}}
"""


def specs(candidate: str, quantization: str = "bf16") -> tuple[RunSpec, ...]:
    """The baseline and the candidate's runs of a one-candidate campaign."""
    text = CAMPAIGN.format(candidate=candidate, quantization=quantization)
    return build_plan(parse_campaign(text, Path("x.yaml"))).runs


def argv(text: str) -> list[str]:
    return text.split()


def spec(candidate: str, quantization: str = "bf16") -> RunSpec:
    (run,) = specs(candidate, quantization)[1:]
    return run


# --- launch flags -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("candidate", "expected"),
    [
        (
            "{method: mtp, k: 3}",
            "--speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 "
            "--speculative-num-draft-tokens 4",
        ),
        (
            "{method: eagle, k: 1, draft: org/eagle-head}",
            "--speculative-algorithm EAGLE --speculative-num-steps 1 --speculative-eagle-topk 1 "
            "--speculative-num-draft-tokens 2 --speculative-draft-model-path org/eagle-head",
        ),
        (
            "{method: eagle3, k: 5, draft: org/eagle3-head}",
            "--speculative-algorithm EAGLE3 --speculative-num-steps 5 --speculative-eagle-topk 1 "
            "--speculative-num-draft-tokens 6 --speculative-draft-model-path org/eagle3-head",
        ),
        (
            "{method: draft_model, k: 4, draft: org/small, draft_quantization: fp8}",
            "--speculative-algorithm STANDALONE --speculative-num-steps 4 "
            "--speculative-eagle-topk 1 --speculative-num-draft-tokens 5 "
            "--speculative-draft-model-path org/small --speculative-draft-model-quantization fp8",
        ),
        # NGRAM ignores steps/topk: the window holds the verified root and k drafts
        ("{method: ngram, k: 7}", "--speculative-algorithm NGRAM --speculative-num-draft-tokens 8"),
        # DFLASH's block (verify window, root included) is --speculative-num-draft-tokens
        (
            "{method: dflash, k: 15, draft: z-lab/Qwen3-8B-DFlash-b16}",
            "--speculative-algorithm DFLASH --speculative-num-draft-tokens 16 "
            "--speculative-draft-model-path z-lab/Qwen3-8B-DFlash-b16",
        ),
        # DSPARK's block size is gamma, the number of proposed drafts
        (
            "{method: dspark, k: 5}",
            "--speculative-algorithm DSPARK --speculative-dspark-block-size 5",
        ),
    ],
)
def test_each_method_translates_to_sglang_flags(candidate: str, expected: str) -> None:
    assert ADAPTER.speculative_args(spec(candidate)) == argv(expected)


def test_k_sets_steps_and_draft_tokens_for_every_value() -> None:
    runs = specs("{method: eagle3, k: [2, 6], draft: org/h}")[1:]
    got = [ADAPTER.speculative_args(r) for r in runs]
    assert [a[a.index("--speculative-num-steps") + 1] for a in got] == ["2", "6"]
    assert [a[a.index("--speculative-num-draft-tokens") + 1] for a in got] == ["3", "7"]


def test_a_dtype_draft_quantization_means_an_unquantized_draft() -> None:
    # without the flag SGLang gives the draft the target's --quantization; "unquant" opts out
    args = ADAPTER.speculative_args(
        spec("{method: eagle, k: 2, draft: d, draft_quantization: bf16}")
    )
    assert args[-2:] == ["--speculative-draft-model-quantization", "unquant"]


def test_params_pass_through_and_replace_derived_options() -> None:
    candidate = (
        "{method: eagle3, k: 3, draft: d, params: {eagle_topk: 4, num_draft_tokens: 8, "
        "accept_threshold_single: 0.9, adaptive: true, use_rejection_sampling: false, "
        "enable_multi_layer_eagle: true, speculative_token_map: /maps/t.pt, future_knob: x}}"
    )
    args = ADAPTER.speculative_args(spec(candidate))
    assert args == argv(
        "--speculative-algorithm EAGLE3 --speculative-num-steps 3 --speculative-eagle-topk 4 "
        "--speculative-num-draft-tokens 8 --speculative-draft-model-path d "
        "--speculative-accept-threshold-single 0.9 --speculative-adaptive "
        "--enable-multi-layer-eagle --speculative-future-knob x "
        "--speculative-token-map /maps/t.pt"
    )


def test_ngram_params_use_their_server_args_names() -> None:
    args = ADAPTER.speculative_args(
        spec("{method: ngram, k: 4, params: {ngram_max_bfs_breadth: 1, ngram_match_type: PROB}}")
    )
    assert args[-4:] == [
        "--speculative-ngram-match-type",
        "PROB",
        "--speculative-ngram-max-bfs-breadth",
        "1",
    ]


@pytest.mark.parametrize("method", ["medusa", "suffix"])
def test_unsupported_methods_are_refused_naming_the_supported_ones(method: str) -> None:
    match = f"engine 'sglang' does not implement speculation method '{method}'"
    with pytest.raises(ValueError, match=match) as err:
        ADAPTER.speculative_args(spec(f"{{method: {method}, k: 2}}"))
    for name in ("mtp", "eagle", "eagle3", "draft_model", "ngram", "dflash", "dspark"):
        assert name in str(err.value)


def test_builtin_command_with_dtype_or_quantization() -> None:
    baseline, mtp = specs("{method: mtp, k: 2}")
    cmd = ADAPTER.builtin_command(baseline, "/models/qwen3", "127.0.0.1", 30001, "/runs/r1")
    assert cmd == argv(
        "python -m sglang.launch_server --model-path /models/qwen3 --host 127.0.0.1 "
        "--port 30001 --served-model-name qwen3-8b --dtype bfloat16 --enable-metrics"
    )
    cmd = ADAPTER.builtin_command(mtp, "/models/qwen3", "127.0.0.1", 30001, "/runs/r1")
    assert cmd is not None and cmd[-8:] == ADAPTER.speculative_args(mtp)
    (fp8,) = specs("{method: mtp, k: 2}", quantization="fp8")[1:]
    cmd = ADAPTER.builtin_command(fp8, "/models/qwen3-fp8", "127.0.0.1", 30001, ".")
    assert cmd is not None and cmd[cmd.index("--quantization") + 1] == "fp8"
    assert "--dtype" not in cmd


def test_launch_template_receives_the_speculative_args() -> None:
    launch = Launch(command="sglang serve --model-path {model} --port {port} {speculative_args}")
    cmd = ADAPTER.launch_command(spec("{method: ngram, k: 3}"), launch, 8000, "/m")
    assert cmd == argv(
        "sglang serve --model-path /m --port 8000 "
        "--speculative-algorithm NGRAM --speculative-num-draft-tokens 4"
    )


# --- per-request acceptance ---------------------------------------------------------------------


def streamed(fixture: str, seen: list[dict[str, Any]]) -> StreamedResponse:
    """The fixture SSE body streamed through the real client; request bodies land in ``seen``."""
    body = (FIXTURES / "sglang" / fixture).read_bytes()

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})

    async def main() -> StreamedResponse:
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            payload = {"model": "qwen3-8b", "messages": [{"role": "user", "content": "add"}]}
            payload |= ADAPTER.request_extras(spec("{method: eagle, k: 3, draft: d}"))
            return await stream(client, "http://sglang/v1/chat/completions", payload)

    return asyncio.run(main())


def test_streamed_spec_tokens_details_become_the_canonical_counts() -> None:
    seen: list[dict[str, Any]] = []
    resp = streamed("chat_stream_spec_details.sse", seen)
    assert seen[0]["return_spec_tokens_details"] is True
    assert resp.status == "ok" and resp.text == "def add(a, b):\n    return a + b\n"
    assert resp.completion_tokens == 43
    acc = ADAPTER.per_request_acceptance(resp.extras)
    assert acc is not None
    assert acc["num_spec_steps"] == 16
    assert acc["num_draft_tokens"] == 48
    assert acc["num_accepted_draft_tokens"] == 26
    assert acc["acceptance_histogram"] == [3, 4, 5, 4]
    assert acc["raw"]["spec_accept_length"] == 2.6875
    record = SampleRecord(run_id="r", sample_id="s", status="ok", acceptance=acc)
    summary = per_request_summary([record])
    assert summary is not None and summary.source == "per-request"
    assert summary.acceptance_rate == 26 / 48
    # 1 + accepted / steps: SGLang's spec_accept_length (43 / 16) also counts the prefill token
    assert summary.mean_accepted_length == 1 + 26 / 16
    assert summary.accepted_per_pos == (13.0, 9.0, 4.0)


def test_the_baseline_asks_for_nothing() -> None:
    assert ADAPTER.request_extras(specs("{method: mtp, k: 2}")[0]) == {}


@pytest.mark.parametrize(
    "extras",
    [
        {},  # a server without return_spec_tokens_details sends no sglext
        {"sglext": {"cached_tokens_details": {"device": 4, "host": 0}}},
        {"sglext": {"spec_tokens_details": []}},
        {"sglext": {"spec_tokens_details": {"spec_verify_ct": 3}}},  # counts missing
    ],
)
def test_answers_without_spec_counts_give_no_acceptance(extras: dict[str, Any]) -> None:
    assert ADAPTER.per_request_acceptance(extras) is None


def test_parallel_samples_report_a_list_and_the_first_choice_is_taken() -> None:
    first = {"spec_num_correct_drafts": 5, "spec_num_proposed_drafts": 9, "spec_verify_ct": 3}
    second = {"spec_num_correct_drafts": 1, "spec_num_proposed_drafts": 9, "spec_verify_ct": 3}
    acc = ADAPTER.per_request_acceptance({"sglext": {"spec_tokens_details": [first, second]}})
    assert acc is not None and acc["num_accepted_draft_tokens"] == 5
    assert acc["acceptance_histogram"] is None


# --- /get_server_info and summaries -------------------------------------------------------------


def server_info(*ranks: float | None) -> dict[str, Any]:
    """A /get_server_info body as SGLang builds it: ``dataclasses.asdict(server_args)``,
    ``scheduler_info`` and one ``internal_states`` entry per data-parallel rank, from
    ``Scheduler.get_internal_state`` (``avg_spec_accept_length`` =
    ``cum_spec_accept_length / cum_spec_accept_count``, left out until the rank verified a
    draft). After sgl-project/sglang python/sglang/srt/entrypoints/http_server.py
    (``get_server_info``) and python/sglang/srt/managers/scheduler.py (``get_internal_state``)."""
    states = []
    for value in ranks:
        state: dict[str, Any] = {
            "last_gen_throughput": 812.4,
            "memory_usage": {"weight": 15.3, "kvcache": 40.1, "token_capacity": 412384},
        }
        if value is not None:
            state["avg_spec_accept_length"] = value
        states.append(state)
    return {
        "model_path": "/models/qwen3",
        "served_model_name": "qwen3-8b",
        "dp_size": len(ranks),
        "speculative_algorithm": "EAGLE",  # NEXTN is resolved to EAGLE
        "speculative_draft_model_path": "/models/qwen3",
        "speculative_num_steps": 3,
        "speculative_eagle_topk": 1,
        "speculative_num_draft_tokens": 4,
        "speculative_adaptive": False,
        "speculative_token_map": None,
        "max_total_num_tokens": 412384,
        "internal_states": states,
        "version": "0.5.19",
    }


def snap(phase: str, payload: dict[str, Any]) -> MetricsSnapshot:
    return MetricsSnapshot(
        run_id="r", phase=phase, taken_at=0.0, text=json.dumps(payload), source="/get_server_info"
    )


def test_server_info_is_read_per_data_parallel_rank() -> None:
    assert rank_accept_lengths(server_info(2.61, None, 2.58)) == [2.61, None, 2.58]
    assert rank_accept_lengths({"internal_states": [{"avg_spec_accept_length": 0.0}]}) == [None]
    assert rank_accept_lengths({"version": "x"}) == []


def samples(*acceptances: dict[str, Any] | None) -> list[SampleRecord]:
    return [
        SampleRecord(run_id="r", sample_id=f"s{i}", status="ok", acceptance=a)
        for i, a in enumerate(acceptances)
    ]


COUNTS = {"num_draft_tokens": 12, "num_accepted_draft_tokens": 7, "num_spec_steps": 4}


def test_per_request_counts_come_first() -> None:
    run = spec("{method: mtp, k: 3}")
    snapshots = {"after /get_server_info": snap("after", server_info(2.9))}
    acc = ADAPTER.summarize_acceptance(run, samples(COUNTS, COUNTS), snapshots, 2)
    assert acc.source == "per-request" and acc.valid
    assert acc.draft_tokens == 24 and acc.accepted == 14 and acc.drafts == 8


def test_without_per_request_counts_the_cumulative_average_is_reported_not_trusted() -> None:
    run = spec("{method: mtp, k: 3}")
    snapshots = {
        "before /get_server_info": snap("before", server_info(2.5, 2.4)),
        "after /get_server_info": snap("after", server_info(2.61, 2.58)),
    }
    # one answer lacked the details: per-request counts cover only part of the run
    acc = ADAPTER.summarize_acceptance(run, samples(COUNTS, None), snapshots, 2)
    assert acc.source == "server-cumulative" and not acc.valid
    assert acc.mean_accepted_length is None and acc.draft_tokens is None
    assert acc.why is not None and "since server start" in acc.why
    assert "after the run: rank 0: 2.610, rank 1: 2.580" in acc.why
    assert "before the run: rank 0: 2.500, rank 1: 2.400" in acc.why


def test_a_server_that_verified_nothing_before_the_run_is_said_so() -> None:
    snapshots = {
        "before /get_server_info": snap("before", server_info(None)),
        "after /get_server_info": snap("after", server_info(2.2)),
    }
    acc = ADAPTER.summarize_acceptance(spec("{method: mtp, k: 1}"), samples(None), snapshots, 1)
    assert acc.source == "server-cumulative" and not acc.valid
    assert acc.why is not None and "verified no draft before the run" in acc.why


@pytest.mark.parametrize(
    "snapshots",
    [
        {},
        {"after /get_server_info": snap("after", server_info(None, None))},
        {"after /get_server_info": snap("after", {"internal_states": "n/a"})},
        {
            "after /get_server_info": MetricsSnapshot(
                run_id="r", phase="after", taken_at=0.0, text="<html>", source="/get_server_info"
            )
        },
    ],
)
def test_nothing_to_report_is_source_none(snapshots: dict[str, MetricsSnapshot]) -> None:
    acc = ADAPTER.summarize_acceptance(spec("{method: ngram, k: 3}"), samples(None), snapshots, 1)
    assert acc.source == "none" and not acc.valid and acc.why


def test_a_baseline_whose_answers_carry_spec_counts_is_seen_drafting() -> None:
    baseline = specs("{method: mtp, k: 3}")[0]
    snapshots = {"after /get_server_info": snap("after", server_info(2.6))}
    acc = ADAPTER.summarize_acceptance(baseline, samples(COUNTS), snapshots, 1)
    assert acc.source == "per-request" and acc.valid and acc.drafted
    assert acc.why == "no speculation declared"
    plain = ADAPTER.summarize_acceptance(baseline, samples(None), {}, 1)
    assert plain.source == "none" and plain.drafted is None


# --- probe --------------------------------------------------------------------------------------

#: after sgl-project/sglang python/sglang/srt/metrics/collector.py: Gauges with
#: multiprocess_mode="mostrecent", labelled per rank
METRICS = """\
# HELP sglang:spec_accept_length Mean acceptance length of speculative decoding (accepted drafts + bonus token per forward).
# TYPE sglang:spec_accept_length gauge
sglang:spec_accept_length{dp_rank="0",engine_type="unified",model_name="qwen3-8b",pp_rank="0",tp_rank="0"} 2.75
sglang:spec_accept_length{dp_rank="1",engine_type="unified",model_name="qwen3-8b",pp_rank="0",tp_rank="0"} 2.5
# HELP sglang:spec_accept_rate Speculative acceptance rate (`accepted drafts / proposed drafts` in batch).
# TYPE sglang:spec_accept_rate gauge
sglang:spec_accept_rate{dp_rank="0",engine_type="unified",model_name="qwen3-8b",pp_rank="0",tp_rank="0"} 0.58
# HELP sglang:num_requests_total The number of requests.
# TYPE sglang:num_requests_total counter
sglang:num_requests_total{model_name="qwen3-8b"} 120.0
"""


def probe(metrics_status: int = 200) -> dict[str, Any]:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/get_server_info":
            return httpx.Response(200, json=server_info(2.6, 2.55))
        return httpx.Response(metrics_status, text=METRICS)

    async def main() -> dict[str, Any]:
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            return await ADAPTER.probe(client, "http://sglang")

    return asyncio.run(main())


def test_probe_records_settings_ranks_and_last_interval_gauges() -> None:
    found = probe()
    assert found["/get_server_info"] == "ok" and found["/metrics"] == "ok"
    assert found["speculative_settings"] == {
        "speculative_algorithm": "EAGLE",
        "speculative_draft_model_path": "/models/qwen3",
        "speculative_eagle_topk": 1,
        "speculative_num_draft_tokens": 4,
        "speculative_num_steps": 3,
    }
    assert found["dp_size"] == 2 and found["avg_spec_accept_length"] == [2.6, 2.55]
    # the package version in /get_server_info is the engine's version
    assert ADAPTER.version_of(found) == found["version"] is not None
    assert found["spec_gauges_last_interval"] == {
        "sglang:spec_accept_length": [2.75, 2.5],
        "sglang:spec_accept_rate": [0.58],
    }


def test_probe_without_metrics_says_why() -> None:
    found = probe(metrics_status=404)
    assert found["/metrics"].startswith("HTTP 404")
    assert "spec_gauges_last_interval" not in found


def test_gauges_ignore_other_series_and_bad_text() -> None:
    assert spec_gauges("sglang:num_requests_total 3\n") == {}
    assert spec_gauges("not { prometheus") == {}
