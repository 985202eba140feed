"""The saturation sweep's arithmetic: the exploration plan, each configuration's knee, the
levels measured after it, and where a candidate stops paying over its load levels. The sweep
run on real engines is tested in ``tests/integration/cli/test_sweep.py``."""

from __future__ import annotations

from pathlib import Path

from specverdict.campaign import parse_campaign
from specverdict.campaign.model import First
from specverdict.run.sweep import Point, chosen_levels, exploration, knee, requests_for
from specverdict.verdict.model import PairVerdict
from specverdict.verdict.paying import load_number, paying
from tests.conftest import campaign_yaml


def ladder(*rows: tuple[int, float, float]) -> list[Point]:
    return [Point(level, tps, tpot) for level, tps, tpot in rows]


def test_the_exploration_runs_one_stage_once_a_level_on_its_first_samples() -> None:
    text = campaign_yaml(
        "s",
        stages={
            "function": {"suite": "builtin-code@1", "samples": "all", "slices": ["category"]},
            "side:x": {"suite": "builtin-code@1"},
        },
        repeats=3,
        baseline_repeats=2,
    )
    campaign = parse_campaign(text, Path("c.yaml"))
    plan = exploration(campaign, "function", [1, 2, 4], requests=12)
    assert {r.stage for r in plan.runs} == {"function"}
    assert sorted({r.load.concurrency for r in plan.runs}) == [1, 2, 4]  # type: ignore[type-var]
    assert {r.samples for r in plan.runs} == {First(first=12)}
    assert plan.repeats == 1 and plan.campaign.load.baseline_executions() == 1
    assert plan.campaign.name == "s-sweep" and plan.campaign.sequential is None
    # the sweep's executions are not the campaign's: their fingerprints differ
    assert requests_for([1, 2, 4], None) == 16 and requests_for([1, 64], None) == 128
    assert requests_for([1, 2], 5) == 5


def test_the_knee_is_the_last_level_whose_throughput_still_grew() -> None:
    k = knee("none", ladder((1, 100, 0.01), (2, 190, 0.01), (4, 360, 0.011), (8, 380, 0.02)))
    assert (k.level, k.saturated_at) == (4, 8)
    assert k.why == "throughput grew +6% (< 10%)"
    # a looser gain keeps climbing
    assert knee("none", k.points, gain=0.05).saturated_at is None


def test_latency_turning_saturates_even_while_throughput_grows() -> None:
    k = knee("mtp k=2", ladder((1, 100, 0.010), (2, 200, 0.012), (4, 390, 0.025), (8, 700, 0.03)))
    assert (k.level, k.saturated_at) == (2, 4)
    assert k.why == "median TPOT 2.5x the lowest level's"
    assert knee("mtp k=2", k.points, latency=3.5).saturated_at is None


def test_a_ladder_that_never_saturates_has_its_top_as_knee() -> None:
    k = knee("none", ladder((1, 100, 0.01), (4, 400, 0.01), (16, 1500, 0.012)))
    assert (k.level, k.saturated_at) == (16, None)
    assert k.why == "still scaling at the top of the ladder"
    failed = knee("none", [Point(1, 100, 0.01), Point(2, None, None)])
    assert (failed.level, failed.saturated_at, failed.why) == (1, 2, "no throughput")


def test_the_levels_measured_surround_every_knee() -> None:
    knees = [
        knee("none", ladder((1, 100, 0.01), (2, 200, 0.01), (4, 400, 0.01), (8, 410, 0.01))),
        knee("mtp", ladder((1, 100, 0.01), (2, 105, 0.01))),
    ]
    assert [k.level for k in knees] == [4, 1]
    assert chosen_levels(knees) == [1, 2, 4, 8]
    assert chosen_levels(knees, cap=4) == [1, 2, 4]
    many = [knee(f"c{n}", [Point(n, 1.0, 0.01)]) for n in (1, 4, 16, 64)]
    chosen = chosen_levels(many)
    assert len(chosen) == 5 and {1, 4, 16, 64} <= set(chosen)  # the knees themselves first


def verdict(load: str, speedup: float, lo: float, hi: float, cand: str = "mtp k=2") -> PairVerdict:
    return PairVerdict(
        stage="function",
        suite="s@1",
        load=load,
        baseline="none",
        candidate=cand,
        baseline_run_ids=("b",),
        candidate_run_ids=("c",),
        verdict="INCONCLUSIVE",
        reasons=(),
        speedup=speedup,
        speedup_interval=(lo, hi),
    )


def test_where_a_candidate_stops_paying_is_named() -> None:
    vs = [
        verdict("concurrency=16", 0.85, 0.80, 0.90),
        verdict("concurrency=4", 1.30, 1.20, 1.40),
        verdict("concurrency=8", 1.02, 0.95, 1.09),
        verdict("concurrency=2", 1.50, 1.40, 1.60),
    ]
    (line,) = paying(vs)
    assert (line.pays_up_to, line.loses_from) == ("concurrency=4", "concurrency=16")
    assert line.line == (
        "mtp k=2 in stage function: pays up to concurrency=4 (1.30x [1.20, 1.40]) and loses "
        "at concurrency=16 (0.85x [0.80, 0.90])"
    )


def test_every_shape_of_a_load_curve_reads_in_one_line() -> None:
    always = paying(
        [verdict("concurrency=1", 1.5, 1.4, 1.6), verdict("concurrency=8", 1.2, 1.1, 1.3)]
    )
    assert always[0].line.endswith("pays at every load up to concurrency=8 (1.20x [1.10, 1.30])")
    never = paying([verdict("rate=1/s", 0.9, 0.8, 1.1), verdict("rate=4/s", 0.7, 0.6, 0.8)])
    assert never[0].pays_up_to is None and never[0].loses_from == "rate=4/s"
    assert "not shown to pay at any load (rate=1/s to rate=4/s)" in never[0].line
    unclear = paying(
        [verdict("concurrency=1", 1.3, 1.1, 1.5), verdict("concurrency=2", 1.0, 0.9, 1.1)]
    )
    assert unclear[0].line.endswith(
        "and is not shown to pay above it (concurrency=2: 1.00x [0.90, 1.10])"
    )
    assert paying([verdict("concurrency=1", 1.3, 1.1, 1.5)]) == []  # one level: no curve
    assert load_number("rate=2.5/s") == 2.5 and load_number("concurrency=16") == 16
