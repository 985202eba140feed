"""The shared registry lost during a run: the runner stops cleanly with a ``StoreError``, what
was committed stays, and the same campaign resumes once the database is back."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.errors import StoreError
from specverdict.run.executors.claims import ClaimingRunner
from specverdict.store import open_store
from specverdict.store.postgres import PostgresStore
from tests.conftest import campaign_yaml
from tests.pgserver import PostgresServer

CAMPAIGN = campaign_yaml(
    "dbloss",
    device_model="accel-8b",
    suite="synth-function@1",
    first=16,
    max_tokens=64,
    warmup=0,
)


def test_a_database_lost_mid_run_stops_cleanly_and_the_rerun_resumes(
    postgres: PostgresServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the stopped runner could not release its claim (the database was gone) and lives on in
    # this process: a short lease lets the re-run take it over soon
    monkeypatch.setenv("SPECVERDICT_CLAIM_TTL_S", "3")
    url = postgres.database()
    plan = build_plan(parse_campaign(CAMPAIGN, Path("dbloss.yaml")))
    baseline = plan.runs[0]
    store = PostgresStore(url, backoff_s=(0.1, 0.2, 0.4))
    watcher = open_store(url)
    stopped = threading.Event()

    def stop_when_measuring() -> None:
        while not stopped.is_set():
            runs = watcher.list_runs(campaign="dbloss")
            if runs and len(watcher.samples(runs[0].run_id)) >= 3:
                watcher.close()
                postgres.stop("immediate")
                stopped.set()
                return
            stopped.wait(0.1)

    thread = threading.Thread(target=stop_when_measuring)
    thread.start()
    runner = ClaimingRunner(store, url, log=lambda _: None, runs_dir=tmp_path / "runs")
    try:
        with pytest.raises(StoreError, match=r"lost the database after 3 retries"):
            runner.run_one(plan, baseline, 0)
    finally:
        stopped.set()
        thread.join(timeout=30)
        postgres.start()
    check = open_store(url)
    (run,) = check.list_runs(campaign="dbloss")
    kept = {s.sample_id: s for s in check.samples(run.run_id)}
    assert 3 <= len(kept) < 16  # what was committed before the database went is there
    again = ClaimingRunner(check, url, log=lambda _: None, runs_dir=tmp_path / "runs")
    done = again.run_one(plan, baseline, 0)
    assert done.run_id == run.run_id and done.status == "completed"
    attempts = check.attempts(run.run_id)
    ids = [a.sample_id for a in attempts]
    assert len(ids) == len(set(ids)) == 16
    now = {a.sample_id: a.model_copy(update={"score": None}) for a in attempts}
    assert {k: now[k] for k in kept} == {
        k: v.model_copy(update={"score": None}) for k, v in kept.items()
    }
    check.close()
    store.close()
