"""A synthetic stage offline: its section's checks, its identity, its samples' lengths and
request fields, the engines that cannot run it, and the pair check on prompts that differ. The
prompts cut by real engines are tested in ``tests/integration/suites/test_synthetic_prompts.py``."""

from __future__ import annotations

from pathlib import Path

import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.spec import RunSpec
from specverdict.engines.registry import adapter_for
from specverdict.errors import ConfigError
from specverdict.records import SampleExtra, SampleRecord
from specverdict.suites import suite_for
from specverdict.suites.synth.suites import SynthFunction
from specverdict.suites.synthetic import SyntheticSample, SyntheticSuite, draw_length, passage
from specverdict.verdict.gates._common import Arm
from specverdict.verdict.gates.validity import _prompts, _synthetic
from tests.conftest import campaign_yaml

FILE = Path("c.yaml")


def plan_of(synthetic: dict[str, object], kind: str = "reference") -> list[RunSpec]:
    text = campaign_yaml("syn", stages={"side:syn": {"synthetic": synthetic}}, max_tokens=16)
    if kind != "reference":
        text = text.replace("kind: reference", f"kind: {kind}\n  base_url: http://127.0.0.1:9")
    return list(build_plan(parse_campaign(text, FILE)).runs)


SECTION = {"prompts": 12, "input_tokens": 64, "output_tokens": 32}


def test_a_stage_takes_exactly_one_of_suite_dataset_synthetic() -> None:
    both = campaign_yaml(
        "syn", stages={"side:x": {"suite": "builtin-code@1", "synthetic": SECTION}}
    )
    with pytest.raises(ConfigError, match=r"one of suite .*, dataset .* or synthetic"):
        parse_campaign(both, FILE)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"input_tokens": 0}, "input_tokens"),
        ({"range_ratio": 1.0}, "range_ratio"),
        ({"source": "lorem"}, "source"),
        ({"prompts": -1}, "prompts"),
        ({"output_len": 3}, "output_len"),
    ],
)
def test_a_bad_synthetic_section_names_its_field(change: dict[str, object], field: str) -> None:
    text = campaign_yaml("syn", stages={"side:syn": {"synthetic": {**SECTION, **change}}})
    with pytest.raises(ConfigError) as err:
        parse_campaign(text, FILE)
    assert field in str(err.value)
    assert "c.yaml" in str(err.value)


def test_the_section_is_identity_and_names_the_suite() -> None:
    (base, _) = plan_of(SECTION)
    assert base.synthetic is not None and str(base.suite) == "synthetic:corpus-64x32@1"
    assert base.identity()["synthetic"]["corpus"] == "synth-function@1"
    fingerprints = {
        plan_of({**SECTION, **change})[0].fingerprint
        for change in ({}, {"seed": 1}, {"source": "random"}, {"ignore_eos": False},
                       {"range_ratio": 0.5}, {"output_tokens": 33})
    }  # fmt: skip
    assert len(fingerprints) == 6
    # a stage without it keeps the fingerprint it had before synthetic stages existed
    spec = build_plan(parse_campaign(campaign_yaml("plain"), FILE)).runs[0]
    assert "synthetic" not in spec.identity()


def test_the_corpus_named_in_the_identity_is_the_shipped_suite() -> None:
    assert f"{SynthFunction.name}@{SynthFunction.version}" == "synth-function@1"


def test_samples_are_deterministic_with_lengths_in_the_range() -> None:
    spec = plan_of({**SECTION, "prompts": 200, "range_ratio": 0.25, "seed": 7})[0]
    one, two = suite_for(spec).samples(), suite_for(spec).samples()
    assert one == two and len(one) == 200
    assert isinstance(suite_for(spec), SyntheticSuite)
    ins = [s.input_tokens for s in one if isinstance(s, SyntheticSample)]
    outs = [s.output_tokens for s in one if isinstance(s, SyntheticSample)]
    assert min(ins) >= 48 and max(ins) <= 80 and len(set(ins)) > 10
    assert min(outs) >= 24 and max(outs) <= 40
    other = suite_for(plan_of({**SECTION, "prompts": 200, "range_ratio": 0.25})[0]).samples()
    assert [s.prompt for s in other] != [s.prompt for s in one]  # the seed draws the passages


