"""Pre-flight of attached SGLang and vLLM servers: what their probes read, and what contradicts
the configuration a server is measured as.

Parsing is unit-tested with exact payloads through an in-process transport: no SGLang server
runs on this machine (no GPU build), so its ``/get_server_info`` answers are written after the
source that builds them (cited at each payload); vLLM's ``/metrics`` are the real captures of
``tests/fixtures/vllm-0.32.0-cpu``. The reference engine, a real HTTP server with vLLM's metric
names, checks the vLLM probe over real HTTP.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.spec import RunSpec
from specverdict.engines.base import EngineAdapter
from specverdict.engines.preflight import facts_digest, problems, server_facts
from specverdict.engines.reference import ReferenceAdapter
from specverdict.engines.sglang import SGLangAdapter
from specverdict.engines.vllm import VLLMAdapter
from tests.conftest import Servers

VLLM_FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "vllm-0.32.0-cpu"
URL = "http://127.0.0.1:30000"
CAMPAIGN = """\
name: preflight-unit
engine: {{kind: {kind}, base_url: "{url}", reconfigure: between-runs}}
model: {{family: qwen3, served_name: qwen3-8b}}
quantization: bf16
candidates:
  - {candidate}
stages:
  function: {{suite: builtin-code@1, samples: {{first: 1}}}}
