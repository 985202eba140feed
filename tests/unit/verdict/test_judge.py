"""The verdict rules on constructed records: each rule, and the order in which they decide."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.model import Gates
from specverdict.campaign.spec import RunSpec
from specverdict.records import (
    Audits,
    LoaderAudit,
    LoaderOutcome,
    OverrideAudit,
    OverridesOutcome,
    RunManifest,
    SampleExtra,
    SampleRecord,
    Score,
)
from specverdict.records.acceptance import AcceptanceSummary
from specverdict.records.audits import ModelAudit, OverrideResult, Status
from specverdict.verdict import Arm, judge_pair
from tests.conftest import campaign_yaml

CAMPAIGN = campaign_yaml(
    "judge",
    model={"family": "f", "served_name": "m"},
    quantization="bf16",
    candidates=[{"method": "mtp", "k": 2}, {"method": "ngram", "k": 3}],
    first=None,
    max_tokens=64,
    seed=None,
    load=None,
)


@pytest.fixture(scope="module")
def specs() -> dict[str, RunSpec]:
    plan = build_plan(parse_campaign(CAMPAIGN, Path("judge.yaml")))
    return {r.speculation.method: r for r in plan.runs}


def samples(
    run_id: str,
    tpots: list[float],
    passed: list[bool] | None = None,
    *,
    tokens: int = 33,
    failed: int = 0,
    text: str = "x",
) -> tuple[SampleRecord, ...]:
    """Samples s000.. with TTFT 0.1 s and the given TPOT; the first ``failed`` are errors."""
    out = []
    for i, t in enumerate(tpots):
        if i < failed:
            out.append(SampleRecord(run_id=run_id, sample_id=f"s{i:03d}", status="error"))
            continue
        score = None
        if passed is not None:
            score = Score(passed=passed[i], outcome="passed" if passed[i] else "failed")
        out.append(
            SampleRecord(
                run_id=run_id,
                sample_id=f"s{i:03d}",
                status="ok",
                text=text,
                completion_tokens=tokens,
                ttft_s=0.1,
                e2e_s=0.1 + t * (tokens - 1),
                score=score,
            )
        )
    return tuple(out)


def arm(
    spec: RunSpec, *runs: tuple[SampleRecord, ...], acc: AcceptanceSummary | None = None
) -> Arm:
    return Arm(
        spec=spec, run_ids=tuple(f"r{i}" for i in range(len(runs))), samples=runs, acceptance=acc
    )


def twice(
    spec: RunSpec, n: int, passed: list[bool] | None, acc: AcceptanceSummary | None = None
) -> Arm:
    """A baseline executed twice (TPOT about 20 ms each time): its drift is measured."""
    return arm(
        spec,
        samples("b", noisy(n, 0.02, 1), passed),
        samples("b2", noisy(n, 0.02, 5), passed),
        acc=acc,
    )


def noisy(n: int, mean: float, seed: int, spread: float = 0.02) -> list[float]:
    rng = np.random.default_rng(seed)
    return list(mean * (1 + spread * rng.standard_normal(n)))


GATES = Gates(alpha=0.05, margin=0.05, min_speedup=1.05)


def test_fast_and_non_inferior_is_adopted_even_with_a_vacuous_mcnemar(
    specs: dict[str, RunSpec],
) -> None:
    n = 400
    passed = [i % 2 == 0 for i in range(n)]  # 50% pass in both arms, no discordance
    base = twice(specs["none"], n, passed)
    cand = arm(specs["mtp"], samples("c", noisy(n, 0.012, 2), passed))
    v = judge_pair(base, cand, GATES)
    assert v.verdict == "ADOPT", [str(r) for r in v.reasons]
    mc = v.reason("quality.mcnemar")
    assert mc is not None and mc.status == "vacuous"
    assert "0 discordant pairs, min attainable p = 1 > its level 0.025" in mc.message
    ni = v.reason("quality.noninferiority")
    assert ni is not None and ni.status == "pass"
    assert v.speedup is not None and v.speedup == pytest.approx(0.02 / 0.012, rel=0.02)
    assert v.speedup_interval is not None and v.speedup_interval[0] > 1.05
    assert v.supplement == ()  # nothing discordant


def test_a_significant_quality_drop_rejects_however_fast(specs: dict[str, RunSpec]) -> None:
    n = 200
    base_pass = [True] * n
    cand_pass = [i >= 30 for i in range(n)]  # 30 samples lost, none gained
    base = twice(specs["none"], n, base_pass)
    cand = arm(specs["mtp"], samples("c", noisy(n, 0.005, 2), cand_pass))
    v = judge_pair(base, cand, GATES)
    assert v.verdict == "REJECT"
    assert v.reason("quality.mcnemar").status == "reject"  # type: ignore[union-attr]
    assert v.reason("quality.noninferiority").status == "reject"  # type: ignore[union-attr]
    assert v.reason("speed.tpot").status == "pass"  # type: ignore[union-attr]
    assert len(v.supplement) == 30
    assert {d.sample_id for d in v.supplement} == {f"s{i:03d}" for i in range(30)}
    assert all(d.base_passed and not d.cand_passed for d in v.supplement)


def test_small_samples_are_inconclusive_with_the_evidence_needed(
    specs: dict[str, RunSpec],
) -> None:
    n = 40
    base_pass = [True] * 20 + [False] * 20
    cand_pass = [True] * 18 + [False] * 19 + [True] * 3  # 2 lost, 3 gained
    base = arm(specs["none"], samples("b", noisy(n, 0.02, 1), base_pass))
    cand = arm(specs["mtp"], samples("c", noisy(n, 0.01, 2), cand_pass))
    v = judge_pair(base, cand, GATES)
    assert v.verdict == "INCONCLUSIVE"
    mc = v.reason("quality.mcnemar")
    assert mc is not None and mc.status == "vacuous"
    assert mc.message.startswith("vacuous (5 discordant pairs, min attainable p = 0.0625")
    ni = v.reason("quality.noninferiority")
    assert ni is not None and ni.status == "inconclusive"
    assert "n = 40" in ni.message and "needed" in ni.message
    assert ni.data["n_needed"] is not None and ni.data["n_needed"] > 40
    assert len(v.supplement) == 5  # the discordant samples, both outputs, for a closer look


def test_no_scorer_means_no_quality_signal_and_never_adopt(specs: dict[str, RunSpec]) -> None:
    n = 100
    base = arm(specs["none"], samples("b", noisy(n, 0.02, 1)), samples("b2", noisy(n, 0.02, 5)))
    cand = arm(specs["mtp"], samples("c", noisy(n, 0.01, 2)))
    v = judge_pair(base, cand, GATES)
    assert v.verdict == "INCONCLUSIVE"
    assert v.reason("quality.signal").status == "inconclusive"  # type: ignore[union-attr]
    assert v.reason("speed.tpot").status == "pass"  # type: ignore[union-attr]


def test_both_arms_at_zero_pass_is_no_signal_not_retained_quality(
    specs: dict[str, RunSpec],
) -> None:
    n = 300
    base = arm(specs["none"], samples("b", noisy(n, 0.02, 1), [False] * n))
    cand = arm(specs["mtp"], samples("c", noisy(n, 0.01, 2), [False] * n))
    v = judge_pair(base, cand, GATES)
    assert v.verdict == "INCONCLUSIVE"
    ni = v.reason("quality.noninferiority")
    assert ni is not None and ni.status == "inconclusive" and "no quality signal" in ni.message


def test_slower_or_too_small_a_gain_rejects(specs: dict[str, RunSpec]) -> None:
    n = 200
    passed = [True] * n
    base = twice(specs["none"], n, passed)
    slower = arm(specs["mtp"], samples("c", noisy(n, 0.025, 2), passed))
    v = judge_pair(base, slower, GATES)
    assert v.verdict == "REJECT" and "slower than the baseline" in v.reason("speed.tpot").message  # type: ignore[union-attr]
    marginal = arm(specs["mtp"], samples("c", noisy(n, 0.02 / 1.02, 3, 0.002), passed))
    v = judge_pair(base, marginal, GATES)
    assert v.verdict == "REJECT"
    assert "gain under min_speedup 1.05" in v.reason("speed.tpot").message  # type: ignore[union-attr]


def test_single_executions_decide_no_speed_either_way(specs: dict[str, RunSpec]) -> None:
    """With the baseline executed once and nothing else twice, the samples' interval alone
    (requests as independent, no drift of whole executions) rejects no more than it adopts."""
    n = 200
    passed = [True] * n
    once = arm(specs["none"], samples("b", noisy(n, 0.02, 1), passed))
    slower = arm(specs["mtp"], samples("c", noisy(n, 0.025, 2), passed))
    faster = arm(specs["mtp"], samples("c", noisy(n, 0.01, 2), passed))
    for cand in (slower, faster):
        v = judge_pair(once, cand, GATES)
        speed = v.reason("speed.tpot")
        assert speed is not None and speed.status == "inconclusive", speed
        assert "decides neither ADOPT nor REJECT" in speed.message
        assert v.verdict == "INCONCLUSIVE"


def test_a_speed_up_inside_the_noise_floor_is_not_a_speed_up(specs: dict[str, RunSpec]) -> None:
    n = 300
    passed = [True] * n
    # two baseline repeats 15% apart: a 10% gain is inside that noise
    base = arm(
        specs["none"],
        samples("b0", noisy(n, 0.020, 1, 0.005), passed),
        samples("b1", noisy(n, 0.023, 2, 0.005), passed),
    )
    cand = arm(specs["mtp"], samples("c", noisy(n, 0.0215 / 1.10, 3, 0.005), passed))
    v = judge_pair(base, cand, GATES)
    speed = v.reason("speed.tpot")
    assert speed is not None and speed.status == "inconclusive"
    assert speed.data["noise_floor"] == pytest.approx(0.15, abs=0.01)
    assert v.verdict == "INCONCLUSIVE"


def test_too_many_failed_requests_invalidate(specs: dict[str, RunSpec]) -> None:
    n = 100
    passed = [True] * n
    base = arm(specs["none"], samples("b", noisy(n, 0.02, 1), passed))
    cand = arm(specs["mtp"], samples("c", noisy(n, 0.01, 2), passed, failed=6))
    v = judge_pair(base, cand, GATES)
    assert v.verdict == "INVALID"
    (fail,) = [r for r in v.reasons if r.gate == "failures"]
    assert fail.message == "candidate: 6 of 100 requests failed (6% > 5% allowed)"


def test_polluted_acceptance_invalidates(specs: dict[str, RunSpec]) -> None:
    n = 100
    passed = [True] * n
    polluted = AcceptanceSummary(
        source="metrics-delta", valid=False, polluted=True, why="the server finished 120 requests"
    )
    base = arm(specs["none"], samples("b", noisy(n, 0.02, 1), passed))
    cand = arm(specs["mtp"], samples("c", noisy(n, 0.01, 2), passed), acc=polluted)
    v = judge_pair(base, cand, GATES)
    assert v.verdict == "INVALID"
    assert v.reason("acceptance").message.startswith("polluted")  # type: ignore[union-attr]


def test_a_pair_two_axes_apart_is_invalid_and_names_both(specs: dict[str, RunSpec]) -> None:
    n = 50
    mtp = arm(specs["mtp"], samples("a", noisy(n, 0.02, 1)))
    ngram = arm(specs["ngram"], samples("b", noisy(n, 0.01, 2)))
    v = judge_pair(mtp, ngram, GATES)
    assert v.verdict == "INVALID"
    msg = v.reason("pairing").message  # type: ignore[union-attr]
    assert "speculation.k" in msg and "speculation.method" in msg


def test_a_missing_run_is_inconclusive(specs: dict[str, RunSpec]) -> None:
    base = arm(specs["none"], samples("b", [0.02] * 5))
    v = judge_pair(base, None, GATES, stage="function", candidate_label="mtp k=2")
    assert v.verdict == "INCONCLUSIVE"
    assert v.reasons[0].message.startswith("no completed run for the candidate")


def test_greedy_identity_reports_first_divergence(specs: dict[str, RunSpec]) -> None:
    n = 20
    base = arm(specs["none"], samples("b", noisy(n, 0.02, 1), text="def f(): return 1"))
    cand_records = list(samples("c", noisy(n, 0.01, 2), text="def f(): return 1"))
    cand_records[3] = cand_records[3].model_copy(update={"text": "def f(): return 2"})
    v = judge_pair(base, arm(specs["mtp"], tuple(cand_records)), GATES)
    ident = v.reason("identity")
    assert ident is not None
    assert ident.message.startswith("19 of 20 greedy outputs identical")
    assert ident.data["divergences"] == {"s003": 16}


def acc(rate: float) -> AcceptanceSummary:
    return AcceptanceSummary(
        source="per-request", valid=True, drafts=100, draft_tokens=300, accepted=300 * rate
    )


def test_collapsed_acceptance_with_identical_outputs_points_at_the_draft_path(
    specs: dict[str, RunSpec],
) -> None:
    n = 40
    base = arm(specs["none"], samples("b", noisy(n, 0.02, 1), text="same"))
    runs = (
        samples("c0", noisy(n, 0.01, 2), text="same"),
        samples("c1", noisy(n, 0.01, 3), text="same"),
    )
    skipped = ModelAudit(
        model="draft",
        checkpoint="draft",
        origin="/debug/load_report",
        namespace="checkpoint",
        checkpoint_tensors=10,
        loaded_tensors=6,
        ignored=0,
        roles={},
        not_loaded=(),
        left_at_init=(),
        unexpected=(),
        shape_mismatches=(),
        dtype_mismatches=(),
        notes=(),
        clean=False,
        verdict="draft: 4 dense_mlp tensors were not loaded",
    )
    loader = LoaderAudit(models=(skipped,), clean=False, verdicts=(skipped.verdict,))
    audit = RunManifest(audits=Audits(loader=LoaderOutcome(audit=loader)))
    cand = Arm(
        spec=specs["mtp"],
        run_ids=("c0", "c1"),
        samples=runs,
        acceptance=acc(0.6),
        acceptances=(acc(0.6), acc(0.1)),
        manifests=(RunManifest(), audit),
    )
    v = judge_pair(base, cand, GATES)
    triage = v.reason("triage")
    assert triage is not None
    assert triage.message.startswith("run c1: acceptance 0.100 against 0.600 of run c0")
    assert "suspect the draft path" in triage.message
    assert "draft: 4 dense_mlp tensors were not loaded" in triage.message
    # a steady acceptance raises nothing; an expectation from the campaign is a reference too
    steady = Arm(
        spec=specs["mtp"],
        run_ids=("c0",),
        samples=runs[:1],
        acceptance=acc(0.3),
        acceptances=(acc(0.3),),
    )
    assert judge_pair(base, steady, GATES).reason("triage") is None
    low = judge_pair(base, steady, GATES, expected_acceptance=0.6).reason("triage")
    assert low is not None and "the campaign's expected_acceptance" in low.message


def test_an_override_that_vanished_between_runs_invalidates(specs: dict[str, RunSpec]) -> None:
    n = 40
    base = arm(specs["none"], samples("b", noisy(n, 0.02, 1)))

    def overrides(status: Status) -> RunManifest:
        entry = OverrideResult(
            path="/models/draft/head.safetensors", check="sha256", expected="0" * 64, status=status
        )
        audit = OverrideAudit(
            target="directory /",
            manifest="overrides.yaml",
            entries=(entry,),
            counts={status: 1},
            clean=status == "ok",
            verdict=status,
        )
        return RunManifest(audits=Audits(overrides=OverridesOutcome(audit=audit)))

    cand = Arm(
        spec=specs["mtp"],
        run_ids=("c0", "c1"),
        samples=(samples("c0", noisy(n, 0.01, 2)), samples("c1", noisy(n, 0.01, 3))),
        acceptance=acc(0.5),
        acceptances=(acc(0.5), acc(0.5)),
        manifests=(overrides("ok"), overrides("missing")),
    )
    v = judge_pair(base, cand, GATES)
    assert v.verdict == "INVALID"
    assert v.reason("overrides").message.startswith(
        "overrides drifted: /models/draft/head.safetensors"
    )  # type: ignore[union-attr]


def test_a_shifted_output_distribution_under_sampling_rejects() -> None:
    plan = build_plan(
        parse_campaign(CAMPAIGN.replace("temperature: 0.0", "temperature: 0.7"), Path("t.yaml"))
    )
    base_spec, cand_spec = plan.runs[0], plan.runs[1]

    def finishing(run_id: str, cut: int, n: int = 16) -> tuple[SampleRecord, ...]:
        recs = samples(run_id, noisy(n, 0.02 if run_id == "b" else 0.01, 1))
        return tuple(
            r.model_copy(update={"finish_reason": "length" if i < cut else "stop"})
            for i, r in enumerate(recs)
        )

    base = arm(base_spec, finishing("b", 6))
    broken = arm(cand_spec, finishing("c", 16))
    v = judge_pair(base, broken, GATES)
    shift = v.reason("quality.distribution")
    assert shift is not None and shift.status == "reject" and v.verdict == "REJECT"
    assert "baseline 6/16, candidate 16/16" in shift.message
    same = judge_pair(base, arm(cand_spec, finishing("c", 7)), GATES)
    assert same.reason("quality.distribution").status == "info"  # type: ignore[union-attr]


def counts(draft_tokens: float | None, accepted: float = 0.0) -> AcceptanceSummary:
    return AcceptanceSummary(
        source="metrics-delta" if draft_tokens is not None else "none",
        valid=True,
        draft_tokens=draft_tokens,
        accepted=accepted if draft_tokens is not None else None,
    )


def test_a_candidate_that_drafted_nothing_is_invalid_however_fast(
    specs: dict[str, RunSpec],
) -> None:
    """Speculation lost on the server (an override gone with a re-created container): the
    1.7x 'speed-up' is drift between two identical configurations, never an ADOPT."""
    n = 200
    passed = [i % 2 == 0 for i in range(n)]
    base = twice(specs["none"], n, passed, acc=counts(0.0))
    cand = arm(specs["mtp"], samples("c", noisy(n, 0.012, 2), passed), acc=counts(0.0))
    v = judge_pair(base, cand, GATES)
    assert v.verdict == "INVALID"
    (gate,) = [r for r in v.reasons if r.gate == "speculation"]
    assert gate.status == "invalid"
    assert gate.message.startswith("candidate run r0 (mtp k=2) drafted 0 tokens in 200 requests")
    assert "speculation is off on this server" in gate.message
    # the same pair with the drafts on the candidate's side is decided on its merits
    cand = arm(specs["mtp"], samples("c", noisy(n, 0.012, 2), passed), acc=counts(900.0, 600.0))
    v = judge_pair(base, cand, GATES)
    assert v.verdict == "ADOPT", [str(r) for r in v.reasons]
    assert v.reason("speculation").status == "pass"  # type: ignore[union-attr]


def test_a_baseline_that_drafted_is_no_baseline(specs: dict[str, RunSpec]) -> None:
    n = 200
    passed = [i % 2 == 0 for i in range(n)]
    base = arm(specs["none"], samples("b", noisy(n, 0.02, 1), passed), acc=counts(1210.0, 340.0))
    cand = arm(specs["mtp"], samples("c", noisy(n, 0.012, 2), passed), acc=counts(900.0, 600.0))
    v = judge_pair(base, cand, GATES)
    assert v.verdict == "INVALID"
    msg = v.reason("speculation").message  # type: ignore[union-attr]
    assert msg.startswith("baseline run r0 drafted 1210 tokens (340 accepted) in 200 requests")


def test_unverifiable_speculation_is_said_not_assumed(specs: dict[str, RunSpec]) -> None:
    n = 200
    passed = [i % 2 == 0 for i in range(n)]
    base = arm(specs["none"], samples("b", noisy(n, 0.02, 1), passed), acc=counts(None))
    cand = arm(specs["mtp"], samples("c", noisy(n, 0.012, 2), passed), acc=counts(900.0, 600.0))
    v = judge_pair(base, cand, GATES)
    gate = v.reason("speculation")
    assert gate is not None and gate.status == "pass"
    assert "in 1 execution(s); not verifiable for baseline run r0" in gate.message
    # a polluted count of zero is still zero: nobody drafted
    polluted = counts(0.0).model_copy(update={"polluted": True})
    assert polluted.drafted is False
    assert counts(5.0).model_copy(update={"polluted": True}).drafted is None


@pytest.mark.parametrize("n", [4, 6, 10, 19])
def test_a_tiny_pair_is_never_adopted(specs: dict[str, RunSpec], n: int) -> None:
    """The audit's case: baseline 0 of 4, candidate 4 of 4, twice as fast, was ADOPT."""
    base = arm(specs["none"], samples("b", noisy(n, 0.02, 1), [False] * n))
    cand = arm(specs["mtp"], samples("c", noisy(n, 0.01, 2), [True] * n))
    v = judge_pair(base, cand, GATES)
    # from n = 7 the gain itself is significant (McNemar at alpha/2, its share of the rejection
    # budget): a lossless method cannot be better (INVALID)
    assert v.verdict == ("INCONCLUSIVE" if n < 7 else "INVALID"), [str(r) for r in v.reasons]
    speed = v.reason("speed.tpot")
    assert speed is not None and speed.status == "inconclusive"
    assert f"n = {n} < 20 paired samples" in speed.message
    ni = v.reason("quality.noninferiority")
    # the betting test is exact at any n: 10 of 10 against 0 of 10 does show non-inferiority
    assert ni is not None and ni.status == ("inconclusive" if n <= 6 else "pass")


