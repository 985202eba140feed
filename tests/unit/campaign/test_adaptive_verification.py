"""A candidate's adaptive verification (vLLM's ``enable_adaptive_verification``): its default,
run identity, label, pairing, validation, and the engines that take or refuse it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.model import ADAPTIVE_BY_DEFAULT
from specverdict.campaign.spec import PairingError, RunSpec, check_pair
from specverdict.engines.registry import adapter_for
from specverdict.engines.vllm import ADAPTIVE_KEY
from specverdict.errors import ConfigError
from specverdict.plugins import ENGINES
from tests.unit.campaign.test_k_schedule import FILE, PINNED, TEXT, with_candidates

CAMPAIGN = """\
name: av
engine: {{kind: {kind}, base_url: http://127.0.0.1:8000, reconfigure: between-runs}}
model: {{family: f, served_name: m}}
quantization: {quantization}
candidates:
  - {candidate}
stages:
  function: {{suite: builtin-code@1, samples: {{first: 1}}}}
"""


def spec(kind: str, candidate: str, quantization: str = "bf16") -> RunSpec:
    text = CAMPAIGN.format(kind=kind, candidate=candidate, quantization=quantization)
    (run,) = build_plan(parse_campaign(text, Path("x.yaml"))).runs[1:]
    return run


def test_plain_fingerprints_stay_pinned() -> None:
    plan = build_plan(parse_campaign(TEXT, FILE))
    got = {(r.speculation.label, r.load.label): r.fingerprint for r in plan.runs}
    assert got == PINNED
    assert all("adaptive_verification" not in r.identity()["speculation"] for r in plan.runs)


def test_dspark_verifies_adaptively_by_default_where_the_engine_has_it() -> None:
    on = spec("vllm", "{method: dspark, k: 7}")
    assert on.speculation.adaptive_verification is True
    assert on.speculation.label == "dspark k=7 adaptive"
    assert on.identity()["speculation"]["adaptive_verification"] is True
    off = spec("vllm", "{method: dspark, k: 7, adaptive_verification: false}")
    assert off.speculation.label == "dspark k=7"
    assert off.identity()["speculation"]["adaptive_verification"] is False
    assert on.fingerprint != off.fingerprint
    # an engine without it runs dspark at a fixed k, and nothing new enters its identity
    sglang = spec("sglang", "{method: dspark, k: 7}")
    assert sglang.speculation.adaptive_verification is None
    assert "adaptive_verification" not in sglang.identity()["speculation"]
    # other methods only when asked
    assert spec("vllm", "{method: eagle3, k: 3}").speculation.adaptive_verification is None
    eagle = spec("vllm", "{method: eagle3, k: 3, adaptive_verification: true}")
    assert eagle.speculation.label == "eagle3 k=3 adaptive"


def test_the_default_engines_are_the_adapters_that_take_it() -> None:
    takes = {k for k in ENGINES.names() if adapter_for(k).takes_adaptive_verification}
    assert takes == set(ADAPTIVE_BY_DEFAULT)


def test_adaptive_and_fixed_pair_on_the_k_axis() -> None:
    def dspark(line: str) -> RunSpec:
        plan = build_plan(parse_campaign(with_candidates(line), FILE))
        return next(r for r in plan.runs if r.speculation.method == "dspark")

    adaptive = dspark("{method: dspark, k: 7}")
    fixed = dspark("{method: dspark, k: 7, adaptive_verification: false}")
    fixed4 = dspark("{method: dspark, k: 4, adaptive_verification: false}")
    assert check_pair(fixed, adaptive) == ["speculation.adaptive_verification"]
    assert check_pair(fixed4, adaptive) == [
        "speculation.adaptive_verification",
        "speculation.k",
    ]
    drafted = dspark("{method: dspark, k: 7, adaptive_verification: false, draft: d}")
    with pytest.raises(PairingError, match="more than one speculation axis"):
        check_pair(drafted, adaptive)


def test_the_k_bounds_of_an_adaptive_run_are_one_to_k() -> None:
    assert spec("vllm", "{method: dspark, k: 7}").speculation.k_bounds(32) == (1, 7)
    fixed = spec("vllm", "{method: dspark, k: 7, adaptive_verification: false}")
    assert fixed.speculation.k_bounds(32) == (7, 7)


@pytest.mark.parametrize(
    ("candidate", "expected"),
    [
        (
            "{method: ngram, k: 4, adaptive_verification: true}",
            "candidates[0].adaptive_verification: true with method 'ngram': expected a method "
            "with a draft model or head",
        ),
        (
            "{method: dspark, k_schedule: [[1, 8, 7], [9, 64, 2]], adaptive_verification: true}",
            "candidates[0].adaptive_verification: true with a k_schedule: expected one of them",
        ),
        (
            "{method: none, adaptive_verification: false}",
            "candidates[0].adaptive_verification: method 'none' verifies nothing",
        ),
        (
            "{method: dspark, k: 7, adaptive_verification: maybe}",
            "candidates[0].adaptive_verification: Input should be a valid boolean",
        ),
    ],
)
def test_a_bad_adaptive_verification_is_one_line_naming_the_field(
    candidate: str, expected: str
) -> None:
    with pytest.raises(ConfigError) as info:
        parse_campaign(with_candidates(candidate), FILE)
    message = str(info.value)
    assert len(message.splitlines()) == 1, message
    assert expected in message


def test_vllm_writes_enable_adaptive_verification() -> None:
    """The key and its meaning as vLLM's PR #47808 (DSpark's confidence head) and #52228
    (every draft-model speculator) define it, checked against the fixture of vLLM's options."""
    args = adapter_for("vllm").speculative_args(spec("vllm", "{method: dspark, k: 7}"))
    assert json.loads(args[1]) == {
        "method": "dspark",
        "num_speculative_tokens": 7,
        ADAPTIVE_KEY: True,
    }
    fixture = Path(__file__).parents[2] / "fixtures" / "vllm-0.32.0-cpu" / "spec_methods.json"
    facts = json.loads(fixture.read_text())
    assert ADAPTIVE_KEY in json.dumps(facts["methods"]["dspark"]["options"])
    off = adapter_for("vllm").speculative_args(
        spec("vllm", "{method: dspark, k: 7, adaptive_verification: false}")
    )
    assert json.loads(off[1])[ADAPTIVE_KEY] is False
    plain = adapter_for("vllm").speculative_args(spec("vllm", "{method: eagle3, k: 3}"))
    assert ADAPTIVE_KEY not in json.loads(plain[1])


@pytest.mark.parametrize(
    ("kind", "candidate", "expected"),
    [
        ("sglang", "{method: dspark, k: 7, adaptive_verification: true}", "engine 'sglang'"),
        (
            "llamacpp",
            "{method: dspark, k: 7, draft: /m/d.gguf, adaptive_verification: true}",
            "engine 'llamacpp'",
        ),
        (
            "trtllm",
            "{method: dspark, k: 7, draft: /m/d, adaptive_verification: true}",
            "engine 'trtllm'",
        ),
    ],
)
def test_engines_without_it_refuse_in_one_line(kind: str, candidate: str, expected: str) -> None:
    run = spec(kind, candidate)
    (problem,) = adapter_for(kind).problems(run)
    assert problem.startswith(f"adaptive_verification: {expected} cannot verify adaptively: ")
    assert problem.endswith("set adaptive_verification: false")
    assert "\n" not in problem


def test_the_reference_engine_takes_it_for_dspark_only() -> None:
    ok = spec("reference", "{method: dspark, k: 7}", "fp32")
    assert adapter_for("reference").problems(ok) == []
    eagle = spec("reference", "{method: eagle3, k: 2, adaptive_verification: true}", "fp32")
    (problem,) = adapter_for("reference").problems(eagle)
    assert problem == (
        "the reference engine refuses it: enable_adaptive_verification with method 'eagle3': "
        "expected method 'dspark' (the reference engine verifies adaptively from DSpark's "
        "confidence head)"
    )
