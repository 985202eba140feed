"""The vLLM adapter against real payloads of vLLM 0.32.0 (CPU build).

Every payload comes from tests/fixtures/vllm-0.32.0-cpu (captured from a real server; the README
there gives the commands). Formats: vllm-project/vllm v0.32.0,
``vllm/entrypoints/generate/base/protocol.py`` (``SpeculativeDecodingMetrics``),
``vllm/entrypoints/openai/completion/serving.py`` (metrics on the final usage chunk),
``vllm/v1/spec_decode/metrics.py`` (``vllm:spec_decode_*`` counters).
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest
from safetensors.numpy import load_file

from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.model import Launch
from specverdict.campaign.spec import RunSpec
from specverdict.engines.client import StreamedResponse, stream
from specverdict.engines.vllm import CPU_ENV, VLLMAdapter, cpu_env
from specverdict.records import MetricsSnapshot, RequestAcceptance, SampleRecord
from specverdict.reference.export import CPU_HEAD_SIZES, export_hf
from specverdict.reference.server import cli
from specverdict.reference.weights import shipped
from specverdict.run.segment import to_record
from specverdict.suites.base import Sample

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "vllm-0.32.0-cpu"
PREFIXES = ("ngram-k4-detailed", "draft-model-k3-summary")

CAMPAIGN = """\
name: vllm-unit
engine: {{kind: vllm, launch: {{}}}}
model: {{family: specverdict-reference, served_name: reference-target, path: /m/target}}
quantization: {quantization}
candidates:
  - {candidate}
stages:
  function: {{suite: builtin-code@1, samples: {{first: 1}}}}
"""

adapter = VLLMAdapter()


def plan_specs(candidate: str, quantization: str = "fp32") -> list[RunSpec]:
    text = CAMPAIGN.format(candidate=candidate, quantization=quantization)
    return list(build_plan(parse_campaign(text, Path("x.yaml"))).runs)


def spec_of(candidate: str, quantization: str = "fp32") -> RunSpec:
    (spec,) = plan_specs(candidate, quantization)[1:]
    return spec


def baseline() -> RunSpec:
    return plan_specs("{method: ngram, k: 2}")[0]


def text(name: str) -> str:
    return (FIXTURES / name).read_text()


def replay(sse: str, path: str = "/v1/completions") -> StreamedResponse:
    """A real captured stream, served again, read by the runner's client."""

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        assert body["stream_options"] == {"include_usage": True}
        return httpx.Response(
            200,
            stream=httpx.ByteStream(sse.encode()),
            headers={"content-type": "text/event-stream"},
        )

    async def main() -> StreamedResponse:
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            return await stream(client, "http://vllm" + path, {"model": "reference-target"})

    return asyncio.run(main())


def sample_of(prefix: str, run_id: str = "r1", sample_id: str = "s0") -> SampleRecord:
    resp = replay(text(f"{prefix}.stream.sse"))
    sample = Sample(id=sample_id, endpoint="completions", prompt="p")
    return to_record(run_id, sample, resp, adapter.per_request_acceptance(resp.extras))


def snapshots(prefix: str, before: str = "before", after: str = "after") -> dict[str, Any]:
    return {
        phase: MetricsSnapshot(
            run_id="r1", phase=phase, taken_at=0.0, text=text(f"{prefix}.metrics-{which}.txt")
        )
        for phase, which in (("before", before), ("after", after))
    }


# --- launch ----------------------------------------------------------------------------------


def test_builtin_command_runs_the_module_entry_point_with_per_request_metrics() -> None:
    spec = spec_of("{method: draft_model, k: 3, draft: /m/draft}")
    cmd = adapter.builtin_command(spec, "/m/target", "127.0.0.1", 8711, "/runs/r")
    assert cmd is not None
    assert cmd[:5] == ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", "/m/target"]
    assert cmd[cmd.index("--port") + 1] == "8711"
    assert cmd[cmd.index("--served-model-name") + 1] == "reference-target"
    assert cmd[cmd.index("--dtype") + 1] == "float32"
    config = json.loads(cmd[cmd.index("--speculative-config") + 1])
    assert config == {"method": "draft_model", "num_speculative_tokens": 3, "model": "/m/draft"}
    # detailed: the summary fields plus the per-step arrays (vllm/config/observability.py)
    assert cmd[-2:] == ["--per-request-spec-decode-metrics", "detailed"]


def test_baseline_command_leaves_out_the_per_request_flag_that_vllm_refuses_alone() -> None:
    # The real server exits at start-up when the flag comes without speculation.
    refused = text("baseline-per-request-refused.log")
    assert "--per-request-spec-decode-metrics requires speculative decoding" in refused
    cmd = adapter.builtin_command(baseline(), "/m/target", "127.0.0.1", 8711, ".")
    assert cmd is not None
    assert "--per-request-spec-decode-metrics" not in cmd
    assert "--speculative-config" not in cmd


