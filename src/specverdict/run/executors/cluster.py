"""The Ray executor: one actor per node that has the resources an engine needs, one run per node
at a time, every run measured by the same ``Runner.run_one`` as the local executor.

The driver (``RayExecutor.run``) claims each execution in the registry, hands it to an idle
node actor, renews the claims while they run and shows one progress view read from the
registry. An actor opens the registry itself and writes each sample as it lands; after its
engine stops, scoring fans out as Ray tasks of one CPU each on the actor's own node (a sandbox
on another node would take CPU from the engine measured there). A node lost mid-run (its actor
dies) puts the execution back at the head of the queue: the next idle node resumes it from the
registry, sending only the samples that have no stored answer. Requires the ``cluster`` extra.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import socket
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TaskID, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichBar

from specverdict import errors
from specverdict.campaign.plan import Plan, session_key
from specverdict.campaign.spec import RunSpec
from specverdict.errors import (
    ConfigError,
    EngineError,
    ExtraMissingError,
    SpecverdictError,
    UserInterruptError,
)
from specverdict.records import RunRecord, Score
from specverdict.run.executors.claims import Heartbeat, claim_ttl_s, new_holder, take
from specverdict.run.runner import Runner
from specverdict.run.start_cost import start_cost, suite_sample_s
from specverdict.store import RunOrigin, Store, open_store
from specverdict.store.fenced import FencedStore
from specverdict.suites import Sample, Suite, suite_for

Log = Callable[[str], None]

#: node losses one execution may meet before the campaign gives it up
MAX_NODE_LOSSES = 3
#: how often the driver looks for nodes that joined or left
NODE_REFRESH_S = 5.0
#: how long the driver waits for a node with the resources when none is left
NO_NODE_WAIT_S = 60.0
#: samples per scoring task
SCORE_BATCH = 16


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ExtraMissingError(
            "--executor ray needs the cluster extra: pip install 'specverdict[cluster]'"
        ) from None
    return ray


class Execution(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    spec: RunSpec
    repeat: int
    order: tuple[int, int] | None = None

    @property
    def key(self) -> tuple[str, int]:
        return (self.spec.fingerprint, self.repeat)

    @property
    def name(self) -> str:
        s = self.spec
        return f"{s.speculation.label}, {s.stage}, {s.load.label}, repeat {self.repeat}"


class Outcome(BaseModel):
    """What a node actor sends back for one execution."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    run_id: str | None = None
    node_id: str
    host: str
    error_class: str | None = None
    error: str | None = None
    starts: int = 0  #: servers the node's actor had started by the end of this execution


def split_resources(need: dict[str, float]) -> dict[str, Any]:
    """Ray's actor options for ``launch.resources``: CPU and GPU are its own arguments."""
    custom = {k: v for k, v in need.items() if k not in ("CPU", "GPU")}
    return {
        "num_cpus": need.get("CPU", 0),
        "num_gpus": need.get("GPU", 0),
        **({"resources": custom} if custom else {}),
    }


def eligible_nodes(nodes: Sequence[dict[str, Any]], need: dict[str, float]) -> list[str]:
    """The ids of the alive nodes whose total resources hold ``need``."""
    return [
        str(n["NodeID"])
        for n in nodes
        if n.get("Alive")
        and all(float(n.get("Resources", {}).get(k, 0)) >= v for k, v in need.items())
    ]


def _offers(nodes: Sequence[dict[str, Any]]) -> str:
    offers = sorted(
        {
            ", ".join(
                f"{k}: {v:g}"
                for k, v in sorted(n.get("Resources", {}).items())
                if not k.startswith(("node:", "memory", "object_store"))
            )
            for n in nodes
            if n.get("Alive")
        }
    )
    return "; ".join(f"{{{o}}}" for o in offers) or "no alive node"


