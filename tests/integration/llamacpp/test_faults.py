"""The fault matrix's engine faults on real llama.cpp: a launched llama-server killed mid-run
stops its run with the cause, and a re-run on a new server finishes it without losing a sample."""

from __future__ import annotations

import json
import os
import signal
import warnings
from pathlib import Path

import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.errors import RunInterruptedError
from specverdict.records.failures import retryable
from specverdict.run.runner import Runner
from specverdict.store import SQLiteStore
from tests.e2e.test_faults import when_stored
from tests.integration.llamacpp.test_campaign import CAMPAIGN, LAUNCH


def test_a_launched_llama_server_killed_mid_run_stops_the_run(
    gguf_dir: Path, tmp_path: Path
) -> None:
    engine = f"launch: {{command: {json.dumps(LAUNCH)}, startup_timeout_s: 60}}"
    text = CAMPAIGN.format(
        engine=engine,
        target=gguf_dir / "target.gguf",
        candidates="  - {method: ngram, k: 8, params: {spec_ngram_simple_size_n: 3}}",
        samples="all",
    ).replace("warmup: 1}", "warmup: 1, baseline_repeats: 1}")
    plan = build_plan(parse_campaign(text, Path("llamacpp-faults.yaml")))
    db = tmp_path / "runs.db"
    store = SQLiteStore(db)

    def kill_engine() -> None:
        os.killpg(SQLiteStore(db).list_runs()[0].manifest.engine_pid, signal.SIGKILL)

    watcher = when_stored(db, 3, kill_engine)
    with pytest.raises(RunInterruptedError, match="stopped: the engine exited with code -9"):
        Runner(store, log=lambda _: None).run_plan(plan, "none")
    watcher.join()
    (run,) = store.list_runs()
    assert run.status == "interrupted", run.manifest.interruption
    kept = {s.sample_id: s.text for s in store.samples(run.run_id) if s.status == "ok"}
    assert len(kept) >= 3
    log: list[str] = []
    (done,) = Runner(store, log=log.append).run_plan(plan, "none")
    assert done.status == "completed", log
    again = {s.sample_id: s for s in store.samples(run.run_id) if s.status != "ok"}
    if again:
        # A request of the new server can fail on a loaded host like any request: data, kept,
        # and sent once more by the next re-run, as a user would run it. A failure the runner
        # would not retry (an HTTP 4xx) is a fault of the resume itself and fails here.
        errors = {i: s.error for i, s in again.items()}
        assert all(retryable(s) for s in again.values()), errors
        warnings.warn(f"re-run left failed requests: {errors}", stacklevel=1)
        (done,) = Runner(store, log=log.append).run_plan(plan, "none")
    final = {s.sample_id: s for s in store.samples(run.run_id)}
    failed = {i: (s.attempt, s.status, s.error) for i, s in final.items() if s.status != "ok"}
    assert len(final) == 16 and not failed, (failed, log)
    assert {i: final[i].text for i in kept} == kept
    assert all(final[i].attempt == 0 for i in kept)  # a kept answer is never sent again
