"""Launched engines in server sessions (``engine.launch.sessions``): one start per
configuration and round serves every stage and sequential look, against real reference
servers paced on the host's wall clock, with the registry counting the starts."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.plan import Plan
from specverdict.campaign.spec import RunSpec
from specverdict.cli.main import cli
from specverdict.errors import ConfigError
from specverdict.records import RunRecord
from specverdict.run.runner import Runner, _Prestart
from specverdict.run.sequential import run_until_decided
from specverdict.store import SQLiteStore
from specverdict.verdict import campaign_verdicts
from tests.conftest import campaign_yaml


def campaign(n: int = 8, virtual: bool = False, **launch: object) -> str:
    """Both stages on their first ``n`` samples, on an engine paced to accel-8b (``virtual``:
    on its device clock) launched with the settings ``launch`` (sessions, servers, ...)."""
    return campaign_yaml(
        "sessions",
        device_model="accel-8b",
        # the device clock: no drift, so that no pair stops on futility at look 1
        device_clock="virtual" if virtual else None,
        launch=launch,
        stages={
            "function": {"suite": "synth-function@1", "samples": {"first": n}},
            "prose": {"suite": "prose@1", "samples": {"first": n}},
        },
        max_tokens=8,
        concurrency=2,
        baseline_repeats=None,
    )


def plan_of(n: int = 8, virtual: bool = False, **launch: object) -> Plan:
    return build_plan(parse_campaign(campaign(n, virtual, **launch), Path("sessions.yaml")))


def quiet(_: str) -> None:
    return None


def by_session(runs: list[RunRecord]) -> dict[str | None, list[RunRecord]]:
    out: dict[str | None, list[RunRecord]] = {}
    for r in runs:
        out.setdefault(r.manifest.session, []).append(r)
    return out


def test_one_start_per_configuration_and_round_serves_every_stage(tmp_path: Path) -> None:
    plan = plan_of()
    store = SQLiteStore(tmp_path / "runs.db")
    runner = Runner(store, log=quiet, runs_dir=tmp_path / "runs")
    runner.run_plan(plan)
    runs = store.list_runs()
    # baseline round 0, the candidate, baseline round 1: 3 starts for 6 executions
    assert runner.starts == 3 and len(runs) == 6
    sessions = by_session(runs)
    assert len(sessions) == 3
    for served in sessions.values():
        assert sorted(r.spec.stage for r in served) == ["function", "prose"]
        assert len({(r.spec.speculation.method, r.repeat) for r in served}) == 1
        assert len({r.manifest.engine_pid for r in served}) == 1
        # the start is the first execution's; the second began where the first's use ended
        startups = sorted(r.manifest.engine_time.startup_s or 0.0 for r in served)  # type: ignore[union-attr]
        assert startups[0] == 0.0 and startups[1] > 0.0
    # runs show names the session and the executions it also served
    first, second = next(iter(sessions.values()))
    shown = CliRunner().invoke(
        cli, ["runs", "show", first.run_id, "--db", str(tmp_path / "runs.db")]
    )
    assert shown.exit_code == 0, shown.output
    assert f"server session {first.manifest.session}, also serving {second.run_id[:12]}" in (
        " ".join(shown.output.split())
    )
    # a configuration's rounds are separate starts: its executions are never one session
    base = [r for r in runs if r.spec.speculation.method == "none"]
    assert len({r.manifest.session for r in base}) == 2
    # the two stages' baselines shared their starts: one host state seen twice, read at
    # df 1, not as two independent A/A pairs (df 2)
    for v in campaign_verdicts(store, plan):
        speed = v.reason("speed.tpot")
        assert speed is not None and speed.data["drift"]["df"] == 1, speed.data  # type: ignore[index]


def test_a_start_per_execution_when_asked(tmp_path: Path) -> None:
    plan = plan_of(sessions="execution")
    store = SQLiteStore(tmp_path / "runs.db")
    runner = Runner(store, log=quiet, runs_dir=tmp_path / "runs")
    runner.run_plan(plan)
    runs = store.list_runs()
    assert runner.starts == 6 and len(by_session(runs)) == 6
    # each stage's baseline ran twice on its own starts: two A/A pairs, df 2
    for v in campaign_verdicts(store, plan):
        speed = v.reason("speed.tpot")
        assert speed is not None and speed.data["drift"]["df"] == 2, speed.data  # type: ignore[index]


def test_a_session_whose_server_died_is_started_again(tmp_path: Path) -> None:
    plan = plan_of()
    store = SQLiteStore(tmp_path / "runs.db")
    runner = Runner(store, log=quiet, runs_dir=tmp_path / "runs")
    base = [r for r in plan.runs if r.speculation.method == "none"]
    with runner.sessions(plan):
        first = runner.run_one(plan, base[0], 0)
        pid = store.get_run(first.run_id).manifest.engine_pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)  # between two uses of its session
        os.waitpid(pid, 0)
        second = runner.run_one(plan, base[1], 0)
    assert runner.starts == 2 and second.status == "completed"
    assert second.manifest.session != first.manifest.session
    # every kept server is stopped when the block ends
    assert not runner._sessions


def test_sequential_looks_reuse_the_kept_servers(tmp_path: Path) -> None:
    """Two looks of 8 samples: with servers for every session (3), the second look starts
    nothing; with one server at a time, each look starts each session again."""
    for servers in (3, 1):
        plan = plan_of(n=16, virtual=True, servers=servers)
        store = SQLiteStore(tmp_path / f"runs-{servers}.db")
        runner = Runner(store, log=quiet, runs_dir=tmp_path / f"runs-{servers}")
        result = run_until_decided(runner, store, plan, batch=8, max_samples=16, log=quiet)
        twice = [p for p in result.pairs if len(p.design.taken) == 2]
        assert twice, [p.design.stopped for p in result.pairs]
        if servers == 3:
            assert runner.starts == 3  # the second look started nothing
        else:
            # the baseline's two rounds and the candidate start again at the second look (a
            # pair that stopped at the first takes none of its own)
            assert 3 < runner.starts <= 6
        # an execution is one run over its looks: a pair open at both has two segments
        for p in twice:
            for spec in (p.pair.baseline, p.pair.candidate):
                for r in store.list_runs():
                    if r.fingerprint == spec.fingerprint:
                        assert len(r.manifest.segments) == 2


def test_the_next_session_s_server_starts_while_the_current_one_measures(tmp_path: Path) -> None:
    """prestart with two servers: the candidate's and the second round's servers are started
    ahead, from a session folder of their own, while the previous session measures; every
    server is stopped at the end."""
    plan = plan_of(servers=2, prestart=True)
    store = SQLiteStore(tmp_path / "runs.db")
    runner = Runner(store, log=quiet, runs_dir=tmp_path / "runs")
    runner.run_plan(plan)
    runs = store.list_runs()
    assert runner.starts == 3 and all(r.status == "completed" for r in runs)
    sessions = by_session(runs)
    assert len(sessions) == 3
    # every session's server logs in a folder of its own; servers were started ahead
    for served in sessions.values():
        log = Path(served[0].manifest.engine_logs[-1])
        assert log.parent.parent == tmp_path / "runs" / "sessions" and log.exists()
    assert runner._starter is not None
    for served in sessions.values():
        startups = sorted(r.manifest.engine_time.startup_s or 0.0 for r in served)  # type: ignore[union-attr]
        assert startups[0] == 0.0 and startups[1] > 0.0
    for r in runs:
        pid = r.manifest.engine_pid
        assert pid is not None
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        raise AssertionError(f"engine {pid} of {r.run_id} still running")


class _Watched(Runner):
    """A runner that notes, at each server it starts ahead, how many segments the registry
    already holds: servers started together see the same count."""

    def __init__(self, store: SQLiteStore, **kw: object) -> None:
        super().__init__(store, **kw)  # type: ignore[arg-type]
        self.ahead_at: list[int] = []

    def _start_ahead(self, plan: Plan, spec: RunSpec) -> _Prestart:
        self.ahead_at.append(sum(len(r.manifest.segments) for r in self.store.list_runs()))
        return super()._start_ahead(plan, spec)


@pytest.mark.parametrize(("servers", "together"), [(3, True), (2, False)])
def test_every_later_session_the_servers_allow_starts_ahead_at_once(
    tmp_path: Path, servers: int, together: bool
) -> None:
    """prestart with a server for each of the 3 sessions: both later sessions' servers start
    before the first segment is measured (their starts overlap each other); with 2 servers,
    one at a time."""
    plan = plan_of(servers=servers, prestart=True)
    store = SQLiteStore(tmp_path / "runs.db")
    runner = _Watched(store, log=quiet, runs_dir=tmp_path / "runs")
    runner.run_plan(plan)
    assert runner.starts == 3 and len(runner.ahead_at) == 2
    assert all(r.status == "completed" for r in store.list_runs())
    if together:
        assert runner.ahead_at == [0, 0]
    else:
        assert runner.ahead_at[0] == 0 and runner.ahead_at[1] > 0


def test_sequential_looks_start_the_kept_servers_ahead(tmp_path: Path) -> None:
    """until-decided with prestart and a server per session: the first look starts the later
    sessions' servers while the first one starts, and the second look starts nothing."""
    plan = plan_of(n=16, virtual=True, servers=3, prestart=True)
    store = SQLiteStore(tmp_path / "runs.db")
    runner = _Watched(store, log=quiet, runs_dir=tmp_path / "runs")
    result = run_until_decided(runner, store, plan, batch=8, max_samples=16, log=quiet)
    assert any(len(p.design.taken) == 2 for p in result.pairs)
    assert runner.starts == 3 and runner.ahead_at == [0, 0]


