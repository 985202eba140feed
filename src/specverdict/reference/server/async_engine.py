"""A worker thread that interleaves active requests step by step and feeds asyncio consumers.

Each loop iteration admits waiting requests and advances up to ``max_num_seqs`` active requests
by one engine step in one batched target forward (continuous batching: prefills and decode or
verify steps of different requests share the pass), rotating through the active requests when
there are more, so a long generation does not block a short one's first token. A request whose
step raises is finished with reason ``error`` and the exception is delivered to its consumer;
the worker keeps serving.

On the virtual device clock (``--device-clock virtual``) the device waits for no client: a
closed-loop client refills a slot at the same device instant as the request that freed it. The
host cannot do that, so the worker waits for it instead (host time only, the device clock does
not move): after a step that finished requests it takes no further step until as many new
requests have arrived, or ``admission_wait_s`` has passed (``--virtual-admission-wait``) (then
the client is draining, and the worker stops waiting until the next arrival); and a burst of
arrivals to an idle engine is admitted once it has been quiet for ``settle_s``. Which requests
share a step then no longer depends on how fast the host's client answers.

A request that offered tools is an agent's turn: its client runs a tool (a sandboxed test run
can take a second) before it asks again, and that time is the client's, not the device's. The
worker does not wait for it: waiting would stall every other episode for each tool call, in
turn. An agent stage's batches therefore follow its tools' host time, as on a real engine, and
the speed gate's drift term holds what that varies between executions.
"""

from __future__ import annotations

import asyncio
import queue
import threading
import time
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from typing import Any

from specverdict.reference.engine import EngineCore, GenerationRequest, RequestOutput, RequestState


class EngineStepError(RuntimeError):
    """A request failed inside the engine; the message says why."""


@dataclass
class _Handle:
    request: GenerationRequest
    loop: asyncio.AbstractEventLoop
    outputs: asyncio.Queue[RequestOutput | BaseException]
    cancelled: threading.Event = field(default_factory=threading.Event)
    state: RequestState | None = None

    def deliver(self, item: RequestOutput | BaseException) -> None:
        self.loop.call_soon_threadsafe(self.outputs.put_nowait, item)


def _put_all(
    items: list[tuple[asyncio.Queue[RequestOutput | BaseException], RequestOutput]],
) -> None:
    for outputs, item in items:
        outputs.put_nowait(item)


def _deliver_step(delivered: list[tuple[_Handle, RequestOutput]]) -> None:
    """A step's outputs, one wake-up of each consumer's event loop for all of them (a wake-up a
    token per request cost the server a tenth of its time at concurrency 8)."""
    by_loop: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Queue[Any], RequestOutput]]] = {}
    for handle, out in delivered:
        by_loop.setdefault(handle.loop, []).append((handle.outputs, out))
    for loop, items in by_loop.items():
        loop.call_soon_threadsafe(_put_all, items)


#: on the virtual clock: how quiet a burst of arrivals to an idle engine must fall before its first step
SETTLE_S = 0.05


