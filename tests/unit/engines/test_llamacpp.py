"""The llama.cpp adapter: ``llama-server`` flags, per-request ``timings``, ``/metrics`` fallback.

Fixture payloads in tests/fixtures/llamacpp follow ggml-org/llama.cpp at commit 3f545beccee6
(each file names the source functions it follows).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.spec import RunSpec
from specverdict.engines.client import StreamedResponse, stream
from specverdict.engines.llamacpp import LlamaCppAdapter, counter_delta, parse_llamacpp_counters
from specverdict.records import MetricsSnapshot, SampleRecord

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "llamacpp"

CAMPAIGN = """\
name: llamacpp-unit
engine: {{kind: llamacpp, base_url: "http://127.0.0.1:8080", reconfigure: between-runs}}
model: {{family: qwen3, served_name: qwen3-8b}}
quantization: q4_k_m
candidates:
  - {candidate}
stages:
  function: {{suite: builtin-code@1, samples: {{first: 2}}}}
"""

adapter = LlamaCppAdapter()


def plan_specs(candidate: str) -> list[RunSpec]:
    """Every run of a one-candidate campaign: the baseline first, then the candidate's runs."""
    text = CAMPAIGN.format(candidate=candidate)
    return list(build_plan(parse_campaign(text, Path("x.yaml"))).runs)


def spec_of(candidate: str) -> RunSpec:
    (spec,) = plan_specs(candidate)[1:]
    return spec


def baseline() -> RunSpec:
    return plan_specs("{method: mtp, k: 2}")[0]


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text()


# --- flags -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("candidate", "expected"),
    [
        (
            "{method: draft_model, k: 4, draft: /m/qwen3-0.6b-q8_0.gguf}",
            "--spec-type draft-simple --spec-draft-model /m/qwen3-0.6b-q8_0.gguf "
            "--spec-draft-n-max 4",
        ),
        ("{method: mtp, k: 2}", "--spec-type draft-mtp --spec-draft-n-max 2"),
        (
            "{method: eagle3, k: 5, draft: /m/eagle3.gguf}",
            "--spec-type draft-eagle3 --spec-draft-model /m/eagle3.gguf --spec-draft-n-max 5",
        ),
        (
            "{method: dflash, k: 9, draft: /m/dflash.gguf}",
            "--spec-type draft-dflash --spec-draft-model /m/dflash.gguf --spec-draft-n-max 9",
        ),
        (
            "{method: dspark, k: 7, draft: /m/dspark.gguf}",
            "--spec-type draft-dspark --spec-draft-model /m/dspark.gguf --spec-draft-n-max 7",
        ),
        ("{method: ngram, k: 8}", "--spec-type ngram-simple --spec-ngram-simple-size-m 8"),
        (
            "{method: ngram, k: 16, params: {spec_type: ngram-map-k}}",
            "--spec-type ngram-map-k --spec-ngram-map-k-size-m 16",
        ),
        (
            "{method: ngram, k: 6, params: {spec_type: ngram-map-k4v}}",
            "--spec-type ngram-map-k4v --spec-ngram-map-k4v-size-m 6",
        ),
        (
            "{method: ngram, k: 64, params: {spec_type: ngram-mod, spec_ngram_mod_n_match: 24}}",
            "--spec-type ngram-mod --spec-ngram-mod-n-max 64 --spec-ngram-mod-n-match 24",
        ),
        ("{method: ngram, k: 8, params: {spec_type: ngram-cache}}", "--spec-type ngram-cache"),
    ],
)
def test_each_method_becomes_its_spec_type_and_k_its_length_flag(
    candidate: str, expected: str
) -> None:
    assert adapter.speculative_args(spec_of(candidate)) == expected.split()


def test_k_sets_the_draft_length_of_each_run() -> None:
    runs = plan_specs("{method: mtp, k: [1, 3]}")[1:]
    assert [adapter.speculative_args(s)[-2:] for s in runs] == [
        ["--spec-draft-n-max", "1"],
        ["--spec-draft-n-max", "3"],
    ]


def test_method_params_pass_through_with_dashes_and_llama_style_booleans() -> None:
    spec = spec_of(
        "{method: draft_model, k: 3, draft: /m/d.gguf, params: "
        "{spec_draft_p_min: 0.75, spec_draft_ngl: all, spec_draft_backend_sampling: false, "
        "spec_draft_cpu_moe: true}}"
    )
    args = adapter.speculative_args(spec)
    assert args[:6] == [
        "--spec-type",
        "draft-simple",
        "--spec-draft-model",
        "/m/d.gguf",
        "--spec-draft-n-max",
        "3",
    ]
    # params follow in name order
    assert args[6:] == [
        "--no-spec-draft-backend-sampling",
        "--spec-draft-cpu-moe",
        "--spec-draft-ngl",
        "all",
        "--spec-draft-p-min",
        "0.75",
    ]


