"""The Ray executor on a real multi-node Ray cluster, into a real PostgreSQL registry, with the
reference engine launched on the nodes: the same verdicts as the local runner, placement by
resources, a driver killed mid-run, a node removed mid-run. The tests share one cluster, in
this order: the node removal comes last, as it leaves one node fewer."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.plan import Plan, in_sessions, interleaved
from specverdict.errors import ConfigError
from specverdict.records import RunRecord
from specverdict.run.executors.claims import ClaimingRunner
from specverdict.run.executors.cluster import Execution, RayExecutor
from specverdict.store import Store, open_store
from specverdict.verdict import campaign_verdicts
from tests.conftest import campaign_yaml
from tests.integration.run.executors.conftest import LocalCluster
from tests.pgserver import PostgresServer

MTP = ({"method": "mtp", "k": 2},)


def cluster_campaign(
    name: str = "cluster",
    candidates: Sequence[Mapping[str, object]] = MTP,
    samples: int = 6,
    max_tokens: int = 48,
    concurrency: int = 1,
    virtual: bool = True,
    accel: int = 1,
) -> str:
    """Generated functions on an engine paced to accel-8b (``virtual``: on its device clock)
    that needs ``accel`` of a node's ``accel`` resource."""
    return campaign_yaml(
        name,
        device_model="accel-8b",
        device_clock="virtual" if virtual else None,
        launch={"resources": {"accel": accel}},
        candidates=candidates,
        suite="synth-function@1",
        first=samples,
        max_tokens=max_tokens,
        concurrency=[concurrency],
        warmup=0,
    )


def plan_of(name: str = "cluster", **kw: Any) -> Plan:
    return build_plan(parse_campaign(cluster_campaign(name, **kw), Path(f"{name}.yaml")))


def executions(plan: Plan) -> list[Execution]:
    return [
        Execution(spec=e.spec, repeat=e.repeat, order=(e.repeat, e.position))
        for e in interleaved(plan.runs, plan.repeats_of)
    ]


def quiet(_: str) -> None:
    return None


def ray_executor(store: Store, location: str, tmp_path: Path, **kw: object) -> RayExecutor:
    return RayExecutor(
        store=store,
        location=location,
        console=Console(quiet=True),
        runs_dir=tmp_path / "runs",
        log=kw.pop("log", quiet),  # type: ignore[arg-type]
        **kw,  # type: ignore[arg-type]
    )


def outputs(store: Store, run: RunRecord) -> list[tuple[str, str | None, bool | None]]:
    return [
        (s.sample_id, s.text, s.score.passed if s.score else None)
        for s in store.samples(run.run_id)
    ]


def test_a_campaign_on_the_cluster_gives_the_local_runners_verdicts(
    ray_cluster: LocalCluster, postgres: PostgresServer, tmp_path: Path
) -> None:
    """Baseline and two candidates, on the engine's virtual device clock (timings are a model
    of the device, so both paths measure the same figures): outputs, scores, acceptance and the
    verdicts of the local runner (SQLite) and of the Ray executor (PostgreSQL) agree."""
    plan = plan_of(
        candidates=[
            {"method": "mtp", "k": 2},
            {"method": "ngram", "k": 4, "params": {"prompt_lookup_min": 2, "prompt_lookup_max": 5}},
        ]
    )
    local_db = tmp_path / "local.db"
    local = open_store(local_db)
    local_runs = ClaimingRunner(local, local_db, log=quiet, runs_dir=tmp_path / "lr").run_plan(plan)
    url = postgres.database()
    shared = open_store(url)
    ex = ray_executor(shared, url, tmp_path)
    ray_runs = ex.run(plan, executions(plan))
    assert [r.status for r in ray_runs] == ["completed"] * 3
    assert [r.fingerprint for r in ray_runs] == [r.fingerprint for r in local_runs]
    # placed by resources: only the accel nodes measured, never the head
    accel_nodes = {n.node_id for n in ray_cluster.nodes}
    assert {o.node_id for _, o in ex.outcomes} <= accel_nodes
    for here, there in zip(local_runs, ray_runs, strict=True):
        assert outputs(local, here) == outputs(shared, there)
        assert len(shared.samples(there.run_id)) == 6
        # scored by Ray tasks: every answer has its score
        assert all(s.score is not None for s in shared.samples(there.run_id))
        assert here.manifest.launch_command is not None and there.manifest.launch_command

    def strip(v: object) -> dict[str, object]:
        d = v.model_dump()  # type: ignore[attr-defined]
        # the betting test's order is drawn per execution (verdict.order): its seed differs
        # between the two registries' executions, what it decides must not
        for reason in d["reasons"]:
            reason["data"].pop("order", None)
        return {k: x for k, x in d.items() if not k.endswith("run_ids")}

    local_verdicts = [strip(v) for v in campaign_verdicts(local, plan)]
    ray_verdicts = [strip(v) for v in campaign_verdicts(shared, plan)]
    assert local_verdicts == ray_verdicts
    assert all(v["acceptance_rate"] is not None for v in ray_verdicts)
    shared.close()
    local.close()


