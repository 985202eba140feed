"""The Ray executor's hand-out when a server start is dear (design note 035, addendum): an idle
node starts a second server for a session another node holds only when that session's queued
measuring is more than ``SECOND_START_FACTOR`` starts; otherwise it waits, and it is offered
work again until its own session, a session nobody holds, or the holder's loss gives it some.
No Ray here: the nodes, the claims and the heartbeat are stand-ins."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.plan import in_sessions, session_key
from specverdict.campaign.spec import RunSpec
from specverdict.records import RunRecord
from specverdict.run.executors import cluster
from specverdict.run.executors.cluster import (
    SECOND_START_FACTOR,
    Estimate,
    Execution,
    RayExecutor,
    _Dispatch,
    _next_for,
    _Node,
    estimates,
)
from specverdict.run.start_cost import StartCost
from tests.conftest import campaign_yaml

CAMPAIGN = campaign_yaml(
    "second-starts",
    candidates=[{"method": "mtp", "k": 2}],
    stages={
        "function": {"suite": "synth-function@1", "samples": {"first": 8}},
        "prose": {"suite": "prose@1", "samples": {"first": 4}},
    },
    max_tokens=8,
    concurrency=[2],
    warmup=None,
    baseline_repeats=None,  # the baseline twice: sessions baseline 0, mtp 0, baseline 1
)
PLAN = build_plan(parse_campaign(CAMPAIGN, Path("second-starts.yaml")))
ORDER = [
    Execution(spec=e.spec, repeat=e.repeat, order=(e.repeat, e.position))
    for e in in_sessions(PLAN.runs, PLAN.repeats_of)
]
# two executions (function, prose) in each of three sessions, in the plan's order
BASE0, BASE0B, MTP0, MTP0B, BASE1, BASE1B = ORDER
S_BASE0, S_MTP0, S_BASE1 = (session_key(e.spec, e.repeat) for e in (BASE0, MTP0, BASE1))


def known(measure_s: float, start_s: float = 60.0) -> dict[tuple[str, int], Estimate]:
    return {e.key: Estimate(start_s=start_s, measure_s=measure_s) for e in ORDER}


def test_the_plan_has_three_sessions_of_two_executions() -> None:
    assert len(ORDER) == 6
    assert [session_key(e.spec, e.repeat) for e in ORDER] == [
        S_BASE0, S_BASE0, S_MTP0, S_MTP0, S_BASE1, S_BASE1
    ]  # fmt: skip
    assert len({S_BASE0, S_MTP0, S_BASE1}) == 3


def test_an_idle_node_does_not_start_a_second_server_that_does_not_pay() -> None:
    """The demo's end on two nodes: one node measures a session, the other has finished its
    own and nobody else's session is left. Two executions of 12 s against a 60 s start: it
    waits (before, it started a second server for the held session's next execution)."""
    queue = deque([MTP0B])
    assert _next_for(queue, S_BASE0, {S_MTP0}, known(12.0)) is None
    assert list(queue) == [MTP0B]  # nothing taken
    # the same with no estimate at all (a first campaign before its first execution landed)
    assert _next_for(queue, S_BASE0, {S_MTP0}) is None
    assert _next_for(queue, S_BASE0, {S_MTP0}, {}) is None
    assert list(queue) == [MTP0B]


def test_a_second_start_is_taken_when_the_queued_work_exceeds_the_margin() -> None:
    # 2 x 70 s = 140 s queued against 2 x 60 s: it pays; the first of that session is taken
    queue = deque([MTP0, MTP0B])
    assert _next_for(queue, S_BASE0, {S_MTP0}, known(70.0)) is MTP0
    assert list(queue) == [MTP0B]
    # 2 x 60 s = 120 s, exactly the margin: not more than it, no second start
    queue = deque([MTP0, MTP0B])
    assert SECOND_START_FACTOR * 60.0 == 120.0
    assert _next_for(queue, S_BASE0, {S_MTP0}, known(60.0)) is None
    # one execution of 121 s: more than the margin
    queue = deque([MTP0B])
    assert _next_for(queue, S_BASE0, {S_MTP0}, known(121.0)) is MTP0B
    # a cheap start (2 s): even 12 s of queued work pays
    queue = deque([MTP0B])
    assert _next_for(queue, S_BASE0, {S_MTP0}, known(12.0, start_s=2.0)) is MTP0B


def test_the_session_whose_queued_work_pays_is_chosen_in_queue_order() -> None:
    queue = deque([MTP0B, BASE1, BASE1B])
    by_key = {MTP0B.key: Estimate(60.0, 50.0)}  # 50 s queued: no
    by_key |= {BASE1.key: Estimate(60.0, 70.0), BASE1B.key: Estimate(60.0, 70.0)}  # 140 s
    assert _next_for(queue, None, {S_MTP0, S_BASE1}, by_key) is BASE1
    assert list(queue) == [MTP0B, BASE1B]


def test_a_session_with_an_execution_of_unknown_cost_is_not_started_twice() -> None:
    queue = deque([MTP0, MTP0B])
    only_one = {MTP0.key: Estimate(60.0, 500.0)}
    assert _next_for(queue, S_BASE0, {S_MTP0}, only_one) is None


def test_own_session_first_then_one_nobody_holds_whatever_the_estimates() -> None:
    queue = deque([MTP0B, BASE1, BASE1B])
    assert _next_for(queue, S_BASE1, {S_MTP0}, known(12.0)) is BASE1  # its own: no start
    queue = deque([MTP0B, BASE1, BASE1B])
    assert _next_for(queue, S_BASE0, {S_MTP0}, known(1000.0)) is BASE1  # a start it needs
    assert list(queue) == [MTP0B, BASE1B]


def test_estimates_are_the_executions_samples_at_the_registrys_seconds_per_sample(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def fake(_runs: Sequence[RunRecord], spec: RunSpec) -> StartCost | None:
        if spec.stage == "prose":
            return None  # say, no baseline of that engine at this level in the registry
        return StartCost(start_s=60.0, starts=3, sample_s=1.5, baselines=2)

    suite_s: list[float | None] = [None]
    monkeypatch.setattr(cluster, "start_cost", fake)
    monkeypatch.setattr(cluster, "suite_sample_s", lambda _runs, _spec: suite_s[0])
    totals = {e.key: 8 if e.spec.stage == "function" else 4 for e in ORDER}
    # no baseline of the suite itself: the baseline's seconds per sample on any suite
    found = estimates([], ORDER, totals)
    assert found == {e.key: Estimate(60.0, 12.0) for e in ORDER if e.spec.stage == "function"}
    suite_s[0] = 0.25  # the suite's own baselines: 8 samples of 0.25 s
    found = estimates([], ORDER, totals)
    assert found == {e.key: Estimate(60.0, 2.0) for e in ORDER if e.spec.stage == "function"}


@dataclass
class FakeStore:
    """Claims that always go to the asker."""

    def claim(self, _fp: str, _repeat: int, holder: str, _ttl: float) -> str:
        return holder


@dataclass
class FakeBeat:
    held: list[tuple[str, int]] = field(default_factory=list)

    def hold(self, fingerprint: str, repeat: int, _holder: str) -> None:
        self.held.append((fingerprint, repeat))


@dataclass
class FakeProgress:
    def start(self, _e: Execution, _total: int, _where: str) -> None:
        return None


@dataclass
class FakeActor:
    """``actor.run.remote(...)``: records what it was handed."""

    name: str
    handed: list[Execution] = field(default_factory=list)

    @property
    def run(self) -> FakeActor:
        return self

    def remote(self, _plan: Any, e: Execution, _holder: str, _ttl: float) -> tuple[str, str]:
        self.handed.append(e)
        return (self.name, e.spec.fingerprint + str(e.repeat))


def node(name: str, session: tuple[str, str, int] | None, busy: bool = False) -> _Node:
    return _Node(actor=FakeActor(name), ready=None, placed=True, busy=busy, session=session)


def dispatch(queue: Sequence[Execution], nodes: dict[str, _Node], measure_s: float) -> _Dispatch:
    return _Dispatch(
        queue=deque(queue),
        beat=FakeBeat(),  # type: ignore[arg-type]
        holder="test",
        ttl=30.0,
        totals={e.key: 1 for e in ORDER},
        progress=FakeProgress(),  # type: ignore[arg-type]
        nodes=nodes,
        known=known(measure_s),
    )


def executor() -> RayExecutor:
    return RayExecutor(store=FakeStore(), location="", console=Console(quiet=True))  # type: ignore[arg-type]


def handed(n: _Node) -> list[Execution]:
    return list(n.actor.handed)


def test_an_idle_node_waits_and_the_holder_takes_its_session_when_its_flight_lands() -> None:
    a, b = node("a", S_MTP0, busy=True), node("b", S_BASE0)
    d = dispatch([MTP0B], {"a": a, "b": b}, measure_s=12.0)
    ex = executor()
    ex._hand_out(PLAN, d)
    assert handed(b) == [] and not b.busy and list(d.queue) == [MTP0B]  # b waits
    ex._hand_out(PLAN, d)  # the driver's next pass, nothing landed: still waits
    assert handed(b) == [] and not d.flights
    a.busy = False  # a's flight landed: a is offered work at the next pass, b again too
    ex._hand_out(PLAN, d)
    assert handed(a) == [MTP0B] and handed(b) == [] and not d.queue
    assert a.busy and a.session == S_MTP0


def test_the_holder_chooses_before_a_node_listed_before_it() -> None:
    """Both idle, the node without queued work first in line: the holder takes its session's
    next execution and the other node starts nothing."""
    b, a = node("b", S_BASE0), node("a", S_MTP0)
    d = dispatch([MTP0B], {"b": b, "a": a}, measure_s=12.0)
    executor()._hand_out(PLAN, d)
    assert handed(a) == [MTP0B] and handed(b) == []


def test_an_idle_node_takes_the_work_of_a_holder_that_was_lost() -> None:
    """The holder's node is gone (``_landed`` drops it and puts its execution back first in
    line): its session is held by nobody, and the idle node takes it at the next pass."""
    a, b = node("a", S_MTP0, busy=True), node("b", S_BASE0)
    d = dispatch([MTP0B], {"a": a, "b": b}, measure_s=12.0)
    ex = executor()
    ex._hand_out(PLAN, d)
    assert handed(b) == []
    del d.nodes["a"]
    d.queue.appendleft(MTP0)
    ex._hand_out(PLAN, d)
    assert handed(b) == [MTP0] and b.session == S_MTP0 and list(d.queue) == [MTP0B]


def test_work_that_pays_a_second_start_is_taken_at_once() -> None:
    a, b = node("a", S_MTP0, busy=True), node("b", S_BASE0)
    d = dispatch([MTP0B], {"a": a, "b": b}, measure_s=500.0)
    executor()._hand_out(PLAN, d)
    assert handed(b) == [MTP0B] and b.session == S_MTP0


def test_two_idle_nodes_share_the_sessions_nobody_holds() -> None:
    a, b = node("a", None), node("b", None)
    d = dispatch(ORDER, {"a": a, "b": b}, measure_s=12.0)
    executor()._hand_out(PLAN, d)
    assert handed(a) == [BASE0] and handed(b) == [MTP0]