def test_min_speedup_is_tested_by_the_lower_bound_not_the_point(
    specs: dict[str, RunSpec],
) -> None:
    n = 200
    passed = [i % 2 == 0 for i in range(n)]
    base = arm(specs["none"], samples("b", noisy(n, 0.02, 1, spread=0.05), passed))
    # a true speed-up of 1.06 against a bar of 1.05: the point clears it, the interval does not
    cand = arm(specs["mtp"], samples("c", noisy(n, 0.02 / 1.06, 2, spread=0.05), passed))
    v = judge_pair(base, cand, GATES)
    assert v.speedup is not None and v.speedup > 1.05
    assert v.speedup_interval is not None and v.speedup_interval[0] < 1.05
    assert v.verdict == "INCONCLUSIVE"
    msg = v.reason("speed.tpot").message  # type: ignore[union-attr]
    assert "lower bound does not clear min_speedup 1.05" in msg


def test_an_adopt_is_held_to_the_campaigns_family(specs: dict[str, RunSpec]) -> None:
    from specverdict.verdict.collect import family_control

    n = 200
    passed = [i % 2 == 0 for i in range(n)]
    base = twice(specs["none"], n, passed)
    # lossless and identical outputs, a clear 1.25x: ADOPT alone at margin 3 pp
    cand = arm(specs["mtp"], samples("c", noisy(n, 0.016, 2), passed))
    gates = Gates(alpha=0.05, margin=0.03, min_speedup=1.05)
    v = judge_pair(base, cand, gates)
    assert v.verdict == "ADOPT" and v.p_adopt is not None and v.p_adopt < 0.025
    # twelve pairs in the campaign, the others not adopted: this p must clear 0.025 / 12
    others = [v.model_copy(update={"verdict": "INCONCLUSIVE", "p_adopt": 0.5}) for _ in range(11)]
    # with b = c = 0 at n = 200 the quality p is what binds: an e-value of about 220 (p 0.0045)
    q = v.reason("quality.noninferiority")
    assert q is not None and q.data["p_value"] > 0.025 / 12
    (kept, *_) = family_control([v, *others], gates)
    family = kept.reason("family")
    assert family is not None and family.status == "inconclusive"
    assert kept.verdict == "INCONCLUSIVE"
    assert "not after Holm (family-wise error) over the campaign's 12 pair(s)" in family.message
    # alone (gates.family none, or a one-pair family) it stands
    (alone,) = family_control([v], gates)
    assert alone.verdict == "ADOPT"
    loose = gates.model_copy(update={"family": "none"})
    (none,) = family_control([v, *others], loose)[:1]
    assert none.verdict == "ADOPT" and "no family control" in none.reason("family").message  # type: ignore[union-attr]


