"""The betting test reads a pair's samples in a seeded random order, never the suite's."""

from __future__ import annotations

from pathlib import Path

import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.model import Gates
from specverdict.campaign.spec import RunSpec
from specverdict.records import RunManifest, SampleRecord, Score
from specverdict.records.manifest import SequentialDesign
from specverdict.stats.looks import look_share
from specverdict.stats.sequential import betting_noninferiority
from specverdict.verdict import Arm, judge_pair
from specverdict.verdict.order import betting_order, natural, order_seed
from tests.conftest import campaign_yaml

CAMPAIGN = campaign_yaml(
    "order",
    model={"family": "f", "served_name": "m"},
    quantization="bf16",
    first=None,
    max_tokens=64,
    seed=None,
    load=None,
)
GATES = Gates(alpha=0.05, margin=0.05, min_speedup=1.05)
IDS = [f"s{i}" for i in range(400)]


def test_the_order_is_random_fixed_by_its_seed_and_stable_as_samples_come_and_go() -> None:
    one = betting_order(IDS, "seed:1")
    assert one != sorted(IDS, key=natural) and sorted(one) == sorted(IDS)
    assert one == betting_order(list(reversed(IDS)), "seed:1")
    assert one != betting_order(IDS, "seed:2")
    fewer = betting_order(IDS[::3], "seed:1")  # samples failed or not yet measured
    assert fewer == [i for i in one if i in set(IDS[::3])]
    assert order_seed("abc", RunManifest(order_seed=7)) == "seed:7"
    assert order_seed("abc", RunManifest()) == "run:abc" == order_seed("abc", None)


def test_at_a_sequential_campaign_s_looks_each_sequence_extends_the_last() -> None:
    """Looks of 100 samples (the suite's first 100, then the next): the samples of look 1 come
    first, in their random order, and look 2's sequence is look 1's followed by its own."""
    look1 = betting_order(IDS[:100], "seed:3", IDS[:100], batch=100)
    look2 = betting_order(IDS[:200], "seed:3", IDS[:200], batch=100)
    assert look2[:100] == look1 and set(look2[100:]) == set(IDS[100:200])
    assert look1 != IDS[:100]


def test_the_last_look_s_remainder_is_shuffled_with_it() -> None:
    """Looks of 100 up to 250 (two looks, the second taking 150): the last look's samples are
    one random sequence after look 1's, the remainder past 200 mixed in, not put last."""
    order = betting_order(IDS[:250], "seed:3", IDS[:250], batch=100, looks=2)
    assert order[:100] == betting_order(IDS[:100], "seed:3", IDS[:100], batch=100)
    tail = order[100:]
    assert set(tail) == set(IDS[100:250])
    late = [k for k, i in enumerate(tail) if i in set(IDS[200:250])]
    assert min(late) < 50  # without the looks, the 50 past 2 x 100 were the last 50
    assert late != list(range(100, 150))


def _arm(spec: RunSpec, run_id: str, passed: list[bool], manifest: RunManifest) -> Arm:
    records = tuple(
        SampleRecord(
            run_id=run_id, sample_id=i, status="ok", text="x", completion_tokens=33, ttft_s=0.1,
            e2e_s=0.1 + 0.02 * 32, score=Score(passed=p, outcome="passed" if p else "failed"),
        )
        for i, p in zip(IDS, passed, strict=True)
    )  # fmt: skip
    return Arm(spec=spec, run_ids=(run_id,), samples=(records,), manifests=(manifest,))


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_losses_late_in_the_suite_do_not_pass_on_the_early_samples_wealth(seed: int) -> None:
    """400 samples, the candidate's 20 losses all in the suite's last 100: its drop is the
    margin (5 pp), so non-inferiority must not pass. Read by betting (the last look of a
    sequential design) in the suite's order, the wealth of the first 300 equal samples passes
    it; in the execution's random order, it does not; nor does the fixed design's Tango test,
    which no order moves."""
    plan = build_plan(parse_campaign(CAMPAIGN, Path("order.yaml")))
    base_spec = next(r for r in plan.runs if r.speculation.method == "none")
    cand_spec = next(r for r in plan.runs if r.speculation.method == "mtp")
    cand_passed = [not (i >= 300 and i % 5 == 0) for i in range(400)]
    in_suite_order = betting_noninferiority(
        [int(p) - 1 for p in cand_passed], GATES.margin, GATES.alpha / 2
    )
    assert in_suite_order.decided  # the order would make this a false pass
    base = _arm(base_spec, "b0", [True] * 400, RunManifest(order_seed=100 + seed))
    cand = _arm(cand_spec, "c0", cand_passed, RunManifest(order_seed=seed))
    v = judge_pair(base, cand, GATES, look=look_share(4, 4))
    ni = v.reason("quality.noninferiority")
    assert ni is not None and ni.status != "pass", ni
    assert ni.data["rule"] == "betting" and ni.data["order"] == f"seed:{seed}"
    assert v.verdict != "ADOPT"
    fixed = judge_pair(base, cand, GATES).reason("quality.noninferiority")
    assert fixed is not None and fixed.data["rule"] == "tango" and fixed.status != "pass"


def test_a_sequential_design_recorded_on_the_candidate_orders_by_look() -> None:
    """The judge reads the candidate's recorded design: its e-value is the betting test's over
    the look-major order, not over the plain random one."""
    plan = build_plan(parse_campaign(CAMPAIGN, Path("order.yaml")))
    base_spec = next(r for r in plan.runs if r.speculation.method == "none")
    cand_spec = next(r for r in plan.runs if r.speculation.method == "mtp")
    cand_passed = [i % 7 != 0 or i < 100 for i in range(400)]
    design = SequentialDesign(batch=100, max_samples=400, looks=4)
    manifest = RunManifest(order_seed=9, sequential=design)
    v = judge_pair(
        _arm(base_spec, "b0", [True] * 400, RunManifest()),
        _arm(cand_spec, "c0", cand_passed, manifest),
        GATES,
        look=look_share(4, 4),
    )
    ni = v.reason("quality.noninferiority")
    assert ni is not None
    diffs = {i: int(p) - 1 for i, p in zip(IDS, cand_passed, strict=True)}
    level = ni.data["level"]

    def wealth(order: list[str]) -> float:
        return betting_noninferiority([diffs[i] for i in order], GATES.margin, level).max_wealth

    by_look = wealth(betting_order(IDS, "seed:9", IDS, 100))
    assert ni.data["e_value"] == pytest.approx(by_look)
    assert by_look != pytest.approx(wealth(betting_order(IDS, "seed:9")))
