"""A worker thread that interleaves active requests step by step and feeds asyncio consumers.

Each loop iteration admits waiting requests and advances up to ``max_num_seqs`` active requests
by one engine step in one batched target forward (continuous batching: prefills and decode or
verify steps of different requests share the pass), rotating through the active requests when
there are more, so a long generation does not block a short one's first token. A request whose
step raises is finished with reason ``error`` and the exception is delivered to its consumer;
the worker keeps serving.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field

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


class AsyncEngine:
    def __init__(self, core: EngineCore, max_num_seqs: int | None = None) -> None:
        self.core = core
        self.max_num_seqs = max_num_seqs or core.config.max_num_seqs
        self._inbox: queue.SimpleQueue[_Handle | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="reference-engine", daemon=True)
        self._stopping = threading.Event()
        self.running = 0

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

    def _admit(self, handle: _Handle, active: list[_Handle]) -> None:
        try:
            handle.state = self.core.start(handle.request)
        except Exception as exc:  # bad request that slipped validation: answer it, keep serving
            self.core.sink.request_finished("error")
            handle.deliver(exc)
            return
        active.append(handle)

    def _run(self) -> None:
        active: list[_Handle] = []
        while not self._stopping.is_set():
            try:
                item = self._inbox.get(block=not active)
                while item is not None:
                    self._admit(item, active)
                    item = self._inbox.get_nowait()
            except queue.Empty:
                pass
            self.running = len(active)
            for handle in [h for h in active if h.cancelled.is_set()]:
                assert handle.state is not None
                handle.deliver(handle.state.abort())
                active.remove(handle)
            batch = active[: self.max_num_seqs]
            states = [h.state for h in batch if h.state is not None]
            outs = self.core.step_batch(states) if states else []
            for handle, out in zip(batch, outs, strict=True):
                if isinstance(out, Exception):
                    self.core.sink.request_finished("error")
                    handle.deliver(out)
                    active.remove(handle)
                    continue
                handle.deliver(out)
                if out.finish_reason is not None:
                    active.remove(handle)
            if len(active) > self.max_num_seqs:  # rotate: the rest go first next time
                served = [h for h in batch if h in active]
                active[:] = [h for h in active if h not in served] + served
            self.running = len(active)
