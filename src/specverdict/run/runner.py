"""The runner: from a plan to stored, measured runs.

For every run and repeat, in the interleaved order of ``campaign.plan.interleaved``: find an
unfinished execution of the same fingerprint to resume (or create one), launch the engine (or
attach), record the manifest, send warm-up requests (not stored), snapshot ``/metrics``, send
the remaining samples at the run's concurrency and store each as it completes, snapshot again,
stop the engine. Failed requests are samples with a status, not exceptions; a re-run retries
the samples whose last attempt failed transiently (a new attempt; the old one is kept).

The engine's health is watched (docs/faults.md): an attached engine that does not answer before
a run stops the campaign; a launched engine that exits, or consecutive connection failures or
timeouts, stop the run at once (no more requests into a dead server), mark it ``interrupted``
with the cause, and end the campaign with ``RunInterruptedError`` after everything is saved. The runner
depends on the adapter, suite and store interfaces only.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import platform
import secrets
import shutil
import socket
import sys
import tempfile
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from specverdict import __version__
from specverdict.campaign.model import Campaign, Launch
from specverdict.campaign.plan import (
    Execution,
    Plan,
    Step,
    blocked,
    in_sessions,
    interleaved,
    session_key,
)
from specverdict.campaign.spec import RunSpec
from specverdict.engines.base import EngineAdapter
from specverdict.engines.client import connections, stream
from specverdict.engines.launcher import LaunchedServer, free_port, process_identity, reap
from specverdict.engines.preflight import facts_digest, server_facts
from specverdict.engines.preflight import problems as preflight_problems
from specverdict.engines.registry import adapter_for
from specverdict.engines.tokens import TokenCounter, find_counter
from specverdict.errors import (
    ConfigError,
    EngineStartError,
    EngineUnreachableError,
    PreflightError,
    RegistryLostError,
    RunFailedError,
    RunInterruptedError,
    StoreError,
    UserInterruptError,
)
from specverdict.records import (
    BlockDesign,
    EngineTime,
    ExecutionOrder,
    Interruption,
    ManifestUpdate,
    MetricsSnapshot,
    RunManifest,
    RunRecord,
    RunStatus,
    SampleRecord,
    Segment,
    ServerIdentity,
)
from specverdict.records.failures import engine_fault, failed_run_message, retryable
from specverdict.run.health import EngineClock, Health
from specverdict.run.loadgen import poisson_offsets
from specverdict.run.preflight import run_audits
from specverdict.run.score_memo import ScoreMemo
from specverdict.run.segment import Progress, Sender, request_payload
from specverdict.store.base import Store
from specverdict.suites import Sample, Suite, suite_for
from specverdict.suites.synthetic import PrepareError

Log = Callable[[str], None]


def select_runs(plan: Plan, only: str) -> list[RunSpec]:
    """The runs whose stage, method or speculation label is ``only``, plus their baselines."""
    chosen = [r for r in plan.runs if only in (r.stage, r.speculation.method, r.speculation.label)]
    if not chosen:
        known = sorted({r.stage for r in plan.runs} | {r.speculation.label for r in plan.runs})
        raise ConfigError(f"--only {only!r} matches no run; try one of: {', '.join(known)}")
    baselines = {p.baseline.fingerprint for p in plan.pairs if p.candidate in chosen}
    return [r for r in plan.runs if r in chosen or r.fingerprint in baselines]


def _short(spec: RunSpec) -> str:
    """A run named for a one-line message: speculation, stage, load."""
    return f"{spec.speculation.label}, {spec.stage}, {spec.load.label}"


def check_reachable(spec: RunSpec) -> None:
    """An attached engine answers ``/v1/models`` and serves the campaign's model, or the
    campaign stops here, before a request is sent."""
    url = spec.engine.base_url
    assert url is not None
    try:
        resp = httpx.get(url.rstrip("/") + "/v1/models", timeout=10.0)
    except httpx.HTTPError as exc:
        raise EngineUnreachableError(
            f"engine at {url} ({_short(spec)}) is unreachable: {type(exc).__name__}: "
            f"{exc or 'no answer'}; start it, or fix base_url in the campaign"
        ) from None
    if resp.status_code != 200:
        return
    try:
        ids = [str(m["id"]) for m in resp.json()["data"]]
    except (ValueError, KeyError, TypeError):
        return
    if ids and spec.model.served_name not in ids:
        raise EngineUnreachableError(
            f"engine at {url} serves {', '.join(map(repr, ids))}, not the campaign's "
            f"model.served_name {spec.model.served_name!r}: a different engine on that port?"
        )


def preflight(specs: list[RunSpec]) -> None:
    """Every attached server's pre-flight (``engines.preflight``): one configuration whose
    server contradicts it raises ``PreflightError`` before a request is measured."""
    found: list[str] = []
    seen: set[tuple[str, str, int | None]] = set()
    for spec in specs:
        url = spec.engine.base_url
        key = (url or "", spec.speculation.label, spec.load.concurrency)
        if url is None or key in seen:
            continue
        seen.add(key)
        found += asyncio.run(_preflight(spec, url))
    if found:
        raise PreflightError(
            f"{'; '.join(dict.fromkeys(found))}; nothing was measured (fix the server or the "
            "campaign, or pass --force to measure anyway)"
        )


async def _preflight(spec: RunSpec, url: str) -> list[str]:
    adapter = adapter_for(spec.engine.kind)
    async with httpx.AsyncClient() as client:
        models, missing = await Runner._served(client, url + "/v1/models")
        probe = await adapter.probe(client, url)
        return preflight_problems(
            spec, missing or models, probe, needs_metrics=adapter.needs_metrics
        )


def host_load() -> float | None:
    """The host's 1-minute load average per core (None where the platform has none)."""
    try:
        return round(os.getloadavg()[0] / (os.cpu_count() or 1), 3)
    except OSError:
        return None


def failed_runs(store: Store, records: list[RunRecord], limit: float) -> RunFailedError | None:
    """The error that ends a command whose runs failed more requests than the campaign's
    ``gates.max_failure_rate`` allows (every request answered 404, say): the first such run's
    count, first error and URL, and how many others; None when every run is within it. The
    samples are stored either way (``specverdict runs errors`` lists them)."""
    lines = []
    for record in {r.run_id: r for r in records}.values():
        latest = {s.sample_id: s for s in store.samples(record.run_id)}
        line = failed_run_message(
            record.run_id,
            _short(record.spec),
            record.spec.engine.base_url,
            list(latest.values()),
            limit,
        )
        if line is not None:
            lines.append(line)
    if not lines:
        return None
    more = f" (and {len(lines) - 1} more run(s) like it)" if len(lines) > 1 else ""
    return RunFailedError(
        f"{lines[0]}{more}; every answer is stored (specverdict runs errors RUN_ID): fix the "
        "server or base_url and run the same command again"
    )


def _server(
    command: list[str], port: int, launch: Launch | None, log_path: Path | None
) -> LaunchedServer:
    """The launcher of one engine start, with the campaign's launch settings."""
    return LaunchedServer(
        command,
        f"http://127.0.0.1:{port}",
        health_path=launch.health_path if launch else "/health",
        startup_timeout_s=launch.startup_timeout_s if launch else 120.0,
        env=launch.env if launch else None,
        log_path=log_path,
    )


def _served_by(run: RunRecord, session_id: str) -> tuple[str, ...]:
    """The run's sessions with ``session_id`` added (once)."""
    have = run.manifest.sessions
    return have if session_id in have else (*have, session_id)


