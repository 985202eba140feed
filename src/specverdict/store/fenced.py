"""A store whose writes are fenced by a claim: one writer per run, even across a split brain.

A Ray actor whose node the driver took for lost (its raylet died) can keep measuring for a
while: its process is alive, the driver no longer hears it. The driver releases the run's claim
and hands the run to another node under a new holder name. ``FencedStore`` wraps the store of
the executor that measures one run and, before each write, renews the claim in the holder name
it was given (``Store.claim`` answers the holder after the call): a claim that another holder
took means the run was handed over, and the write is refused with ``FencedError``. The stale
executor stops at its next write; what it committed before is kept, and the new holder resumes
the run from the registry, as after any lost node. This is the fencing token of a lease-based
lock (Kleppmann, "How to do distributed locking", 2016) with the holder name as the token.

The check costs one claim renewal (a single-row update) per write. Reads are not fenced.
"""

from __future__ import annotations

from contextlib import AbstractContextManager

from specverdict.campaign.spec import RunSpec
from specverdict.errors import FencedError
from specverdict.records import (
    ManifestUpdate,
    MetricsSnapshot,
    RunManifest,
    RunRecord,
    RunStatus,
    SampleRecord,
    Score,
)
from specverdict.store.base import RunOrigin, Store


class FencedStore:
    """``inner`` with every write of one execution fenced by ``holder``'s claim on
    (``fingerprint``, ``repeat``), renewed for ``ttl_s`` at each write."""

    def __init__(
        self, inner: Store, fingerprint: str, repeat: int, holder: str, ttl_s: float
    ) -> None:
        self.inner = inner
        self.path = inner.path
        self.fingerprint = fingerprint
        self.repeat = repeat
        self.holder = holder
        self.ttl_s = ttl_s

    def _fence(self) -> None:
        now = self.inner.claim(self.fingerprint, self.repeat, self.holder, self.ttl_s)
        if now != self.holder:
            raise FencedError(
                f"run registry {self.path}: the claim on {self.fingerprint} repeat "
                f"{self.repeat} is held by {now}, not by this executor ({self.holder}): the run "
                "was handed to another executor, and this one's writes are refused"
            )

    # --- writes: fenced -----------------------------------------------------------------------

    def create_run(
        self, spec: RunSpec, repeat: int, manifest: RunManifest | None = None
    ) -> RunRecord:
        self._fence()
        return self.inner.create_run(spec, repeat, manifest)

    def update_run(
        self,
        run_id: str,
        *,
        status: RunStatus | None = None,
        manifest: ManifestUpdate | None = None,
    ) -> RunRecord:
        self._fence()
        return self.inner.update_run(run_id, status=status, manifest=manifest)

    def add_sample(self, sample: SampleRecord) -> None:
        self._fence()
        self.inner.add_sample(sample)

    def add_score(self, run_id: str, sample_id: str, attempt: int, score: Score) -> None:
        self._fence()
        self.inner.add_score(run_id, sample_id, attempt, score)

    def add_snapshot(self, snapshot: MetricsSnapshot) -> None:
        self._fence()
        self.inner.add_snapshot(snapshot)

    def delete_run(self, run_id: str) -> None:
        self._fence()
        self.inner.delete_run(run_id)

    # --- reads and claims: as the inner store -------------------------------------------------

    def get_run(self, run_id: str) -> RunRecord:
        return self.inner.get_run(run_id)

    def list_runs(
        self, *, campaign: str | None = None, user: str | None = None, host: str | None = None
    ) -> list[RunRecord]:
        return self.inner.list_runs(campaign=campaign, user=user, host=host)

    def origin(self, run_id: str) -> RunOrigin:
        return self.inner.origin(run_id)

    def resumable(self, fingerprint: str, repeat: int) -> RunRecord | None:
        return self.inner.resumable(fingerprint, repeat)

    def samples(self, run_id: str) -> list[SampleRecord]:
        return self.inner.samples(run_id)

    def attempts(self, run_id: str) -> list[SampleRecord]:
        return self.inner.attempts(run_id)

    def snapshots(self, run_id: str) -> dict[str, MetricsSnapshot]:
        return self.inner.snapshots(run_id)

    def claim(self, fingerprint: str, repeat: int, holder: str, ttl_s: float) -> str:
        return self.inner.claim(fingerprint, repeat, holder, ttl_s)

    def release(self, fingerprint: str, repeat: int, holder: str) -> None:
        self.inner.release(fingerprint, repeat, holder)

    def exclusive_runner(self) -> AbstractContextManager[None]:
        return self.inner.exclusive_runner()

    def close(self) -> None:
        self.inner.close()
