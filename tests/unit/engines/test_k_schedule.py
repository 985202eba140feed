"""A candidate's k schedule through the engine adapters: vLLM (and the reference engine) pass
it as ``num_speculative_tokens_per_batch_size``; engines with no such key refuse it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.spec import RunSpec
from specverdict.engines.registry import adapter_for
from specverdict.engines.vllm import K_SCHEDULE_KEY, VLLMAdapter

CAMPAIGN = """\
name: ks
engine: {{kind: {kind}, base_url: http://127.0.0.1:8000, reconfigure: between-runs}}
model: {{family: f, served_name: m}}
quantization: {quantization}
candidates:
  - {candidate}
stages:
  function: {{suite: builtin-code@1, samples: {{first: 1}}}}
"""

SCHEDULE = "[[1, 8, 4], [9, 32, 2], [33, 1024, 1]]"


def spec(kind: str, candidate: str, quantization: str = "bf16") -> RunSpec:
    text = CAMPAIGN.format(kind=kind, candidate=candidate, quantization=quantization)
    (run,) = build_plan(parse_campaign(text, Path("x.yaml"))).runs[1:]
    return run


def test_vllm_passes_the_schedule_in_its_speculative_config() -> None:
    args = VLLMAdapter().speculative_args(
        spec("vllm", f"{{method: eagle3, k_schedule: {SCHEDULE}}}")
    )
    assert args[0] == "--speculative-config"
    config = json.loads(args[1])
    assert config == {
        "method": "eagle3",
        "num_speculative_tokens": 4,
        K_SCHEDULE_KEY: [[1, 8, 4], [9, 32, 2], [33, 1024, 1]],
    }
    assert K_SCHEDULE_KEY == "num_speculative_tokens_per_batch_size"


def test_vllm_without_a_schedule_has_no_schedule_key() -> None:
    args = VLLMAdapter().speculative_args(spec("vllm", "{method: eagle3, k: 4}"))
    assert K_SCHEDULE_KEY not in json.loads(args[1])
    assert VLLMAdapter().problems(spec("vllm", f"{{method: eagle3, k_schedule: {SCHEDULE}}}")) == []


def test_the_reference_engine_takes_the_schedule_and_checks_it() -> None:
    ok = spec("reference", f"{{method: ngram, k_schedule: {SCHEDULE}}}", "fp32")
    assert adapter_for(ok.engine.kind).problems(ok) == []
    big = spec("reference", "{method: ngram, k_schedule: [[1, 2, 40], [3, 9, 1]]}", "fp32")
    (problem,) = adapter_for(big.engine.kind).problems(big)
    assert "the reference engine refuses num_speculative_tokens" in problem


@pytest.mark.parametrize(
    ("kind", "candidate", "says"),
    [
        ("sglang", "{method: eagle3, draft: d, k_schedule: %s}", "SGLang has no k by batch size"),
        ("trtllm", "{method: eagle3, draft: d, k_schedule: %s}", "draft_len_schedule maps"),
        ("llamacpp", "{method: draft_model, draft: d, k_schedule: %s}", "--draft-max is one"),
    ],
)
def test_engines_without_the_key_refuse_a_schedule_in_one_line(
    kind: str, candidate: str, says: str
) -> None:
    run = spec(kind, candidate % SCHEDULE)
    problems = adapter_for(run.engine.kind).problems(run)
    (problem,) = [p for p in problems if "k_schedule" in p]
    assert problem.startswith(f"k_schedule: engine {kind!r} cannot run a k schedule: ")
    assert says in problem
    assert "\n" not in problem
    # the same candidate with one k is not refused for its k
    plain = spec(kind, candidate.replace("k_schedule: %s", "k: 4"))
    assert not [p for p in adapter_for(plain.engine.kind).problems(plain) if "k_schedule" in p]