def test_quantization_is_a_dtype_or_a_quantization_method() -> None:
    cmd = adapter.builtin_command(spec_of("{method: ngram, k: 2}", "bf16"), "m", "h", 1, ".")
    assert cmd is not None and cmd[cmd.index("--dtype") + 1] == "bfloat16"
    cmd = adapter.builtin_command(spec_of("{method: ngram, k: 2}", "awq"), "m", "h", 1, ".")
    assert cmd is not None and cmd[cmd.index("--quantization") + 1] == "awq"
    assert "--dtype" not in cmd


def test_params_pass_through_in_the_shape_the_reference_server_also_reads() -> None:
    spec = spec_of("{method: ngram, k: 4, params: {prompt_lookup_min: 2, prompt_lookup_max: 5}}")
    (flag, value) = adapter.speculative_args(spec)
    config = json.loads(value)
    assert flag == "--speculative-config"
    assert config == {
        "method": "ngram",
        "num_speculative_tokens": 4,
        "prompt_lookup_min": 2,
        "prompt_lookup_max": 5,
    }
    # the same JSON is a valid reference-server config
    from specverdict.reference.config import SpeculativeConfig

    assert SpeculativeConfig.model_validate(config).num_speculative_tokens == 4


def test_a_launch_template_receives_the_speculative_args() -> None:
    spec = spec_of("{method: ngram, k: 2}")
    launch = Launch(
        command="python -m vllm.entrypoints.openai.api_server --model {model} --port {port} {speculative_args}"
    )
    cmd = adapter.launch_command(spec, launch, 9000, "/m/target")
    assert cmd[-2:] == ["--speculative-config", '{"method":"ngram","num_speculative_tokens":2}']
    assert cmd[cmd.index("--port") + 1] == "9000"


def test_cpu_env_sets_the_cpu_platform_and_a_shared_compile_cache() -> None:
    env = cpu_env("/cache/vllm")
    assert env["VLLM_TARGET_DEVICE"] == "cpu"
    assert env["VLLM_CACHE_ROOT"] == "/cache/vllm"
    assert int(env["VLLM_CPU_KVCACHE_SPACE"]) >= 1
    assert "VLLM_CACHE_ROOT" not in CPU_ENV  # per launch, never a module-wide path


# --- per-request acceptance from real answers -------------------------------------------------


def test_real_ngram_stream_carries_per_request_acceptance_on_its_usage_chunk() -> None:
    resp = replay(text("ngram-k4-detailed.stream.sse"))
    acc = adapter.per_request_acceptance(resp.extras)
    assert acc is not None
    assert acc["num_draft_tokens"] == 48
    assert acc["num_accepted_draft_tokens"] == 9
    assert acc["num_spec_steps"] == 12
    assert acc["acceptance_histogram"] == [7, 1, 4, 0, 0]
    # the detailed level's arrays, lifted into their fields and stored once (not in raw)
    assert acc["per_step_accepted"] == [0, 0, 2, 2, 2, 0, 0, 0, 0, 1, 2, 0]
    assert acc["per_step_drafted"] == [4] * 12
    assert not set(acc["raw"]) & {"per_step_accepted", "per_step_drafted"}
    assert acc["raw"]["acceptance_histogram"] == [7, 1, 4, 0, 0]
    parsed = RequestAcceptance.model_validate(acc)
    assert parsed.per_step_accepted is not None and sum(parsed.per_step_accepted) == 9
    # several tokens per event under speculation: tokens come from usage, never from events
    assert resp.completion_tokens == 48
    assert len(resp.chunk_arrivals_s) < 48


def test_real_draft_model_stream_at_summary_level() -> None:
    resp = replay(text("draft-model-k3-summary.stream.sse"))
    acc = adapter.per_request_acceptance(resp.extras)
    assert acc is not None
    assert (acc["num_draft_tokens"], acc["num_accepted_draft_tokens"]) == (84, 19)
    assert acc["num_spec_steps"] == 28 and acc["acceptance_histogram"] == [17, 7, 0, 4]
    assert "per_step_accepted" not in acc["raw"]  # detailed level only
    assert "per_step_accepted" not in acc and "per_step_drafted" not in acc
    assert RequestAcceptance.model_validate(acc).per_step_accepted is None
    assert resp.completion_tokens == 48 and len(resp.chunk_arrivals_s) < 48


@pytest.mark.parametrize("prefix", PREFIXES)
def test_real_chat_stream_carries_acceptance_too(prefix: str) -> None:
    resp = replay(text(f"{prefix}.chat-stream.sse"), "/v1/chat/completions")
    acc = adapter.per_request_acceptance(resp.extras)
    assert acc is not None and acc["num_draft_tokens"] > 0
    assert resp.text and resp.completion_tokens == 48


