"""The verdict at a look of a sequential campaign: every fixed-n gate spends only the look's
share of its level, the betting test spends nothing, and the reasons say which look."""

from __future__ import annotations

import pytest

from specverdict.campaign.spec import RunSpec
from specverdict.stats.looks import look_share, rerun_share
from specverdict.verdict import judge_pair
from tests.unit.verdict.test_judge import GATES, arm, noisy, samples, specs, twice

__all__ = ["specs"]  # the fixture, shared with test_judge


def test_the_reason_names_the_look_and_its_boundary(specs: dict[str, RunSpec]) -> None:
    n = 200
    passed = [i % 2 == 0 for i in range(n)]
    base = twice(specs["none"], n, passed)
    cand = arm(specs["mtp"], samples("c", noisy(n, 0.012, 2), passed))
    v = judge_pair(base, cand, GATES, look=look_share(2, 5), look_note="as recorded")
    seq = v.reason("sequential")
    assert seq is not None
    share = look_share(2, 5).share
    assert "look 2 of 5, Lan-DeMets Pocock-type spending" in seq.message
    assert f"one-sided at {GATES.alpha / 2 * share:.3g}" in seq.message
    assert "(as recorded)" in seq.message
    assert seq.data["share"] == pytest.approx(share)
    speed = v.reason("speed.tpot")
    assert speed is not None and "look 2 of 5" in speed.message
    # the family's speed p is the look's p over its share: valid for any look taken
    assert speed.data["p_value"] == pytest.approx(min(1.0, speed.data["look_p_value"] / share))
    fixed = judge_pair(base, cand, GATES)
    assert fixed.reason("sequential") is None
    lo, hi = v.speedup_interval  # type: ignore[misc]
    flo, fhi = fixed.speedup_interval  # type: ignore[misc]
    assert lo < flo and hi > fhi  # wider at a look's share of alpha


def test_a_drop_that_rejects_at_fixed_n_needs_more_at_a_late_look(
    specs: dict[str, RunSpec],
) -> None:
    """McNemar and the score interval at the look's share: 9 samples lost, none gained, is
    p = 0.0039 (a REJECT at 0.025), not at the last of 10 looks (6.5% of it: 0.0016)."""
    n = 200
    base_pass = [True] * n
    cand_pass = [i >= 9 for i in range(n)]
    base = twice(specs["none"], n, base_pass)
    cand = arm(specs["mtp"], samples("c", noisy(n, 0.012, 2), cand_pass))
    assert judge_pair(base, cand, GATES).verdict == "REJECT"
    late = judge_pair(base, cand, GATES, look=look_share(10, 10))
    assert late.verdict != "REJECT", [str(r) for r in late.reasons]
    mc = late.reason("quality.mcnemar")
    assert mc is not None and mc.status == "vacuous"  # 9 pairs cannot reach 0.0016
    early = judge_pair(base, cand, GATES, look=look_share(1, 2))
    assert early.verdict == "REJECT"  # look 1 of 2 keeps 62% of the level


def test_past_the_declared_looks_no_fixed_n_gate_decides(specs: dict[str, RunSpec]) -> None:
    n = 200
    base_pass = [True] * n
    cand_pass = [i >= 40 for i in range(n)]  # a large drop: rejects at any share
    base = twice(specs["none"], n, base_pass)
    cand = arm(specs["mtp"], samples("c", noisy(n, 0.025, 2), cand_pass))  # and slower
    assert judge_pair(base, cand, GATES, look=look_share(3, 3)).verdict == "REJECT"
    v = judge_pair(base, cand, GATES, look=look_share(4, 3))
    assert v.verdict == "INCONCLUSIVE", [str(r) for r in v.reasons]
    assert "no error left" in v.reason("sequential").message  # type: ignore[union-attr]
    assert v.reason("quality.mcnemar").status == "info"  # type: ignore[union-attr]
    assert "no speed decision" in v.reason("speed.tpot").message  # type: ignore[union-attr]


def test_quality_by_betting_passes_at_any_look(specs: dict[str, RunSpec]) -> None:
    """The betting test is anytime-valid: its e-value does not depend on the look of a
    sequential design. A fixed design (no look, or a re-run's) is read by Tango's score test at
    its share of the level."""
    n = 200
    passed = [i % 2 == 0 for i in range(n)]
    base = twice(specs["none"], n, passed)
    cand = arm(specs["mtp"], samples("c", noisy(n, 0.012, 2), passed))
    first = judge_pair(base, cand, GATES, look=look_share(1, 8)).reason("quality.noninferiority")
    late = judge_pair(base, cand, GATES, look=look_share(8, 8)).reason("quality.noninferiority")
    assert first is not None and late is not None
    assert late.status == first.status == "pass"
    assert late.data["e_value"] == first.data["e_value"]
    assert late.data["rule"] == "betting"
    fixed = judge_pair(base, cand, GATES).reason("quality.noninferiority")
    rerun = judge_pair(base, cand, GATES, look=rerun_share(2)).reason("quality.noninferiority")
    assert fixed is not None and rerun is not None
    assert fixed.data["rule"] == rerun.data["rule"] == "tango"
    assert fixed.data["level"] == pytest.approx(GATES.alpha / 2)
    assert rerun.data["level"] == pytest.approx(GATES.alpha / 2 * rerun_share(2).share)
    assert fixed.status == rerun.status == "pass"  # identical outcomes: nothing discordant


def test_futility_is_said_when_drift_alone_keeps_speed_over_the_bar(
    specs: dict[str, RunSpec],
) -> None:
    """A lossless candidate at the bar with drifting executions: more samples cannot settle
    it; one clearly faster is not futile."""
    n = 100
    passed = [True] * n
    base = arm(
        specs["none"],
        samples("b", noisy(n, 0.020, 1), passed),
        samples("b2", noisy(n, 0.0212, 5), passed),  # 6% apart: drift
    )
    at_bar = arm(specs["mtp"], samples("c", noisy(n, 0.0206 / 1.05, 2), passed))
    v = judge_pair(base, at_bar, GATES, look=look_share(1, 8))
    assert v.verdict == "INCONCLUSIVE"
    fut = v.reason("sequential.futility")
    assert fut is not None and "more samples cannot settle this pair" in fut.message
    fast = arm(specs["mtp"], samples("c", noisy(n, 0.0206 / 3.0, 2), passed))
    v = judge_pair(base, fast, GATES, look=look_share(1, 8))
    assert v.reason("sequential.futility") is None
    # a pair that loses quality is never futile: a REJECT may still come
    lossy = arm(specs["mtp"], samples("c", noisy(n, 0.0206 / 1.05, 2), [i >= 3 for i in range(n)]))
    v = judge_pair(base, lossy, GATES, look=look_share(1, 8))
    assert v.reason("sequential.futility") is None
    # without a look (a fixed-n campaign) there is no futility to speak of
    assert judge_pair(base, at_bar, GATES).reason("sequential.futility") is None
