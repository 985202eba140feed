"""Which stored calibrations a campaign pools: the same engine, model, quantization,
speculation, load and host; any prompts, stage or sampling."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.plan import Plan
from specverdict.records import RunManifest
from specverdict.store import SQLiteStore
from specverdict.verdict.calibration import calibration_groups, drift_identity
from tests.conftest import campaign_yaml


def plan(
    name: str = "c",
    first: int = 24,
    conc: int = 2,
    temperature: float = 0.0,
    args: Sequence[str] = ("--device-model", "accel-8b"),
) -> Plan:
    text = campaign_yaml(
        name,
        launch_args=args,
        suite="synth-function@1",
        first=first,
        temperature=temperature,
        max_tokens=48,
        concurrency=conc,
        warmup=None,
        baseline_repeats=None,
    )
    return build_plan(parse_campaign(text, Path(f"{name}.yaml")))


def test_the_identity_is_the_engine_s_not_the_workload_s() -> None:
    base = plan().pairs[0].baseline
    # other prompts, another campaign name, other sampling: the same engine's drift
    for other in (plan(first=16), plan(name="other"), plan(temperature=0.7)):
        assert drift_identity(other.pairs[0].baseline) == drift_identity(base)
    # another load level or launch flags, or the candidate's configuration: another drift
    assert drift_identity(plan(conc=4).pairs[0].baseline) != drift_identity(base)
    assert drift_identity(plan(args=()).pairs[0].baseline) != drift_identity(base)
    assert drift_identity(plan().pairs[0].candidate) != drift_identity(base)


def test_a_campaign_pools_completed_calibrations_of_its_baselines_on_its_host(
    tmp_path: Path,
) -> None:
    store = SQLiteStore(tmp_path / "runs.db")
    campaign, calibrated = plan(first=16), plan(first=24)
    mine, theirs = campaign.pairs[0].baseline, calibrated.pairs[0].baseline

    def run(spec: object, repeat: int, calibration: bool = True, host: str = "a") -> None:
        r = store.create_run(spec, repeat, RunManifest())  # type: ignore[arg-type]
        store.update_run(
            r.run_id, status="completed", manifest={"calibration": calibration, "host": host}
        )

    run(mine, 0, calibration=False)  # the campaign's own baseline, on host a
    for k in range(3):
        run(theirs, k)  # a calibration of the same engine on other prompts
    run(calibrated.pairs[0].candidate, 0)  # a candidate's: another identity
    run(plan(first=20).pairs[0].baseline, 0)  # one execution alone says nothing
    run(plan(first=12).pairs[0].baseline, 0, host="b")
    run(plan(first=12).pairs[0].baseline, 1, host="b")  # another host's
    (group,) = calibration_groups(store.list_runs(), campaign)
    assert {r.fingerprint for r in group} == {theirs.fingerprint} and len(group) == 3
    # nothing is pooled into a campaign whose baseline has no execution of its own yet
    assert calibration_groups(store.list_runs(), calibrated) == []


def test_a_calibration_older_than_its_age_limit_is_not_pooled(tmp_path: Path) -> None:
    """Measured two days before the campaign's baseline: outside the default 24 h, inside a
    campaign's gates.calibration_max_age_h of 72."""
    store = SQLiteStore(tmp_path / "runs.db")
    campaign, calibrated = plan(first=16), plan(first=24)
    mine, theirs = campaign.pairs[0].baseline, calibrated.pairs[0].baseline
    r = store.create_run(mine, 0, RunManifest())
    store.update_run(r.run_id, status="completed")
    for k in range(3):
        r = store.create_run(theirs, k, RunManifest())
        store.update_run(r.run_id, status="completed", manifest={"calibration": True})
    runs = [
        r.model_copy(update={"created_at": r.created_at - 2 * 86400})
        if r.fingerprint == theirs.fingerprint
        else r
        for r in store.list_runs()
    ]
    assert len(calibration_groups(store.list_runs(), campaign)) == 1
    assert calibration_groups(runs, campaign) == []
    gates = campaign.campaign.gates.model_copy(update={"calibration_max_age_h": 72.0})
    longer = campaign.model_copy(
        update={"campaign": campaign.campaign.model_copy(update={"gates": gates})}
    )
    assert len(calibration_groups(runs, longer)) == 1
    # nothing is pooled before the campaign's own baseline is measured
    assert (
        calibration_groups([r for r in runs if r.fingerprint != mine.fingerprint], campaign) == []
    )