def test_a_baseline_run_once_cannot_give_a_speed_adopt(specs: dict[str, RunSpec]) -> None:
    """Run-to-run drift is invisible to a bootstrap over one execution's samples."""
    n = 200
    passed = [i % 2 == 0 for i in range(n)]
    once = arm(specs["none"], samples("b", noisy(n, 0.02, 1), passed))
    cand = arm(specs["mtp"], samples("c", noisy(n, 0.012, 2), passed))
    v = judge_pair(once, cand, GATES)
    assert v.verdict == "INCONCLUSIVE"
    assert "the baseline ran once" in v.reason("speed.tpot").message  # type: ignore[union-attr]
    # a second execution 3% slower: the drift is measured and the speed-up clears it
    twice = arm(
        specs["none"],
        samples("b", noisy(n, 0.02, 1), passed),
        samples("b2", noisy(n, 0.0206, 3), passed),
    )
    v = judge_pair(twice, cand, GATES)
    assert v.verdict == "ADOPT", [str(r) for r in v.reasons]
    speed = v.reason("speed.tpot")
    assert speed is not None and 0.025 < speed.data["noise_floor"] < 0.04
    # the interval holds whole executions' drift (sd ~2%, one degree of freedom), not only the
    # samples' noise: far wider than the per-sample bootstrap's
    assert 0.015 < speed.data["drift"]["sd"] < 0.03 and speed.data["drift"]["df"] == 1
    assert "run-to-run drift 2." in speed.message and "df 1" in speed.message
    lo, hi = speed.data["interval"]
    s_lo, s_hi = speed.data["samples_interval"]
    assert hi / lo > 5 * (s_hi / s_lo - 1) + 1
    aa = v.reason("speed.noise")
    assert aa is not None and aa.message.startswith("baseline against itself (A/A): 2 executions")


