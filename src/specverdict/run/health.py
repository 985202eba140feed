"""One execution's engine, watched while it is measured: its health and where its time goes.

``Health`` stops the requests once the engine is gone: a launched engine's process that exited,
or ``CONSECUTIVE_FAULTS`` connection failures or timeouts in a row (docs/faults.md); the first
cause is kept. ``EngineClock`` splits a segment's engine time into start-up, warm-up, measured
requests and idle (``records.EngineTime``, docs/engine-time.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import time

from specverdict.engines.launcher import LaunchedServer
from specverdict.records import EngineTime, SampleRecord
from specverdict.records.failures import engine_fault

#: connection failures or timeouts in a row (no answer between them) that stop a run: the engine
#: is gone or hung, and every further request would fail the same way
CONSECUTIVE_FAULTS = 3
#: how often a launched engine's process is checked for an exit while requests run
PROCESS_CHECK_S = 0.25
#: how long a run stopped by failed requests waits to see whether its launched engine exited
EXIT_GRACE_S = 0.5


class Health:
    """The engine's health during one execution: ``trip`` records the first cause and stops
    further requests."""

    def __init__(self, server: LaunchedServer | None) -> None:
        self.server = server
        self.stopped = asyncio.Event()
        self.cause: str | None = None
        self.in_a_row = 0

    def exited(self) -> str | None:
        proc = self.server.process if self.server is not None else None
        code = proc.poll() if proc is not None else None
        if code is None:
            return None
        assert self.server is not None
        return f"the engine exited with code {code}: {self.server.first_error()}".rstrip("; ")

    def trip(self, cause: str) -> None:
        if self.cause is not None:
            return
        proc = self.server.process if self.server is not None else None
        if proc is not None:  # connections break as a process dies, a moment before it exits
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=EXIT_GRACE_S)
        self.cause = self.exited() or cause
        self.stopped.set()

    def observe(self, record: SampleRecord) -> None:
        if record.status == "ok":
            self.in_a_row = 0
        elif engine_fault(record.status, record.error):
            self.in_a_row += 1
            if self.exited() is not None or self.in_a_row >= CONSECUTIVE_FAULTS:
                self.trip(
                    f"{self.in_a_row} requests in a row failed, the last with: {record.error}"
                )

    async def watch_process(self) -> None:
        while not self.stopped.is_set():
            cause = self.exited()
            if cause is not None:
                self.trip(cause)
                return
            await asyncio.sleep(PROCESS_CHECK_S)  # pacing of a liveness check


class EngineClock:
    """Where one segment's engine time goes (``time.monotonic``): ``began`` when the server
    process starts (launch) or the first request goes out (attach), ``ready`` when a launched
    server's health said ready, then the warm-up and measured phases as the runner enters and
    leaves them; ``finish`` splits the span up to its end, the rest of it idle."""

    def __init__(self) -> None:
        self.began: float | None = None
        self.startup: float | None = None
        self.last = 0.0  # the last answer, where an attached engine's span ends
        self.spent = {"warmup": 0.0, "measured": 0.0}
        self._phase: str | None = None
        self._since = 0.0

    def launching(self) -> None:
        self.began = time.monotonic()

    def ready(self) -> None:
        assert self.began is not None
        self.startup = time.monotonic() - self.began

    def resume(self, idle_since: float) -> None:
        """A kept server serves this execution: no start; its span begins where the server's
        last use ended, so the time since is idle."""
        self.began = idle_since
        self.startup = 0.0

    def enter(self, phase: str | None) -> None:
        """Close the open phase and open ``phase`` (None: idle); the first call of an attached
        engine starts its span."""
        now = time.monotonic()
        if self.began is None:
            self.began = now
        if self._phase is not None:
            self.spent[self._phase] += now - self._since
        self._phase, self._since, self.last = phase, now, now

    def pause(self) -> None:
        """Close the open phase, if any (the requests stopped: what follows is idle)."""
        if self._phase is not None:
            self.enter(None)

    def finish(self, end: float | None = None) -> EngineTime | None:
        """The segment's figures up to ``end`` (default: now for a launched engine, the last
        answer for an attached one); None when the engine was never started nor sent to."""
        if self.began is None:
            return None
        self.pause()
        if end is None:
            end = time.monotonic() if self.startup is not None else self.last
        return EngineTime.of(
            max(0.0, end - self.began),
            self.startup,
            self.spent["warmup"],
            self.spent["measured"],
        )
