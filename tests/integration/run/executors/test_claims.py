"""Claims in use: two local executors on one shared registry never measure the same fingerprint
and repeat at once; a killed local runner's claim is taken over without waiting for its lease."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from pathlib import Path

from specverdict.campaign import build_plan, parse_campaign
from specverdict.records import RunRecord
from specverdict.run.executors.claims import ClaimingRunner, holder_is_gone, take
from specverdict.store import open_store
from tests.conftest import campaign_yaml
from tests.pgserver import PostgresServer

CAMPAIGN = campaign_yaml(
    "claims",
    device_model="accel-8b",
    device_clock="virtual",
    suite="synth-function@1",
    max_tokens=24,
    warmup=0,
)


def _dead_pid() -> int:
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return int(proc.stdout)


def test_a_gone_local_runners_claim_is_taken_over_at_once(tmp_path: Path) -> None:
    store = open_store(tmp_path / "r.db")
    host = socket.gethostname()
    dead = f"local:{host}:{_dead_pid()}:abcdef"
    assert holder_is_gone(dead)
    assert store.claim("f", 0, dead, ttl_s=600) == dead
    assert take(store, "f", 0, "local:me:1:x", ttl_s=60) == "local:me:1:x"
    # a live process, another host, or a Ray driver (whose actors may still write) wait
    for holder in (
        f"local:{host}:{_alive()}:abcdef",
        f"local:elsewhere:{_dead_pid()}:abcdef",
        f"ray:{host}:{_dead_pid()}:abcdef",
    ):
        assert not holder_is_gone(holder), holder
        assert store.claim("g", 0, holder, ttl_s=600) == holder
        assert take(store, "g", 0, "local:me:1:x", ttl_s=60) == holder
        store.release("g", 0, holder)
    store.close()


def _alive() -> int:
    import os

    return os.getpid()


def test_two_local_executors_on_one_registry_measure_each_run_once(
    postgres: PostgresServer, tmp_path: Path
) -> None:
    url = postgres.database()
    plan = build_plan(parse_campaign(CAMPAIGN, Path("claims.yaml")))
    results: list[list[RunRecord]] = []
    lines: list[str] = []

    def executor(i: int) -> None:
        store = open_store(url)
        runner = ClaimingRunner(store, url, log=lines.append, runs_dir=tmp_path / f"runs{i}")
        results.append(runner.run_plan(plan))
        store.close()

    threads = [threading.Thread(target=executor, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert len(results) == 2
    store = open_store(url)
    runs = store.list_runs(campaign="claims")
    assert len(runs) == 2  # one execution per fingerprint and repeat, not one per executor
    for r in runs:
        ids = [a.sample_id for a in store.attempts(r.run_id)]
        assert len(ids) == len(set(ids)) == 4
    # the executor that came second found the runs measured and sent nothing
    assert sum("nothing to send" in line for line in lines) >= 1
    assert any("waiting for it to end" in line for line in lines)
    store.close()