class ClusterRunner(Runner):
    """``Runner`` on a node: scoring fans out as Ray tasks on this node."""

    def score_pending(self, run_id: str, suite: Suite, samples: list[Sample]) -> int:
        ray = _ray()
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        wanted = {s.id for s in samples}
        todo = [
            r
            for r in self.store.samples(run_id)
            if r.status == "ok" and r.score is None and r.sample_id in wanted
        ]
        if not todo:
            return 0
        spec = self.store.get_run(run_id).spec
        here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
        task = ray.remote(_score_batch).options(num_cpus=1, scheduling_strategy=here)
        batches = [todo[i : i + SCORE_BATCH] for i in range(0, len(todo), SCORE_BATCH)]
        refs = {task.remote(spec, batch): batch for batch in batches}
        scored = 0
        pending = list(refs)
        while pending:  # scores are written as their batches come back
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                for record, score in zip(refs[ref], ray.get(ref), strict=True):
                    if score is None:
                        continue
                    self.store.add_score(record.run_id, record.sample_id, record.attempt, score)
                    scored += 1
        return scored


def _score_batch(spec: RunSpec, records: list[Any]) -> list[Score | None]:
    """A Ray task: score stored answers with the run's suite (in its sandbox)."""
    suite = suite_for(spec)
    by_id = {s.id: s for s in suite.select(spec.samples)}
    return suite.score_records([(by_id[r.sample_id], r) for r in records])


class NodeActor:
    """Owns one node's engine: measures the executions the driver hands it, one at a time.
    Its runner keeps launched servers up between the executions of one server session
    (``engine.launch.sessions``, as the local runner does) until the driver closes it; its
    reaper stops them if the actor is killed first."""

    def __init__(
        self, location: str, runs_dir: str, user: str, retry_failed: bool, timeout_s: float
    ) -> None:
        from specverdict.run.executors.reaper import start_reaper

        ray = _ray()
        self.reaper = start_reaper()  # stops this actor's engine if the actor is killed
        self.node_id = str(ray.get_runtime_context().get_node_id())
        self.host = os.environ.get("SPECVERDICT_HOST") or socket.gethostname()
        self.store = open_store(location, RunOrigin(user=user, host=self.host))
        self.runner = ClusterRunner(
            self.store,
            log=lambda m: print(m, flush=True),
            runs_dir=Path(runs_dir),
            retry_failed=retry_failed,
            request_timeout_s=timeout_s,
        )
        self.sessions: contextlib.ExitStack | None = None

    def node(self) -> str:
        return self.node_id

    def pid(self) -> int:
        return os.getpid()

    def run(self, plan: Plan, execution: Execution, holder: str, ttl_s: float) -> Outcome:
        """Measure ``execution`` with every write fenced by ``holder``'s claim on it
        (``store.fenced``): when the driver took this node for lost and handed the run over,
        the next write is refused and this actor stops."""
        e = execution
        if self.sessions is None:  # servers kept up from the first execution to ``close``
            self.sessions = contextlib.ExitStack()
            self.sessions.enter_context(self.runner.sessions(plan, reap_kept=False))
        self.runner.store = FencedStore(self.store, e.spec.fingerprint, e.repeat, holder, ttl_s)
        try:
            record = self.runner.run_one(plan, e.spec, e.repeat, e.order)
        except SpecverdictError as exc:
            found = self.store.resumable(e.spec.fingerprint, e.repeat)
            return Outcome(
                run_id=found.run_id if found else None,
                node_id=self.node_id,
                host=self.host,
                error_class=type(exc).__name__,
                error=str(exc),
            )
        finally:
            self.runner.store = self.store
        return Outcome(
            run_id=record.run_id, node_id=self.node_id, host=self.host, starts=self.runner.starts
        )

    def close(self) -> int:
        """Stop the servers kept up between executions; how many servers this actor started."""
        if self.sessions is not None:
            self.sessions.close()
            self.sessions = None
        return self.runner.starts


