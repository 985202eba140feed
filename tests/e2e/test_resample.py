"""`resample` on the real reference engine: re-runs stored as runs, evidence per sample."""

from __future__ import annotations

from pathlib import Path

import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.errors import ConfigError
from specverdict.resample import resample
from specverdict.runner import Runner
from specverdict.store import SQLiteStore
from tests.e2e.test_runner import ReturnsSomething, campaign_text, quiet


def test_resample_reruns_discordant_and_drawn_concordant_samples(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("specverdict.runner.suite_for", lambda spec: ReturnsSomething())
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
    assert all(e.base_runs == e.cand_runs == 3 for e in result.evidence)  # original + 2 seeds
    for e in discordant:  # the original answers disagreed on these
        assert (e.base_passes, e.cand_passes) != (0, 0) and (e.base_passes, e.cand_passes) != (3, 3)
    assert len(result.run_ids) == 4
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
    with pytest.raises(ConfigError, match="not a candidate"):
        resample(store, plan, base, runner, seeds=1, concordant=1)


def test_a_decided_pair_is_not_resampled(tmp_path: Path) -> None:
    """A second look at a REJECT (or an ADOPT) would test the same hypothesis again: refused
    before anything is sent."""
    from specverdict.records import SampleRecord, Score

    plan = build_plan(parse_campaign(campaign_text(samples="{first: 40}"), Path("d.yaml")))
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
