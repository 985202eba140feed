"""The runner: from a plan to stored, measured runs.

For every run and repeat, in the interleaved order of ``campaign.plan.interleaved``: find an
unfinished execution of the same fingerprint to resume (or create one), launch the engine (or
attach), record the manifest, send warm-up requests (not stored), snapshot ``/metrics``, send
the remaining samples at the run's concurrency and store each as it completes, snapshot again,
stop the engine. Failed requests are samples with a status, not
exceptions; an engine that dies mid-run leaves every finished sample stored and the run marked
``failed``. The runner depends on the adapter, suite and store interfaces only.
"""

from __future__ import annotations

import asyncio
import contextlib
import platform
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol

import aiohttp
import httpx

from specverdict import __version__
from specverdict.audit.preflight import run_audits
from specverdict.campaign.model import Campaign
from specverdict.campaign.plan import Plan, interleaved
from specverdict.campaign.spec import RunSpec
from specverdict.engines.base import EngineAdapter
from specverdict.engines.client import StreamedResponse, stream
from specverdict.engines.launcher import LaunchedServer, free_port
from specverdict.engines.registry import adapter_for
from specverdict.episodes import run_episode
from specverdict.errors import ConfigError, EngineStartError
from specverdict.loadgen import poisson_offsets
from specverdict.store.base import Store
from specverdict.store.records import MetricsSnapshot, RunRecord, RunStatus, SampleRecord
from specverdict.suites import Sample, Suite, get_suite
from specverdict.suites.agent import AgentSuite

Log = Callable[[str], None]


class Progress(Protocol):
    """Where the runner reports progress: a bar on a terminal, plain lines elsewhere."""

    def start(self, run_id: str, label: str, total: int) -> None: ...
    def advance(self, record: SampleRecord) -> None: ...
    def finish(self) -> None: ...


def select_runs(plan: Plan, only: str) -> list[RunSpec]:
    """The runs whose stage, method or speculation label is ``only``, plus their baselines."""
    chosen = [r for r in plan.runs if only in (r.stage, r.speculation.method, r.speculation.label)]
    if not chosen:
        known = sorted({r.stage for r in plan.runs} | {r.speculation.label for r in plan.runs})
        raise ConfigError(f"--only {only!r} matches no run; try one of: {', '.join(known)}")
    baselines = {p.baseline.fingerprint for p in plan.pairs if p.candidate in chosen}
    return [r for r in plan.runs if r in chosen or r.fingerprint in baselines]


def request_payload(
    spec: RunSpec, sample: Sample, extras: dict[str, Any] | None = None
) -> tuple[str, dict[str, Any]]:
    s = spec.sampling
    body: dict[str, Any] = {
        **(extras or {}),
        "model": spec.model.served_name,
        "max_tokens": s.max_tokens,
        "temperature": s.temperature,
        "top_p": s.top_p,
    }
    if s.seed is not None:
        body["seed"] = s.seed
    body.update(sample.request_fields())  # e.g. the stop sequences of a function body
    if sample.endpoint == "chat":
        return "/v1/chat/completions", {**body, "messages": list(sample.messages or ())}
    return "/v1/completions", {**body, "prompt": sample.prompt}


