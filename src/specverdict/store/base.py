"""The ``Store`` interface: the run registry the runner writes and reports read."""

from __future__ import annotations

import getpass
import os
import socket
from collections.abc import Iterator
from contextlib import AbstractContextManager
from typing import Protocol

from pydantic import BaseModel, ConfigDict

from specverdict.campaign.spec import RunSpec
from specverdict.errors import StoreError
from specverdict.records import (
    ManifestUpdate,
    MetricsSnapshot,
    RunManifest,
    RunRecord,
    RunStatus,
    SampleRecord,
    Score,
)


class SampleExistsError(StoreError):
    """A sample's (run, sample, attempt) is stored already with other content: a retry is a new
    attempt, never an overwrite. Writing the identical record again is not an error (a write
    retried after a lost connection may have been committed before the connection went)."""


class RunOrigin(BaseModel):
    """Who created a run and where: indexed beside the run for ``runs list`` filters."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    user: str
    host: str

    @classmethod
    def here(cls) -> RunOrigin:
        """This process's user and host (``SPECVERDICT_USER``, ``SPECVERDICT_HOST`` override)."""
        user = os.environ.get("SPECVERDICT_USER") or _user()
        host = os.environ.get("SPECVERDICT_HOST") or socket.gethostname()
        return cls(user=user, host=host)


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # a uid without a passwd entry (containers)
        return f"uid{os.getuid()}"


class Store(Protocol):
    #: where the registry is, as shown in messages (a file path, or a URL without its password)
    path: str

    def create_run(
        self, spec: RunSpec, repeat: int, manifest: RunManifest | None = None
    ) -> RunRecord: ...
    def update_run(
        self,
        run_id: str,
        *,
        status: RunStatus | None = None,
        manifest: ManifestUpdate | None = None,
    ) -> RunRecord: ...
    def get_run(self, run_id: str) -> RunRecord: ...
    def list_runs(
        self, *, campaign: str | None = None, user: str | None = None, host: str | None = None
    ) -> list[RunRecord]: ...
    def origin(self, run_id: str) -> RunOrigin: ...
    def resumable(self, fingerprint: str, repeat: int) -> RunRecord | None: ...
    def add_sample(self, sample: SampleRecord) -> None: ...
    def add_score(self, run_id: str, sample_id: str, attempt: int, score: Score) -> None: ...
    def samples(self, run_id: str) -> list[SampleRecord]: ...
    def attempts(self, run_id: str) -> list[SampleRecord]: ...
    def delete_run(self, run_id: str) -> None: ...
    def add_snapshot(self, snapshot: MetricsSnapshot) -> None: ...
    def snapshots(self, run_id: str) -> dict[str, MetricsSnapshot]: ...
    def claim(self, fingerprint: str, repeat: int, holder: str, ttl_s: float) -> str:
        """Take (or renew) the claim on measuring this fingerprint and repeat for ``ttl_s``
        seconds; return the holder after the call: ``holder`` when taken, else the executor
        that holds an unexpired claim."""
        ...

    def release(self, fingerprint: str, repeat: int, holder: str) -> None:
        """Drop ``holder``'s claim (another holder's claim stays)."""
        ...

    def exclusive_runner(self) -> AbstractContextManager[None]: ...
    def close(self) -> None: ...


def sample_key_taken(sample: SampleRecord, stored_json: str, where: str) -> None:
    """Raise ``SampleExistsError`` unless the stored record is ``sample`` itself."""
    if SampleRecord.model_validate_json(stored_json) == sample:
        return
    raise SampleExistsError(
        f"run registry {where}: sample {sample.sample_id!r} attempt {sample.attempt} of run "
        f"{sample.run_id} is stored already with other content (a retry is the next attempt)"
    )


def iter_filters(
    campaign: str | None, user: str | None, host: str | None
) -> Iterator[tuple[str, str]]:
    """(column, value) of each filter given to ``list_runs``."""
    for column, value in (("campaign", campaign), ("user_name", user), ("host", host)):
        if value is not None:
            yield column, value