def test_a_corpus_passage_is_long_enough_and_a_random_prompt_waits_for_the_engine() -> None:
    (sample, *_) = suite_for(plan_of(SECTION)[0]).samples()
    assert sample.prompt is not None and len(sample.prompt) >= 64 * 6
    assert "def " in sample.prompt  # code: the reference solutions
    (rand, *_) = suite_for(plan_of({**SECTION, "source": "random"})[0]).samples()
    assert rand.prompt == ""
    assert passage(["ab", "cd"], 1, 7) == "cd\n\nab\n\ncd"


def test_a_fixed_length_is_exact_and_a_range_draws_inside_it() -> None:
    import random

    rng = random.Random(0)
    assert draw_length(rng, 100, 0.0) == 100
    drawn = {draw_length(rng, 100, 0.1) for _ in range(500)}
    assert min(drawn) == 90 and max(drawn) == 110
    assert {draw_length(rng, 1, 0.9) for _ in range(50)} <= {1, 2}


def test_a_sample_asks_its_length_and_ignore_eos_and_digests_its_prompt() -> None:
    sample = SyntheticSample(
        id="s", endpoint="completions", prompt="x = 1", input_tokens=3, output_tokens=40
    )
    assert sample.request_fields() == {"max_tokens": 40, "ignore_eos": True}
    off = sample.model_copy(update={"ignore_eos": False})
    assert off.request_fields() == {"max_tokens": 40}
    assert sample.prompt_sha256() != off.model_copy(update={"prompt": "x = 2"}).prompt_sha256()


def test_engines_that_cannot_run_a_synthetic_stage_say_why_in_one_line() -> None:
    spec = plan_of(SECTION)[0]
    assert adapter_for("reference").problems(spec) == []
    for kind in ("vllm", "sglang", "llamacpp"):
        assert adapter_for(kind).problems(spec) == [], kind
    trt = adapter_for("trtllm").problems(spec)
    assert any("no tokenize endpoint" in p for p in trt)
    generic = adapter_for("openai").problems(spec)
    assert generic == [
        "stage side:syn: engine 'openai''s requests take no ignore_eos; set "
        "synthetic.ignore_eos: false (answers may then stop early; the report counts them)"
    ]
    off = plan_of({**SECTION, "ignore_eos": False})[0]
    assert adapter_for("openai").problems(off) == []


def _record(sample: str, digest: str, finish: str = "length") -> SampleRecord:
    return SampleRecord(
        run_id="r",
        sample_id=sample,
        status="ok",
        finish_reason=finish,
        extra=SampleExtra(prompt_sha256=digest),
    )


def test_prompts_that_differ_between_the_arms_make_the_pair_invalid() -> None:
    spec = plan_of(SECTION)[0]
    same = (_record("a", "1" * 64), _record("b", "2" * 64))
    base = Arm(spec=spec, run_ids=("b1",), samples=(same,))
    assert _prompts(base, Arm(spec=spec, run_ids=("c1",), samples=(same,))) == []
    other = (_record("a", "1" * 64), _record("b", "3" * 64))
    (reason,) = _prompts(base, Arm(spec=spec, run_ids=("c1",), samples=(other,)))
    assert reason.status == "invalid" and reason.gate == "pairing"
    assert "1 of 2 prompts" in reason.message and "sample b" in reason.message


def test_random_tokens_and_early_stops_are_said_beside_the_speed() -> None:
    spec = plan_of({**SECTION, "source": "random"})[0]
    run = (_record("a", "1" * 64), _record("b", "2" * 64, finish="stop"))
    arm = Arm(spec=spec, run_ids=("r",), samples=(run,))
    reasons = _synthetic(arm, arm)
    assert [r.gate for r in reasons] == ["workload", "workload"]
    assert "random-token prompts" in reasons[0].message
    assert "baseline 1 of 2; candidate 1 of 2" in reasons[1].message
    assert "did not honour ignore_eos" in reasons[1].message
    corpus = plan_of(SECTION)[0]
    whole = (_record("a", "1" * 64),)
    assert _synthetic(*[Arm(spec=corpus, run_ids=("r",), samples=(whole,))] * 2) == []