def test_a_lossless_method_that_is_significantly_better_is_not_comparable(
    specs: dict[str, RunSpec],
) -> None:
    """Exact verification reproduces the target: 30 samples gained and none lost is a broken
    arm (the baseline on another model, a fault), never a better candidate."""
    n = 200
    base_pass = [i >= 30 for i in range(n)]
    base = twice(specs["none"], n, base_pass)
    cand = arm(specs["mtp"], samples("c", noisy(n, 0.012, 2), [True] * n))
    v = judge_pair(base, cand, GATES)
    assert v.verdict == "INVALID"
    msg = v.reason("quality.lossless").message  # type: ignore[union-attr]
    assert msg.startswith("a lossless method passed significantly more samples")
    assert "candidate-only 30, baseline-only 0" in msg


def test_an_undecided_quality_gate_says_which_margin_the_data_could_decide(
    specs: dict[str, RunSpec],
) -> None:
    n = 60
    passed = [i % 3 == 0 for i in range(n)]
    base = arm(specs["none"], samples("b", noisy(n, 0.02, 1), passed))
    cand = arm(specs["mtp"], samples("c", noisy(n, 0.012, 2), passed))
    v = judge_pair(base, cand, GATES)
    ni = v.reason("quality.noninferiority")
    assert ni is not None and ni.status == "inconclusive"
    smallest = ni.data["smallest_margin"]
    assert smallest is not None and smallest > GATES.margin
    assert f"these data decide a margin of {100 * smallest:.1f} pp" in ni.message
    assert f"about {ni.data['n_needed']} samples needed" in ni.message