def test_the_baseline_has_no_speculative_flags() -> None:
    assert adapter.speculative_args(baseline()) == []


@pytest.mark.parametrize("method", ["eagle", "medusa", "suffix"])
def test_a_method_llama_cpp_lacks_is_refused_naming_the_supported_ones(method: str) -> None:
    with pytest.raises(ValueError) as err:
        adapter.speculative_args(spec_of(f"{{method: {method}, k: 3, draft: /m/d}}"))
    message = str(err.value)
    assert repr(method) in message
    for supported in ("draft_model", "dflash", "dspark", "eagle3", "mtp", "ngram"):
        assert supported in message


def test_draft_quantization_is_refused_since_the_gguf_decides() -> None:
    spec = spec_of("{method: draft_model, k: 3, draft: /m/d.gguf, draft_quantization: q4_0}")
    with pytest.raises(ValueError, match=r"no draft quantization flag.*'q4_0'.*GGUF"):
        adapter.speculative_args(spec)


@pytest.mark.parametrize(
    ("candidate", "message"),
    [
        # removed from llama.cpp: the server refuses them
        ("{method: mtp, k: 3, params: {draft_max: 8}}", "removed --draft-max"),
        ("{method: mtp, k: 3, params: {draft_min: 1}}", "removed --draft-min"),
        ("{method: ngram, k: 3, params: {spec_ngram_size_n: 4}}", "removed --spec-ngram-size-n"),
        # would repeat what k or draft set
        ("{method: mtp, k: 3, params: {spec_draft_n_max: 8}}", "repeats --spec-draft-n-max"),
        (
            "{method: draft_model, k: 3, draft: /m/d.gguf, params: {model_draft: /m/e.gguf}}",
            "repeats --model-draft",
        ),
        ("{method: mtp, k: 3, params: {spec_type: ngram-mod}}", "does not implement method 'mtp'"),
        ("{method: ngram, k: 3, draft: /m/d.gguf}", "takes no draft model"),
        ("{method: ngram, k: 4, params: {spec_type: ngram-cache}}", "always drafts 8"),
    ],
)
def test_flags_llama_cpp_would_refuse_or_double_are_errors(candidate: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        adapter.speculative_args(spec_of(candidate))


def test_builtin_command_serves_the_alias_with_metrics_and_speculation() -> None:
    spec = spec_of("{method: mtp, k: 2}")
    command = adapter.launch_command(spec, None, 8123, "/models/qwen3-8b-q4_k_m.gguf", Path("/r"))
    assert command == [
        "llama-server",
        "-m",
        "/models/qwen3-8b-q4_k_m.gguf",
        "--host",
        "127.0.0.1",
        "--port",
        "8123",
        "--alias",
        "qwen3-8b",
        "--metrics",
        "--spec-type",
        "draft-mtp",
        "--spec-draft-n-max",
        "2",
    ]
    assert adapter.builtin_command(baseline(), "m.gguf", "h", 1, ".") == [
        "llama-server",
        "-m",
        "m.gguf",
        "--host",
        "h",
        "--port",
        "1",
        "--alias",
        "qwen3-8b",
        "--metrics",
    ]


# --- per-request acceptance ------------------------------------------------------------------


def replay(sse: str, path: str = "/v1/chat/completions") -> StreamedResponse:
    """Stream a recorded SSE body through the real client, as the runner does."""

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.path == path
        return httpx.Response(
            200, content=sse.encode(), headers={"content-type": "text/event-stream"}
        )

    async def main() -> StreamedResponse:
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            return await stream(client, "http://llama" + path, {"model": "qwen3-8b"})

    return asyncio.run(main())


def test_a_streamed_chat_answer_yields_its_final_chunk_timings() -> None:
    resp = replay(fixture("chat_stream_draft.sse"))
    assert resp.status == "ok" and resp.completion_tokens == 40
    acc = adapter.per_request_acceptance(resp.extras)
    assert acc is not None
    assert acc["num_draft_tokens"] == 36
    assert acc["num_accepted_draft_tokens"] == 27
    assert acc["num_spec_steps"] is None  # llama-server sends no verify-step count per request
    assert acc["acceptance_histogram"] is None
    assert acc["raw"]["predicted_n"] == 40 and acc["raw"]["draft_n"] == 36


def test_a_streamed_text_completion_yields_its_final_chunk_timings() -> None:
    resp = replay(fixture("completion_stream_draft.sse"), "/v1/completions")
    assert resp.status == "ok" and resp.completion_tokens == 64
    acc = adapter.per_request_acceptance(resp.extras)
    assert acc is not None
    assert (acc["num_draft_tokens"], acc["num_accepted_draft_tokens"]) == (48, 41)


def test_timings_without_draft_fields_give_no_acceptance() -> None:
    resp = replay(fixture("chat_stream_no_draft.sse"))
    assert resp.status == "ok" and "timings" in resp.extras
    assert adapter.per_request_acceptance(resp.extras) is None
    assert adapter.per_request_acceptance({}) is None
    assert adapter.per_request_acceptance({"timings": {"draft_n": "many"}}) is None


# --- run acceptance --------------------------------------------------------------------------


def sample(
    i: int, completion_tokens: int | None, acceptance: dict[str, Any] | None, status: str = "ok"
) -> SampleRecord:
    return SampleRecord.model_validate(
        {
            "run_id": "r1",
            "sample_id": f"s{i}",
            "status": status,
            "completion_tokens": completion_tokens,
            "acceptance": acceptance,
        }
    )


def snaps(before: str, after: str) -> dict[str, MetricsSnapshot]:
    return {
        phase: MetricsSnapshot(run_id="r1", phase=phase, taken_at=float(n), text=text)
        for n, (phase, text) in enumerate((("before", before), ("after", after)))
    }


def fixture_snaps() -> dict[str, MetricsSnapshot]:
    return snaps(fixture("metrics_before.txt"), fixture("metrics_after.txt"))


def answered() -> list[SampleRecord]:
    """The two fixture answers, recorded as the runner records them."""
    chat = replay(fixture("chat_stream_draft.sse"))
    text = replay(fixture("completion_stream_draft.sse"), "/v1/completions")
    return [
        sample(i, r.completion_tokens, adapter.per_request_acceptance(r.extras))
        for i, r in enumerate((chat, text))
    ]


SPEC = spec_of("{method: mtp, k: 3}")


def test_per_request_sums_and_takes_steps_from_counters_that_match() -> None:
    got = adapter.summarize_acceptance(SPEC, answered(), fixture_snaps(), 2)
    assert got.source == "per-request" and got.valid and got.why is None
    assert (got.draft_tokens, got.accepted) == (84.0, 68.0)
    # the counters grew by exactly these drafts: their verify steps and positions are this run's
    assert got.drafts == 30.0
    assert got.accepted_per_pos == (30.0, 22.0, 16.0)
    assert got.acceptance_rate == pytest.approx(68 / 84)
    assert got.mean_accepted_length == pytest.approx(1 + 68 / 30)


def test_per_request_without_matching_counters_has_no_steps() -> None:
    got = adapter.summarize_acceptance(SPEC, answered(), {}, 2)
    assert got.source == "per-request" and got.valid
    assert (got.draft_tokens, got.accepted, got.drafts) == (84.0, 68.0, None)
    assert got.mean_accepted_length is None and got.accepted_per_pos == ()
    # counters that moved by more than the answers drafted belong to other traffic too
    samples = [*answered(), sample(2, 10, {"num_draft_tokens": 5, "num_accepted_draft_tokens": 1})]
    got = adapter.summarize_acceptance(SPEC, samples, fixture_snaps(), 3)
    assert (got.draft_tokens, got.drafts) == (89.0, None)


def test_other_traffic_marks_per_request_acceptance_polluted() -> None:
    # a third request of 10 tokens reached the server from elsewhere: 104 generated, 94 ours
    samples = [answered()[0], sample(1, 54, answered()[1].acceptance)]
    got = adapter.summarize_acceptance(SPEC, samples, fixture_snaps(), 2)
    assert got.source == "per-request" and got.valid and got.polluted
    assert (got.draft_tokens, got.accepted, got.drafts) == (84.0, 68.0, None)
    assert got.why is not None and got.why.startswith("polluted") and "104" in got.why
    base = adapter.summarize_acceptance(baseline(), samples, fixture_snaps(), 2)
    assert base.polluted and base.drafted is None


def test_per_request_counts_that_disagree_with_clean_counters_are_invalid() -> None:
    low = dict(answered()[1].acceptance or {}, num_accepted_draft_tokens=40)
    samples = [answered()[0], sample(1, 64, low)]
    got = adapter.summarize_acceptance(SPEC, samples, fixture_snaps(), 2)
    assert got.source == "per-request" and not got.valid and not got.polluted
    assert got.why is not None and "answers 84/67, counters 84/68" in got.why


def test_answers_without_draft_fields_count_as_drafting_nothing() -> None:
    quiet = replay(fixture("chat_stream_no_draft.sse"))
    samples = [*answered(), sample(2, quiet.completion_tokens, None)]
    got = adapter.summarize_acceptance(SPEC, samples, {}, 3)
    assert got.source == "per-request" and got.valid
    assert (got.draft_tokens, got.accepted) == (84.0, 68.0)
    assert got.why is not None and "1 of 3 answers carried no draft fields" in got.why


def test_without_per_request_fields_the_counter_delta_is_used() -> None:
    samples = [sample(0, 40, None), sample(1, 64, None)]
    got = adapter.summarize_acceptance(SPEC, samples, fixture_snaps(), 2)
    assert got.source == "metrics-delta" and got.valid and got.why is None
    assert (got.drafts, got.draft_tokens, got.accepted) == (30.0, 84.0, 68.0)
    assert got.accepted_per_pos == (30.0, 22.0, 16.0)


def test_other_traffic_invalidates_the_counter_delta() -> None:
    # the server generated 104 tokens, the run's answers only 90
    samples = [sample(0, 40, None), sample(1, 50, None)]
    got = adapter.summarize_acceptance(SPEC, samples, fixture_snaps(), 2)
    assert got.source == "metrics-delta" and not got.valid and got.polluted
    assert got.why is not None and got.why.startswith("polluted") and "104" in got.why
    assert got.acceptance_rate is None and got.drafted is None


@pytest.mark.parametrize(
    ("samples", "segment", "reason"),
    [
        ([sample(0, 40, None), sample(1, None, None, status="timeout")], 2, "unknown number"),
        # as the runner counts it: the segment answered the one request that did not fail
        ([sample(0, 40, None), sample(1, None, None, status="error")], 1, "1 failed request"),
        ([sample(0, 40, None), sample(1, 64, None)], 1, "last segment answered 1"),
    ],
)
def test_a_delta_that_cannot_be_checked_says_so(
    samples: list[SampleRecord], segment: int, reason: str
) -> None:
    got = adapter.summarize_acceptance(SPEC, samples, fixture_snaps(), segment)
    assert got.source == "metrics-delta" and got.valid
    assert got.why is not None and got.why.startswith("unchecked") and reason in got.why


def test_no_fields_and_no_counters_is_no_acceptance() -> None:
    samples = [sample(0, 40, None), sample(1, 64, None)]
    old = fixture("metrics_no_spec.txt")
    got = adapter.summarize_acceptance(SPEC, samples, snaps(old, old), 2)
    assert (got.source, got.valid) == ("none", False)
    assert got.why is not None and "llamacpp:spec_decode_" in got.why
    got = adapter.summarize_acceptance(SPEC, samples, {}, 2)
    assert (got.source, got.valid) == ("none", False)
    assert got.why is not None and "--metrics" in got.why
    # counters present but still: the server drafted nothing during the run
    before = fixture("metrics_before.txt")
    got = adapter.summarize_acceptance(SPEC, samples, snaps(before, before), 2)
    assert (got.source, got.valid) == ("metrics-delta", False)
    assert got.why is not None and "drafted no token" in got.why


def test_a_baseline_on_a_speculating_server_is_seen_drafting() -> None:
    """Answers recorded from a server started with a draft model: a baseline sent there has
    drafted, by the answers' own timings; its acceptance is not asked for."""
    samples = answered()
    got = adapter.summarize_acceptance(baseline(), samples, fixture_snaps(), 2)
    drafted = sum(s.acceptance["num_draft_tokens"] for s in samples if s.acceptance)
    assert (got.source, got.valid, got.drafted) == ("per-request", True, True)
    assert got.draft_tokens == drafted > 0
    assert got.acceptance_rate is not None  # the truth: this "baseline" speculated


def test_a_baseline_on_a_plain_server_drafted_nothing() -> None:
    samples = [sample(0, 40, None), sample(1, 64, None)]
    before = fixture("metrics_before.txt")
    got = adapter.summarize_acceptance(baseline(), samples, snaps(before, before), 2)
    assert (got.source, got.drafted, got.draft_tokens) == ("metrics-delta", False, 0.0)
    got = adapter.summarize_acceptance(baseline(), samples, {}, 2)
    assert (got.source, got.drafted) == ("none", None)  # nothing to tell from


def test_counters_past_a_million_are_rounded_and_the_delta_is_approximate() -> None:
    def text(draft: str, accepted: str, steps: str, predicted: str) -> str:
        return (
            f"# TYPE llamacpp:tokens_predicted_total counter\n"
            f"llamacpp:tokens_predicted_total {predicted}\n"
            f"# TYPE llamacpp:spec_decode_num_draft_tokens_total counter\n"
            f"llamacpp:spec_decode_num_draft_tokens_total {draft}\n"
            f"# TYPE llamacpp:spec_decode_num_accepted_tokens_total counter\n"
            f"llamacpp:spec_decode_num_accepted_tokens_total {accepted}\n"
            f"# TYPE llamacpp:spec_decode_num_drafts_total counter\n"
            f"llamacpp:spec_decode_num_drafts_total {steps}\n"
        )

    # 2_345_678 -> 2_345_762 draft tokens (84), printed as the server prints them
    before = text("2.34568e+06", "1.87654e+06", "781226", "3.1e+06")
    after = text("2.34576e+06", "1.87661e+06", "781256", "3.10011e+06")
    assert parse_llamacpp_counters(before).draft_tokens == 2345680.0
    delta = counter_delta(before, after)
    assert delta is not None and delta.slack == 10.0 and delta.predicted_slack == 10.0
    samples = [sample(0, 104, None)]
    got = adapter.summarize_acceptance(SPEC, samples, snaps(before, after), 1)
    # 80 (printed) vs 84 (true) draft tokens; the 110 predicted vs 104 answered is within rounding
    assert got.source == "metrics-delta" and got.valid
    assert got.draft_tokens == 80.0
    assert got.why is not None and got.why.startswith("approximate")


# --- probe -----------------------------------------------------------------------------------


def probe_with(routes: dict[str, httpx.Response]) -> dict[str, Any]:
    def handler(request: httpx.Request) -> httpx.Response:
        return routes.get(request.url.path, httpx.Response(404))

    async def main() -> dict[str, Any]:
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            return await adapter.probe(client, "http://llama")

    return asyncio.run(main())


# GET /props and /slots as llama-server answers them (ggml-org/llama.cpp commit 3f545beccee6,
# tools/server/server-context.cpp get_res_props and server_slot::to_json), trimmed to a few keys.
PROPS = {
    "default_generation_settings": {
        "params": {"temperature": 0.8, "speculative.types": "none", "timings_per_token": False},
        "n_ctx": 8192,
    },
    "total_slots": 2,
    "model_alias": "qwen3-8b",
    "model_path": "/models/qwen3-8b-q4_k_m.gguf",
    "endpoint_metrics": True,
    "build_info": "b9712-3f545becc",
    "is_sleeping": False,
}
SLOTS = [
    {"id": 0, "n_ctx": 4096, "speculative": True, "is_processing": False},
    {"id": 1, "n_ctx": 4096, "speculative": True, "is_processing": False},
]


def test_probe_records_props_slots_and_the_counters_present() -> None:
    found = probe_with(
        {
            "/props": httpx.Response(200, json=PROPS),
            "/slots": httpx.Response(200, json=SLOTS),
            "/metrics": httpx.Response(200, text=fixture("metrics_after.txt")),
        }
    )
    assert found["/props"] == found["/slots"] == found["/metrics"] == "ok"
    assert found["props"]["build_info"] == "b9712-3f545becc"
    # llama.cpp serves no /version: the build in /props is its version
    assert LlamaCppAdapter().version_of(found) == "b9712-3f545becc"
    assert LlamaCppAdapter().version_of({"/props": "HTTP 404"}) is None
    assert found["props_speculative"] == {"speculative.types": "none"}
    assert (
        found["props_warning"].startswith("/props") and "timings.draft_n" in found["props_warning"]
    )
    assert found["slots_speculative"] == [True, True]
    assert found["spec_counters"] == [
        "llamacpp:spec_decode_num_accepted_tokens_per_pos_total",
        "llamacpp:spec_decode_num_accepted_tokens_total",
        "llamacpp:spec_decode_num_draft_tokens_total",
        "llamacpp:spec_decode_num_drafts_total",
    ]
    assert found["pollution_check"] == "llamacpp:tokens_predicted_total"
    json.dumps(found)  # stored in the run manifest


def test_probe_says_metrics_need_the_flag() -> None:
    found = probe_with(
        {
            "/props": httpx.Response(200, json=PROPS),
            "/slots": httpx.Response(501, json={"error": {"code": 501}}),
            "/metrics": httpx.Response(501, json={"error": {"code": 501}}),
        }
    )
    assert found["/slots"] == "HTTP 501"
    assert found["/metrics"].startswith("HTTP 501") and "--metrics" in found["/metrics"]
    assert "spec_counters" not in found
