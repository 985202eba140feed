"""The demo job end to end: the demo campaign's runs on real reference servers, the acceptance
cross-check, the verdicts and the report."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from specverdict.campaign import build_plan, load_campaign, parse_campaign
from specverdict.run.demo import run_demo, write_report

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo.yaml"
METHODS = DEMO.with_name("demo-methods.yaml")


def test_the_demo_campaign_runs_every_config_and_writes_a_report(tmp_path: Path) -> None:
    # The shipped campaign, shrunk: three prompts, twelve tokens.
    raw = yaml.safe_load(DEMO.read_text())
    for stage in raw["stages"].values():
        stage["samples"] = {"first": 3}
    raw["sampling"]["max_tokens"] = 12
    plan = build_plan(parse_campaign(yaml.safe_dump(raw), Path("demo-small.yaml")))
    assert len(plan.runs) == len(build_plan(load_campaign(DEMO)).runs) == 15

    out = tmp_path / "demo"
    result = run_demo(plan, out, log=lambda _: None)
    # 15 runs, each baseline executed twice (before its candidates and after)
    assert [r.run.status for r in result.results] == ["completed"] * 18
    order = [
        (r.run.spec.speculation.label, r.run.repeat)
        for r in result.results
        if r.run.spec.stage == "function"
    ]
    assert order[0] == ("none", 0) and order[-1] == ("none", 1) and len(order) == 6
    for res in result.results:
        assert res.summary.samples == res.summary.ok == 3
        assert res.run.manifest.engine_logs  # launched through the launcher, log kept
        assert res.summary.clock == "device"  # timed on the modelled device's clock
    baselines = [r for r in result.results if r.run.spec.speculation.method == "none"]
    candidates = [r for r in result.results if r.run.spec.speculation.method != "none"]
    assert {b.run.spec.stage for b in baselines} == {"function", "agent", "prose"}
    for baseline in baselines:
        assert baseline.acceptance.drafted is False  # the server says it did not speculate
        assert result.counters_agree[baseline.run.run_id] is None
    for res in candidates:
        assert res.acceptance.source == "per-request" and res.acceptance.valid
        assert result.counters_agree[res.run.run_id] is True  # two sources, one truth
    assert len(result.verdicts) == 12
    assert {v.stage for v in result.verdicts} == {"function", "agent", "prose"}
    for v in result.verdicts:
        assert v.verdict != "ADOPT"  # three samples: too few to adopt anything
        lossless = "relaxed" not in json.dumps(v.model_dump(mode="json")["candidate"])
        if lossless and v.stage != "agent":
            assert v.reason("identity").data["share"] == 1.0  # type: ignore[union-attr]

    data = json.loads(write_report(plan, result, out).read_text())
    assert len(data["verdicts"]) == 12
    assert all(v in (True, None) for v in data["counters_agree"].values())

    # a second demo measures afresh: the registry is replaced, not resumed (its prose stage
    # alone, with one candidate: runs it shares with the first demo are measured again)
    raw["stages"] = {"prose": raw["stages"]["prose"]}
    raw["candidates"] = raw["candidates"][:1]
    small = build_plan(parse_campaign(yaml.safe_dump(raw), Path("demo-small.yaml")))
    again = run_demo(small, out, log=lambda _: None)
    assert len(again.results) == 3
    first = {r.run.run_id for r in result.results}
    assert {r.run.run_id for r in again.results}.isdisjoint(first)
    fingerprints = {r.run.fingerprint for r in result.results}
    assert {r.run.fingerprint for r in again.results} <= fingerprints


def test_the_methods_campaign_runs_every_method_on_every_stage(tmp_path: Path) -> None:
    # examples/demo-methods.yaml shrunk: three prompts, twelve tokens, one load level of 3 in
    # place of its two (test_campaign.py checks that it plans both): every method on every stage
    raw = yaml.safe_load(METHODS.read_text())
    for stage in raw["stages"].values():
        stage["samples"] = {"first": 3}
    raw["sampling"]["max_tokens"] = 12
    raw["load"]["concurrency"] = [3]
    plan = build_plan(parse_campaign(yaml.safe_dump(raw), Path("demo-methods-small.yaml")))
    assert len(plan.runs) == len(build_plan(load_campaign(METHODS)).runs) // 2 == 30

    result = run_demo(plan, tmp_path / "methods", log=lambda _: None)
    assert [r.run.status for r in result.results] == ["completed"] * 30
    for res in result.results:
        assert res.summary.samples == res.summary.ok == 3
        assert res.summary.clock == "device"
        if res.run.spec.speculation.method != "none":
            assert res.acceptance.source == "per-request" and res.acceptance.valid
            assert result.counters_agree[res.run.run_id] is True
    assert len(result.verdicts) == 27  # nine candidates on three stages
    assert {v.stage for v in result.verdicts} == {"function", "repository", "agent"}
    assert len({v.candidate for v in result.verdicts}) == 9
    # every method is lossless under greedy decoding: on every stage, each sample's output is
    # the baseline's (the identity gate's share of identical greedy outputs)
    for v in result.verdicts:
        identity = v.reason("identity")
        assert identity is not None and identity.data["share"] == 1.0, (v.stage, v.candidate)