def to_record(
    run_id: str, sample: Sample, resp: StreamedResponse, acceptance: dict[str, Any] | None = None
) -> SampleRecord:
    return SampleRecord(
        run_id=run_id,
        sample_id=sample.id,
        status=resp.status,
        text=resp.text,
        finish_reason=resp.finish_reason,
        prompt_tokens=resp.prompt_tokens,
        completion_tokens=resp.completion_tokens,
        ttft_s=resp.ttft_s,
        e2e_s=resp.e2e_s,
        chunk_arrivals_s=resp.chunk_arrivals_s,
        error=resp.error,
        acceptance=acceptance,
        extra={"tool_calls": list(resp.tool_calls)} if resp.tool_calls else {},
    )


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
    ) -> None:
        """``runs_dir``: where each run's folder (engine log) goes; None keeps no engine log
        beyond the tail stored in the manifest. ``reconfigure``: asks the user to reconfigure
        a shared attached server and returns when done (``engine.reconfigure: between-runs``);
        without it such a campaign is refused."""
        self.store = store
        self.reconfigure = reconfigure
        #: attached server -> the speculation it was last declared to run
        self._configured: dict[str, str] = {}
        self.runs_dir = runs_dir
        self.progress = progress
        self.campaign: Campaign | None = None  # set per run: audits are configured there
        self.log = log
        self.clock = clock
        self.request_timeout_s = request_timeout_s
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="store-writer")

    def run_plan(self, plan: Plan, only: str | None = None) -> list[RunRecord]:
        """Run every planned run and repeat; ``only`` keeps the runs of one stage or one
        speculation (``function``, ``mtp``, ``mtp k=2``) together with their baselines."""
        specs = select_runs(plan, only) if only else list(plan.runs)
        return [
            self.run_one(plan, e.spec, e.repeat, order=(e.repeat, e.position))
            for e in interleaved(specs, plan.repeats_of)
        ]

    def _run_dir(self, run_id: str) -> Path:
        """The run's folder: engine logs and launch files. Without ``runs_dir``, a temporary
        folder removed when the run ends."""
        if self.runs_dir is None:
            return Path(tempfile.mkdtemp(prefix=f"specverdict-{run_id}-"))
        path = self.runs_dir / run_id
        path.mkdir(parents=True, exist_ok=True)
        return path

    def resume(self, plan: Plan, run_id: str) -> RunRecord:
        """Finish one stored run of this campaign, sending only its missing samples."""
        try:
            run = self.store.get_run(run_id)
        except KeyError:
            raise ConfigError(f"--resume {run_id}: no such run in the registry") from None
        spec = next((r for r in plan.runs if r.fingerprint == run.fingerprint), None)
        if spec is None:
            raise ConfigError(
                f"--resume {run_id}: that run ({run.spec.label}) is not part of campaign {plan.campaign.name!r}"
            )
        if run.status == "completed":
            self.log(f"{run_id}: already completed")
            return run
        return self.run_one(plan, spec, run.repeat)

    def run_one(
        self, plan: Plan, spec: RunSpec, repeat: int, order: tuple[int, int] | None = None
    ) -> RunRecord:
        """One execution; ``order`` (round, position in its group) is recorded in the manifest
        when the execution is part of a campaign's interleaved order."""
        self.campaign = plan.campaign
        try:
            suite = get_suite(str(spec.suite))
            samples = suite.select(spec.samples)
            adapter = adapter_for(spec.engine.kind)
        except (KeyError, ValueError) as exc:
            raise ConfigError(str(exc).strip("'\"")) from None
        self._ask_to_reconfigure(plan, spec, repeat)
        run = self.store.resumable(spec.fingerprint, repeat)
        if run is None:
            done = [
                r
                for r in self.store.list_runs()
                if r.fingerprint == spec.fingerprint
                and r.repeat == repeat
                and r.status == "completed"
            ]
            if done:
                self.log(f"{spec.label} (repeat {repeat}): already completed, skipped")
                return done[-1]
            run = self.store.create_run(spec, repeat)
            self.log(f"{run.run_id} {spec.label} (repeat {repeat}): started")
        else:
            self.log(f"{run.run_id} {spec.label} (repeat {repeat}): resuming")
        run_dir = self._run_dir(run.run_id)
        self.store.update_run(
            run.run_id,
            manifest={
                "speculative_args": adapter.speculative_args(spec, str(run_dir)),
                **({"order": {"round": order[0], "position": order[1]}} if order else {}),
            },
        )
        finished = self.store.finished_sample_ids(run.run_id)
        todo = [s for s in samples if s.id not in finished]
        engine = plan.campaign.engine
        server = None
        if spec.engine.base_url is None:
            port = free_port()
            files = adapter.launch_files(spec)
            for name, text in files.items():
                (run_dir / name).write_text(text)
            if files:  # the options as sent, e.g. TensorRT-LLM's speculative_config
                self.store.update_run(run.run_id, manifest={"launch_files": files})
            command = adapter.launch_command(
                spec, engine.launch, port, plan.campaign.model.path, run_dir
            )
            launch = engine.launch
            log_path = None
            if self.runs_dir is not None:
                log_path = run_dir / f"engine-{int(time.time())}.log"
            server = LaunchedServer(
                command,
                f"http://127.0.0.1:{port}",
                health_path=launch.health_path if launch else "/health",
                startup_timeout_s=launch.startup_timeout_s if launch else 120.0,
                env=launch.env if launch else None,
                log_path=log_path,
            )
            self.store.update_run(
                run.run_id,
                manifest={
                    "launch_command": command,
                    "engine_logs": [
                        *run.manifest.get("engine_logs", []),
                        *([str(log_path)] if log_path else []),
                    ],
                },
            )
            try:
                server.start()
            except EngineStartError as exc:
                self.store.update_run(run.run_id, status="failed", manifest={"error": str(exc)})
                if self.runs_dir is None:
                    shutil.rmtree(run_dir, ignore_errors=True)
                raise
            # Recorded so that an engine orphaned by a killed runner can be found and stopped.
            pid = server.process.pid if server.process else None
            self.store.update_run(run.run_id, manifest={"engine_pid": pid})
        base_url = spec.engine.base_url or (server.base_url if server else "")
        try:
            status, segment = asyncio.run(self._measure(run, spec, adapter, base_url, todo, suite))
        finally:
            if server is not None:
                self.store.update_run(
                    run.run_id, manifest={"engine_log_tail": server.output_tail(20)}
                )
                server.stop()
            if self.runs_dir is None:
                shutil.rmtree(run_dir, ignore_errors=True)
        scored = self.score_pending(run.run_id, suite, samples)
        if scored:
            self.log(f"{run.run_id}: scored {scored} samples with {suite.name}@{suite.version}")
        segments = (
            [*run.manifest.get("segments", []), segment]
            if todo
            else run.manifest.get("segments", [])
        )
        return self.store.update_run(run.run_id, status=status, manifest={"segments": segments})

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
    ) -> tuple[RunStatus, dict[str, Any]]:
        rate = spec.load.request_rate
        conc = spec.load.concurrency or 1
        # Open loop (a request rate) lets requests pile up as real traffic does; closed loop
        # keeps `conc` in flight.
        offsets = poisson_offsets(len(todo), rate, spec.sampling.seed or 0) if rate else None
        limits = httpx.Limits(max_connections=None if rate else conc + 4)
        # Measured and warm-up requests go through aiohttp (a third of httpx's CPU per streamed
        # token); probes, snapshots and agent episodes through httpx. No session-wide timeout:
        # each request has its own deadline.
        async with (
            httpx.AsyncClient(limits=limits) as client,
            aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=0 if rate else conc + 4),
                timeout=aiohttp.ClientTimeout(),
            ) as session,
        ):
            manifest = await self._probe(client, base_url, spec)
            manifest["acceptance_probe"] = await adapter.probe(client, base_url)
            if self.campaign is not None:  # audits run before the measured requests
                loop = asyncio.get_running_loop()
                manifest["audits"] = await loop.run_in_executor(
                    None, run_audits, self.campaign, spec, base_url
                )
            self.store.update_run(run.run_id, manifest=manifest)
            extras = adapter.request_extras(spec)
            for sample in todo[: spec.load.warmup]:  # warm-up: same requests, never stored
                path, body = request_payload(spec, sample, extras)
                await stream(session, base_url + path, body, self.clock, self.request_timeout_s)
            for source in adapter.snapshot_paths:
                await self._snapshot(client, base_url, run.run_id, "before", source)
            poller, polls = None, [0]
            if adapter.poll_paths:
                poller = asyncio.create_task(
                    self._poll(client, base_url, run.run_id, adapter, polls)
                )
            semaphore = asyncio.Semaphore(conc if offsets is None else len(todo) or 1)
            failures = 0
            sent = [0]  # requests sent (an agent sample sends one per turn)
            answered = [0]  # ... of which the server answered
            loop = asyncio.get_running_loop()

            async def one(sample: Sample, send_at: float) -> None:
                nonlocal failures
                await asyncio.sleep(max(0.0, send_at - (time.monotonic() - start)))
                async with semaphore:
                    path, body = request_payload(spec, sample, extras)
                    if isinstance(suite, AgentSuite):  # one sample = one multi-turn episode
                        record = await run_episode(
                            run.run_id,
                            suite,
                            sample,
                            session,
                            base_url + path,
                            body,
                            adapter.per_request_acceptance,
                            self.clock,
                            self.request_timeout_s,
                        )
                    else:
                        resp = await stream(
                            session, base_url + path, body, self.clock, self.request_timeout_s
                        )
                        record = to_record(
                            run.run_id, sample, resp, adapter.per_request_acceptance(resp.extras)
                        )
                # The write runs on the store's own thread so that it never delays the timing of
                # requests in flight on this event loop.
                await loop.run_in_executor(self._writer, self.store.add_sample, record)
                if self.progress is not None:
                    self.progress.advance(record)
                failures += record.status != "ok"
                # an episode is several chat requests; the server's counters count each
                episode = record.extra.get("episode") if record.extra else None
                turns = episode.get("turn_timings") if isinstance(episode, dict) else None
                n = len(turns) if isinstance(turns, list) and turns else 1
                sent[0] += n
                # a failed request (the last one of a failed episode) is not one the server
                # finished, and its counters do not count it
                answered[0] += n - (record.status != "ok")

            if self.progress is not None:
                self.progress.start(run.run_id, spec.label, len(todo))
            t0, start = self.clock(), time.monotonic()
            send_times = offsets if offsets is not None else [0.0] * len(todo)
            await asyncio.gather(*(one(s, at) for s, at in zip(todo, send_times, strict=True)))
            wall = self.clock() - t0
            if self.progress is not None:
                self.progress.finish()
            if poller is not None:
                poller.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await poller
                for source in adapter.poll_paths:  # drain what the last interval left
                    await self._snapshot(
                        client, base_url, run.run_id, f"poll-{polls[0]:06d}", source
                    )
            for source in adapter.snapshot_paths:
                await self._snapshot(client, base_url, run.run_id, "after", source)
        status: RunStatus = "failed" if todo and failures == len(todo) else "completed"
        load: dict[str, Any] = {"request_rate": rate} if rate else {"concurrency": conc}
        segment = {
            "requests": sent[0],
            "answered": answered[0],
            "samples": len(todo),
            "failed": failures,
            "wall_s": wall,
            **load,
        }
        self.log(f"{run.run_id}: {len(todo)} requests, {failures} failed, {wall:.1f} s")
        return status, segment

    async def _probe(
        self, client: httpx.AsyncClient, base_url: str, spec: RunSpec
    ) -> dict[str, Any]:
        manifest: dict[str, Any] = {
            "specverdict": __version__,
            "python": sys.version.split()[0],
            "platform": platform.platform(),
        }
        for key, path in (("engine_version", "/version"), ("models", "/v1/models")):
            try:
                resp = await client.get(base_url + path, timeout=10)
                manifest[key] = (
                    resp.json() if resp.status_code == 200 else f"HTTP {resp.status_code}"
                )
            except (httpx.HTTPError, ValueError) as exc:
                manifest[key] = f"unavailable: {type(exc).__name__}"
        return manifest

    def score_pending(self, run_id: str, suite: Suite, samples: list[Sample]) -> int:
        """Score every answered sample of the run that has no score yet; return how many.

        Scoring runs after the measured requests, never during them: on a shared host a sandbox
        would take CPU from the engine and bias its speed figures. Scores are written by the
        store's thread as they come (a killed runner loses only scores, which a resume redoes).
        """
        by_id = {s.id: s for s in samples}
        todo = [
            r
            for r in self.store.samples(run_id)
            if r.status == "ok" and r.score is None and r.sample_id in by_id
        ]
        scored = 0
        # Batches keep memory bounded and let a killed runner lose at most one batch of scores.
        for start in range(0, len(todo), 64):
            batch = todo[start : start + 64]
            scores = suite.score_records([(by_id[r.sample_id], r) for r in batch])
            for record, score in zip(batch, scores, strict=True):
                if score is None:
                    continue
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
        polls: list[int],
    ) -> None:
        """Read drain-on-read endpoints (TRT-LLM's iteration stats) while requests run;
        ``polls[0]`` counts the polls taken, so that the caller's final drain comes next."""
        while True:
            await asyncio.sleep(adapter.poll_interval_s)
            for source in adapter.poll_paths:
                await self._snapshot(client, base_url, run_id, f"poll-{polls[0]:06d}", source)
            polls[0] += 1

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