@dataclass
class _Session:
    """A launched server kept up between the executions it serves (``engine.launch.sessions:
    round``): the executions of one configuration and round, over stages, load levels and
    sequential looks."""

    server: LaunchedServer
    #: recorded on each execution it serves (``RunManifest.session``)
    session_id: str
    #: the folder of its launch files and log (the first execution's), and whether it goes
    directory: Path
    temporary: bool
    command: tuple[str, ...]
    log_path: Path | None
    #: when its last use ended (``time.monotonic``): the next use's span begins there, so the
    #: harness's time between uses (scoring, the registry) is the engine's idle time
    idle_since: float = field(default_factory=time.monotonic)
    runs: list[str] = field(default_factory=list)


@dataclass
class _Prestart:
    """A server being started for a session ahead of its first use (``engine.launch.
    prestart``), while another session's server measures."""

    future: Future[float]  # when its health answered (``time.monotonic``)
    server: LaunchedServer
    session_id: str
    directory: Path
    temporary: bool
    command: tuple[str, ...]
    files: dict[str, str]
    log_path: Path | None
    launched_at: float


@dataclass(frozen=True)
class _Work:
    """What one execution sends: its samples' latest stored answers, the samples it misses,
    those it retries, and the two together in suite order."""

    latest: dict[str, SampleRecord]
    missing: list[Sample]
    again: list[Sample]
    todo: list[Sample]


@dataclass(frozen=True)
class _Stop:
    """What an execution's end needs to stop its engine and account its time."""

    server: LaunchedServer | None
    run_dir: Path
    clock: EngineClock


@dataclass
class _Polls:
    """The poller of one segment's counters' window and its count of polls taken."""

    count: int
    task: asyncio.Task[None] | None = None