def test_real_non_streamed_answer_has_the_same_figures_as_the_stream() -> None:
    done = json.loads(text("ngram-k4-detailed.completion.json"))
    extras = {k: v for k, v in done.items() if k == "metrics"}
    from_body = adapter.per_request_acceptance(extras)
    from_stream = adapter.per_request_acceptance(
        replay(text("ngram-k4-detailed.stream.sse")).extras
    )
    assert from_body is not None and from_stream is not None
    assert from_body["num_accepted_draft_tokens"] == from_stream["num_accepted_draft_tokens"]
    assert from_body["acceptance_histogram"] == from_stream["acceptance_histogram"]


def test_real_baseline_answers_carry_no_acceptance() -> None:
    resp = replay(text("baseline.stream.sse"))
    assert adapter.per_request_acceptance(resp.extras) is None
    assert resp.completion_tokens == 48
    assert len(resp.chunk_arrivals_s) == 48  # one token per event without speculation


# --- run summaries: per-request checked against /metrics deltas -------------------------------


@pytest.mark.parametrize("prefix", PREFIXES)
def test_per_request_and_metrics_deltas_agree_on_a_real_run(prefix: str) -> None:
    spec = spec_of("{method: ngram, k: 4}")
    sample = sample_of(prefix)
    summary = adapter.summarize_acceptance(spec, [sample], snapshots(prefix), 1)
    assert summary.source == "per-request" and summary.valid and not summary.polluted
    assert summary.why is None
    acc = sample.acceptance
    assert acc is not None
    assert summary.draft_tokens == acc["num_draft_tokens"]
    assert summary.accepted == acc["num_accepted_draft_tokens"]
    assert summary.drafts == acc["num_spec_steps"]
    # per position: steps accepting at least i+1 drafts, from the histogram, as vLLM counts them
    hist = acc["acceptance_histogram"]
    assert summary.accepted_per_pos == tuple(
        float(sum(hist[i + 1 :])) for i in range(len(hist) - 1)
    )
    counters = adapter.summarize_acceptance(
        spec, [sample.model_copy(update={"acceptance": None})], snapshots(prefix), 1
    )
    assert counters.source == "metrics-delta" and counters.valid
    assert (counters.drafts, counters.draft_tokens, counters.accepted) == (
        summary.drafts,
        summary.draft_tokens,
        summary.accepted,
    )
    assert counters.accepted_per_pos == summary.accepted_per_pos


@pytest.mark.parametrize("prefix", PREFIXES)
def test_a_foreign_request_between_the_scrapes_pollutes_the_run(prefix: str) -> None:
    # metrics-end counts the capture's second (non-streamed) request as well: not this run's
    spec = spec_of("{method: ngram, k: 4}")
    sample = sample_of(prefix)
    polluted = snapshots(prefix, after="end")
    summary = adapter.summarize_acceptance(spec, [sample], polluted, 1)
    assert summary.polluted and summary.source == "per-request"
    assert summary.why is not None and "finished 2 requests" in summary.why
    counters = adapter.summarize_acceptance(
        spec, [sample.model_copy(update={"acceptance": None})], polluted, 1
    )
    assert counters.polluted and not counters.valid and counters.source == "metrics-delta"


@pytest.mark.parametrize("prefix", PREFIXES)
def test_a_server_restarted_during_the_run_is_a_restart_not_pollution(prefix: str) -> None:
    """Counters that went back, or a new process start time between the scrapes (vLLM exports
    ``process_start_time_seconds``): the server restarted; the run is not believed, and says
    so as a restart to measure again, never as other traffic."""
    spec = spec_of("{method: ngram, k: 4}")
    sample = sample_of(prefix).model_copy(update={"acceptance": None})
    snaps = snapshots(prefix)
    before, after = snaps["before"].text, snaps["after"].text
    assert "process_start_time_seconds " in after
    moved = "\n".join(
        f"process_start_time_seconds {float(line.split()[1]) + 60}"
        if line.startswith("process_start_time_seconds ")
        else line
        for line in after.splitlines()
    )
    swapped = {  # the second scrape's counters are the first's: a fresh server, read back
        "before": snaps["after"],
        "after": snaps["before"],
    }
    for case in (
        {**snaps, "after": snaps["after"].model_copy(update={"text": moved})},
        swapped,
    ):
        got = adapter.summarize_acceptance(spec, [sample], case, 1)
        assert got.polluted and got.why is not None and got.why.startswith("restarted"), got.why
        assert "run --remeasure" in got.why
    clean = adapter.summarize_acceptance(spec, [sample], snaps, 1)
    assert not clean.polluted and before != after