def test_prestart_needs_room_for_two_servers() -> None:
    with pytest.raises(ConfigError, match="servers is 1, expected 2 or more"):
        plan_of(prestart=True)


LOST = """
import sys, time
from pathlib import Path
from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.spec import RunSpec
from specverdict.run.runner import Runner, _Prestart
from specverdict.store import SQLiteStore
plan = build_plan(parse_campaign(sys.argv[1], Path("sessions.yaml")))
runner = Runner(SQLiteStore(sys.argv[2]), log=lambda _: None)
base = next(r for r in plan.runs if r.speculation.method == "none")
with runner.sessions(plan):
    runner.run_one(plan, base, 0)
    print("kept", flush=True)
    time.sleep(600)
"""


def test_a_server_kept_up_by_a_runner_that_died_is_stopped_by_the_next(tmp_path: Path) -> None:
    """A runner SIGKILLed while its session is idle (its execution completed): no unfinished
    run names the server, so the next runner to enter sessions on the campaign stops it by its
    recorded pid and process identity."""
    db = tmp_path / "runs.db"
    text = campaign()
    lost = subprocess.Popen(
        [sys.executable, "-c", LOST, text, str(db)], stdout=subprocess.PIPE, text=True
    )
    assert lost.stdout is not None
    with lost.stdout:
        try:
            assert lost.stdout.readline().strip() == "kept"
        finally:
            lost.kill()
            lost.wait(timeout=30)
    store = SQLiteStore(db)
    (done,) = store.list_runs()
    pid = done.manifest.engine_pid
    assert done.status == "completed" and pid is not None
    os.killpg(pid, 0)  # kept up, idle, its runner gone
    said: list[str] = []
    plan = build_plan(parse_campaign(text, Path("sessions.yaml")))
    with Runner(store, log=said.append, runs_dir=tmp_path / "runs").sessions(plan):
        pass
    assert any(f"stopped its engine (pid {pid}), kept up" in line for line in said), said
    with pytest.raises(ProcessLookupError):
        os.killpg(pid, 0)