def test_a_node_keeps_a_sessions_server_up_for_its_next_execution(
    ray_cluster: LocalCluster, postgres: PostgresServer, tmp_path: Path
) -> None:
    """Two stages of one configuration and round are one server session: the node that
    measured the first stage measures the second on the server it kept up, so the cluster
    starts fewer servers than it measures executions, and each node's actor stops what it
    kept when the campaign ends."""
    text = campaign_yaml(
        "cluster-sessions",
        device_model="accel-8b",
        device_clock="virtual",
        launch={"resources": {"accel": 1}},
        candidates=MTP,
        stages={
            "function": {"suite": "synth-function@1", "samples": {"first": 4}},
            "prose": {"suite": "prose@1", "samples": {"first": 4}},
        },
        max_tokens=8,
        concurrency=[1],
        warmup=0,
        baseline_repeats=None,  # the campaign's default: the baseline executed twice
    )
    plan = build_plan(parse_campaign(text, Path("cluster-sessions.yaml")))
    ordered = [
        Execution(spec=e.spec, repeat=e.repeat, order=(e.repeat, e.position))
        for e in in_sessions(plan.runs, plan.repeats_of)
    ]
    assert len(ordered) == 6  # the baseline twice and the candidate, in two stages
    url = postgres.database()
    shared = open_store(url)
    ex = ray_executor(shared, url, tmp_path)
    runs = ex.run(plan, ordered)
    assert [r.status for r in runs] == ["completed"] * 6
    by_session: dict[str | None, list[RunRecord]] = {}
    for r in runs:
        by_session.setdefault(r.manifest.session, []).append(r)
    # three sessions (baseline round 0, the candidate, baseline round 1), each started at most
    # twice (two idle nodes, one session left: a second start where its queued work is
    # dearer than two starts, note 035's addendum)
    assert ex.starts is not None and len(by_session) <= ex.starts <= 4 < len(runs)
    shared_starts = [served for served in by_session.values() if len(served) == 2]
    assert shared_starts, by_session
    for served in shared_starts:  # one server, two stages, on one node
        assert sorted(r.spec.stage for r in served) == ["function", "prose"]
        assert len({r.manifest.engine_pid for r in served}) == 1
    # the campaign ended: no engine it launched is still running
    for r in runs:
        pid = r.manifest.engine_pid
        assert pid is not None and not pid_alive(pid), r.run_id
    shared.close()


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_no_node_with_the_resources_is_one_line(ray_cluster: LocalCluster, tmp_path: Path) -> None:
    text = cluster_campaign("big", samples=2, max_tokens=8, virtual=False, accel=8)
    plan = build_plan(parse_campaign(text, Path("big.yaml")))
    db = str(tmp_path / "r.db")
    with pytest.raises(ConfigError, match=r"resources \{'accel': 8.0\}: no node .* has them"):
        ray_executor(open_store(db), db, tmp_path).run(plan, executions(plan))


