"""The ``Store`` interface: the run registry the runner writes and reports read."""

from __future__ import annotations

import getpass
import os
import socket
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from specverdict.campaign.spec import RunSpec
from specverdict.errors import RegistryFormatError, StoreError
from specverdict.records import (
    ManifestUpdate,
    MetricsSnapshot,
    NewerRecordError,
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


class UnreadableRecordError(RegistryFormatError):
    """A stored run or sample does not parse (corrupt JSON, a field missing or of the wrong
    type): the message names the registry, the run (and sample) and the field."""


R = TypeVar("R", bound=BaseModel)


def read_record(model: type[R], text: str, where: str, what: str) -> R:
    """A stored record, never half-read: an ``UnreadableRecordError`` naming ``what`` (e.g.
    ``run 0123abcd``) and the field when it does not parse; a ``StoreError`` when it was written
    by a newer specverdict."""
    try:
        return model.model_validate_json(text)
    except ValidationError as exc:
        err = exc.errors()[0]
        cause = err.get("ctx", {}).get("error")
        if isinstance(cause, NewerRecordError):
            raise StoreError(f"run registry {where}: {cause}") from None
        field = ".".join(str(x) for x in err["loc"]) or "the record's JSON"
        raise UnreadableRecordError(
            f"run registry {where}: {what} is unreadable: {field}: {err['msg']}"
        ) from None


class Warnings:
    """One line on stderr per distinct warning (``specverdict: warning: ...``): a reading
    command that skips a record names it once, however often it reads the registry."""

    def __init__(self) -> None:
        self.given: list[str] = []

    def __call__(self, message: str) -> None:
        if message in self.given:
            return
        self.given.append(message)
        sys.stderr.write(f"specverdict: warning: {message}\n")


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
    """Raise ``SampleExistsError`` unless the stored record is ``sample`` itself (an
    ``UnreadableRecordError`` when the stored one does not parse: it is kept, not overwritten)."""
    what = f"stored sample {sample.sample_id!r} attempt {sample.attempt} of run {sample.run_id}"
    try:
        stored = read_record(SampleRecord, stored_json, where, what)
    except UnreadableRecordError as exc:  # found by a runner: a fault of the run (exit 5)
        raise StoreError(
            f"{exc}; it is kept, not overwritten: delete the run (specverdict runs delete "
            f"{sample.run_id}) to measure it again"
        ) from None
    if stored == sample:
        return
    raise SampleExistsError(
        f"run registry {where}: sample {sample.sample_id!r} attempt {sample.attempt} of run "
        f"{sample.run_id} is stored already with other content (a retry is the next attempt)"
    )


def read_attempts(
    where: str, run_id: str, rows: Iterable[Sequence[Any]], warn: Callable[[str], None]
) -> list[SampleRecord]:
    """The attempts of ``rows`` (sample id, attempt, sample JSON, score JSON or None): an
    attempt that does not parse is left out, a score that does not parse dropped, each with a
    warning. Verdicts and reports then see it as missing (or unscored), which they report."""
    out = []
    for sample_id, attempt, sample_json, score_json in rows:
        what = f"sample {sample_id!r} attempt {attempt} of run {run_id}"
        try:
            sample = read_record(SampleRecord, sample_json, where, what)
        except UnreadableRecordError as exc:
            warn(f"{exc}; the attempt is left out")
            continue
        if score_json is not None:
            try:
                score = read_record(Score, score_json, where, f"the score of {what}")
            except UnreadableRecordError as exc:
                warn(f"{exc}; the sample counts as unscored")
            else:
                sample = sample.model_copy(update={"score": score})
        out.append(sample)
    return out


def iter_filters(
    campaign: str | None, user: str | None, host: str | None
) -> Iterator[tuple[str, str]]:
    """(column, value) of each filter given to ``list_runs``."""
    for column, value in (("campaign", campaign), ("user_name", user), ("host", host)):
        if value is not None:
            yield column, value
