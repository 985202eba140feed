"""Campaign files: strict validation with file:line:key-path errors, expansion, identity, pairing."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st

from specverdict.campaign import (
    PairingError,
    build_plan,
    check_pair,
    differing_axes,
    parse_campaign,
)
from specverdict.campaign.model import Method
from specverdict.campaign.plan import Step, blocked, interleaved
from specverdict.errors import ConfigError
from specverdict.run.feasibility import feasibility
from tests.conftest import specverdict_cli

ROOT = Path(__file__).resolve().parents[3]
DEMO = ROOT / "examples" / "demo.yaml"

BASE = """\
name: t
engine:
  {kind: vllm, reconfigure: between-runs,
   base_url: http://127.0.0.1:8000}
model: {family: qwen3-moe, served_name: Qwen/Qwen3-30B-A3B-FP8}
quantization: fp8
candidates:
  - {method: mtp, k: [1, 2, 3]}
  - {method: eagle3, k: 3, draft: org/eagle3-head}
stages:
  function: {suite: humaneval-amplified@1, samples: all}
  agent: {suite: bfcl-simple@1, samples: {seeded: 200, seed: 7}}
load: {concurrency: [1, 8], repeats: 2}
"""


def parse(text: str) -> object:
    return parse_campaign(text, Path("c.yaml"))


def test_matrix_expansion_and_pairs() -> None:
    plan = build_plan(parse_campaign(BASE, Path("c.yaml")))
    # (1 baseline + 3 mtp + 1 eagle3) x 2 stages x 2 load levels
    assert len(plan.runs) == 20
    assert len(plan.pairs) == 16
    assert plan.executions == 40
    assert len({r.fingerprint for r in plan.runs}) == 20
    for pair in plan.pairs:
        assert pair.baseline.speculation.method == "none"
        assert pair.baseline.stage == pair.candidate.stage
        assert pair.baseline.load == pair.candidate.load


def test_the_demo_campaign_is_valid() -> None:
    plan = build_plan(parse_campaign(DEMO.read_text(), DEMO))
    relaxed = "mtp k=2 acceptance=relaxed relaxed_delta=2.0 relaxed_topk=3"
    labels = ["none", "ngram k=8", "mtp k=2", "draft_model k=4", relaxed]
    assert [(r.stage, r.speculation.label) for r in plan.runs] == [
        (stage, label) for stage in ("function", "agent", "prose") for label in labels
    ]
    assert len(plan.pairs) == 12  # each candidate against the baseline of its own stage


def test_the_demo_methods_campaign_plans_every_method_at_both_loads_on_three_stages() -> None:
    path = ROOT / "examples" / "demo-methods.yaml"
    plan = build_plan(parse_campaign(path.read_text(), path))
    assert feasibility(plan).errors == ()  # the reference engine takes every candidate
    labels = [
        "none",
        "ngram k=4",
        "suffix k=4",
        "draft_model k=4",
        "mtp k=4",
        "medusa k=4",
        "dflash k=4",
        "eagle3 k=4",
        "dspark k=7",
        "dspark k=7 adaptive",
    ]
    stages = ("function", "repository", "agent")
    suites = {"function": "synth-function@1", "repository": "synth-repository@2"}
    assert sorted((r.stage, r.load.concurrency, r.speculation.label) for r in plan.runs) == sorted(
        (stage, c, label) for stage in stages for c in (2, 8) for label in labels
    )
    for run in plan.runs:
        assert f"{run.suite.name}@{run.suite.version}" == suites.get(run.stage, "synth-agent@2")
        assert run.speculation.k == {"none": None, "dspark": 7}.get(run.speculation.method, 4)
    assert len(plan.pairs) == 9 * 3 * 2  # each candidate against its stage's and load's baseline
    for pair in plan.pairs:
        assert pair.baseline.speculation.method == "none"
        assert (pair.baseline.stage, pair.baseline.load) == (
            pair.candidate.stage,
            pair.candidate.load,
        )
    # every method of the campaign's Method list has a row, but eagle, which the header says why
    methods = {r.speculation.method for r in plan.runs}
    assert set(get_args(Method)) - methods == {"eagle"}
    assert "`eagle` (EAGLE-1/2) has no row" in path.read_text()
    eagle = path.read_text().replace("{method: eagle3, k: 4}", "{method: eagle, k: 4}")
    (refused,) = feasibility(build_plan(parse_campaign(eagle, path))).errors
    assert "does not implement speculation method 'eagle'" in refused


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            ("  - {method: eagle3, k: 3, draft: org/eagle3-head}", "  - {method: eagle3, kk: 3}"),
            "c.yaml:9: candidates[1].kk: unknown key",
        ),
        (("{method: mtp, k: [1, 2, 3]}", "{method: mtp, k: [1, 0]}"), "c.yaml:8: candidates[0].k"),
        (
            ("{method: mtp, k: [1, 2, 3]}", "{method: mtp}"),
            "c.yaml:8: candidates[0]: Value error, method 'mtp' needs k",
        ),
        (("humaneval-amplified@1", "humaneval"), "c.yaml:11: stages.function.suite"),
        (
            ("  function:", "  functions:"),
            "c.yaml:11: stages.functions: Value error, a stage is function",
        ),
        (
            ("quantization: fp8", "quantization: fp8\nquantization: bf16"),
            "c.yaml:7: quantization: duplicate key",
        ),
        (
            ("{kind: vllm,", "{kind: vllm, launch: {command: x},"),
            "c.yaml:2: engine: Value error, give either",
        ),
        (
            (
                "load: {concurrency: [1, 8], repeats: 2}",
                "load: {concurrency: [1, 8], request_rate: 2}",
            ),
            "c.yaml:13: load: Value error, give concurrency or request_rate",
        ),
        (("name: t", "name: t\n  bad: [indent"), "c.yaml:2: not valid YAML"),
    ],
)
def test_errors_name_file_line_and_key_path(edit: tuple[str, str], expected: str) -> None:
    text = BASE.replace(*edit)
    assert text != BASE
    with pytest.raises(ConfigError) as info:
        parse(text)
    message = str(info.value)
    assert message.startswith(expected), message
    assert "\n" not in message


ATTACHED = """\
name: a
engine: {kind: llamacpp, base_url: 'http://127.0.0.1:8080'}
model: {family: f, served_name: m}
quantization: bf16
candidates:
  - {method: draft_model, k: 3, draft: d}
stages:
  prose: {suite: prose@1}
"""


def test_attach_mode_refuses_one_unchanged_server_for_baseline_and_candidate() -> None:
    with pytest.raises(ConfigError) as info:
        parse(ATTACHED)
    message = str(info.value)
    assert message.startswith(
        "c.yaml:6: candidates[0]: draft_model would be measured on the baseline's server "
        "http://127.0.0.1:8080: one unchanged server cannot be both"
    ), message
    assert "engine.reconfigure: between-runs" in message
    # its own server: measured there, and still paired with the baseline
    own = ATTACHED.replace("draft: d}", "draft: d, base_url: 'http://127.0.0.1:8081/'}")
    plan = build_plan(parse_campaign(own, Path("c.yaml")))
    assert [r.engine.base_url for r in plan.runs] == [
        "http://127.0.0.1:8080",
        "http://127.0.0.1:8081",
    ]
    (pair,) = plan.pairs
    axes = ["speculation.draft", "speculation.k", "speculation.method"]
    assert check_pair(pair.baseline, pair.candidate) == axes  # engine.base_url is no axis
    # or one server, reconfigured between runs when asked
    shared = ATTACHED.replace(
        "base_url: 'http://127.0.0.1:8080'}",
        "base_url: 'http://127.0.0.1:8080', reconfigure: between-runs}",
    )
    assert len(build_plan(parse_campaign(shared, Path("c.yaml"))).pairs) == 1
    # the baseline may have a server of its own, and every configuration needs one
    no_engine_url = ATTACHED.replace(", base_url: 'http://127.0.0.1:8080'", "").replace(
        "draft: d}", "draft: d, base_url: 'http://127.0.0.1:8081'}"
    )
    with pytest.raises(ConfigError, match=r"^c.yaml:1: baseline: no base_url"):
        parse(no_engine_url)
    with_base = no_engine_url + "baseline: {base_url: 'http://127.0.0.1:8080'}\n"
    assert len(build_plan(parse_campaign(with_base, Path("c.yaml"))).pairs) == 1


def test_pairing_refuses_more_than_one_axis_and_names_them() -> None:
    plan = build_plan(parse_campaign(BASE, Path("c.yaml")))
    by_label = {(r.speculation.label, r.stage, r.load.concurrency): r for r in plan.runs}
    mtp1 = by_label[("mtp k=1", "function", 1)]
    mtp2 = by_label[("mtp k=2", "function", 1)]
    eagle = by_label[("eagle3 k=3", "function", 1)]
    assert check_pair(mtp1, mtp2) == ["speculation.k"]
    with pytest.raises(PairingError, match=r"speculation.draft, speculation.k, speculation.method"):
        check_pair(mtp1, eagle)
    with pytest.raises(
        PairingError, match=r"outside speculation: load.concurrency, samples, .*stage, suite.name"
    ):
        check_pair(by_label[("none", "function", 1)], by_label[("mtp k=1", "agent", 8)])
    other_quant = mtp1.model_copy(update={"quantization": "nvfp4"})
    with pytest.raises(PairingError, match="quantization"):
        check_pair(by_label[("none", "function", 1)], other_quant)


@given(st.sampled_from(["fp8", "nvfp4", "bf16"]), st.integers(1, 8), st.integers(1, 8))
def test_fingerprint_changes_exactly_when_an_axis_does(quant: str, k1: int, k2: int) -> None:
    plan = build_plan(parse_campaign(BASE, Path("c.yaml")))
    run = plan.runs[1]
    a = run.model_copy(
        update={"quantization": quant, "speculation": run.speculation.model_copy(update={"k": k1})}
    )
    b = run.model_copy(update={"speculation": run.speculation.model_copy(update={"k": k2})})
    assert (a.fingerprint == b.fingerprint) == (not differing_axes(a, b))
    assert differing_axes(a, b) == differing_axes(b, a)
    # the campaign name labels a run but is not an axis
    assert a.model_copy(update={"campaign": "other"}).fingerprint == a.fingerprint


def test_validate_command_exit_codes(tmp_path: Path) -> None:
    ok = specverdict_cli("validate", str(DEMO), "--json")
    assert ok.returncode == 0, ok.stderr
    assert '"executions": 18' in ok.stdout  # 15 runs, the 3 baselines twice
    assert '"requests": 1176' in ok.stdout  # (4 + 2) executions x (160 + 20 + 16 samples)
    bad = tmp_path / "bad.yaml"
    bad.write_text(BASE.replace("quantization: fp8", "quantisation: fp8"))
    res = specverdict_cli("validate", str(bad))
    assert res.returncode == 2
    assert res.stderr.strip().splitlines() == [  # every error, each on its line
        f"specverdict: error: {bad}:1: quantization: Field required",
        f"{bad}:6: quantisation: unknown key (did you mean 'quantization'?)",
    ]
    upper = tmp_path / "upper.yaml"
    upper.write_text(DEMO.read_text().replace("{method: mtp, k: 2}", "{method: mtp, K: 2}", 1))
    res = specverdict_cli("validate", str(upper))
    assert res.returncode == 2
    assert "candidates[1].K: unknown key (did you mean 'k'?)" in res.stderr
    typo = tmp_path / "typo.yaml"
    typo.write_text(DEMO.read_text().replace("synth-function@1", "synth-functon@1"))
    res = specverdict_cli("validate", str(typo))
    assert res.returncode == 2
    assert (
        "stages.function.suite: unknown suite 'synth-functon@1'; did you mean synth-function@1?"
        in res.stderr
    )
    missing = specverdict_cli("validate", str(tmp_path / "nope.yaml"))
    assert missing.returncode == 2 and "cannot read campaign file" in missing.stderr


def test_executions_are_interleaved_so_run_order_cannot_make_a_speed_up() -> None:
    plan = build_plan(parse_campaign(BASE, Path("c.yaml")))
    order = interleaved(plan.runs, plan.repeats_of)
    assert len(order) == plan.executions
    first = [(e.spec.speculation.label, e.repeat) for e in order[:10]]
    labels = ["none", "mtp k=1", "mtp k=2", "mtp k=3", "eagle3 k=3"]
    # one group (function, concurrency 1): forwards, then backwards
    assert first == [(label, 0) for label in labels] + [(label, 1) for label in labels[::-1]]
    assert [e.position for e in order[5:10]] == [0, 1, 2, 3, 4]
    assert {(e.spec.stage, e.spec.load.concurrency) for e in order[:10]} == {("function", 1)}
    # every run and repeat exactly once
    assert sorted((e.spec.fingerprint, e.repeat) for e in order) == sorted(
        (r.fingerprint, k) for r in plan.runs for k in range(plan.repeats)
    )
    # and a cold server is never one arm's handicap: two warm-up requests unless asked
    assert {r.load.warmup for r in plan.runs} == {2}


def test_attached_configurations_take_turns_in_abba_blocks() -> None:
    own = ATTACHED.replace("draft: d}", "draft: d, base_url: 'http://127.0.0.1:8081/v1'}")
    campaign = parse_campaign(own + "load: {concurrency: [1, 6]}\n", Path("c.yaml"))
    # the OpenAI-client path is taken off: the runner adds its own
    assert campaign.candidate_url(campaign.candidates[0]) == "http://127.0.0.1:8081"
    assert campaign.blocked() and campaign.block_size(1) == 8 and campaign.block_size(6) == 12
    plan = build_plan(campaign)
    # the blocks hold the drift: the baseline runs once, like every configuration
    assert plan.executions == 4
    steps = blocked(
        plan.runs, plan.repeats_of, lambda s: campaign.block_size(s.load.level), lambda s: 20
    )
    conc1 = [s for s in steps if isinstance(s, Step) and s.execution.spec.load.concurrency == 1]
    order = [(s.block, s.execution.spec.speculation.method, s.limit) for s in conc1]
    assert order == [
        (0, "none", 8), (0, "draft_model", 8),
        (1, "draft_model", 16), (1, "none", 16),
        (2, "none", 20), (2, "draft_model", 20),
    ]  # fmt: skip
    conc6 = [s for s in steps if isinstance(s, Step) and s.execution.spec.load.concurrency == 6]
    assert [s.limit for s in conc6] == [12, 12, 20, 20]
    # whole executions where a block would cost a server start, or a person's reconfiguring
    launched = parse_campaign(LAUNCHED, Path("c.yaml"))
    shared = parse_campaign(BASE, Path("c.yaml"))
    assert not launched.blocked() and not shared.blocked()
    assert build_plan(shared).repeats_of(build_plan(shared).runs[0]) == 2
    off = parse_campaign(own + "load: {blocks: 'off'}\n", Path("c.yaml"))
    assert not off.blocked() and build_plan(off).executions == 3


LAUNCHED = BASE.replace(
    "reconfigure: between-runs,\n   base_url: http://127.0.0.1:8000", "launch: {}"
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            BASE.replace("repeats: 2}", "repeats: 2, blocks: 8}"),
            "load.blocks: blocks of 8 need a server per configuration",
        ),
        (
            LAUNCHED.replace("repeats: 2}", "repeats: 2, blocks: 8}"),
            "load.blocks: blocks of 8 take turns between running servers",
        ),
        (BASE.replace("repeats: 2}", "repeats: 2, blocks: 1}"), "a block is at least 2 requests"),
    ],
)
def test_blocks_where_they_cannot_be_are_refused(text: str, expected: str) -> None:
    if "  blocks: 8\n" in text:
        text = text.replace(
            "load: {concurrency: [1, 8], repeats: 2}\n  blocks: 8\n",
            "load: {concurrency: [1, 8], repeats: 2, blocks: 8}\n",
        )
    with pytest.raises(ConfigError, match=expected):
        parse(text)