def _parent(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[1])


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def _wait(check: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def test_a_killed_driver_is_resumed_by_a_new_one(
    ray_cluster: LocalCluster, postgres: PostgresServer, tmp_path: Path
) -> None:
    """``specverdict run --executor ray`` killed with SIGKILL mid-run: its claims expire, a
    second driver takes them over and finishes the campaign with every sample stored once."""
    campaign = tmp_path / "driver.yaml"
    campaign.write_text(
        cluster_campaign("driver", samples=12, max_tokens=64, concurrency=2, virtual=False)
    )
    url = postgres.database()
    env = {
        **os.environ,
        "SPECVERDICT_CLAIM_TTL_S": "4",
        "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
    }
    cmd = [sys.executable, "-m", "specverdict", "run", str(campaign), "--executor", "ray",
           "--address", ray_cluster.address, "--db", url, "--force"]  # fmt: skip
    with open(tmp_path / "first.log", "w") as log:
        first = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT)
    store = open_store(url)

    def measuring() -> bool:
        return any(len(store.samples(r.run_id)) >= 3 for r in store.list_runs(campaign="driver"))

    try:
        _wait(measuring, 180, "the first driver to store samples")
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=30)
    before = {
        r.run_id: {
            s.sample_id: s.model_copy(update={"score": None}) for s in store.samples(r.run_id)
        }
        for r in store.list_runs()
    }
    assert any(len(v) < 12 for v in before.values())  # killed mid-run, not after
    second = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True,
                            timeout=400, check=False)  # fmt: skip
    assert second.returncode == 0, second.stdout + second.stderr
    runs = store.list_runs(campaign="driver")
    assert sorted(r.spec.speculation.method for r in runs) == ["mtp", "none"]
    assert all(r.status == "completed" for r in runs)
    for r in runs:
        attempts = store.attempts(r.run_id)
        ids = [a.sample_id for a in attempts]
        assert len(ids) == len(set(ids)) == 12
        kept = before.get(r.run_id, {})
        now = {s.sample_id: s.model_copy(update={"score": None}) for s in attempts}
        assert {k: v for k, v in now.items() if k in kept} == kept
    assert "next: specverdict verdict" in second.stdout
    assert "resuming" in second.stdout  # the unfinished run was resumed, not measured anew
    store.close()


def test_a_node_lost_mid_run_is_resumed_on_another_node_from_the_registry(
    ray_cluster: LocalCluster, postgres: PostgresServer, tmp_path: Path
) -> None:
    """The node measuring the run is removed from the cluster mid-run (its raylet and its
    actor are killed): the run resumes on the other node; no sample stored before is lost or
    stored twice, and the lost node's engine is stopped by its reaper."""
    plan = plan_of("loss", samples=16, max_tokens=64, concurrency=2, virtual=False)
    baseline = next(r for r in plan.runs if r.speculation.method == "none")
    url = postgres.database()
    store = open_store(url)
    lines: list[str] = []
    ex = ray_executor(store, url, tmp_path, log=lines.append)
    result: list[list[RunRecord]] = []
    failure: list[BaseException] = []

    def drive() -> None:
        try:
            result.append(ex.run(plan, [Execution(spec=baseline, repeat=0, order=(0, 0))]))
        except BaseException as exc:
            failure.append(exc)

    driver = threading.Thread(target=drive)
    driver.start()

    def started() -> RunRecord | None:
        runs = store.list_runs(campaign="loss")
        if runs and runs[0].manifest.engine_pid and len(store.samples(runs[0].run_id)) >= 4:
            return runs[0]
        return None

    _wait(started, 180, "the run to store 4 samples")
    run = started()
    assert run is not None and run.manifest.engine_pid is not None
    engine = run.manifest.engine_pid
    actor = _parent(engine)
    raylet = _parent(actor)
    lost = next(n for n in ray_cluster.nodes if n.all_processes["raylet"][0].process.pid == raylet)
    before = {s.sample_id: s.model_copy(update={"score": None}) for s in store.samples(run.run_id)}
    ray_cluster.remove(lost.node_id)
    driver.join(timeout=300)
    assert not driver.is_alive() and not failure, failure
    (done,) = result[0]
    assert done.run_id == run.run_id and done.status == "completed"
    attempts = store.attempts(run.run_id)
    ids = [a.sample_id for a in attempts]
    assert len(ids) == len(set(ids)) == 16  # each sample once: none lost, none twice
    assert all(a.attempt == 0 for a in attempts)
    after = {s.sample_id: s.model_copy(update={"score": None}) for s in attempts}
    assert {k: after[k] for k in before} == before  # what was stored is as it was (now scored)
    assert len(done.manifest.engine_logs) == 2  # launched on the lost node, then again
    assert any(f"node {lost.node_id[:8]} lost mid-run" in line for line in lines)
    (_, outcome), = ex.outcomes  # fmt: skip
    assert outcome.node_id != lost.node_id
    _wait(lambda: not _running(engine), 30, "the lost node's engine to be stopped")
    store.close()