class AsyncEngine:
    def __init__(
        self,
        core: EngineCore,
        max_num_seqs: int | None = None,
        admission_wait_s: float | None = None,
        settle_s: float = SETTLE_S,
    ) -> None:
        self.core = core
        self.max_num_seqs = max_num_seqs or core.config.max_num_seqs
        #: wait (host time) for the client on the virtual clock; 0 never waits
        virtual = core.config.device_clock == "virtual"
        if admission_wait_s is None:
            admission_wait_s = core.config.virtual_admission_wait_s
        self.admission_wait_s = admission_wait_s if virtual else 0.0
        self.settle_s = settle_s if virtual else 0.0
        self._inbox: queue.SimpleQueue[_Handle | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="reference-engine", daemon=True)
        self._stopping = threading.Event()
        self.running = 0
        #: waits for the client that ran out (host time spent on a client that sent no more)
        self.admission_timeouts = 0

    @property
    def waiting(self) -> int:
        return self._inbox.qsize()

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        self._inbox.put(None)
        self._thread.join(timeout=10)

    async def generate(self, request: GenerationRequest) -> AsyncGenerator[RequestOutput, None]:
        handle = _Handle(request, asyncio.get_running_loop(), asyncio.Queue())
        self._inbox.put(handle)
        finished = False
        try:
            while True:
                item = await handle.outputs.get()
                if isinstance(item, BaseException):
                    finished = True
                    raise EngineStepError(str(item)) from item
                yield item
                if item.finish_reason is not None:
                    finished = True
                    return
        finally:
            if not finished:
                handle.cancelled.set()

    def _admit(self, handle: _Handle, active: list[_Handle]) -> bool:
        """Start a request; False when it failed at once (answered with its error)."""
        try:
            handle.state = self.core.start(handle.request)
        except Exception as exc:  # bad request that slipped validation: answer it, keep serving
            self.core.sink.request_finished("error")
            handle.deliver(exc)
            return False
        active.append(handle)
        return True

    def _take(self, active: list[_Handle], timeout: float | None) -> bool | None:
        """Admit one arrival, waiting up to ``timeout`` seconds (None: block until one comes;
        0: only one already waiting). Returns whether it started (False: it failed at once), or
        None when nothing came or the engine is stopping."""
        if self._stopping.is_set():  # its wake-up may have been taken by an earlier wait
            return None
        try:
            if timeout is None:
                item = self._inbox.get()
            elif timeout <= 0:
                item = self._inbox.get_nowait()
            else:
                item = self._inbox.get(timeout=timeout)
        except queue.Empty:
            return None
        if item is None:  # stop() woke us
            return None
        return self._admit(item, active)

    def _admit_arrivals(self, active: list[_Handle], owed: int, draining: bool) -> tuple[int, bool]:
        """Admit what has arrived, waiting on the virtual clock as the module says. ``owed``:
        finished requests the client has not refilled yet; ``draining``: a wait for it timed
        out, and no request has arrived since. Returns (owed, draining)."""
        arrived = failed = 0

        def take(timeout: float | None) -> bool:
            nonlocal arrived, failed
            started = self._take(active, timeout)
            if started is None:
                return False
            arrived, failed = arrived + 1, failed + (not started)
            return True

        idle = not active
        while take(0):
            pass
        if arrived:
            draining = False
        if owed > arrived and not draining and self.admission_wait_s > 0:
            deadline = time.monotonic() + self.admission_wait_s
            while owed > arrived:
                if not take(deadline - time.monotonic()):
                    # the client sends no more (its run's tail): stop waiting for it
                    owed, draining = arrived, True
                    self.admission_timeouts += 1
                    break
        if not active and not failed:  # nothing to step: block for the next arrival
            if not take(None):
                return 0, draining
            draining = False
        # an idle engine's first arrival may be the first of a burst (a closed loop starting,
        # its first slot refilled by the wait above): admit the burst together
        while idle and self.settle_s > 0 and take(self.settle_s):
            pass
        # a request that failed at admission is finished too: the client refills it
        return max(0, owed - arrived) + failed, draining

    def _run(self) -> None:
        active: list[_Handle] = []
        owed, draining = 0, False  # the virtual clock's wait for the client (module docstring)
        while not self._stopping.is_set():
            owed, draining = self._admit_arrivals(active, owed, draining)
            if self._stopping.is_set():
                break
            self.running = len(active)
            refills = 0  # finished requests whose client asks again at once
            for handle in [h for h in active if h.cancelled.is_set()]:
                assert handle.state is not None
                handle.deliver(handle.state.abort())
                active.remove(handle)
                refills += 1
            batch = active[: self.max_num_seqs]
            states = [h.state for h in batch if h.state is not None]
            outs = self.core.step_batch(states) if states else []
            delivered: list[tuple[_Handle, RequestOutput]] = []
            for handle, out in zip(batch, outs, strict=True):
                if isinstance(out, Exception):
                    self.core.sink.request_finished("error")
                    handle.deliver(out)
                    active.remove(handle)
                    refills += 1
                    continue
                delivered.append((handle, out))
                if out.finish_reason is not None:
                    active.remove(handle)
                    refills += not handle.request.offers_tools
            _deliver_step(delivered)
            if self.admission_wait_s and not draining:
                owed += refills
            if len(active) > self.max_num_seqs:  # rotate: the rest go first next time
                served = [h for h in batch if h in active]
                active[:] = [h for h in active if h not in served] + served
            self.running = len(active)