class ClusterProgress:
    """One view of every run in flight, read from the registry: a bar per run on a terminal,
    a line at each quarter elsewhere."""

    def __init__(self, store: Store, console: Console, campaign: str) -> None:
        self.store = store
        self.console = console
        self.campaign = campaign
        self._bar: RichBar | None = None
        self._tasks: dict[tuple[str, int], TaskID] = {}
        self._quarter: dict[tuple[str, int], int] = {}
        self._totals: dict[tuple[str, int], int] = {}
        self._names: dict[tuple[str, int], str] = {}
        if console.is_terminal:
            self._bar = RichBar(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[where]}"),
                TimeElapsedColumn(),
                console=console,
            )
            self._bar.start()

    def start(self, e: Execution, total: int, where: str) -> None:
        self._totals[e.key] = total
        self._names[e.key] = e.name
        self._quarter.setdefault(e.key, 0)
        if self._bar is not None:
            if e.key in self._tasks:
                self._bar.update(self._tasks[e.key], where=where)
            else:
                self._tasks[e.key] = self._bar.add_task(e.name, total=total, where=where)

    def refresh(self, keys: Sequence[tuple[str, int]]) -> None:
        if not keys:
            return
        newest: dict[tuple[str, int], RunRecord] = {}
        for r in self.store.list_runs(campaign=self.campaign):
            newest[(r.fingerprint, r.repeat)] = r
        for key in keys:
            run = newest.get(key)
            done = len(self.store.samples(run.run_id)) if run else 0
            total = self._totals.get(key, 0)
            if self._bar is not None and key in self._tasks:
                self._bar.update(self._tasks[key], completed=done)
            elif total:
                quarter = min(4, 4 * done // total)
                if quarter > self._quarter.get(key, 0):
                    self._quarter[key] = quarter
                    self.console.print(
                        f"{self._names[key]}: {done}/{total} samples stored", highlight=False
                    )

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()


@dataclass
class _Node:
    actor: Any
    ready: Any  # the ref of ``node()``: resolved once the actor is placed
    placed: bool = False
    busy: bool = False
    #: the server session of the last execution it measured (its server may still be up)
    session: tuple[str, str, int] | None = None


@dataclass
class _Flight:
    node: str
    execution: Execution
    holder: str
    losses: int = 0


@dataclass
class _Dispatch:
    """The driver's state while it hands executions out: what waits, what is in flight on which
    node, the claims' heartbeat and the hand-outs' holder names."""

    queue: deque[Execution]
    beat: Heartbeat
    holder: str
    ttl: float
    totals: dict[tuple[str, int], int]
    progress: ClusterProgress
    user: str = field(default_factory=lambda: RunOrigin.here().user)
    nodes: dict[str, _Node] = field(default_factory=dict)
    flights: dict[Any, _Flight] = field(default_factory=dict)
    losses: dict[tuple[str, int], int] = field(default_factory=dict)
    handouts: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    actor_cls: Any = None  #: the node actor's Ray class, made once
    #: the queued executions' start and measuring estimates (``estimates``), read from the
    #: registry at the start and again whenever an execution lands
    known: dict[tuple[str, int], Estimate] = field(default_factory=dict)


#: how long the driver waits for the node actors to stop their kept servers at the end
CLOSE_TIMEOUT_S = 60.0


#: an idle node starts a second server for a session another node holds only when that
#: session's queued measuring time is more than this many starts (design note 035, addendum)
SECOND_START_FACTOR = 2.0


@dataclass(frozen=True)
class Estimate:
    """What one execution costs, from the registry's earlier runs (``run/start_cost.py``): its
    server's start and its measuring (its samples at the baseline's seconds per sample on its
    suite, else on any suite at its load level)."""

    start_s: float
    measure_s: float


def estimates(
    runs: Sequence[RunRecord], queue: Sequence[Execution], totals: Mapping[tuple[str, int], int]
) -> dict[tuple[str, int], Estimate]:
    """Each queued execution's ``Estimate`` from ``runs`` (the registry's), by execution key;
    none for an execution whose engine, model, quantization and load level have no completed
    start and baseline there."""
    found: dict[tuple[str, int], Estimate] = {}
    by_spec: dict[str, Estimate | None] = {}
    for e in queue:
        fp = e.spec.fingerprint
        if fp not in by_spec:
            cost = start_cost(runs, e.spec)
            if cost is None:
                by_spec[fp] = None
            else:
                per_sample = suite_sample_s(runs, e.spec) or cost.sample_s
                by_spec[fp] = Estimate(cost.start_s, totals[e.key] * per_sample)
        if (est := by_spec[fp]) is not None:
            found[e.key] = est
    return found


def _next_for(
    queue: deque[Execution],
    own: tuple[str, str, int] | None,
    held: set[tuple[str, str, int]],
    known: Mapping[tuple[str, int], Estimate] | None = None,
) -> Execution | None:
    """The execution an idle node takes from ``queue``: the first of the server session it
    served last (its server is still up: no start), else the first of a session no other node
    holds (a start that session needs anyway), else the first of a held session whose queued
    executions measure for more than ``SECOND_START_FACTOR`` of its starts (``known``: by
    execution key), or None: the node waits (design note 035, addendum). A second start that
    does not pay spends a start on work the holder measures as soon; without an estimate none
    is known to pay."""
    for wanted in (lambda k: k == own, lambda k: k not in held):
        for i, e in enumerate(queue):
            if wanted(session_key(e.spec, e.repeat)):
                del queue[i]
                return e
    known = known or {}
    queued: dict[tuple[str, str, int], float] = {}
    unknown: set[tuple[str, str, int]] = set()
    for e in queue:
        k = session_key(e.spec, e.repeat)
        if e.key in known:
            queued[k] = queued.get(k, 0.0) + known[e.key].measure_s
        else:
            unknown.add(k)
    for i, e in enumerate(queue):
        k = session_key(e.spec, e.repeat)
        if k in unknown or e.key not in known:
            continue
        if queued[k] > SECOND_START_FACTOR * known[e.key].start_s:
            del queue[i]
            return e
    return None


def _closed(ray: Any, actors: Sequence[Any]) -> int | None:
    """Ask each actor to stop the servers it kept up; the servers they started in all, or None
    when one did not answer in time (the actors are killed next, and their reapers stop what
    they kept)."""
    try:
        return int(sum(ray.get([a.close.remote() for a in actors], timeout=CLOSE_TIMEOUT_S)))
    except Exception:
        return None


#: how long the driver waits for a cluster's address to accept a connection before it says so
CONNECT_TIMEOUT_S = 10.0


def reachable(address: str, timeout_s: float = CONNECT_TIMEOUT_S) -> None:
    """Refuse, in one line and within ``timeout_s``, a cluster address nothing answers at
    (``ray.init`` would retry it for minutes). ``host:port`` and ``ray://host:port`` are
    checked; ``auto`` and ``local`` are Ray's to resolve."""
    if address in ("auto", "local"):
        return
    hostport = address.removeprefix("ray://")
    host, sep, port = hostport.rpartition(":")
    if not sep or not port.isdigit():
        raise ConfigError(
            f"--address {address}: expected host:port (a Ray head's GCS address, e.g. "
            "head-node:6379), ray://host:port, or auto"
        )
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s).close()
    except OSError as exc:
        raise ConfigError(
            f"--address {address}: no Ray cluster answers there ({exc or 'timed out'}); start "
            "one (ray start --head) or fix the address"
        ) from None