def test_a_foreign_request_during_a_baseline_run_is_flagged_too() -> None:
    sample = sample_of("baseline")
    clean = adapter.summarize_acceptance(baseline(), [sample], snapshots("baseline"), 1)
    assert clean.source == "metrics-delta" and not clean.polluted
    assert clean.drafted is False  # a plain server: no speculative counters moved
    dirty = adapter.summarize_acceptance(
        baseline(), [sample], snapshots("baseline", after="end"), 1
    )
    assert dirty.polluted and dirty.why is not None and "finished 2 requests" in dirty.why


def test_per_request_figures_that_disagree_with_the_counters_are_invalid() -> None:
    # answers of the ngram server against the draft-model server's counters
    spec = spec_of("{method: ngram, k: 4}")
    sample = sample_of("ngram-k4-detailed")
    summary = adapter.summarize_acceptance(spec, [sample], snapshots("draft-model-k3-summary"), 1)
    assert not summary.valid and not summary.polluted
    assert summary.why is not None
    assert "answers 12/48/9" in summary.why and "counters 28/84/19" in summary.why
    assert summary.acceptance_rate is None


def test_a_resumed_run_is_not_cross_checked_and_says_so() -> None:
    spec = spec_of("{method: ngram, k: 4}")
    first = sample_of("ngram-k4-detailed", sample_id="s0")
    second = sample_of("ngram-k4-detailed", sample_id="s1")
    summary = adapter.summarize_acceptance(spec, [first, second], snapshots("ngram-k4-detailed"), 1)
    assert summary.valid and summary.source == "per-request"
    assert summary.why is not None and "not cross-checked" in summary.why


def test_no_answers_with_metrics_and_no_snapshots_is_no_figure() -> None:
    spec = spec_of("{method: ngram, k: 4}")
    sample = sample_of("baseline")
    summary = adapter.summarize_acceptance(spec, [sample], {}, 1)
    assert summary.source == "none" and not summary.valid


def test_probe_lists_the_real_spec_counters() -> None:
    body = text("ngram-k4-detailed.metrics-after.txt")

    async def main() -> dict[str, Any]:
        transport = httpx.MockTransport(lambda request: httpx.Response(200, text=body))
        async with httpx.AsyncClient(transport=transport) as client:
            return await adapter.probe(client, "http://vllm")

    found = asyncio.run(main())
    assert found["/metrics"] == "ok"
    assert set(found["spec_counters"]) >= {
        "vllm:spec_decode_num_drafts_total",
        "vllm:spec_decode_num_draft_tokens_total",
        "vllm:spec_decode_num_accepted_tokens_total",
        "vllm:spec_decode_num_accepted_tokens_per_pos_total",
    }


# --- the export vLLM loads --------------------------------------------------------------------


def test_export_hf_writes_target_and_draft_with_tokenizer_and_chat_template(
    tmp_path: Path,
) -> None:
    assert cli.main(["export-hf", str(tmp_path / "models")]) == 0
    manifest = json.loads((tmp_path / "models" / "export.json").read_text())
    for name in ("target", "draft"):
        out = tmp_path / "models" / name
        config = json.loads((out / "config.json").read_text())
        assert config["architectures"] == ["GPT2LMHeadModel"]
        assert config["n_embd"] // config["n_head"] in CPU_HEAD_SIZES
        tokenizer_config = json.loads((out / "tokenizer_config.json").read_text())
        assert (out / "chat_template.jinja").read_text() == tokenizer_config["chat_template"]
        exported = load_file(str(out / "model.safetensors"))
        original = load_file(str(shipped(name) / "model.safetensors"))
        assert exported.keys() == original.keys()
        assert all((exported[k] == original[k]).all() for k in original)
        assert set(manifest["checkpoints"][name]["files"]) >= {
            "model.safetensors",
            "tokenizer.json",
            "chat_template.jinja",
        }


def test_export_refuses_a_head_size_vllm_cpu_cannot_run(tmp_path: Path) -> None:
    draft = tmp_path / "draft"
    shutil.copytree(shipped("draft"), draft)
    config = json.loads((draft / "config.json").read_text())
    config["n_embd"], config["n_head"] = 48, 2  # head size 24 crashed vLLM's CPU attention
    (draft / "config.json").write_text(json.dumps(config))
    with pytest.raises(ValueError, match="head size 24"):
        export_hf(tmp_path / "out", {"draft": draft})
    assert not (tmp_path / "out").exists()


def test_export_cli_error_is_one_line_with_exit_code_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(SystemExit) as exc:
        cli.main(["export-hf", str(blocker / "sub")])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("specverdict-reference: error: export-hf:") and "\n" not in err
