"""The launch plan's order (``campaign.plan.in_sessions``): one session per configuration, load
level and round, each (stage, load) group still interleaved."""

from __future__ import annotations

from pathlib import Path

from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.plan import in_sessions, interleaved, server_key
from tests.conftest import campaign_yaml

CAMPAIGN = campaign_yaml(
    "plan",
    candidates=[{"method": "mtp", "k": 2}, {"method": "ngram", "k": 3}],
    stages={
        "function": {"suite": "synth-function@1", "samples": {"first": 8}},
        "prose": {"suite": "prose@1", "samples": {"first": 8}},
    },
    max_tokens=8,
    concurrency=[2, 8],
    warmup=None,
    baseline_repeats=None,
)


def test_sessions_hold_every_stage_of_a_configuration_level_and_round() -> None:
    plan = build_plan(parse_campaign(CAMPAIGN, Path("plan.yaml")))
    order = in_sessions(plan.runs, plan.repeats_of)
    # the same executions as the per-execution order, each once
    same = {(e.spec.fingerprint, e.repeat) for e in interleaved(plan.runs, plan.repeats_of)}
    assert {(e.spec.fingerprint, e.repeat) for e in order} == same and len(order) == len(same)
    sessions: list[tuple[str, str, int]] = []
    for e in order:
        key = (server_key(e.spec), e.spec.load.label, e.repeat)
        if not sessions or sessions[-1] != key:
            sessions.append(key)
    # consecutive, never split: (baseline twice + 2 candidates) x 2 load levels
    assert len(sessions) == len(set(sessions)) == 8
    # a session's executions are its configuration's stages at one level
    for key in sessions:
        stages = [
            e.spec.stage for e in order if (server_key(e.spec), e.spec.load.label, e.repeat) == key
        ]
        assert sorted(stages) == ["function", "prose"]
    # per stage and level, in time: baseline, candidates, then (reversed) baseline
    for stage in ("function", "prose"):
        for level in ("concurrency=2", "concurrency=8"):
            seq = [
                (e.spec.speculation.method, e.repeat)
                for e in order
                if e.spec.stage == stage and e.spec.load.label == level
            ]
            assert seq == [("none", 0), ("mtp", 0), ("ngram", 0), ("none", 1)]
