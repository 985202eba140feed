"""A worker thread that interleaves active requests step by step and feeds asyncio consumers.

Each loop iteration admits waiting requests and advances every active request by one engine step
(round robin), so a long generation does not block a short one's first token. Requests are not
batched into one forward pass (a later engine feature). A request whose step raises is finished
with reason ``error`` and the exception is delivered to its consumer; the worker keeps serving.
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
    def __init__(self, core: EngineCore) -> None:
        self.core = core
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
            for handle in list(active):
                state = handle.state
                assert state is not None
                try:
                    out = state.abort() if handle.cancelled.is_set() else state.advance()
                except Exception as exc:
                    self.core.sink.request_finished("error")
                    handle.deliver(exc)
                    active.remove(handle)
                    continue
                handle.deliver(out)
                if out.finish_reason is not None:
                    active.remove(handle)
            self.running = len(active)
