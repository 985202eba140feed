"""A candidate's k schedule (vLLM's ``num_speculative_tokens_per_batch_size``): validation,
run identity and pairing."""

from __future__ import annotations

from pathlib import Path

import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.spec import PairingError, check_pair
from specverdict.errors import ConfigError

FILE = Path("c.yaml")

TEXT = """\
name: t
engine: {kind: vllm, reconfigure: between-runs, base_url: http://127.0.0.1:8000}
model: {family: qwen3-moe, served_name: Qwen/Qwen3-30B-A3B-FP8}
quantization: fp8
candidates:
  - {method: mtp, k: [1, 2]}
  - {method: ngram, k: 4}
stages:
  function: {suite: humaneval-amplified@1, samples: {first: 20}}
sampling: {temperature: 0.0, max_tokens: 256, seed: 0}
load: {concurrency: [1, 4], repeats: 1}
gates: {alpha: 0.05, min_speedup: 1.05}
"""

#: the fingerprints of TEXT's runs before k schedules existed: a plain k keeps its identity
PINNED = {
    ("none", "concurrency=1"): "502faa47fe0256e9",
    ("mtp k=1", "concurrency=1"): "68a0b6f95a3e9e5b",
    ("mtp k=2", "concurrency=1"): "7263181fe750969c",
    ("ngram k=4", "concurrency=1"): "0ff3a768c55fbbb6",
    ("none", "concurrency=4"): "1bc4ab28462fdb84",
    ("mtp k=1", "concurrency=4"): "6dd9e32e3e811aaa",
    ("mtp k=2", "concurrency=4"): "a6d2708395cda96c",
    ("ngram k=4", "concurrency=4"): "129519c96556e804",
}

SCHEDULE = "[[1, 8, 4], [9, 32, 2], [33, 1024, 1]]"


def with_candidates(*lines: str) -> str:
    head, _, rest = TEXT.partition("candidates:\n")
    _, _, tail = rest.partition("stages:\n")
    return head + "candidates:\n" + "".join(f"  - {x}\n" for x in lines) + "stages:\n" + tail


def refused(text: str) -> str:
    with pytest.raises(ConfigError) as info:
        parse_campaign(text, FILE)
    message = str(info.value)
    assert len(message.splitlines()) == 1, message
    return message


def test_plain_k_fingerprints_are_pinned() -> None:
    plan = build_plan(parse_campaign(TEXT, FILE))
    got = {(r.speculation.label, r.load.label): r.fingerprint for r in plan.runs}
    assert got == PINNED


def test_a_schedule_is_one_run_labelled_by_its_ks_and_range_ends() -> None:
    plan = build_plan(
        parse_campaign(with_candidates(f"{{method: mtp, k_schedule: {SCHEDULE}}}"), FILE)
    )
    spec = next(r for r in plan.runs if r.speculation.method == "mtp")
    assert spec.speculation.k == 4  # the largest k: vLLM's num_speculative_tokens
    assert spec.speculation.k_schedule == ((1, 8, 4), (9, 32, 2), (33, 1024, 1))
    assert spec.speculation.label == "mtp k=4/2/1@8,32,1024"
    assert len([r for r in plan.runs if r.speculation.method == "mtp"]) == 2  # two load levels


def test_k_equal_to_the_largest_k_is_consistent_with_a_schedule() -> None:
    a = build_plan(
        parse_campaign(with_candidates(f"{{method: mtp, k_schedule: {SCHEDULE}}}"), FILE)
    )
    b = build_plan(
        parse_campaign(with_candidates(f"{{method: mtp, k: 4, k_schedule: {SCHEDULE}}}"), FILE)
    )
    assert [r.fingerprint for r in a.runs] == [r.fingerprint for r in b.runs]


def _mtp(text: str) -> list:  # type: ignore[type-arg]
    return [r for r in build_plan(parse_campaign(text, FILE)).runs if r.speculation.method == "mtp"]