def test_failed_requests_are_left_out_of_quality_and_identity_and_said_so(
    specs: dict[str, RunSpec],
) -> None:
    """A failed request is no evidence about the output: a baseline error next to a passing
    candidate answer is not a candidate-only pass. The counts add up."""
    n = 40
    passed = [True] * n
    base_records = list(samples("b", noisy(n, 0.02, 1), passed, failed=2))
    base_records[0] = base_records[0].model_copy(update={"error": "HTTP 500: boom"})
    base_records[1] = base_records[1].model_copy(update={"status": "timeout"})
    cand_records = list(samples("c", noisy(n, 0.01, 2), passed))
    cand_records[5] = cand_records[5].model_copy(
        update={"status": "error", "error": "ServerDisconnectedError: gone", "score": None}
    )
    v = judge_pair(
        arm(specs["none"], tuple(base_records)), arm(specs["mtp"], tuple(cand_records)), GATES
    )
    pairing = v.reason("quality.pairing")
    assert pairing is not None
    assert pairing.data["excluded"] == 3 and pairing.data["shared"] == n
    assert pairing.message == (
        "3 of 40 paired samples excluded from quality, not answered on both arms (baseline: "
        "1 HTTP 500, 1 timeout; candidate: 1 connection)"
    )
    mc = v.reason("quality.mcnemar")
    assert mc is not None and (mc.data["b"], mc.data["c"]) == (0, 0)
    ni = v.reason("quality.noninferiority")
    assert ni is not None and ni.data["n"] == n - 3
    ident = v.reason("identity")
    assert ident is not None
    assert ident.message.startswith(
        "37 of 37 greedy outputs identical to the baseline's (3 not answered on both arms"
    )