@dataclass
class RayExecutor:
    """Runs a plan's executions on a Ray cluster (``address``; None: RAY_ADDRESS, else a
    cluster started here)."""

    store: Store
    location: str
    console: Console
    address: str | None = None
    runs_dir: Path = Path(".specverdict/runs")
    retry_failed: bool = True
    request_timeout_s: float = 600.0
    log: Log = field(default=print)
    #: node id -> the host its actor reported, for the driver's log
    hosts: dict[str, str] = field(default_factory=dict)
    outcomes: list[tuple[Execution, Outcome]] = field(default_factory=list)
    #: the servers the node actors started in all (kept up between the executions of a
    #: session); None until a run ended with every node idle and answering
    starts: int | None = None

    def _connect(self) -> Any:
        ray = _ray()
        if not ray.is_initialized():
            address = self.address or os.environ.get("RAY_ADDRESS")
            if address:
                reachable(address)
            ray.init(
                address=address,
                log_to_driver=True,
                include_dashboard=False,
                configure_logging=False,
            )
        return ray

    def run(self, plan: Plan, executions: Sequence[Execution]) -> list[RunRecord]:
        """Measure ``executions`` on the cluster's nodes, one actor per node with the engine's
        resources, each execution claimed before it is handed out; until every one landed, or
        no node can take the rest."""
        ray = self._connect()
        launch = plan.campaign.engine.launch
        need = dict(launch.resources) if launch is not None else {}
        if not eligible_nodes(ray.nodes(), need):
            raise ConfigError(
                f"engine.launch.resources {need}: no node of the Ray cluster has them (nodes "
                f"offer {_offers(ray.nodes())}); start nodes with --resources, or change "
                "launch.resources"
            )
        ttl = claim_ttl_s()
        d = _Dispatch(
            queue=deque(executions),
            beat=Heartbeat(self.location, ttl),
            holder=new_holder("ray"),
            ttl=ttl,
            totals={e.key: len(suite_for(e.spec).select(e.spec.samples)) for e in executions},
            progress=ClusterProgress(self.store, self.console, plan.campaign.name),
        )
        self._estimate(d)
        try:
            self._dispatch(ray, plan, need, d)
        except KeyboardInterrupt:
            raise UserInterruptError(
                f"interrupted with {len(d.flights)} run(s) in flight on the cluster and "
                f"{len(d.queue)} waiting: every stored sample is kept; run the same command "
                "again to resume (it sends only what is missing)"
            ) from None
        finally:
            d.progress.close()
            d.beat.close()
            for f in d.flights.values():
                self.store.release(f.execution.spec.fingerprint, f.execution.repeat, f.holder)
            if not d.flights:  # every node idle: each stops the servers it kept up
                self.starts = _closed(ray, [n.actor for n in d.nodes.values() if n.placed])
            for node in d.nodes.values():
                ray.kill(node.actor, no_restart=True)
        return self._records(executions)

    def _dispatch(self, ray: Any, plan: Plan, need: dict[str, float], d: _Dispatch) -> None:
        """Hand executions to idle placed nodes and collect what lands, refreshing the nodes
        every ``NODE_REFRESH_S``; an error once no node has the resources for
        ``NO_NODE_WAIT_S``."""
        last_refresh = 0.0
        no_node_since: float | None = None
        while d.queue or d.flights:
            if time.monotonic() - last_refresh > NODE_REFRESH_S:
                self._refresh(ray, need, d)
                last_refresh = time.monotonic()
            self._hand_out(plan, d)
            if not d.nodes and not d.flights:
                no_node_since = no_node_since or time.monotonic()
                if time.monotonic() - no_node_since > NO_NODE_WAIT_S:
                    raise EngineError(
                        f"no node of the Ray cluster has {need} any more; {len(d.queue)} "
                        "execution(s) not measured: add nodes and run the same command again "
                        "to resume"
                    )
            else:
                no_node_since = None
            readiness = {n.ready: k for k, n in d.nodes.items() if not n.placed}
            waiting = [*d.flights, *readiness]
            if not waiting:
                time.sleep(1.0)  # pacing: nothing to wait on but other executors' claims
                continue
            done, _ = ray.wait(waiting, num_returns=1, timeout=1.0)
            for ref in done:
                if ref in readiness:
                    self._placed(ray, d.nodes, readiness[ref], ref)
                else:
                    flight = d.flights.pop(ref)
                    self._landed(ray, d.nodes, flight, ref, d.queue, d.losses, d.beat)
                    if d.queue:  # what landed is the registry's latest start and speed
                        self._estimate(d)
            d.progress.refresh([f.execution.key for f in d.flights.values()])

    def _refresh(self, ray: Any, need: dict[str, float], d: _Dispatch) -> None:
        """One actor per node that has the resources: new nodes get one, gone idle ones lose
        theirs."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        alive = set(eligible_nodes(ray.nodes(), need))
        for node_id in list(d.nodes):
            if node_id not in alive and not d.nodes[node_id].busy:
                ray.kill(d.nodes.pop(node_id).actor, no_restart=True)
        if d.actor_cls is None:
            d.actor_cls = ray.remote(max_restarts=0, max_task_retries=0)(NodeActor)
        for node_id in alive - set(d.nodes):
            actor = d.actor_cls.options(
                **split_resources(need),
                scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False),
            ).remote(
                self.location,
                str(self.runs_dir.resolve()),
                d.user,
                self.retry_failed,
                self.request_timeout_s,
            )
            d.nodes[node_id] = _Node(actor=actor, ready=actor.node.remote())

    def _estimate(self, d: _Dispatch) -> None:
        """Read the queued executions' estimates from the registry; say when the first ones
        are known."""
        first = not d.known
        every = [*d.queue, *(f.execution for f in d.flights.values())]  # a lost one requeues
        d.known = estimates(self.store.list_runs(), every, d.totals)
        if first and d.known:
            est = next(iter(d.known.values()))
            self.log(
                f"a server start takes {est.start_s:.0f} s on this engine (the registry): an "
                "idle node starts a second server for a session another node holds only when "
                f"that session's queued measuring exceeds {SECOND_START_FACTOR:g} starts"
            )

    def _hand_out(self, plan: Plan, d: _Dispatch) -> None:
        """Give each idle placed node the next execution this executor can claim (``_next_for``:
        its own server session first; nothing when only a second start that does not pay is
        left, and it is offered again at the next pass of the driver's loop); one another
        executor measures goes back to the queue. The nodes whose session has queued
        executions choose first, so that no other node starts a second server for those."""
        queued = {session_key(e.spec, e.repeat) for e in d.queue}
        idle = sorted(
            (n for n, node in d.nodes.items() if node.placed and not node.busy),
            key=lambda n: d.nodes[n].session not in queued,
        )
        blocked = 0
        for node_id in idle:
            node = d.nodes[node_id]
            while d.queue and blocked < len(d.queue):
                held = {n.session for n in d.nodes.values() if n is not node and n.session}
                e = _next_for(d.queue, node.session, held, d.known)
                if e is None:
                    break  # it waits for work it can take without a second start that loses
                # each hand-out its own holder name: the fencing token of the actor's writes, so
                # that an actor taken for lost cannot write after a new one
                flight_holder = f"{d.holder}/{next(d.handouts)}"
                now = take(self.store, e.spec.fingerprint, e.repeat, flight_holder, d.ttl)
                if now != flight_holder:  # another executor measures it: come back to it
                    d.queue.append(e)
                    blocked += 1
                    continue
                d.beat.hold(e.spec.fingerprint, e.repeat, flight_holder)
                node.busy = True
                node.session = session_key(e.spec, e.repeat)
                ref = node.actor.run.remote(plan, e, flight_holder, d.ttl)
                d.flights[ref] = _Flight(node=node_id, execution=e, holder=flight_holder)
                where = self.hosts.get(node_id, "") + f" node {node_id[:8]}"
                d.progress.start(e, d.totals[e.key], where.strip())
                break

    def _placed(self, ray: Any, nodes: dict[str, _Node], node_id: str, ref: Any) -> None:
        try:
            ray.get(ref)
        except ray.exceptions.RayActorError:
            nodes.pop(node_id, None)  # its node went before the actor came up
            return
        if node_id in nodes:
            nodes[node_id].placed = True

    def _landed(
        self,
        ray: Any,
        nodes: dict[str, _Node],
        flight: _Flight,
        ref: Any,
        queue: deque[Execution],
        losses: dict[tuple[str, int], int],
        beat: Heartbeat,
    ) -> None:
        e = flight.execution
        beat.drop(e.spec.fingerprint, e.repeat)
        try:
            outcome: Outcome = ray.get(ref)
        except (ray.exceptions.RayActorError, ray.exceptions.ObjectLostError) as exc:
            nodes.pop(flight.node, None)
            losses[e.key] = losses.get(e.key, 0) + 1
            self.store.release(e.spec.fingerprint, e.repeat, flight.holder)
            cause = type(exc).__name__
            if losses[e.key] > MAX_NODE_LOSSES:
                self.outcomes.append(
                    (
                        e,
                        Outcome(
                            node_id=flight.node,
                            host="",
                            error_class="RunInterruptedError",
                            error=f"{e.name}: {losses[e.key]} nodes lost while measuring it",
                        ),
                    )
                )
                return
            self.log(
                f"{e.name}: node {flight.node[:8]} lost mid-run ({cause}); resuming it on another "
                "node from the registry"
            )
            queue.appendleft(e)
            return
        self.store.release(e.spec.fingerprint, e.repeat, flight.holder)
        node = nodes.get(flight.node)
        if node is not None:
            node.busy = False
        self.hosts[flight.node] = outcome.host
        self.outcomes.append((e, outcome))

    def _records(self, executions: Sequence[Execution]) -> list[RunRecord]:
        """The executions' runs in their planned order; the first error, after all ran."""
        index = {e.key: i for i, e in enumerate(executions)}
        self.outcomes.sort(key=lambda eo: index.get(eo[0].key, len(index)))
        failed = [(e, o) for e, o in self.outcomes if o.error_class is not None]
        if failed:
            _e, o = failed[0]
            cls = getattr(errors, o.error_class or "", None)
            if not (isinstance(cls, type) and issubclass(cls, SpecverdictError)):
                cls = EngineError
            more = f" ({len(failed) - 1} other execution(s) failed too)" if len(failed) > 1 else ""
            raise cls(f"{o.error}{more}")
        return [self.store.get_run(o.run_id) for _, o in self.outcomes if o.run_id is not None]
