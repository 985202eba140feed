"""Lossy speculation recognised from the configuration, per engine (``campaign.lossy``): a
synthetic or forced acceptance is INVALID for quality and speed, the other lossy modes are
marked and never judged as lossless; a lossless configuration is none of these."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.lossy import lossy_mode
from specverdict.campaign.model import Gates
from specverdict.campaign.spec import RunSpec
from specverdict.records import SampleRecord, Score
from specverdict.verdict import Arm, judge_pair
from tests.conftest import campaign_yaml

GATES = Gates(alpha=0.05, margin=0.05, min_speedup=1.05)


def plan_runs(kind: str, params: dict[str, object]) -> list[RunSpec]:
    text = campaign_yaml(
        "lossy",
        engine={"kind": kind, "base_url": "http://127.0.0.1:1"},
        model={"family": "f", "served_name": "m"},
        quantization="bf16",
        candidates=[{"method": "mtp", "k": 2, "params": params, "base_url": "http://127.0.0.1:2"}],
        first=None,
        max_tokens=64,
        seed=None,
        load=None,
    )
    return list(build_plan(parse_campaign(text, Path("lossy.yaml"))).runs)


def specs_of(kind: str, params: dict[str, object], launch_args: tuple[str, ...] = ()) -> RunSpec:
    (cand,) = [r for r in plan_runs(kind, params) if r.speculation.method != "none"]
    if launch_args:
        cand = cand.model_copy(
            update={"engine": cand.engine.model_copy(update={"launch_args": launch_args})}
        )
    return cand


@pytest.mark.parametrize(
    ("kind", "params", "args", "expected"),
    [
        ("vllm", {"rejection_sample_method": "synthetic"}, (), ("synthetic", False)),
        ("vllm", {"synthetic_acceptance_length": 3}, (), ("synthetic", False)),
        ("vllm", {"synthetic_acceptance_rates": "0.8,0.6"}, (), ("synthetic", False)),
        ("vllm", {"spec_decoding_acceptance_method": "typical_acceptance_sampler"}, (), ("typical", True)),
        ("sglang", {}, ("--speculative-accept-threshold-single", "0.3"), ("threshold", True)),
        ("sglang", {}, ("--speculative-accept-threshold-acc=0.5",), ("threshold", True)),
        ("trtllm", {"use_relaxed_acceptance_for_thinking": True}, (), ("relaxed", True)),
        ("reference", {"acceptance": "relaxed", "relaxed_topk": 3}, (), ("relaxed", True)),
        ("reference", {"acceptance": "threshold", "accept_threshold_single": 0.4}, (), ("threshold", True)),
        ("vllm", {}, ("--spec-decode-acceptance-length", "3"), ("forced", False)),
        ("llamacpp", {}, ("--spec-synth-len", "3"), ("synthetic", False)),
        ("llamacpp", {}, ("--spec-synth-rates", "0.9,0.7"), ("synthetic", False)),
    ],
)  # fmt: skip
def test_each_engines_lossy_setting_is_recognised(
    kind: str, params: dict[str, object], args: tuple[str, ...], expected: tuple[str, bool]
) -> None:
    mode = lossy_mode(specs_of(kind, params, args))
    assert mode is not None
    assert (mode.kind, mode.judgeable) == expected
    assert mode.setting  # names what made it lossy


@pytest.mark.parametrize(
    ("kind", "params", "args"),
    [
        ("vllm", {"rejection_sample_method": "standard"}, ()),
        ("vllm", {"rejection_sample_method": "block"}, ()),  # block verification is lossless
        ("sglang", {}, ("--speculative-accept-threshold-single", "1.0")),
        ("trtllm", {"use_relaxed_acceptance_for_thinking": False}, ()),
        ("reference", {"acceptance": "exact"}, ()),
        ("reference", {}, ()),
    ],
)
def test_lossless_settings_are_not_lossy(
    kind: str, params: dict[str, object], args: tuple[str, ...]
) -> None:
    assert lossy_mode(specs_of(kind, params, args)) is None


def samples(
    run_id: str, tpot: float, text: str, seed: int, n: int = 200
) -> tuple[SampleRecord, ...]:
    rng = np.random.default_rng(seed)
    return tuple(
        SampleRecord(
            run_id=run_id,
            sample_id=f"s{i:03d}",
            status="ok",
            text=text,
            completion_tokens=33,
            ttft_s=0.1,
            e2e_s=0.1 + tpot * (1 + 0.02 * rng.standard_normal()) * 32,
            score=Score(passed=i % 2 == 0, outcome="passed" if i % 2 == 0 else "failed"),
        )
        for i in range(n)
    )


def pair(params: dict[str, object], kind: str = "reference") -> tuple[Arm, Arm]:
    runs = plan_runs(kind, params)
    base_spec = next(r for r in runs if r.speculation.method == "none")
    cand_spec = next(r for r in runs if r.speculation.method != "none")
    base = Arm(
        spec=base_spec,
        run_ids=("b", "b2"),
        samples=(samples("b", 0.02, "same", 1), samples("b2", 0.02, "same", 5)),
    )
    cand = Arm(spec=cand_spec, run_ids=("c",), samples=(samples("c", 0.01, "other", 2),))
    return base, cand


def test_synthetic_acceptance_is_invalid_for_quality_and_speed() -> None:
    base, cand = pair({"rejection_sample_method": "synthetic"}, kind="vllm")
    v = judge_pair(base, cand, GATES)
    assert v.verdict == "INVALID", [str(r) for r in v.reasons]
    lossy = v.reason("speculation.lossy")
    assert lossy is not None and lossy.status == "invalid"
    assert "outputs are not the model's" in lossy.message
    assert "rejection_sample_method=synthetic" in lossy.message


def test_a_threshold_rule_is_marked_and_not_judged_as_lossless() -> None:
    """Every greedy output differs, as a lossy rule may make it: the identity check does not
    call that a broken lossless path, and the verdict carries the lossy marker."""
    base, cand = pair({"acceptance": "threshold", "accept_threshold_single": 0.4})
    v = judge_pair(base, cand, GATES)
    lossy = v.reason("speculation.lossy")
    assert lossy is not None and lossy.status == "info"
    assert "judged on quality, not as lossless" in lossy.message
    identity = v.reason("identity")
    assert identity is None or "lossless speculation should be near 100%" not in identity.message
    assert "acceptance=threshold" in cand.spec.speculation.label


FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


@pytest.mark.parametrize(
    ("engine", "fixture"),
    [
        ("vllm", "vllm-0.32.0-cpu"),
        ("sglang", "sglang"),
        ("trtllm", "trtllm"),
        ("llamacpp", "llamacpp"),
    ],
)
def test_every_lossy_key_the_engines_source_names_is_recognised(engine: str, fixture: str) -> None:
    """The lossy settings read from each engine's pinned source (``spec_methods.json``,
    ``lossy``) are each recognised, as a parameter or as a launch flag."""
    import json

    lossy = json.loads((FIXTURES / fixture / "spec_methods.json").read_text())["lossy"]
    keys = lossy.get("keys") or [lossy["key"]]
    recognised = []
    for key in keys:
        if key == "rejection_sample_method":
            setting: dict[str, object] = {key: "synthetic"}
            args: tuple[str, ...] = ()
        elif key.startswith("--"):
            setting, args = {}, (key, "3")
        elif key.startswith("relaxed_"):
            continue  # the relaxed rule's tuning, lossy only with the switch below
        elif key.startswith("use_"):
            setting, args = {key: True}, ()
        else:
            setting, args = {key: 0.5}, ()
        mode = lossy_mode(specs_of(engine, setting, args))
        assert mode is not None, key
        recognised.append(key)
    assert recognised
