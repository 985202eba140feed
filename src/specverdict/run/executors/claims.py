"""Claims: two executors never measure the same fingerprint and repeat at once.

Before a run is measured its (fingerprint, repeat) is claimed in the registry for a lease of
``claim_ttl_s()`` seconds, renewed by a heartbeat thread on a connection of its own while the
run lasts and released when it ends. An executor that dies stops renewing: its claims expire
and another executor (a new driver) takes them over and resumes the runs from the registry.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from specverdict.campaign.plan import Plan
from specverdict.campaign.spec import RunSpec
from specverdict.errors import StoreError
from specverdict.records import RunRecord
from specverdict.run.runner import Runner
from specverdict.store import Store, open_store

#: the lease of a claim when SPECVERDICT_CLAIM_TTL_S does not say otherwise
DEFAULT_TTL_S = 60.0
#: how long an executor waits between tries for a run another executor holds
WAIT_S = 2.0


def claim_ttl_s() -> float:
    return float(os.environ.get("SPECVERDICT_CLAIM_TTL_S", DEFAULT_TTL_S))


def new_holder(kind: str) -> str:
    """A holder name that says who holds a claim: executor kind, host, process, a nonce."""
    return f"{kind}:{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


def holder_is_gone(holder: str) -> bool:
    """A local runner on this host whose process has ended (killed): nothing writes for it any
    more, so its claim need not wait for the lease to expire. A holder elsewhere is never judged
    from here, nor a Ray driver, whose actors may write for a moment after it died."""
    parts = holder.split(":")
    if len(parts) != 4 or parts[0] != "local" or parts[1] != socket.gethostname():
        return False
    if not parts[2].isdigit():
        return False
    try:
        os.kill(int(parts[2]), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def take(store: Store, fingerprint: str, repeat: int, holder: str, ttl_s: float) -> str:
    """``store.claim``, taking over at once the claim of a holder on this host that is gone."""
    now = store.claim(fingerprint, repeat, holder, ttl_s)
    if now not in (holder, "") and holder_is_gone(now):
        store.release(fingerprint, repeat, now)
        now = store.claim(fingerprint, repeat, holder, ttl_s)
    return now


class Heartbeat:
    """Renews a set of claims every third of their lease, on its own store connection."""

    def __init__(self, location: str | Path, ttl_s: float) -> None:
        self.location = location
        self.ttl_s = ttl_s
        self._held: dict[tuple[str, int], str] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.error: str | None = None
        self._thread = threading.Thread(target=self._loop, name="claim-heartbeat", daemon=True)
        self._thread.start()

    def hold(self, fingerprint: str, repeat: int, holder: str) -> None:
        with self._lock:
            self._held[(fingerprint, repeat)] = holder

    def drop(self, fingerprint: str, repeat: int) -> None:
        with self._lock:
            self._held.pop((fingerprint, repeat), None)

    def _loop(self) -> None:
        store: Store | None = None
        try:
            while not self._stop.wait(self.ttl_s / 3):
                with self._lock:
                    held = dict(self._held)
                if not held:
                    continue
                store = store or open_store(self.location)
                for (fp, repeat), holder in held.items():
                    now = store.claim(fp, repeat, holder, self.ttl_s)
                    if now != holder:  # expired while we were away, and taken over
                        self.error = f"claim on {fp} repeat {repeat} was taken over by {now}"
        except StoreError as exc:
            self.error = str(exc)
        finally:
            if store is not None:
                store.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)


def wait_for_claim(
    store: Store,
    spec: RunSpec,
    repeat: int,
    holder: str,
    ttl_s: float,
    log: Callable[[str], None],
) -> None:
    """Block until ``holder`` holds the claim; say once who holds it meanwhile."""
    told = False
    while True:
        now = take(store, spec.fingerprint, repeat, holder, ttl_s)
        if now == holder:
            return
        if not told and now:
            log(
                f"{spec.speculation.label}, {spec.stage}, repeat {repeat}: measured by {now}; "
                "waiting for it to end"
            )
            told = True
        time.sleep(WAIT_S)  # pacing of a poll for another executor's claim


class ClaimingRunner(Runner):
    """The local executor: ``Runner`` whose every execution is claimed first."""

    def __init__(self, store: Store, location: str | Path, **options: object) -> None:
        super().__init__(store, **options)  # type: ignore[arg-type]
        self.location = location
        self.holder = new_holder("local")

    @contextmanager
    def _claimed(self, spec: RunSpec, repeat: int) -> Iterator[None]:
        ttl = claim_ttl_s()
        wait_for_claim(self.store, spec, repeat, self.holder, ttl, self.log)
        beat = Heartbeat(self.location, ttl)
        beat.hold(spec.fingerprint, repeat, self.holder)
        try:
            yield
        finally:
            beat.close()
            with contextlib.suppress(StoreError):  # else the lease expires by itself
                self.store.release(spec.fingerprint, repeat, self.holder)

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
        with self._claimed(spec, repeat):
            return super().run_one(plan, spec, repeat, order, limit, block, block_size)