class Runner:
    def __init__(
        self,
        store: Store,
        log: Log = print,
        clock: Callable[[], float] = time.perf_counter,
        request_timeout_s: float = 600.0,
        runs_dir: Path | None = None,
        progress: Progress | None = None,
        reconfigure: Callable[[str], None] | None = None,
        retry_failed: bool = True,
        force: bool = False,
        remeasure: bool = False,
    ) -> None:
        """``runs_dir``: where each run's folder (engine log) goes; None keeps no engine log
        beyond the tail stored in the manifest. ``reconfigure``: asks the user to reconfigure
        a shared attached server and returns when done (``engine.reconfigure: between-runs``);
        without it such a campaign is refused. ``retry_failed``: a re-run sends again the samples
        whose last attempt failed transiently (``failures.retryable``)."""
        self.store = store
        self.retry_failed = retry_failed
        #: measure an attached server whose pre-flight contradicts its configuration anyway
        #: (the manifest records what it said)
        self.force = force
        #: measure every execution anew, whatever the registry holds (``run --remeasure``)
        self.remeasure = remeasure
        #: (fingerprint, repeat) -> the execution this process chose for it (checked against
        #: its server once): a later block or look extends it
        self._chosen: dict[tuple[str, int], str] = {}
        self.reconfigure = reconfigure
        #: attached server -> the speculation it was last declared to run
        self._configured: dict[str, str] = {}
        self.runs_dir = runs_dir
        self.progress = progress
        self.log = log
        self.clock = clock
        self.request_timeout_s = request_timeout_s
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="store-writer")
        #: scores of answers already judged, reused for the same answer in another run
        self.scores = ScoreMemo()
        #: runs this runner has sent to (warmed up, audited): a block after the first does
        #: neither again
        self._opened: set[str] = set()
        #: per run, the tokenize endpoint found by its first segment (later blocks reuse it)
        self._counters: dict[str, TokenCounter | None] = {}
        #: per run, the engine time this runner's segments spent on it (``EngineTime``)
        self.engine_times: dict[str, EngineTime] = {}
        #: launched servers kept up between uses, by (server key, load level, round), least
        #: recently used first; at most ``_keep`` of them (0: a server per execution, stopped
        #: after it)
        self._sessions: OrderedDict[tuple[str, str, int], _Session] = OrderedDict()
        self._keep = 0
        #: servers being started ahead of their session's first use, by the same key
        self._prestarts: dict[tuple[str, str, int], _Prestart] = {}
        self._starter: ThreadPoolExecutor | None = None
        self._starter_size = 0
        #: launched servers started by this runner (each start once)
        self.starts = 0

    @contextlib.contextmanager
    def sessions(self, plan: Plan, reap_kept: bool = True) -> Iterator[None]:
        """Within this block launched servers are kept up between the executions of one
        configuration and round (``engine.launch.sessions``, up to ``engine.launch.servers``
        at once) and stopped when it ends, however it ends. ``reap_kept`` False: a cluster
        node's runner, whose host may hold other nodes' kept servers (its reaper stops its
        own when it is killed)."""
        launch = plan.campaign.engine.launch
        outer = self._keep
        if outer == 0:
            self._keep = (
                0
                if launch is not None and launch.sessions == "execution"
                else (launch.servers if launch is not None else 1)
            )
            if self._keep and reap_kept:
                self._reap_kept(plan)
        try:
            yield
        finally:
            if outer == 0:
                self._keep = 0
                self.close_sessions()

    def _reap_kept(self, plan: Plan) -> None:
        """Stop the servers a killed runner kept up between uses: an idle session's runs are
        completed, so ``_reap`` (which looks at unfinished runs) would never find them. Every
        recorded engine of the campaign's runs is stopped when the process with that pid is
        still the one recorded (``engines.launcher.reap``); no server of this runner is up."""
        prints = {r.fingerprint for r in plan.runs}
        seen: set[int] = set()
        for run in self.store.list_runs():
            pid, identity = run.manifest.engine_pid, run.manifest.engine_identity
            if run.fingerprint not in prints or pid is None or identity is None or pid in seen:
                continue
            if run.status != "completed":  # an unfinished run's engine: ``_reap`` at its resume
                continue
            seen.add(pid)
            if reap(pid, identity):
                self.log(
                    f"{run.run_id}: stopped its engine (pid {pid}), kept up by a runner that "
                    "was killed"
                )

    def close_sessions(self) -> None:
        """Stop every kept server (the idle time since its last use goes to its last run) and
        every server started ahead that was never used."""
        while self._prestarts:
            _, pre = self._prestarts.popitem()
            with contextlib.suppress(Exception):
                pre.future.result()
            pre.server.stop()
            pre.server.process = None
            if pre.temporary:
                shutil.rmtree(pre.directory, ignore_errors=True)
        while self._sessions:
            _, session = self._sessions.popitem(last=False)
            try:
                self._end_session(session)  # its server is stopped whatever else fails
            except Exception as exc:  # the others must still be stopped
                self.log(f"session {session.session_id}: {type(exc).__name__}: {exc}")

    def _end_session(self, session: _Session) -> None:
        """Stop a session's server; the time since its last use, the stop's grace included, is
        its last execution's idle time. Whatever fails on the way, the server is stopped."""
        try:
            up = session.server.process is not None
            tail = ""
            with contextlib.suppress(OSError):
                tail = session.server.output_tail(20) if up else ""
        finally:
            session.server.stop()
            session.server.process = None
            if session.temporary:
                shutil.rmtree(session.directory, ignore_errors=True)
        last = session.runs[-1] if session.runs else None
        if last is None or not up:
            return
        idle = max(0.0, time.monotonic() - session.idle_since)
        with contextlib.suppress(StoreError):
            before = self.store.get_run(last).manifest.engine_time
            extra = EngineTime.of(idle, 0.0, 0.0, 0.0)
            self.engine_times[last] = self.engine_times.get(last, EngineTime()).plus(extra)
            self.store.update_run(
                last,
                manifest={
                    "engine_log_tail": tail,
                    "engine_time": extra if before is None else before.plus(extra),
                },
            )

    def _session_of(self, server: LaunchedServer | None) -> tuple[str, str, int] | None:
        return next((k for k, s in self._sessions.items() if s.server is server), None)

    def prestart_after(self, plan: Plan, steps: list[Execution | Step], at: int) -> None:
        """With ``engine.launch.prestart``, start the servers of the sessions after step
        ``at``'s in the background, in their order, as many as the free server slots allow
        (``engine.launch.servers`` less the current one), so that their starts overlap each
        other and the current session's measuring. For the next session the least recently
        used idle server makes room; for those after it only an idle one no later step needs."""
        launch = plan.campaign.engine.launch
        if launch is None or not launch.prestart or self._keep < 2:
            return
        current = steps[at]
        if not isinstance(current, Execution) or current.spec.engine.base_url is not None:
            return
        now = session_key(current.spec, current.repeat)
        upcoming: dict[tuple[str, str, int], RunSpec] = {}
        for later in steps[at + 1 :]:
            if not isinstance(later, Execution):
                break
            key = session_key(later.spec, later.repeat)
            if key != now:
                upcoming.setdefault(key, later.spec)
        for nth, (key, spec) in enumerate(upcoming.items()):
            if key in self._sessions or key in self._prestarts:
                continue
            while len(self._sessions) + len(self._prestarts) + (now not in self._sessions) >= (
                self._keep
            ):
                idle = next(
                    (k for k in self._sessions if k != now and (nth == 0 or k not in upcoming)),
                    None,
                )
                if idle is None:
                    return
                self._end_session(self._sessions.pop(idle))
            self._prestarts[key] = self._start_ahead(plan, spec)

    def _start_ahead(self, plan: Plan, spec: RunSpec) -> _Prestart:
        adapter = adapter_for(spec.engine.kind)
        session_id = secrets.token_hex(6)
        if self.runs_dir is None:
            directory = Path(tempfile.mkdtemp(prefix=f"specverdict-session-{session_id}-"))
        else:
            directory = self.runs_dir / "sessions" / session_id
            directory.mkdir(parents=True, exist_ok=True)
        files = adapter.launch_files(spec)
        for name, text in files.items():
            (directory / name).write_text(text)
        launch = plan.campaign.engine.launch
        port = free_port()
        command = adapter.launch_command(spec, launch, port, plan.campaign.model.path, directory)
        log_path = directory / f"engine-{int(time.time())}.log" if self.runs_dir else None
        server = _server(command, port, launch, log_path)
        if self._starter is None or self._starter_size < self._keep - 1:
            self._starter_size = max(1, self._keep - 1)
            self._starter = ThreadPoolExecutor(
                max_workers=self._starter_size, thread_name_prefix="server-start"
            )

        def start() -> float:
            server.start()
            return time.monotonic()

        launched = time.monotonic()
        self.starts += 1
        return _Prestart(
            future=self._starter.submit(start),
            server=server,
            session_id=session_id,
            directory=directory,
            temporary=self.runs_dir is None,
            command=tuple(command),
            files=files,
            log_path=log_path,
            launched_at=launched,
        )

    def _take_prestart(
        self,
        key: tuple[str, str, int],
        spec: RunSpec,
        adapter: EngineAdapter,
        run: RunRecord,
        clock: EngineClock,
    ) -> LaunchedServer | None:
        """The server started ahead for this session, now the execution's: its start is the
        execution's start-up time (it overlapped the previous session's measuring); a start
        that failed fails the execution as a start of its own would."""
        pre = self._prestarts.pop(key, None)
        if pre is None:
            return None
        clock.began = pre.launched_at
        self.store.update_run(
            run.run_id,
            manifest={
                "launch_command": pre.command,
                "engine_logs": [
                    *run.manifest.engine_logs,
                    *([str(pre.log_path)] if pre.log_path else []),
                ],
                "session": pre.session_id,
                "sessions": _served_by(run, pre.session_id),
                "speculative_args": adapter.speculative_args(spec, str(pre.directory)),
                **({"launch_files": pre.files} if pre.files else {}),
            },
        )
        try:
            ready = pre.future.result()
        except EngineStartError as exc:
            clock.ready()
            self.store.update_run(
                run.run_id,
                status="failed",
                manifest={"error": str(exc), **self._account(run.run_id, clock)},
            )
            if pre.temporary:
                shutil.rmtree(pre.directory, ignore_errors=True)
            raise
        clock.startup = ready - pre.launched_at
        pid = pre.server.process.pid if pre.server.process else None
        identity = process_identity(pid) if pid is not None else None
        self.store.update_run(run.run_id, manifest={"engine_pid": pid, "engine_identity": identity})
        while len(self._sessions) >= self._keep:
            _, oldest = self._sessions.popitem(last=False)
            self._end_session(oldest)
        self._sessions[key] = _Session(
            server=pre.server,
            session_id=pre.session_id,
            directory=pre.directory,
            temporary=pre.temporary,
            command=pre.command,
            log_path=pre.log_path,
            runs=[run.run_id],
        )
        return pre.server

    def run_plan(self, plan: Plan, only: str | None = None) -> list[RunRecord]:
        """Run every planned run and repeat; ``only`` keeps the runs of one stage or one
        speculation (``function``, ``mtp``, ``mtp k=2``) together with their baselines."""
        specs = select_runs(plan, only) if only else list(plan.runs)
        # Attached servers answer before the first run, unless a person sets each one up when
        # asked (reconfigure: between-runs): then each run checks its own after the pause.
        if plan.campaign.engine.reconfigure != "between-runs":
            for url in dict.fromkeys(r.engine.base_url for r in specs if r.engine.base_url):
                self.check_reachable(next(r for r in specs if r.engine.base_url == url))
            self.check_preflight(specs)
        records: dict[str, RunRecord] = {}
        with self.sessions(plan):
            steps = self.schedule(plan, specs)
            for i, step in enumerate(steps):
                self.prestart_after(plan, steps, i)
                if isinstance(step, Step):
                    e = step.execution
                    size = plan.campaign.block_size(e.spec.load.level)
                    record = self.run_one(
                        plan, e.spec, e.repeat, order=(e.repeat, e.position), limit=step.limit,
                        block=step.block, block_size=size,
                    )  # fmt: skip
                else:
                    record = self.run_one(
                        plan, step.spec, step.repeat, order=(step.repeat, step.position)
                    )
                records[record.run_id] = record
        return list(records.values())

    @staticmethod
    def schedule(
        plan: Plan, specs: list[RunSpec], repeats: int | None = None
    ) -> list[Execution | Step]:
        """The campaign's order of executions, in blocks where the design has them, in server
        sessions where launched engines have them; ``repeats`` executions of every run
        instead of the campaign's (``calibrate``)."""
        repeats_of = plan.repeats_of if repeats is None else (lambda _: repeats)
        if not plan.campaign.blocked():
            launch = plan.campaign.engine.launch
            if (launch is None or launch.sessions == "round") and all(
                s.engine.base_url is None for s in specs
            ):
                return list(in_sessions(specs, repeats_of))
            return list(interleaved(specs, repeats_of))

        def samples_of(spec: RunSpec) -> int:
            try:
                return len(suite_for(spec).select(spec.samples))
            except ValueError as exc:
                raise ConfigError(str(exc)) from None

        return blocked(
            specs,
            repeats_of,
            lambda s: plan.campaign.block_size(s.load.level),
            samples_of,
        )

    def _run_dir(self, run_id: str) -> Path:
        """The run's folder: engine logs and launch files. Without ``runs_dir``, a temporary
        folder removed when the run ends."""
        if self.runs_dir is None:
            return Path(tempfile.mkdtemp(prefix=f"specverdict-{run_id}-"))
        path = self.runs_dir / run_id
        path.mkdir(parents=True, exist_ok=True)
        return path

    def resume(self, plan: Plan, run_id: str) -> RunRecord:
        """Finish one stored run of this campaign, sending only its missing samples and those
        to retry."""
        try:
            run = self.store.get_run(run_id)
        except KeyError:
            raise ConfigError(f"--resume {run_id}: no such run in the registry") from None
        spec = next((r for r in plan.runs if r.fingerprint == run.fingerprint), None)
        if spec is None:
            raise ConfigError(
                f"--resume {run_id}: that run ({run.spec.label}) is not part of campaign {plan.campaign.name!r}"
            )
        if plan.campaign.blocked():
            # in blocks a run is only measured taking turns with its group's other runs: the
            # group's schedule resumes, each run sending only what it misses
            group = [r for r in plan.runs if (r.stage, r.load) == (spec.stage, spec.load)]
            self.run_plan(plan.model_copy(update={"runs": tuple(group)}))
            return self.store.get_run(run_id)
        return self.run_one(plan, spec, run.repeat)

    def run_one(
        self,
        plan: Plan,
        spec: RunSpec,
        repeat: int,
        order: tuple[int, int] | None = None,
        limit: int | None = None,
        block: int | None = None,
        block_size: int | None = None,
    ) -> RunRecord:
        """One execution; ``order`` (round, position in its group) is recorded in the manifest
        when the execution is part of a campaign's interleaved order. ``limit``: only the first
        this many samples of the selection (a sequential campaign's batch; the next call with a
        larger limit sends the samples after them, as a resume does). ``block``: the samples
        sent form this block of a blocked design of ``block_size`` (recorded on each sample
        and in the manifest); a block after the first this runner sent to the run neither
        warms the server up again nor re-runs the audits.

        The steps: what to send (``_prepare``), which stored execution it extends
        (``_choose``) and what it misses (``_work``); then the run opened (``_open_run``),
        its engine started or attached, the segment measured (``_measured``) and recorded,
        its answers scored, and its status decided (``_finish``)."""
        suite, samples, whole, adapter = self._prepare(plan, spec, repeat, limit)
        key = (spec.fingerprint, repeat)
        run = self._choose(spec, repeat, key)
        work = self._work(run, samples, block)
        if run is None:
            run = self._create(spec, repeat)
        elif not work.todo:
            self._chosen[key] = run.run_id
            return self._nothing_to_send(run, spec, repeat, suite, samples, whole, block, work)
        elif not block or work.again:
            self._log_resume(run, spec, repeat, work)
        self._chosen[key] = run.run_id
        run_dir = self._open_run(run, spec, adapter, suite, order, block_size)
        clock = EngineClock()
        server = None
        if spec.engine.base_url is None:
            server = self._server_for(plan, spec, adapter, run, repeat, run_dir, clock)
        health = Health(server)
        stop = _Stop(server, run_dir, clock)
        segment = self._measured(
            plan, run, spec, adapter, suite, samples, work, health, block, stop
        )
        segments = self._record_segment(run, segment, stop)
        self._release(server, run.run_id, run_dir)
        self.store.update_run(run.run_id, manifest=self._account(run.run_id, clock))
        self._score(run, suite, samples)
        return self._finish(run, spec, samples, health, segments)

    def _prepare(
        self, plan: Plan, spec: RunSpec, repeat: int, limit: int | None
    ) -> tuple[Suite, list[Sample], int, EngineAdapter]:
        """The execution's suite, its samples (the first ``limit``), how many the selection
        has, and its adapter; a campaign the engine cannot run as written is refused, a shared
        server reconfigured, an attached one checked reachable."""
        try:
            suite = suite_for(spec)
            samples = suite.select(spec.samples)
            whole = len(samples)
            if limit is not None:
                samples = samples[:limit]
            adapter = adapter_for(spec.engine.kind)
        except ValueError as exc:  # a selection the suite cannot give
            raise ConfigError(str(exc)) from None
        problems = adapter.problems(spec)
        if problems:
            raise ConfigError(f"{_short(spec)}: {'; '.join(problems)}")
        self._ask_to_reconfigure(plan, spec, repeat)
        if spec.engine.base_url is not None:
            self.check_reachable(spec)
        return suite, samples, whole, adapter

    def _choose(self, spec: RunSpec, repeat: int, key: tuple[str, int]) -> RunRecord | None:
        """The stored execution this one extends: the one this runner chose for it before (a
        later block or look), else an unfinished or the latest one of the same fingerprint and
        repeat, while still valid (``_still_valid``); None for a new one. An unfinished one's
        engine, left running by a killed runner, is stopped."""
        if key in self._chosen:
            return self.store.get_run(self._chosen[key])
        run = self.store.resumable(spec.fingerprint, repeat)
        if run is None:
            run = next(
                (
                    r
                    for r in reversed(self.store.list_runs())
                    if r.fingerprint == spec.fingerprint and r.repeat == repeat
                ),
                None,
            )
        run = self._still_valid(spec, repeat, run)
        if run is not None and run.status != "completed":
            self._reap(run)
        return run

    def _work(self, run: RunRecord | None, samples: list[Sample], block: int | None) -> _Work:
        """What the execution misses and what it retries. A run none of whose requests was
        answered (a wrong base_url, a server that refused everything) says nothing about its
        prompts: a re-run sends every sample again, the client errors (HTTP 4xx) included. A
        later block of this command retries nothing: failures of its earlier blocks are
        retried on a re-run, as in whole executions, not sent into another block's time."""
        latest = {r.sample_id: r for r in self.store.samples(run.run_id)} if run else {}
        missing = [s for s in samples if s.id not in latest]
        dead = run is not None and run.status == "failed" and self.retry_failed
        again = [
            s
            for s in samples
            if s.id in latest
            and (self._retry(latest[s.id]) or (dead and latest[s.id].status != "ok"))
        ]
        if block is not None and run is not None and run.run_id in self._opened:
            again = []
        redo = {s.id for s in missing} | {s.id for s in again}
        return _Work(
            latest=latest,
            missing=missing,
            again=again,
            todo=[s for s in samples if s.id in redo],
        )

    def _create(self, spec: RunSpec, repeat: int) -> RunRecord:
        # the betting test's sample order is drawn now, before any sample is measured
        run = self.store.create_run(spec, repeat, RunManifest(order_seed=secrets.randbits(62)))
        self.log(f"{run.run_id} ({_short(spec)}, repeat {repeat}): started")
        return run

    def _nothing_to_send(
        self,
        run: RunRecord,
        spec: RunSpec,
        repeat: int,
        suite: Suite,
        samples: list[Sample],
        whole: int,
        block: int | None,
        work: _Work,
    ) -> RunRecord:
        """An execution with every sample answered: finished if it was not, said once."""
        ok = sum(work.latest[s.id].status == "ok" for s in samples)
        failed = len(samples) - ok
        if run.status != "completed":
            self.score_pending(run.run_id, suite, samples)
            run = self.store.update_run(run.run_id, status="completed" if ok else "failed")
        if block is not None and len(samples) < whole:
            return run  # a block of a blocked design: said once, at the last block
        note = f", {failed} failed (not retried)" if failed else ""
        self.log(
            f"{run.run_id} ({_short(spec)}, repeat {repeat}): {run.status}, {ok} of "
            f"{len(samples)} samples ok{note}; nothing to send"
        )
        return run

    def _log_resume(self, run: RunRecord, spec: RunSpec, repeat: int, work: _Work) -> None:
        parts = [f"{len(work.missing)} missing"] if work.missing else []
        if work.again:
            parts.append(f"{len(work.again)} failed before, retried")
        self.log(f"{run.run_id} ({_short(spec)}, repeat {repeat}): resuming, {', '.join(parts)}")

    def _open_run(
        self,
        run: RunRecord,
        spec: RunSpec,
        adapter: EngineAdapter,
        suite: Suite,
        order: tuple[int, int] | None,
        block_size: int | None,
    ) -> Path:
        """Mark the run running with what it is about to send; its folder."""
        run_dir = self._run_dir(run.run_id)
        self.store.update_run(
            run.run_id,
            status="running",
            manifest={
                "speculative_args": adapter.speculative_args(spec, str(run_dir)),
                "suite_data_sha256": suite.data_hash,
                "suite_scoring": suite.scoring,
                **({"order": ExecutionOrder(round=order[0], position=order[1])} if order else {}),
                **({"blocks": BlockDesign(size=block_size)} if block_size else {}),
            },
        )
        return run_dir

    def _measured(
        self,
        plan: Plan,
        run: RunRecord,
        spec: RunSpec,
        adapter: EngineAdapter,
        suite: Suite,
        samples: list[Sample],
        work: _Work,
        health: Health,
        block: int | None,
        stop: _Stop,
    ) -> Segment:
        """The segment, measured; however else it ends, the engine is stopped and the engine
        time spent is recorded (``_stopped``), and the run is marked as the end says."""
        base_url = spec.engine.base_url or (stop.server.base_url if stop.server else "")
        attempts = {s.id: work.latest[s.id].attempt + 1 for s in work.again}
        opened = block is not None and run.run_id in self._opened
        self._opened.add(run.run_id)
        try:
            return asyncio.run(
                self._measure(
                    run, spec, adapter, base_url, work.todo, suite, health, attempts,
                    campaign=plan.campaign, block=block, fresh=not opened, clock=stop.clock,
                )
            )  # fmt: skip
        except KeyboardInterrupt:
            self._stopped(run, stop, "interrupted", cause="interrupted by the user")
            saved = self._saved(run.run_id, samples)
            raise UserInterruptError(
                f"run {run.run_id} ({_short(spec)}): {saved} of {len(samples)} samples saved; run "
                "the same command again to resume (it sends only what is missing)"
            ) from None
        except StoreError as exc:
            self._stopped(run, stop, "interrupted")
            if isinstance(exc, RegistryLostError):  # it names its recovery copy and what to do
                raise RegistryLostError(f"{exc} (run {run.run_id}, {_short(spec)})") from None
            saved = self._saved(run.run_id, samples)
            raise type(exc)(
                f"{exc}; run {run.run_id} ({_short(spec)}) stopped with {saved} of {len(samples)} "
                "samples saved: make room (or make it writable) and run the same command again "
                "to resume"
            ) from None
        except BaseException:
            # any other end (a refused pre-flight, an unreachable engine): what was spent stays
            self._stopped(run, stop, None)
            raise

    def _stopped(
        self, run: RunRecord, stop: _Stop, status: RunStatus | None, cause: str | None = None
    ) -> None:
        """An execution that ends early: its engine stopped, the engine time it spent (and
        ``status``, with ``cause`` as its interruption) recorded as far as the registry
        allows; a registry that fails here does not hide the error that ended the run."""
        stop.clock.pause()
        self._stop_engine(stop.server, run.run_id, stop.run_dir)
        manifest: ManifestUpdate = {**self._account(run.run_id, stop.clock)}
        if cause is not None:  # the user's interruption: written, or the error says why not
            manifest["interruption"] = Interruption(cause=cause, at=time.time())
            self.store.update_run(run.run_id, status=status, manifest=manifest)
            return
        with contextlib.suppress(StoreError):
            self.store.update_run(run.run_id, status=status, manifest=manifest)

    def _record_segment(self, run: RunRecord, segment: Segment, stop: _Stop) -> list[Segment]:
        """Append the segment to the run's manifest before anything else can stop the runner
        (scoring takes a while): a segment measured but never written would leave the
        counters' window without its requests, and the run's acceptance would read as
        polluted for good."""
        try:
            segments = [*self.store.get_run(run.run_id).manifest.segments, segment]
            self.store.update_run(run.run_id, manifest={"segments": segments})
        except BaseException:
            self._stop_engine(stop.server, run.run_id, stop.run_dir)  # a kept server ends too
            with contextlib.suppress(StoreError):
                self.store.update_run(run.run_id, manifest=self._account(run.run_id, stop.clock))
            raise
        return segments

    def _score(self, run: RunRecord, suite: Suite, samples: list[Sample]) -> None:
        reused = self.scores.reused
        scored = self.score_pending(run.run_id, suite, samples)
        if scored:
            reused = self.scores.reused - reused
            note = f" ({reused} answers judged before, scores reused)" if reused else ""
            self.log(
                f"{run.run_id}: scored {scored} samples with {suite.name}@{suite.version}{note}"
            )

    def _finish(
        self,
        run: RunRecord,
        spec: RunSpec,
        samples: list[Sample],
        health: Health,
        segments: list[Segment],
    ) -> RunRecord:
        """The run's status: interrupted (an error naming the cause) when its engine's health
        tripped, else completed when any answer is ok, failed when none is."""
        if health.cause is not None:
            saved = self._saved(run.run_id, samples)
            self.store.update_run(
                run.run_id,
                status="interrupted",
                manifest={
                    "segments": segments,
                    "interruption": Interruption(cause=health.cause, at=time.time()),
                },
            )
            raise RunInterruptedError(
                f"run {run.run_id} ({_short(spec)}) stopped: {health.cause}. {saved} of "
                f"{len(samples)} samples saved; fix the engine and run the same command again to "
                "resume"
            )
        latest = self.store.samples(run.run_id)
        status: RunStatus = "completed" if any(r.status == "ok" for r in latest) else "failed"
        return self.store.update_run(run.run_id, status=status, manifest={"segments": segments})

    def _server_for(
        self,
        plan: Plan,
        spec: RunSpec,
        adapter: EngineAdapter,
        run: RunRecord,
        repeat: int,
        run_dir: Path,
        clock: EngineClock,
    ) -> LaunchedServer:
        """The launched server that serves this execution: one started ahead for it, else its
        configuration and round's session when one is up (no start: the span begins where its
        last use ended), else a new start, kept as a session when sessions are on."""
        key = session_key(spec, repeat)
        ahead = self._take_prestart(key, spec, adapter, run, clock)
        if ahead is not None:
            return ahead
        session = self._sessions.get(key) if self._keep else None
        if session is not None and session.server.running():
            return self._reuse(key, session, spec, adapter, run, clock)
        if session is not None:  # its server died: a new start
            del self._sessions[key]
            self._end_session(session)
        self._make_room()
        session_id = secrets.token_hex(6)
        if self._keep:
            run_dir = self._session_dir(session_id, spec, adapter, run)
        server, command, log_path = self._start(
            plan, spec, adapter, run, run_dir, clock, session_id
        )
        if self._keep:
            self._sessions[key] = _Session(
                server=server,
                session_id=session_id,
                directory=run_dir,
                temporary=self.runs_dir is None,
                command=tuple(command),
                log_path=log_path,
                runs=[run.run_id],
            )
        return server

    def _reuse(
        self,
        key: tuple[str, str, int],
        session: _Session,
        spec: RunSpec,
        adapter: EngineAdapter,
        run: RunRecord,
        clock: EngineClock,
    ) -> LaunchedServer:
        """Serve the execution from its session's running server, recorded in its manifest."""
        self._sessions.move_to_end(key)
        clock.resume(session.idle_since)
        pid = session.server.process.pid if session.server.process else None
        self.store.update_run(
            run.run_id,
            manifest={
                "launch_command": session.command,
                "engine_logs": [
                    *run.manifest.engine_logs,
                    *([str(session.log_path)] if session.log_path else []),
                ],
                "engine_pid": pid,
                "engine_identity": process_identity(pid) if pid is not None else None,
                "session": session.session_id,
                "sessions": _served_by(run, session.session_id),
                "speculative_args": adapter.speculative_args(spec, str(session.directory)),
            },
        )
        session.runs.append(run.run_id)
        return session.server

    def _make_room(self) -> None:
        """Room for one more kept server: the most recently used one goes. Sequential looks
        visit the sessions in the same cycle every look, and with fewer servers than sessions
        the least recently used one is always the next needed (every use a start); evicting
        the newest keeps the others for the next look."""
        while self._keep and len(self._sessions) >= self._keep:
            _, newest = self._sessions.popitem(last=True)
            self._end_session(newest)

    def _session_dir(
        self, session_id: str, spec: RunSpec, adapter: EngineAdapter, run: RunRecord
    ) -> Path:
        """A kept server's files and log in a folder of its own, not one execution's: it
        serves others, of other stages."""
        if self.runs_dir is None:
            run_dir = Path(tempfile.mkdtemp(prefix=f"specverdict-session-{session_id}-"))
        else:
            run_dir = self.runs_dir / "sessions" / session_id
            run_dir.mkdir(parents=True, exist_ok=True)
        self.store.update_run(
            run.run_id, manifest={"speculative_args": adapter.speculative_args(spec, str(run_dir))}
        )
        return run_dir

    def _start(
        self,
        plan: Plan,
        spec: RunSpec,
        adapter: EngineAdapter,
        run: RunRecord,
        run_dir: Path,
        clock: EngineClock,
        session_id: str,
    ) -> tuple[LaunchedServer, list[str], Path | None]:
        """Start the execution's server (its launch files written first), recorded in its
        manifest with the pid and identity that let a later runner stop it if this one is
        killed; a start that fails fails the run, its start-up time counted."""
        engine = plan.campaign.engine
        port = free_port()
        files = adapter.launch_files(spec)
        for name, text in files.items():
            (run_dir / name).write_text(text)
        if files:  # the options as sent, e.g. TensorRT-LLM's speculative_config
            self.store.update_run(run.run_id, manifest={"launch_files": files})
        command = adapter.launch_command(
            spec, engine.launch, port, plan.campaign.model.path, run_dir
        )
        log_path = run_dir / f"engine-{int(time.time())}.log" if self.runs_dir is not None else None
        server = _server(command, port, engine.launch, log_path)
        self.store.update_run(
            run.run_id,
            manifest={
                "launch_command": command,
                "engine_logs": [*run.manifest.engine_logs, *([str(log_path)] if log_path else [])],
                "session": session_id,
                "sessions": _served_by(run, session_id),
            },
        )
        clock.launching()
        try:
            self.starts += 1
            server.start()
        except EngineStartError as exc:
            clock.ready()  # the time it took to fail is start-up time spent
            self.store.update_run(
                run.run_id,
                status="failed",
                manifest={"error": str(exc), **self._account(run.run_id, clock)},
            )
            if self.runs_dir is None:
                shutil.rmtree(run_dir, ignore_errors=True)
            raise
        pid = server.process.pid if server.process else None
        identity = process_identity(pid) if pid is not None else None
        self.store.update_run(run.run_id, manifest={"engine_pid": pid, "engine_identity": identity})
        clock.ready()
        return server, command, log_path

    def _account(self, run_id: str, clock: EngineClock) -> ManifestUpdate:
        """The manifest write of the run's engine time with this segment's added (nothing when
        the segment never reached an engine), noted in ``engine_times``."""
        spent = clock.finish()
        if spent is None:
            return {}
        self.engine_times[run_id] = self.engine_times.get(run_id, EngineTime()).plus(spent)
        before = self.store.get_run(run_id).manifest.engine_time
        return {"engine_time": spent if before is None else before.plus(spent)}

    def _reap(self, run: RunRecord) -> None:
        """Stop the engine an earlier runner launched for ``run`` and left running (it was
        killed before it could stop it): a re-run on the same host finds it by its recorded
        pid and identity, and would otherwise start a second engine beside it."""
        pid, identity = run.manifest.engine_pid, run.manifest.engine_identity
        if pid is not None and identity is not None and reap(pid, identity):
            self.log(
                f"{run.run_id}: stopped its engine (pid {pid}), left running by a runner that "
                "was killed"
            )

    def _retry(self, sample: SampleRecord) -> bool:
        return self.retry_failed and retryable(sample)

    def _saved(self, run_id: str, samples: list[Sample]) -> int:
        """How many of the run's samples have a stored answer (ok or failed as data)."""
        wanted = {s.id for s in samples}
        return sum(r.sample_id in wanted for r in self.store.samples(run_id))

    def _release(self, server: LaunchedServer | None, run_id: str, run_dir: Path) -> None:
        """The execution's normal end: a session's server stays up for its next use (its idle
        time starts now), any other is stopped."""
        key = self._session_of(server)
        if key is None:
            self._stop_engine(server, run_id, run_dir)
            return
        session = self._sessions[key]
        session.idle_since = time.monotonic()
        if self.runs_dir is None and run_dir != session.directory:
            shutil.rmtree(run_dir, ignore_errors=True)

    def _stop_engine(self, server: LaunchedServer | None, run_id: str, run_dir: Path) -> None:
        key = self._session_of(server)
        if key is not None:  # any other end stops the session's server with the execution
            session = self._sessions.pop(key)
            session.idle_since = time.monotonic()  # this execution's clock has the time since
            self._end_session(session)
            if self.runs_dir is None and run_dir != session.directory:
                shutil.rmtree(run_dir, ignore_errors=True)
            return
        if server is not None and server.process is not None:
            with contextlib.suppress(StoreError):
                self.store.update_run(run_id, manifest={"engine_log_tail": server.output_tail(20)})
            server.stop()
            server.process = None  # stopped: a second call is a no-op
        if self.runs_dir is None:
            shutil.rmtree(run_dir, ignore_errors=True)

    def check_reachable(self, spec: RunSpec) -> None:
        """``check_reachable`` of this run's server."""
        check_reachable(spec)

    def _still_valid(self, spec: RunSpec, repeat: int, run: RunRecord | None) -> RunRecord | None:
        """The stored execution to extend, or None to measure a new one: with
        ``remeasure``, or when the attached server's identity (``engines.preflight``) is no
        longer the one the execution was measured on (a new build, model or setup). Decided
        once per execution and process, so that its later blocks and looks extend it."""
        if run is None:
            return run
        label = f"{run.run_id} ({_short(spec)}, repeat {repeat})"
        if self.remeasure:
            self.log(f"{label}: measured again (--remeasure), a new execution")
            return None
        url, before = spec.engine.base_url, run.manifest.server
        if url is None or before is None:
            return run
        now = asyncio.run(self._identity(spec, url))
        if now.digest == before.digest:
            return run
        changed = sorted(
            k for k in {*before.facts, *now.facts} if before.facts.get(k) != now.facts.get(k)
        )
        self.log(
            f"{label}: the server at {url} is not the one it was measured on ({', '.join(changed)} "
            "changed): a new execution"
        )
        return None

    @staticmethod
    async def _identity(spec: RunSpec, url: str) -> ServerIdentity:
        adapter = adapter_for(spec.engine.kind)
        async with httpx.AsyncClient() as client:
            version, no_version = await Runner._served(client, url + "/version")
            models, missing = await Runner._served(client, url + "/v1/models")
            probe = await adapter.probe(client, url)
            if no_version:  # as the manifest reads it (``_prepare``): the engine's own field
                version = adapter.version_of(probe)
            facts = server_facts(version, missing or models, probe)
        return ServerIdentity(digest=facts_digest(facts), facts=facts)

    def check_preflight(self, specs: list[RunSpec]) -> None:
        """Every attached server's pre-flight before any run starts (``preflight``), unless
        ``force``."""
        if not self.force:
            preflight(specs)

    def _ask_to_reconfigure(self, plan: Plan, spec: RunSpec, repeat: int) -> None:
        """With ``engine.reconfigure: between-runs``, pause before a run whose speculation is
        not the one its shared server was last set up for."""
        url = spec.engine.base_url
        if plan.campaign.engine.reconfigure != "between-runs" or url is None:
            return
        label = spec.speculation.label
        if self._configured.get(url) == label:
            return
        if self.reconfigure is None:
            raise ConfigError(
                "engine.reconfigure: between-runs needs someone to reconfigure the server: run "
                "from a terminal, or give each configuration its own base_url"
            )
        what = "no speculation" if label == "none" else f"speculation {label}"
        self.reconfigure(
            f"set the server at {url} up for {what} ({spec.stage}, {spec.load.label}, repeat "
            f"{repeat}); the run starts when you confirm"
        )
        self._configured[url] = label

    async def _measure(
        self,
        run: RunRecord,
        spec: RunSpec,
        adapter: EngineAdapter,
        base_url: str,
        todo: list[Sample],
        suite: Suite | None = None,
        health: Health | None = None,
        attempts: dict[str, int] | None = None,
        *,
        campaign: Campaign | None = None,
        block: int | None = None,
        fresh: bool = True,
        clock: EngineClock | None = None,
    ) -> Segment:
        """Send ``todo`` (warm-up first) and store each answer; return the segment's counts.
        ``attempts``: the attempt number of a retried sample (0 when absent). Stops sending when
        ``health`` trips; the samples not sent stay missing, for a resume. ``campaign``: its
        audits run before the first segment's requests. ``block``: recorded on each sample
        (``extra.block``); ``fresh`` False: a later block of a run already warmed up and
        audited, which skips both. ``clock``: where the warm-up and measured requests' time is
        noted (``EngineClock``)."""
        clock = clock or EngineClock()
        health = health or Health(None)
        rate, conc = spec.load.request_rate, spec.load.concurrency or 1
        # Open loop (a request rate) lets requests pile up as real traffic does; closed loop
        # keeps `conc` in flight.
        offsets = poisson_offsets(len(todo), rate, spec.sampling.seed or 0) if rate else None
        # Measured and warm-up requests go through aiohttp (a third of httpx's CPU per streamed
        # token); probes, snapshots and agent episodes through httpx.
        client, session = connections(None if rate else conc + 4)
        async with client, session:
            clock.enter(None)  # an attached engine's span starts at the first request
            counter = await self._open_segment(client, run, spec, adapter, base_url, fresh)
            if suite is not None and suite.needs_tokenizer:
                todo = await self._cut_prompts(run, spec, suite, todo, client, counter)
            if campaign is not None and fresh:  # audits run before the measured requests
                audits = await asyncio.get_running_loop().run_in_executor(
                    None, run_audits, campaign, spec, base_url
                )
                self.store.update_run(run.run_id, manifest={"audits": audits})
            sender = Sender(
                run.run_id, spec, adapter, base_url, session=session, client=client,
                health=health, write=self.store.add_sample, writer=self._writer,
                episodic=suite.episodic() if suite is not None else None, counter=counter,
                attempts=attempts, block=block, clock=self.clock,
                timeout_s=self.request_timeout_s, progress=self.progress,
            )  # fmt: skip
            watcher = asyncio.create_task(health.watch_process())
            try:
                await self._warm_up(sender, todo[: spec.load.warmup if fresh else 0], clock)
                polls = await self._open_window(client, base_url, run.run_id, adapter, fresh)
                wall = await self._send(sender, run, todo, offsets, conc, clock)
            finally:
                clock.enter(None)
                watcher.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await watcher
            await self._close_window(client, base_url, run.run_id, adapter, polls)
            clock.enter(None)  # the last answer: an attached engine's span ends here
        return self._segment(run, sender, len(todo), wall, rate, conc, fresh, block)

    async def _open_segment(
        self,
        client: httpx.AsyncClient,
        run: RunRecord,
        spec: RunSpec,
        adapter: EngineAdapter,
        base_url: str,
        fresh: bool,
    ) -> TokenCounter | None:
        """What the server says before the segment's requests, written to the manifest: its
        version, models and acceptance probe, its token counter (found once per run), and for
        the first segment on an attached server, its identity and pre-flight (a pre-flight
        problem fails the run before anything is measured, unless ``force``)."""
        manifest = await self._probe(client, base_url, spec)
        manifest["acceptance_probe"] = await adapter.probe(client, base_url)
        if manifest["engine_version_source"] is None:  # no /version: the engine's own field
            version = adapter.version_of(manifest["acceptance_probe"])
            if version is not None:
                manifest["engine_version"] = version
                manifest["engine_version_source"] = adapter.version_field
        if fresh or run.run_id not in self._counters:
            self._counters[run.run_id] = await find_counter(
                client, base_url, adapter.tokenize_style, spec.model.served_name
            )
        counter = self._counters[run.run_id]
        manifest["token_counter"] = counter.source if counter is not None else None
        if fresh and spec.engine.base_url is not None:
            facts = server_facts(
                manifest["engine_version"], manifest["models"], manifest["acceptance_probe"]
            )
            manifest["server"] = ServerIdentity(digest=facts_digest(facts), facts=facts)
            found = preflight_problems(
                spec,
                manifest["models"],
                manifest["acceptance_probe"],
                needs_metrics=adapter.needs_metrics,
            )
            if found:
                manifest["preflight"] = found
                if not self.force:
                    self.store.update_run(run.run_id, status="failed", manifest=manifest)
                    raise PreflightError(
                        f"{_short(spec)}: {'; '.join(found)}; nothing was measured (fix the "
                        "server or the campaign, or pass --force to measure anyway)"
                    )
        self.store.update_run(run.run_id, manifest=manifest)
        return counter

    async def _cut_prompts(
        self,
        run: RunRecord,
        spec: RunSpec,
        suite: Suite,
        todo: list[Sample],
        client: httpx.AsyncClient,
        counter: TokenCounter | None,
    ) -> list[Sample]:
        """The samples of a suite whose prompts the engine's tokenizer makes (a synthetic
        stage), made; a server that cannot make them fails the run before it measures."""
        why = None
        if counter is None:
            why = (
                "the server answers no tokenize endpoint, and a synthetic stage's prompts are "
                "cut to length by the engine's own tokenizer"
            )
        else:
            try:
                return await suite.make_prompts(todo, client, counter)
            except PrepareError as exc:
                why = str(exc)
        self.store.update_run(run.run_id, status="failed", manifest={"preflight": [why]})
        raise PreflightError(f"{_short(spec)}: {why}; nothing was measured")

    async def _warm_up(self, sender: Sender, warmups: list[Sample], clock: EngineClock) -> None:
        """Send the warm-up requests, never stored; one the engine fails trips its health."""
        if not warmups:
            return
        clock.enter("warmup")
        for sample in warmups:
            path, body = request_payload(sender.spec, sample, sender.extras)
            warm = await stream(
                sender.session, sender.url + path, body, self.clock, self.request_timeout_s
            )
            if engine_fault(warm.status, warm.error):
                sender.health.trip(f"a warm-up request failed: {warm.error}")
                break
        clock.enter(None)

    async def _open_window(
        self,
        client: httpx.AsyncClient,
        base_url: str,
        run_id: str,
        adapter: EngineAdapter,
        fresh: bool,
    ) -> _Polls:
        """Open the counters' window: the ``before`` snapshots, and the poller of the adapter's
        poll paths. A later block continues its run's window: the server served nothing else in
        between (it is this configuration's own), so one window spans the blocks."""
        if fresh:
            for source in adapter.snapshot_paths:
                await self._snapshot(client, base_url, run_id, "before", source)
        taken = 0 if fresh else sum(k.startswith("poll-") for k in self.store.snapshots(run_id))
        polls = _Polls(count=taken)
        if adapter.poll_paths:
            polls.task = asyncio.create_task(self._poll(client, base_url, run_id, adapter, polls))
        return polls

    async def _close_window(
        self,
        client: httpx.AsyncClient,
        base_url: str,
        run_id: str,
        adapter: EngineAdapter,
        polls: _Polls,
    ) -> None:
        """Close the counters' window: stop the poller, drain what its last interval left, and
        take the ``after`` snapshots."""
        if polls.task is not None:
            polls.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await polls.task
            for source in adapter.poll_paths:
                await self._snapshot(client, base_url, run_id, f"poll-{polls.count:06d}", source)
        for source in adapter.snapshot_paths:
            await self._snapshot(client, base_url, run_id, "after", source)

    async def _send(
        self,
        sender: Sender,
        run: RunRecord,
        todo: list[Sample],
        offsets: list[float] | None,
        conc: int,
        clock: EngineClock,
    ) -> float:
        """The measured requests; their wall time on the runner's clock."""
        if self.progress is not None:
            self.progress.start(run.run_id, sender.spec.label, len(todo))
        t0 = self.clock()
        clock.enter("measured")
        await sender.send_all(todo, offsets, conc if offsets is None else len(todo) or 1)
        wall = self.clock() - t0
        if self.progress is not None:
            self.progress.finish()
        return wall

    def _segment(
        self,
        run: RunRecord,
        sender: Sender,
        planned: int,
        wall: float,
        rate: float | None,
        conc: int,
        fresh: bool,
        block: int | None,
    ) -> Segment:
        """The segment's counts, said in one line."""
        where = f" (block {block})" if block is not None else ""
        self.log(
            f"{run.run_id}{where}: {sender.samples} samples sent, {sender.failed} failed, "
            f"{wall:.1f} s"
            + (f"; {planned - sender.samples} not sent" if sender.samples < planned else "")
        )
        return Segment(
            requests=sender.requests,
            answered=sender.answered,
            samples=sender.samples,
            failed=sender.failed,
            wall_s=wall,
            request_rate=rate or None,
            concurrency=None if rate else conc,
            window=fresh,
            host_load=host_load(),
        )

    async def _probe(
        self, client: httpx.AsyncClient, base_url: str, spec: RunSpec
    ) -> ManifestUpdate:
        manifest: ManifestUpdate = {
            "specverdict": __version__,
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "host": socket.gethostname(),
        }
        version, missing = await self._served(client, base_url + "/version")
        # a version is what the server says, never why it said nothing (llama.cpp has no
        # /version: its build is in /props, which its adapter's probe reads)
        manifest["engine_version"] = None if missing else version
        manifest["engine_version_source"] = None if missing else "/version"
        models, missing = await self._served(client, base_url + "/v1/models")
        manifest["models"] = missing or models
        return manifest

    @staticmethod
    async def _served(client: httpx.AsyncClient, url: str) -> tuple[Any, str | None]:
        """The JSON an engine serves at ``url`` as it came, and None; or None and why there is
        none (``HTTP 404``, ``unavailable: ConnectError``)."""
        try:
            resp = await client.get(url, timeout=10)
            if resp.status_code != 200:
                return None, f"HTTP {resp.status_code}"
            return resp.json(), None
        except (httpx.HTTPError, ValueError) as exc:
            return None, f"unavailable: {type(exc).__name__}"

    def score_pending(self, run_id: str, suite: Suite, samples: list[Sample]) -> int:
        """Score every answered sample of the run that has no score yet; return how many.

        Scoring runs after the measured requests, never during them: on a shared host a sandbox
        would take CPU from the engine and bias its speed figures. Scores are written by the
        store's thread as they come (a killed runner loses only scores, which a resume redoes).
        An answer this runner has judged before, in a suite whose scores are pure, gets the
        score it got then (``ScoreMemo``) without the sandbox.
        """
        by_id = {s.id: s for s in samples}
        todo = [
            r
            for r in self.store.samples(run_id)
            if r.status == "ok" and r.score is None and r.sample_id in by_id
        ]
        keys = {id(r): suite.answer_key(by_id[r.sample_id], r) for r in todo}
        known = {id(r): self.scores.get(keys[id(r)]) for r in todo}
        scored = 0
        # Batches keep memory bounded and let a killed runner lose at most one batch of scores.
        for start in range(0, len(todo), 64):
            batch = todo[start : start + 64]
            fresh = [r for r in batch if known[id(r)] is None]
            judged = dict(
                zip(
                    map(id, fresh),
                    suite.score_records([(by_id[r.sample_id], r) for r in fresh]),
                    strict=True,
                )
            )
            for record in batch:
                score = known[id(record)]
                if score is None:
                    score = judged[id(record)]
                if score is None:
                    continue
                self.scores.put(keys[id(record)], score)
                self._writer.submit(
                    self.store.add_score, record.run_id, record.sample_id, record.attempt, score
                ).result()
                scored += 1
        return scored

    async def _poll(
        self,
        client: httpx.AsyncClient,
        base_url: str,
        run_id: str,
        adapter: EngineAdapter,
        polls: _Polls,
    ) -> None:
        """Read drain-on-read endpoints (TRT-LLM's iteration stats) while requests run;
        ``polls.count`` counts the polls taken, so that the caller's final drain comes next."""
        while True:
            await asyncio.sleep(adapter.poll_interval_s)
            for source in adapter.poll_paths:
                await self._snapshot(client, base_url, run_id, f"poll-{polls.count:06d}", source)
            polls.count += 1

    async def _snapshot(
        self,
        client: httpx.AsyncClient,
        base_url: str,
        run_id: str,
        phase: str,
        source: str = "/metrics",
    ) -> None:
        try:
            resp = await client.get(base_url + source, timeout=10)
        except httpx.HTTPError:
            return
        if resp.status_code == 200:
            snapshot = MetricsSnapshot(
                run_id=run_id, phase=phase, source=source, taken_at=time.time(), text=resp.text
            )
            await asyncio.get_running_loop().run_in_executor(
                self._writer, self.store.add_snapshot, snapshot
            )