def test_a_schedule_changes_the_identity_and_pairs_as_the_k_axis() -> None:
    fixed = _mtp(with_candidates("{method: mtp, k: 4}"))[0]
    sched = _mtp(with_candidates(f"{{method: mtp, k_schedule: {SCHEDULE}}}"))[0]
    other = _mtp(with_candidates("{method: mtp, k_schedule: [[1, 8, 4], [9, 1024, 1]]}"))[0]
    smaller = _mtp(with_candidates("{method: mtp, k_schedule: [[1, 8, 3], [9, 1024, 1]]}"))[0]
    assert len({fixed.fingerprint, sched.fingerprint, other.fingerprint}) == 3
    assert "k_schedule" not in fixed.identity()["speculation"]
    assert sched.identity()["speculation"]["k_schedule"] == [[1, 8, 4], [9, 32, 2], [33, 1024, 1]]
    # k and its schedule are one axis: k=4 against a schedule, or two schedules, compare
    assert check_pair(fixed, sched) == ["speculation.k_schedule"]
    assert check_pair(sched, smaller) == ["speculation.k", "speculation.k_schedule"]
    # ... but a schedule and another axis do not
    drafted = _mtp(with_candidates("{method: mtp, k: 4, draft: d}"))[0]
    with pytest.raises(PairingError, match="more than one speculation axis"):
        check_pair(drafted, sched)


@pytest.mark.parametrize(
    ("candidate", "expected"),
    [
        (
            "{method: mtp, k_schedule: [[2, 8, 4]]}",
            "candidates[0].k_schedule: Value error, range 1 [2, 8, 4]: expected to start from 1",
        ),
        (
            "{method: mtp, k_schedule: [[1, 8, 4], [10, 32, 2]]}",
            "candidates[0].k_schedule: Value error, range 2 [10, 32, 2]: expected to start at 9 "
            "(contiguous, no overlap)",
        ),
        (
            "{method: mtp, k_schedule: [[1, 8, 4], [8, 32, 2]]}",
            "range 2 [8, 32, 2]: expected to start at 9 (contiguous, no overlap)",
        ),
        ("{method: mtp, k_schedule: [[1, 8, 4], [9, 5, 2]]}", "expected end >= start"),
        ("{method: mtp, k_schedule: [[1, 8, -1]]}", "expected k >= 0 (0: speculation off)"),
        ("{method: mtp, k_schedule: [[1, 8, 0]]}", "every range has k = 0"),
        ("{method: mtp, k_schedule: []}", "expected at least one range [start, end, k]"),
        ("{method: mtp, k_schedule: [[1, 8]]}", "range 1: expected [start, end, k], three"),
        ("{method: mtp, k_schedule: [[1, 8, 1000]]}", "a k of 1000: expected at most 256"),
        (
            "{method: mtp, k_schedule: [[1, 8, 2.5]]}",
            "k_schedule[0][2]: Input should be a valid integer",
        ),
        (
            f"{{method: mtp, k: 2, k_schedule: {SCHEDULE}}}",
            "candidates[0].k: k 2 with a k_schedule: expected the schedule's largest k (4), or "
            "no k",
        ),
        (f"{{method: mtp, k: [1, 4], k_schedule: {SCHEDULE}}}", "a k list cannot go with"),
        (f"{{method: none, k_schedule: {SCHEDULE}}}", "method 'none' takes no k, k_schedule"),
    ],
)
def test_a_bad_schedule_is_one_line_naming_the_field(candidate: str, expected: str) -> None:
    message = refused(with_candidates(candidate))
    assert message.startswith("c.yaml:")
    assert expected in message


def test_a_zero_k_range_is_speculation_off_there() -> None:
    (spec, _) = _mtp(with_candidates("{method: mtp, k_schedule: [[1, 4, 2], [5, 512, 0]]}"))
    assert spec.speculation.k == 2
    assert spec.speculation.k_bounds(4) == (2, 2)
    assert spec.speculation.k_bounds(8) == (0, 2)
    assert spec.speculation.k_bounds(None) == (0, 2)