def test_runs_that_answered_nothing_are_not_blamed_on_the_scorer(
    specs: dict[str, RunSpec],
) -> None:
    n = 8
    base = arm(specs["none"], samples("b", noisy(n, 0.02, 1), [True] * n, failed=n))
    cand = arm(specs["mtp"], samples("c", noisy(n, 0.01, 2), [True] * n, failed=n))
    v = judge_pair(base, cand, GATES)
    assert v.verdict == "INVALID"  # every request failed: the failures gate
    signal = v.reason("quality.signal")
    assert signal is not None
    assert signal.message == "no quality signal: no request was answered, so nothing was scored"


def test_arms_that_ran_different_suite_data_are_not_paired(specs: dict[str, RunSpec]) -> None:
    n = 40

    def ran(h: str) -> tuple[RunManifest, ...]:
        return (RunManifest(suite_data_sha256=h),)

    base = replace(arm(specs["none"], samples("b", noisy(n, 0.02, 1))), manifests=ran("a" * 64))
    same = replace(arm(specs["mtp"], samples("c", noisy(n, 0.01, 2))), manifests=ran("a" * 64))
    other = replace(same, manifests=ran("b" * 64))
    assert judge_pair(base, same, GATES).verdict != "INVALID"
    v = judge_pair(base, other, GATES)
    assert v.verdict == "INVALID"
    bad = [r for r in v.reasons if r.gate == "pairing" and r.status == "invalid"]
    assert bad and "ran different data of suite" in bad[0].message


