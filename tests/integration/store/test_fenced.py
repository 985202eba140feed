"""One writer per run across a split brain: an executor whose run was handed to another (its
node taken for lost while its process still ran) has its next write refused, and the new
holder resumes the run with nothing written twice. A real reference engine, a real registry."""

from __future__ import annotations

from pathlib import Path

import pytest

from specverdict.errors import FencedError
from specverdict.run.runner import Runner
from specverdict.store import SQLiteStore
from specverdict.store.fenced import FencedStore
from tests.e2e.test_faults import plan_for, when_stored
from tests.e2e.test_runner import campaign_text, quiet


def test_a_stale_executor_cannot_write_after_its_run_was_handed_over(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    store = SQLiteStore(db)
    paced = ', launch: {args: ["--device-model", "accel-2b"]}'
    plan = plan_for(campaign_text(samples="all", max_tokens=60, engine_extra=paced))
    spec = plan.runs[0]
    fp = spec.fingerprint
    assert store.claim(fp, 0, "ray:old/1", 60) == "ray:old/1"
    stale = FencedStore(store, fp, 0, "ray:old/1", 60)

    def hand_over() -> None:  # the driver: node lost, claim released, run handed to another
        driver = SQLiteStore(db)
        driver.release(fp, 0, "ray:old/1")
        assert driver.claim(fp, 0, "ray:old/2", 60) == "ray:old/2"
        driver.close()

    watcher = when_stored(db, 3, hand_over)
    with pytest.raises(FencedError, match="held by ray:old/2, not by this executor"):
        Runner(stale, log=quiet).run_one(plan, spec, 0)
    watcher.join()
    (run,) = store.list_runs()
    kept = {s.sample_id: s for s in store.attempts(run.run_id)}
    assert 3 <= len(kept) < 16
    assert run.status == "running"  # the stale executor could not mark it either

    fresh = FencedStore(store, fp, 0, "ray:old/2", 60)
    done = Runner(fresh, log=quiet).run_one(plan, spec, 0)
    assert done.run_id == run.run_id and done.status == "completed"
    attempts = store.attempts(run.run_id)
    assert len(attempts) == len({(s.sample_id, s.attempt) for s in attempts})
    assert len({s.sample_id for s in attempts}) == 16
    for sample_id, first in kept.items():  # what the stale one committed is kept as it was
        assert any(a == first for a in attempts if a.sample_id == sample_id)
