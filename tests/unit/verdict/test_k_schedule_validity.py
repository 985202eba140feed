"""Declared against actual k for a candidate with a k schedule: at concurrency C a step runs
1..C requests, so drafted tokens per step may be any k the schedule gives those batch sizes."""

from __future__ import annotations

from pathlib import Path

import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.spec import RunSpec
from specverdict.records.acceptance import AcceptanceSummary
from specverdict.verdict.gates._common import Arm
from specverdict.verdict.gates.validity import _declared_k

CAMPAIGN = """\
name: v
engine: {{kind: vllm, launch: {{}}}}
model: {{family: f, served_name: m}}
quantization: bf16
candidates:
  - {candidate}
stages:
  function: {{suite: builtin-code@1, samples: {{first: 1}}}}
load: {{{load}}}
"""

SCHEDULE = "[[1, 8, 4], [9, 32, 2], [33, 1024, 1]]"


def spec(candidate: str, load: str) -> RunSpec:
    text = CAMPAIGN.format(candidate=candidate, load=load)
    (run,) = build_plan(parse_campaign(text, Path("v.yaml"))).runs[1:]
    return run


def verdicts(candidate: str, load: str, per_step: float, positions: int = 4) -> list[str]:
    acc = AcceptanceSummary(
        source="metrics-delta",
        valid=True,
        drafts=100.0,
        draft_tokens=100.0 * per_step,
        accepted=50.0,
        accepted_per_pos=(10.0,) * positions,
    )
    arm = Arm(spec=spec(candidate, load), run_ids=("r0",), samples=((),), acceptance=acc)
    return [r.message for r in _declared_k(arm)]


SCHED = f"{{method: mtp, k_schedule: {SCHEDULE}}}"


@pytest.mark.parametrize(
    ("load", "per_step"),
    [
        ("concurrency: 4", 4.0),  # batch 1..4: k 4
        ("concurrency: 16", 2.0),  # at the full batch of 16: k 2
        ("concurrency: 16", 3.4),  # ramp-up and drain steps at k 4
        ("concurrency: 64", 1.0),
        ("concurrency: 64", 3.9),
        ("request_rate: 4", 1.2),  # any batch size
    ],
)
def test_per_step_drafts_between_the_schedules_ks_are_valid(load: str, per_step: float) -> None:
    assert verdicts(SCHED, load, per_step) == []


def test_more_than_the_largest_k_over_the_batch_sizes_is_invalid() -> None:
    (msg,) = verdicts(SCHED, "concurrency: 16", 4.5, positions=5)
    assert "declared mtp k=4/2/1@8,32,1024" in msg
    assert "more than the declared k (the schedule's k at batch sizes 1..16)" in msg
    assert "restart it with k_schedule=[[1, 8, 4], [9, 32, 2], [33, 1024, 1]]" in msg


def test_a_fixed_k_method_well_under_the_smallest_k_is_invalid() -> None:
    (msg,) = verdicts(SCHED, "concurrency: 4", 2.0)  # k 4 at every batch of 1..4
    assert "mtp drafts k tokens per step (the schedule's k at batch sizes 1..4)" in msg
    # at concurrency 16 the smallest k is 2: 2 per step is the full batch
    assert verdicts(SCHED, "concurrency: 16", 2.0) == []
    assert verdicts(SCHED, "concurrency: 64", 0.5) != []  # under 0.75 of the smallest k (1)


def test_a_zero_k_range_is_no_floor() -> None:
    off_above_8 = "{method: mtp, k_schedule: [[1, 8, 3], [9, 1024, 0]]}"
    assert verdicts(off_above_8, "concurrency: 16", 3.0, positions=3) == []
    assert verdicts(off_above_8, "concurrency: 16", 1.0, positions=3) != []


def test_a_plain_k_is_judged_as_before() -> None:
    assert verdicts("{method: mtp, k: 4}", "concurrency: 16", 4.0) == []
    (msg,) = verdicts("{method: mtp, k: 4}", "concurrency: 16", 2.0)
    assert msg.endswith(
        "the server runs a smaller k; declare the k the server runs, or restart it with k=4"
    )
    (cap,) = verdicts("{method: ngram, k: 4}", "concurrency: 16", 2.0, positions=2)
    assert "every step drafted 2: the server's draft cap is 2, not 4" in cap