def test_arms_scored_by_different_test_generators_are_not_paired(
    specs: dict[str, RunSpec],
) -> None:
    n = 40
    base = replace(
        arm(specs["none"], samples("b", noisy(n, 0.02, 1))),
        manifests=(RunManifest(suite_scoring="humaneval-v1-seed0-n20-amp1-fmt1"),),
    )
    cand = replace(
        arm(specs["mtp"], samples("c", noisy(n, 0.01, 2))),
        manifests=(RunManifest(suite_scoring="humaneval-v1-seed0-n20-amp2-fmt1"),),
    )
    v = judge_pair(base, cand, GATES)
    assert v.verdict == "INVALID"
    assert any("scored by different tests" in r.message for r in v.reasons if r.status == "invalid")
    same = replace(cand, manifests=base.manifests)
    assert judge_pair(base, same, GATES).verdict != "INVALID"


def test_speeds_on_different_clocks_are_not_paired_and_the_device_clock_is_said(
    specs: dict[str, RunSpec],
) -> None:
    """A baseline timed on the host's wall clock against a candidate timed on the reference
    engine's modelled device clock compares two different things; two device-clocked arms are
    judged, and the verdict says that their speed is modelled."""
    n = 40

    def on_device(records: tuple[SampleRecord, ...]) -> tuple[SampleRecord, ...]:
        return tuple(
            r.model_copy(update={"extra": r.extra.model_copy(update={"clock": "device"})})
            for r in records
        )

    host = arm(specs["none"], samples("b", noisy(n, 0.02, 1)))
    base = arm(specs["none"], on_device(samples("b", noisy(n, 0.02, 1))))
    cand = arm(specs["mtp"], on_device(samples("c", noisy(n, 0.01, 2))))
    mixed = judge_pair(host, cand, GATES)
    assert mixed.verdict == "INVALID"
    bad = [r for r in mixed.reasons if r.gate == "pairing" and r.status == "invalid"]
    assert bad and "timed on different clocks" in bad[0].message
    assert bad[0].data["clocks"] == {
        "device": [f"candidate run {cand.run_ids[0]}"],
        "host": [f"baseline run {host.run_ids[0]}"],
    }
    v = judge_pair(base, cand, GATES)
    assert v.verdict != "INVALID"
    said = [r for r in v.reasons if r.gate == "pairing" and r.data.get("clock") == "device"]
    assert said and "modelled device clock" in said[0].message
    plain = judge_pair(host, arm(specs["mtp"], samples("c", noisy(n, 0.01, 2))), GATES)
    assert not any(r.data.get("clock") for r in plain.reasons if r.gate == "pairing")


