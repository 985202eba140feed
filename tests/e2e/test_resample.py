"""`resample` on the real reference engine: re-runs stored as runs, evidence per sample."""

from __future__ import annotations

from pathlib import Path

import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.errors import ConfigError
from specverdict.run.resample import resample
from specverdict.run.runner import Runner
from specverdict.store import SQLiteStore
from tests.e2e.test_runner import ReturnsSomething, campaign_text, quiet


def test_resample_reruns_discordant_and_drawn_concordant_samples(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("specverdict.run.runner.suite_for", lambda spec: ReturnsSomething())
    text = campaign_text(
        candidates="  - {method: draft_model, k: 2}", samples="{first: 6}", max_tokens=20
    ).replace("temperature: 0.0", "temperature: 0.9")
    plan = build_plan(parse_campaign(text, Path("resample.yaml")))
    store = SQLiteStore(tmp_path / "runs.db")
    runner = Runner(store, log=quiet)
    base, cand = runner.run_plan(plan)
    result = resample(store, plan, cand, runner, seeds=2, concordant=2)

    discordant = [e for e in result.evidence if e.discordant]
    drawn = [e for e in result.evidence if not e.discordant]
    assert len(drawn) == min(2, 6 - len(discordant))
    # the re-runs alone: the original answers chose the strata and would bias them
    assert all(e.base_runs == e.cand_runs == 2 for e in result.evidence)
    assert len(result.run_ids) == 4
    # the first of 3 looks at the 20% of alpha kept for resampling (sampling at 0.9)
    assert (result.look.index, result.look.declared) == (1, 3)
    assert result.alpha == pytest.approx(0.05 * 0.2 * result.look.share)
    (recorded,) = store.get_run(cand.run_id).manifest.resamples
    assert (recorded.index, recorded.seeds, recorded.decision) == (1, 2, result.gate.decision)
    reruns = [store.get_run(r) for r in result.run_ids]
    assert all(r.manifest.resample_of == cand.run_id for r in reruns)
    assert {r.spec.sampling.seed for r in reruns} == {1, 2}
    gate = result.gate  # the decision follows the interval, as non-inferiority does
    assert (gate.decision == "reject") == (gate.interval.lower > 0)
    assert (gate.decision == "pass") == (
        gate.interval.lower <= 0 and gate.interval.upper < gate.margin
    )
    assert result.gate.n_total == 6
    # done re-runs are reused: the same evidence without new runs
    n_runs = len(store.list_runs())
    again = resample(store, plan, cand, runner, seeds=2, concordant=2)
    assert again.evidence == result.evidence and len(store.list_runs()) == n_runs
    assert again.look.index == 1  # the same data: the same look, nothing more spent
    # more seeds are new looks at the same hypothesis, each spending its share, up to 3
    third = resample(store, plan, cand, runner, seeds=3, concordant=2)
    assert third.look.index == 2 and all(e.base_runs == 3 for e in third.evidence)
    assert resample(store, plan, cand, runner, seeds=4, concordant=2).look.index == 3
    with pytest.raises(ConfigError, match="resample budget is spent: 3 look"):
        resample(store, plan, cand, runner, seeds=5, concordant=2)
    looks = store.get_run(cand.run_id).manifest.resamples
    assert [r.index for r in looks] == [1, 2, 3]
    assert sum(r.alpha for r in looks) == pytest.approx(0.05 * 0.2)  # the whole reserve
    with pytest.raises(ConfigError, match="not a candidate"):
        resample(store, plan, base, runner, seeds=1, concordant=1)


def test_a_decided_pair_is_not_resampled(tmp_path: Path) -> None:
    """A second look at a REJECT (or an ADOPT) would test the same hypothesis again: refused
    before anything is sent."""
    from specverdict.records import SampleRecord, Score

    text = campaign_text(samples="{first: 40}").replace("temperature: 0.0", "temperature: 0.9")
    plan = build_plan(parse_campaign(text, Path("d.yaml")))
    store = SQLiteStore(tmp_path / "runs.db")
    runs = []
    for spec, passes in ((plan.runs[0], True), (plan.runs[1], False)):
        run = store.create_run(spec, 0)
        for i in range(40):
            store.add_sample(
                SampleRecord(
                    run_id=run.run_id,
                    sample_id=f"s{i}",
                    status="ok",
                    text="x",
                    completion_tokens=20,
                    ttft_s=0.1,
                    e2e_s=0.1 + 19 * (0.02 if spec is plan.runs[0] else 0.01),
                    score=Score(passed=passes, outcome="passed" if passes else "failed"),
                )
            )
        runs.append(store.update_run(run.run_id, status="completed"))
    runner = Runner(store, log=quiet)
    with pytest.raises(ConfigError, match="verdict is REJECT; resample is for INCONCLUSIVE"):
        resample(store, plan, runs[1], runner, seeds=2, concordant=2)
    assert len(store.list_runs()) == 2  # nothing re-run


def test_greedy_campaigns_keep_no_alpha_for_resampling(tmp_path: Path) -> None:
    """At temperature 0 other seeds repeat the same answers: the verdict spends all of alpha,
    and resample says so (before anything is sent) unless the campaign kept a share."""
    plan = build_plan(parse_campaign(campaign_text(samples="{first: 4}"), Path("g.yaml")))
    store = SQLiteStore(tmp_path / "runs.db")
    runner = Runner(store, log=quiet)
    cand = store.create_run(plan.runs[1], 0)
    with pytest.raises(ConfigError, match="keeps no alpha for resampling"):
        resample(store, plan, cand, runner, seeds=2, concordant=2)
    assert len(store.list_runs()) == 1