load: {{concurrency: [{conc}]}}
"""


def runs(kind: str, candidate: str, conc: int = 1) -> tuple[RunSpec, RunSpec]:
    """The baseline's and the candidate's run of a one-candidate campaign."""
    text = CAMPAIGN.format(kind=kind, url=URL, candidate=candidate, conc=conc)
    base, cand = build_plan(parse_campaign(text, Path("x.yaml"))).runs
    return base, cand


def probe(
    adapter: EngineAdapter, routes: dict[str, Callable[[], httpx.Response]]
) -> dict[str, Any]:
    """``adapter.probe`` against exact payloads: ``routes`` maps a path (query included) to its
    answer; any other path is a 404."""
    asked: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        path = request.url.raw_path.decode()
        asked.append(path)
        return routes[path]() if path in routes else httpx.Response(404, json={"detail": "x"})

    async def main() -> dict[str, Any]:
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            return await adapter.probe(client, URL)

    found = asyncio.run(main())
    found["_asked"] = asked
    return found


def json_answer(body: Any) -> Callable[[], httpx.Response]:
    return lambda: httpx.Response(200, json=body)


def text_answer(body: str) -> Callable[[], httpx.Response]:
    return lambda: httpx.Response(200, text=body)


# --- SGLang ----------------------------------------------------------------------------------

#: ``/get_server_info`` of a SGLang server started with ``--speculative-algorithm NEXTN
#: --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4``: the
#: top level is ``dataclasses.asdict(server_args)`` merged with the scheduler's start-up info and
#: ``internal_states`` (one per data-parallel rank) and ``version``
#: (``python/sglang/srt/entrypoints/http_server.py``, ``get_server_info``); NEXTN is reported as
#: EAGLE (``python/sglang/srt/arg_groups/speculative_hook.py``,
#: ``_resolve_speculative_algorithm_alias``), ``max_running_requests`` is set to 48 when not
#: given (``_handle_eagle_family``), and each rank's state carries
#: ``effective_max_running_requests_per_dp`` (``python/sglang/srt/managers/scheduler.py``,
#: ``get_internal_state``). Trimmed to the fields read and a few neighbours, in the layout of the
#: answer SGLang's own documentation prints (``docs/basic_usage/native_api``).
SGLANG_INFO: dict[str, Any] = {
    "model_path": "Qwen/Qwen3-8B",
    "tokenizer_path": "Qwen/Qwen3-8B",
    "dtype": "bfloat16",
    "quantization": None,
    "mem_fraction_static": 0.836,
    "max_running_requests": 48,
    "max_queued_requests": None,
    "max_total_tokens": None,
    "random_seed": 427414871,
    "enable_metrics": True,
    "served_model_name": "qwen3-8b",
    "dp_size": 1,
    "speculative_algorithm": "EAGLE",
    "speculative_draft_model_path": "Qwen/Qwen3-8B",
    "speculative_draft_model_revision": "main",
    "speculative_num_steps": 3,
    "speculative_eagle_topk": 1,
    "speculative_num_draft_tokens": 4,
    "speculative_accept_threshold_single": 1.0,
    "speculative_accept_threshold_acc": 1.0,
    "speculative_dspark_block_size": None,
    "speculative_adaptive": False,
    "enable_multi_layer_eagle": False,
    "status": "ready",
    "max_total_num_tokens": 20480,
    "max_req_input_len": 20474,
    "internal_states": [
        {
            "model_path": "Qwen/Qwen3-8B",
            "max_running_requests": 48,
            "speculative_algorithm": "EAGLE",
            "last_gen_throughput": 708.9987476461104,
            "memory_usage": {"weight": 0.98, "kvcache": 0.23, "token_capacity": 20480},
            "effective_max_running_requests_per_dp": 48,
            "avg_spec_accept_length": 2.41,
        }
    ],
    "version": "0.5.9",
}
#: the same server started without speculation: the speculative fields keep their defaults
#: (``None``; ``max_running_requests`` is then chosen by the scheduler, 128 here)
SGLANG_BASELINE_INFO: dict[str, Any] = {
    **SGLANG_INFO,
    "max_running_requests": 128,
    "speculative_algorithm": None,
    "speculative_draft_model_path": None,
    "speculative_draft_model_revision": None,
    "speculative_num_steps": None,
    "speculative_eagle_topk": None,
    "speculative_num_draft_tokens": None,
    "internal_states": [
        {
            "model_path": "Qwen/Qwen3-8B",
            "max_running_requests": 128,
            "speculative_algorithm": None,
            "last_gen_throughput": 712.5,
            "memory_usage": {"weight": 0.98, "kvcache": 0.23, "token_capacity": 20480},
            "effective_max_running_requests_per_dp": 128,
        }
    ],
}


def sglang_info(**changes: Any) -> dict[str, Any]:
    info = copy.deepcopy(SGLANG_INFO)
    info.update(changes)
    return info


def sglang_probe(info: Any, path: str = "/get_server_info") -> dict[str, Any]:
    return probe(SGLangAdapter(), {path: json_answer(info)})


def sglang_problems(run: RunSpec, info: Any) -> list[str]:
    models = {"object": "list", "data": [{"id": "qwen3-8b", "owned_by": "sglang"}]}
    return problems(run, models, sglang_probe(info))


def test_sglang_probe_records_the_server_args_and_each_ranks_running_cap() -> None:
    found = sglang_probe(SGLANG_INFO)
    assert found["server_args"] == {
        "model_path": "Qwen/Qwen3-8B",
        "served_model_name": "qwen3-8b",
        "version": "0.5.9",
        "dp_size": 1,
        "max_running_requests": 48,
        "speculative_algorithm": "EAGLE",
        "speculative_draft_model_path": "Qwen/Qwen3-8B",
        "speculative_num_steps": 3,
        "speculative_eagle_topk": 1,
        "speculative_num_draft_tokens": 4,
        "speculative_dspark_block_size": None,
        "speculative_adaptive": False,
    }
    assert found["running_requests_per_rank"] == [48]
    assert "/server_info" not in found["_asked"]


def test_sglang_probe_asks_the_newer_name_when_the_older_one_is_gone() -> None:
    found = sglang_probe(SGLANG_INFO, path="/server_info")
    assert found["_asked"][:2] == ["/get_server_info", "/server_info"]
    assert found["server_args"]["speculative_algorithm"] == "EAGLE"


def test_sglang_candidate_as_launched_has_no_contradiction() -> None:
    """``mtp`` is launched as NEXTN and reported as EAGLE: no contradiction; 3 steps, topk 1 and
    4 draft tokens are the flags k=3 launches with."""
    _, cand = runs("sglang", "{method: mtp, k: 3}", conc=8)
    assert sglang_problems(cand, SGLANG_INFO) == []


def test_sglang_speculation_off_on_a_candidate_and_on_in_a_baseline() -> None:
    base, cand = runs("sglang", "{method: eagle, k: 3, draft: d}")
    assert sglang_problems(cand, SGLANG_BASELINE_INFO) == [
        f"the server at {URL} runs no speculation (/get_server_info speculative_algorithm "
        "null), the campaign measures it as eagle k=3"
    ]
    assert sglang_problems(base, SGLANG_INFO) == [
        f"the baseline's server at {URL} speculates (/get_server_info speculative_algorithm "
        "EAGLE): it is no baseline"
    ]
    assert sglang_problems(base, SGLANG_BASELINE_INFO) == []


def test_sglang_another_algorithm_than_the_declared_method() -> None:
    _, cand = runs("sglang", "{method: eagle3, k: 3, draft: d}")
    assert sglang_problems(cand, SGLANG_INFO) == [
        f"the server at {URL} runs EAGLE (/get_server_info speculative_algorithm), the campaign "
        "declares method eagle3 (reported as EAGLE3)"
    ]


def test_sglang_another_draft_shape_than_the_launch_flags() -> None:
    _, cand = runs("sglang", "{method: eagle, k: 3, draft: d}")
    info = sglang_info(speculative_num_steps=5, speculative_num_draft_tokens=6)
    assert sglang_problems(cand, info) == [
        f"the server at {URL} has speculative_num_steps 5 (/get_server_info), the campaign's "
        "eagle k=3 launches with --speculative-num-steps 3",
        f"the server at {URL} has speculative_num_draft_tokens 6 (/get_server_info), the "
        "campaign's eagle k=3 launches with --speculative-num-draft-tokens 4",
    ]


@pytest.mark.parametrize(
    ("candidate", "changes"),
    [
        # adaptive steps: chosen while the server runs
        ("{method: eagle, k: 3, draft: d}", {"speculative_num_steps": 5, "speculative_adaptive": True}),
        # a parameter sets the shape itself: SGLang may adjust it
        ("{method: eagle, k: 3, draft: d, params: {eagle_topk: 4}}", {"speculative_eagle_topk": 4, "speculative_num_draft_tokens": 8}),
        # NGRAM: steps and topk are SGLang's (topk = ngram_max_bfs_breadth, steps = tokens // topk)
        ("{method: ngram, k: 4}", {"speculative_algorithm": "NGRAM", "speculative_eagle_topk": 10, "speculative_num_steps": 0, "speculative_num_draft_tokens": 5}),
    ],
)  # fmt: skip
def test_sglang_shapes_that_are_not_compared(candidate: str, changes: dict[str, Any]) -> None:
    _, cand = runs("sglang", candidate)
    assert sglang_problems(cand, sglang_info(**changes)) == []


def test_sglang_ngram_verify_window_is_compared() -> None:
    _, cand = runs("sglang", "{method: ngram, k: 4}")
    info = sglang_info(
        speculative_algorithm="NGRAM",
        speculative_eagle_topk=10,
        speculative_num_steps=1,
        speculative_num_draft_tokens=12,  # SGLang's default when the flag is not given
    )
    assert sglang_problems(cand, info) == [
        f"the server at {URL} has speculative_num_draft_tokens 12 (/get_server_info), the "
        "campaign's ngram k=4 launches with --speculative-num-draft-tokens 5"
    ]


def test_sglang_fewer_running_requests_than_the_concurrency() -> None:
    _, cand = runs("sglang", "{method: mtp, k: 3}", conc=64)
    assert sglang_problems(cand, SGLANG_INFO) == [
        f"the server at {URL} runs at most 48 request(s) at once (/get_server_info "
        "internal_states effective_max_running_requests_per_dp) for concurrency 64: requests "
        "would queue and the queueing be timed as latency (start it with "
        "--max-running-requests 64, or lower load.concurrency)"
    ]
    _, enough = runs("sglang", "{method: mtp, k: 3}", conc=48)
    assert sglang_problems(enough, SGLANG_INFO) == []


def test_sglang_running_caps_add_up_over_data_parallel_ranks() -> None:
    rank = {**SGLANG_INFO["internal_states"][0], "effective_max_running_requests_per_dp": 24}
    info = sglang_info(dp_size=2, internal_states=[rank, rank])
    _, enough = runs("sglang", "{method: mtp, k: 3}", conc=48)
    assert sglang_problems(enough, info) == []
    _, more = runs("sglang", "{method: mtp, k: 3}", conc=64)
    (line,) = sglang_problems(more, info)
    assert "runs at most 48 request(s) at once" in line
    assert "effective_max_running_requests_per_dp, summed over 2 ranks" in line


def test_sglang_without_per_rank_caps_the_server_args_bound_the_slots() -> None:
    states = [{"last_gen_throughput": 0.0, "memory_usage": {}}]  # an older version
    _, cand = runs("sglang", "{method: mtp, k: 3}", conc=64)
    (line,) = sglang_problems(cand, sglang_info(internal_states=states))
    assert "runs at most 48 request(s) at once (/get_server_info max_running_requests)" in line
    two = sglang_info(internal_states=states, dp_size=2)
    assert sglang_problems(cand, two) == []  # 48 x 2 ranks: room for 64
    unset = sglang_info(internal_states=states, max_running_requests=None)
    assert sglang_problems(cand, unset) == []


def test_sglang_fields_an_older_version_does_not_state_never_contradict() -> None:
    """A server whose answer has none of the fields read (or no answer): nothing to say."""
    base, cand = runs("sglang", "{method: eagle, k: 3, draft: d}", conc=512)
    old = {"model_path": "Qwen/Qwen3-8B", "version": "0.3.0", "internal_states": []}
    for run in (base, cand):
        assert sglang_problems(run, old) == []
        assert problems(run, None, probe(SGLangAdapter(), {})) == []


def test_sglang_facts_name_the_setup_and_change_with_it() -> None:
    models = {"object": "list", "data": [{"id": "qwen3-8b", "owned_by": "sglang"}]}
    facts = server_facts(None, models, sglang_probe(SGLANG_INFO))
    assert facts["server_args"]["speculative_num_steps"] == 3
    assert facts["server_args"]["version"] == "0.5.9"
    assert "internal_states" not in str(facts)  # running figures stay out
    busier = sglang_info(
        internal_states=[{**SGLANG_INFO["internal_states"][0], "last_gen_throughput": 1.0}]
    )
    same = server_facts(None, models, sglang_probe(busier))
    assert facts_digest(same) == facts_digest(facts)
    other = server_facts(None, models, sglang_probe(sglang_info(speculative_num_steps=5)))
    assert facts_digest(other) != facts_digest(facts)


# --- vLLM ------------------------------------------------------------------------------------


def vllm_metrics(prefix: str) -> str:
    return (VLLM_FIXTURES / f"{prefix}.metrics-before.txt").read_text()


#: ``GET /server_info?config_format=json`` of a vLLM server with ``VLLM_SERVER_DEV_MODE=1``:
#: ``{"vllm_config": PydanticVllmConfig.dump_python(vllm_config, mode="json", fallback=str),
#: "vllm_env": ..., "system_env": ...}`` (``vllm/entrypoints/serve/dev/server_info/api_router.py``)
#: with ``VllmConfig``'s fields (``vllm/config/vllm.py``): ``model_config``, ``parallel_config``,
#: ``scheduler_config``, ``speculative_config`` (None without ``--speculative-config``), ...;
#: trimmed to a few fields of each.
VLLM_SERVER_INFO: dict[str, Any] = {
    "vllm_config": {
        "model_config": {"model": "/models/target", "dtype": "float32", "max_model_len": 2048},
        "cache_config": {"block_size": 128, "gpu_memory_utilization": 0.92},
        "parallel_config": {"tensor_parallel_size": 1, "data_parallel_size": 1},
        "scheduler_config": {"max_num_seqs": 256, "max_num_batched_tokens": 2048},
        "speculative_config": {
            "method": "ngram",
            "num_speculative_tokens": 4,
            "model": None,
            "prompt_lookup_min": 2,
            "prompt_lookup_max": 5,
        },
        "lora_config": None,
    },
    "vllm_env": {"VLLM_SERVER_DEV_MODE": True, "VLLM_TARGET_DEVICE": "cpu"},
    "system_env": {"torch_version": "2.13.0+cpu"},
}
VLLM_MODELS = {
    "object": "list",
    "data": [
        {
            "id": "qwen3-8b",
            "object": "model",
            "created": 1796019683,
            "owned_by": "vllm",
            "root": "/models/target",
            "parent": None,
            "max_model_len": 2048,
        }
    ],
}


def vllm_probe(metrics: str | None, info: Any = None) -> dict[str, Any]:
    routes: dict[str, Callable[[], httpx.Response]] = {}
    if metrics is not None:
        routes["/metrics"] = text_answer(metrics)
    if info is not None:
        routes["/server_info?config_format=json"] = json_answer(info)
    return probe(VLLMAdapter(), routes)


def vllm_problems(run: RunSpec, found: dict[str, Any]) -> list[str]:
    return problems(run, VLLM_MODELS, found, needs_metrics=True)


def test_vllm_probe_reads_the_real_counters_of_a_speculating_server() -> None:
    found = vllm_probe(vllm_metrics("ngram-k4-detailed"))
    family = found["spec_decode_family"]
    assert family["positions"] == 4
    assert "vllm:spec_decode_num_drafts_total" in family["series"]
    assert found["/server_info"] == "HTTP 404 (served only with VLLM_SERVER_DEV_MODE=1)"
    assert "vllm_config" not in found
    assert (
        vllm_probe(vllm_metrics("draft-model-k3-summary"))["spec_decode_family"]["positions"] == 3
    )
    assert vllm_probe(vllm_metrics("baseline"))["spec_decode_family"] == {
        "families": [],
        "series": [],
        "positions": 0,
    }


def test_vllm_counters_tell_speculation_off_on_a_candidate_and_on_in_a_baseline() -> None:
    base, cand = runs("vllm", "{method: ngram, k: 4}")
    assert vllm_problems(cand, vllm_probe(vllm_metrics("ngram-k4-detailed"))) == []
    assert vllm_problems(cand, vllm_probe(vllm_metrics("baseline"))) == [
        f"the server at {URL} runs no speculation (/metrics: no vllm:spec_decode_* counters, "
        "which vLLM registers only with a --speculative-config), the campaign measures it as "
        "ngram k=4"
    ]
    assert vllm_problems(base, vllm_probe(vllm_metrics("baseline"))) == []
    assert vllm_problems(base, vllm_probe(vllm_metrics("ngram-k4-detailed"))) == [
        f"the baseline's server at {URL} speculates (/metrics: "
        "vllm:spec_decode_num_accepted_tokens_per_pos_total, which vLLM registers only with a "
        "--speculative-config): it is no baseline"
    ]


def test_vllm_positions_of_the_per_position_counter_are_the_speculative_tokens() -> None:
    _, k3 = runs("vllm", "{method: draft_model, k: 3, draft: d}")
    assert vllm_problems(k3, vllm_probe(vllm_metrics("draft-model-k3-summary"))) == []
    _, k5 = runs("vllm", "{method: draft_model, k: 5, draft: d}")
    assert vllm_problems(k5, vllm_probe(vllm_metrics("draft-model-k3-summary"))) == [
        f"the server at {URL} drafts 3 token(s) per step (/metrics: 3 positions of "
        "vllm:spec_decode_num_accepted_tokens_per_pos), the campaign measures k 5"
    ]


def test_vllm_an_old_family_without_series_is_no_evidence_either_way() -> None:
    """Declared families with no sample (how a labelled metric never touched is exposed): not
    'no counters' on a candidate, not 'speculates' on a baseline."""
    text = (
        "# HELP vllm:spec_decode_draft_acceptance_rate Speulative token acceptance rate.\n"
        "# TYPE vllm:spec_decode_draft_acceptance_rate gauge\n"
    )
    base, cand = runs("vllm", "{method: ngram, k: 4}")
    assert vllm_problems(cand, vllm_probe(text)) == []
    assert vllm_problems(base, vllm_probe(text)) == []


def test_vllm_development_server_info_settles_speculation_and_k() -> None:
    base, cand = runs("vllm", "{method: ngram, k: 4}")
    found = vllm_probe(vllm_metrics("ngram-k4-detailed"), VLLM_SERVER_INFO)
    assert found["vllm_config"] == {
        "speculative_config": {"method": "ngram", "num_speculative_tokens": 4, "model": None},
        "max_num_seqs": 256,
        "data_parallel_size": 1,
        "model": "/models/target",
    }
    assert vllm_problems(cand, found) == []
    (line,) = vllm_problems(base, found)
    assert line == (
        f"the baseline's server at {URL} speculates (/server_info speculative_config method "
        "ngram): it is no baseline"
    )
    _, k3 = runs("vllm", "{method: ngram, k: 3}")
    assert vllm_problems(k3, found) == [
        f"the server at {URL} has num_speculative_tokens 4 (/server_info speculative_config), "
        "the campaign measures k 3"
    ]
    off = copy.deepcopy(VLLM_SERVER_INFO)
    off["vllm_config"]["speculative_config"] = None
    assert vllm_problems(cand, vllm_probe(vllm_metrics("baseline"), off)) == [
        f"the server at {URL} runs no speculation (/server_info speculative_config null), the "
        "campaign measures it as ngram k=4"
    ]


def test_vllm_fewer_sequences_than_the_concurrency() -> None:
    _, cand = runs("vllm", "{method: ngram, k: 4}", conc=512)
    found = vllm_probe(vllm_metrics("ngram-k4-detailed"), VLLM_SERVER_INFO)
    assert vllm_problems(cand, found) == [
        f"the server at {URL} runs at most 256 request(s) at once (/server_info max_num_seqs) "
        "for concurrency 512: requests would queue and the queueing be timed as latency (start "
        "it with --max-num-seqs 512, or lower load.concurrency)"
    ]
    dp = copy.deepcopy(VLLM_SERVER_INFO)
    dp["vllm_config"]["parallel_config"]["data_parallel_size"] = 2
    assert vllm_problems(cand, vllm_probe(vllm_metrics("ngram-k4-detailed"), dp)) == []


def test_vllm_facts_hold_the_speculative_setup() -> None:
    found = vllm_probe(vllm_metrics("ngram-k4-detailed"))
    facts = server_facts({"version": "0.32.0"}, VLLM_MODELS, found)
    assert facts["spec_decode_family"]["positions"] == 4
    later = server_facts(
        {"version": "0.32.0"},
        VLLM_MODELS,
        vllm_probe((VLLM_FIXTURES / "ngram-k4-detailed.metrics-end.txt").read_text()),
    )
    assert facts_digest(later) == facts_digest(facts)  # counts moved, the setup did not
    k3 = server_facts(
        {"version": "0.32.0"}, VLLM_MODELS, vllm_probe(vllm_metrics("draft-model-k3-summary"))
    )
    assert facts_digest(k3) != facts_digest(facts)


def test_the_reference_engine_probe_and_facts_keep_their_shape() -> None:
    """The reference adapter shares vLLM's probe: it asks for no /server_info and records none
    of the new keys, so the identities stored from it keep their digests."""
    found = probe(ReferenceAdapter(), {"/metrics": text_answer(vllm_metrics("ngram-k4-detailed"))})
    assert found["_asked"] == ["/metrics"]
    del found["_asked"]
    assert set(found) == {"/metrics", "spec_counters", "per_request"}
    models = {"object": "list", "data": [{"id": "reference-target", "owned_by": "specverdict"}]}
    assert set(server_facts({"version": "x"}, models, found)) == {"version", "models"}


def test_vllm_probe_over_real_http_against_a_server_with_vllms_counters(servers: Servers) -> None:
    """The reference server exports vLLM's ``vllm:spec_decode_*`` counters only when started
    with a speculative config, as vLLM does: the vLLM probe and pre-flight read them over real
    HTTP (the kind contradiction, reference against the declared vllm, is reported too)."""
    url = servers.spec({"method": "ngram", "num_speculative_tokens": 3})
    plain = servers.get()

    def found(base_url: str) -> dict[str, Any]:
        async def main() -> dict[str, Any]:
            async with httpx.AsyncClient() as client:
                return await VLLMAdapter().probe(client, base_url)

        return asyncio.run(main())

    spec_probe, plain_probe = found(url), found(plain)
    assert spec_probe["spec_decode_family"]["positions"] == 3
    assert plain_probe["spec_decode_family"]["families"] == []
    assert spec_probe["/server_info"].startswith("HTTP 404")
    base, cand = runs("vllm", "{method: ngram, k: 3}")
    assert not [p for p in problems(cand, None, spec_probe) if "speculat" in p]
    assert any("runs no speculation (/metrics" in p for p in problems(cand, None, plain_probe))
    assert any("speculates (/metrics" in p for p in problems(base, None, spec_probe))