def test_an_undecided_speed_gate_says_what_would_decide_it(specs: dict[str, RunSpec]) -> None:
    """Whole executions drifting 4% apart, one degree of freedom: the message names the
    executions per configuration that would decide the 1.3x if it held. In eight blocks of 8
    whose log ratios spread from -0.2 to 0.6 it names the blocks, and samples per arm, that
    would clear the bar at that spread; in three, the blocks the signed-rank interval needs at
    all."""
    from specverdict.records import BlockDesign, RunManifest
    from specverdict.stats.signed_rank import signed_rank
    from specverdict.stats.speed import blocks_needed

    n = 40
    base = arm(
        specs["none"], samples("b0", noisy(n, 0.0200, 1)), samples("b1", noisy(n, 0.0208, 2))
    )
    cand = arm(specs["mtp"], samples("c0", noisy(n, 0.02 / 1.3, 3)))
    msg = judge_pair(base, cand, GATES).reason("speed.tpot").message  # type: ignore[union-attr]
    assert "df 1" in msg and "executions per configuration (load.repeats: " in msg, msg

    def blocked(spec: RunSpec, run_id: str, tpots: list[float]) -> Arm:
        run = tuple(
            s.model_copy(update={"extra": SampleExtra(block=i // 8)})
            for i, s in enumerate(samples(run_id, tpots))
        )
        manifest = RunManifest(blocks=BlockDesign(size=8))
        return replace(arm(spec, run), manifests=(manifest,))

    logs = [0.6, -0.2, 0.2, 0.1, 0.5, -0.1, 0.3, 0.0] * 2
    ratios = [r for r in logs for _ in range(8)]
    v = judge_pair(
        blocked(specs["none"], "b", [0.02] * 128),
        blocked(specs["mtp"], "c", [0.02 / float(np.exp(r)) for r in ratios]),
        GATES,
    )
    speed = v.reason("speed.tpot")
    assert speed is not None and speed.status == "inconclusive", speed
    assert (speed.data["design"], speed.data["blocks"], speed.data["df"]) == ("blocks", 16, 15)
    assert speed.data["rule"] == "signed-rank" and "(signed-rank, df 15" in speed.message
    est = signed_rank(np.asarray(logs), speed.data["confidence"])
    assert speed.data["point"] == pytest.approx(np.exp(est.center))
    assert est.spread is not None and speed.data["block_sd"] == pytest.approx(est.spread)
    need = blocks_needed(est.spread, float(est.center - np.log(1.05)), speed.data["confidence"])
    assert need is not None
    assert f"about {need} blocks ({8 * need} samples per arm" in speed.message, speed.message
    # three blocks: too few to read by rank, read by the t interval at 2 degrees of freedom
    few = judge_pair(
        blocked(specs["none"], "b", [0.02] * 24),
        blocked(specs["mtp"], "c", [0.02 / float(np.exp(r)) for r in ratios[:24]]),
        GATES,
    ).reason("speed.tpot")
    assert few is not None and few.status == "inconclusive" and few.data["rule"] == "t"
    assert few.data["point"] == pytest.approx(np.exp(np.mean(logs[:3])))
    assert "(t, df 2" in few.message, few.message


def counted(records: tuple[SampleRecord, ...], factor: float) -> tuple[SampleRecord, ...]:
    """The records with the harness's count of their texts: the server's figure / factor."""
    return tuple(
        r.model_copy(
            update={
                "extra": r.extra.model_copy(
                    update={"counted_tokens": round((r.completion_tokens or 0) / factor)}
                )
            }
        )
        for r in records
    )


@pytest.mark.parametrize(
    ("factor", "invalid"), [(1.0, False), (1.1, False), (1.25, True), (2.0, True)]
)
def test_a_server_whose_usage_strays_from_the_counted_tokens_is_invalid(
    specs: dict[str, RunSpec], factor: float, invalid: bool
) -> None:
    """Tokens counted by the harness make TPOT; the server's usage beyond 15% of them is not
    believed, and the pair says so with both figures. Speed is judged on the counted tokens, so
    an overstating server gains no speed-up from it."""
    n = 200
    passed = [True] * n
    base = arm(specs["none"], counted(samples("b", noisy(n, 0.02, 1), passed), 1.0))
    cand_records = counted(samples("c", noisy(n, 0.02, 2), passed), factor)
    v = judge_pair(base, arm(specs["mtp"], cand_records), GATES)
    gate = v.reason("speed.tokens")
    assert (gate is not None and gate.status == "invalid") is invalid, v.reasons
    if invalid:
        assert v.verdict == "INVALID" and gate is not None
        assert gate.data["reported"] == 33 * n and gate.data["arm"] == "candidate"
    # the counted tokens (33 / factor) make the candidate's TPOT larger, never smaller
    assert v.speedup is not None and v.speedup < 1.0 + (0.1 if factor == 1.0 else 0.0)


def test_runs_nothing_counted_say_so(specs: dict[str, RunSpec]) -> None:
    n = 50
    base = arm(specs["none"], samples("b", noisy(n, 0.02, 1)))
    v = judge_pair(base, arm(specs["mtp"], samples("c", noisy(n, 0.02, 2))), GATES)
    gate = v.reason("speed.tokens")
    assert gate is not None and gate.status == "info"
    assert "no tokenize endpoint" in gate.message
