"""The registry's SQL, once for SQLite and PostgreSQL: ``SQLStore``, which both stores subclass.

Every query and write of the ``Store`` interface is here, written in the SQL both databases
speak (``INSERT ... ON CONFLICT``, ``LEFT JOIN``, ``ORDER BY ... LIMIT``), with ``?`` for each
parameter. What a subclass gives is how a statement reaches its database, and a few fragments:

- ``_read`` (one read) and ``_write`` (one transaction): the connection, its errors and retries.
  SQLite's file is checked at each write (deleted, replaced, read-only); PostgreSQL's connection
  is retried on a new one when lost, so its writes must be idempotent.
- ``PLACEHOLDER``: the driver's parameter marker (``?`` for sqlite3, ``%s`` for psycopg).
- ``LOCK_ROW``, ``BINARY_ORDER``, ``RETRIED_INSERT``: clauses that only one dialect needs (a
  row lock, byte order of text, a retried insert's no-op), empty by default;
  ``MIGRATIONS_TABLE``: the one table every schema starts from, in the dialect's types.
- ``MIGRATIONS`` and ``_lock_migrations``: the schema in each dialect (its types and its
  ``ALTER TABLE`` differ) under the same names, and how two processes apply them once.
- ``claim``, ``exclusive_runner``, ``close``: the claim is a lease on the server's clock in one
  statement on PostgreSQL, a read then a write in SQLite's write transaction (which locks the
  whole file); one runner per file is a file lock, many at once the point of a shared server.
- ``_missing_run``: a sample of no run is a ``KeyError`` naming it on PostgreSQL; SQLite's
  ``IntegrityError`` is left to the caller (a bug of the caller's, not a fault of the file).

The split is where the databases differ in what they do, not in how it is spelt: a fragment
of SQL is a class attribute, a different way of doing (connections, locking) a method.
"""

from __future__ import annotations

import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from functools import partial
from typing import Any, ClassVar, TypeVar

from specverdict import __version__
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
from specverdict.store.base import (
    RunOrigin,
    UnreadableRecordError,
    Warnings,
    iter_filters,
    read_attempts,
    read_record,
    sample_key_taken,
)

T = TypeVar("T")


class Execute:
    """A connection's ``execute`` for the shared statements: their ``?`` become the driver's
    ``placeholder``. The statements hold no other ``?`` (and no ``%``); a statement without
    parameters (DDL) goes to the driver as written."""

    __slots__ = ("conn", "placeholder")

    def __init__(self, conn: Any, placeholder: str) -> None:
        self.conn = conn
        self.placeholder = placeholder

    def __call__(self, sql: str, params: Sequence[Any] | None = None) -> Any:
        """The driver's cursor (``fetchone``, ``fetchall``, ``rowcount``)."""
        if params is None:
            return self.conn.execute(sql)
        if self.placeholder != "?":
            sql = sql.replace("?", self.placeholder)
        return self.conn.execute(sql, params)


class SQLStore(ABC):
    """``Store`` on a SQL database: everything but the connection, the schema's dialect and
    locking, which each subclass gives (see the module's docstring)."""

    #: the named migrations, in this dialect (the same names in every dialect)
    MIGRATIONS: ClassVar[tuple[tuple[str, str], ...]]
    #: the driver's parameter marker in place of the statements' ``?``
    PLACEHOLDER: ClassVar[str]
    #: after the read of a run about to be updated: a row lock where the write transaction
    #: does not already hold the database
    LOCK_ROW: ClassVar[str] = ""
    #: after a text column in ``ORDER BY``: byte order, where the default is the locale's
    BINARY_ORDER: ClassVar[str] = ""
    #: after ``create_run``'s inserts: where a write is retried after a lost connection, the
    #: clause that makes the retry of a committed insert a no-op
    RETRIED_INSERT: ClassVar[str] = ""
    #: the ``schema_migrations`` table, created when missing
    MIGRATIONS_TABLE: ClassVar[str]

    def __init__(self, path: str, origin: RunOrigin | None) -> None:
        #: where the registry is, as shown in messages
        self.path = path
        self.origin_here = origin or RunOrigin.here()
        #: one line on stderr for each record a reading command skips
        self.warn: Callable[[str], None] = Warnings()

    # --- what a dialect gives ------------------------------------------------------------------

    @abstractmethod
    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """The rows of one query (``?`` placeholders)."""

    @abstractmethod
    def _write(self, op: Callable[[Execute], T], *, atomic: bool = True) -> T:
        """``op(execute)``'s result, its statements committed. ``atomic``: they commit together
        (else, where the connection autocommits, each commits as it runs: a single statement,
        or statements each of which is safe alone)."""

    @abstractmethod
    def _lock_migrations(self, execute: Execute) -> None:
        """Inside a migration's transaction, before it reads what is applied: hold off any other
        process migrating the same registry until this transaction ends."""

    @abstractmethod
    def claim(self, fingerprint: str, repeat: int, holder: str, ttl_s: float) -> str:
        """Take (or renew) the claim on this fingerprint and repeat for ``ttl_s`` seconds;
        return the holder after the call."""

    @abstractmethod
    def exclusive_runner(self) -> AbstractContextManager[None]: ...

    @abstractmethod
    def close(self) -> None: ...

    # --- migrations ----------------------------------------------------------------------------

    def _not_newer(self, done: set[str]) -> None:
        known = {name for name, _ in self.MIGRATIONS}
        if done - known:
            raise StoreError(
                f"run registry {self.path} was written by a newer specverdict (schema "
                f"{', '.join(sorted(done - known))} unknown to {__version__}): upgrade "
                "specverdict, or give this campaign another --db"
            )

    def migrate(self) -> list[str]:
        """Apply pending migrations, each in its own transaction; return the names applied.
        What is applied is read inside that transaction, after ``_lock_migrations``: another
        process opening the same new registry at the same moment waits, then finds the
        migration done instead of applying it twice."""
        return [
            name for name, sql in self.MIGRATIONS if self._write(partial(self._apply, name, sql))
        ]

    def _apply(self, name: str, sql: str, execute: Execute) -> bool:
        self._lock_migrations(execute)
        execute(self.MIGRATIONS_TABLE)
        done = {row[0] for row in execute("SELECT name FROM schema_migrations")}
        self._not_newer(done)
        if name in done:
            return False
        for statement in filter(str.strip, sql.split(";")):
            execute(statement)
        execute("INSERT INTO schema_migrations VALUES (?, ?)", (name, time.time()))
        return True

    # --- runs ----------------------------------------------------------------------------------

    def create_run(
        self, spec: RunSpec, repeat: int, manifest: RunManifest | None = None
    ) -> RunRecord:
        run = RunRecord(
            run_id=uuid.uuid4().hex[:12],
            fingerprint=spec.fingerprint,
            spec=spec,
            repeat=repeat,
            status="running",
            created_at=time.time(),
            manifest=manifest or RunManifest(),
        )
        row = (
            run.run_id,
            run.fingerprint,
            run.repeat,
            run.status,
            run.created_at,
            run.model_dump_json(),
        )
        who = (run.run_id, run.spec.campaign, self.origin_here.user, self.origin_here.host)

        def op(execute: Execute) -> None:
            execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?)" + self.RETRIED_INSERT, row)
            execute("INSERT INTO run_origins VALUES (?, ?, ?, ?)" + self.RETRIED_INSERT, who)

        self._write(op)
        return run

    def update_run(
        self,
        run_id: str,
        *,
        status: RunStatus | None = None,
        manifest: ManifestUpdate | None = None,
    ) -> RunRecord:
        """Read, change and write the run in one transaction: two processes updating the same
        run (a heartbeat's manifest, a status) each see the other's change."""

        def op(execute: Execute) -> RunRecord:
            row = execute(
                "SELECT record FROM runs WHERE run_id = ?" + self.LOCK_ROW, (run_id,)
            ).fetchone()
            if row is None:
                raise KeyError(f"no run {run_id!r}")
            run = self._run(run_id, row[0])
            changes: dict[str, Any] = {}
            if status is not None:
                changes["status"] = status
                if status != "running":
                    changes["finished_at"] = time.time()
            if manifest is not None:
                changes["manifest"] = run.manifest.updated(manifest)
            updated = RunRecord.model_validate({**run.model_dump(), **changes})
            execute(
                "UPDATE runs SET status = ?, record = ? WHERE run_id = ?",
                (updated.status, updated.model_dump_json(), run_id),
            )
            return updated

        return self._write(op)

    def _run(self, run_id: str, text: str) -> RunRecord:
        return read_record(RunRecord, text, self.path, f"run {run_id}")

    def get_run(self, run_id: str) -> RunRecord:
        """The run, or an ``UnreadableRecordError`` naming it and the field that does not
        parse: a run asked for by id, or updated, is never skipped."""
        rows = self._read("SELECT record FROM runs WHERE run_id = ?", (run_id,))
        if not rows:
            raise KeyError(f"no run {run_id!r}")
        return self._run(run_id, rows[0][0])

    def list_runs(
        self, *, campaign: str | None = None, user: str | None = None, host: str | None = None
    ) -> list[RunRecord]:
        """Stored runs, oldest first; each filter given keeps the runs that match it. A run
        whose record does not parse is left out, with a warning naming it and the field."""
        filters = list(iter_filters(campaign, user, host))
        where = " AND ".join(f"o.{column} = ?" for column, _ in filters)
        rows = self._read(
            "SELECT r.run_id, r.record FROM runs r LEFT JOIN run_origins o "
            "ON o.run_id = r.run_id"
            + (f" WHERE {where}" if where else "")
            + " ORDER BY r.created_at, r.run_id",
            [value for _, value in filters],
        )
        out = []
        for run_id, text in rows:
            try:
                out.append(self._run(run_id, text))
            except UnreadableRecordError as exc:
                self.warn(f"{exc}; the run is left out")
        return out

    def origin(self, run_id: str) -> RunOrigin:
        """Who created the run and where (empty for a run stored before origins were)."""
        rows = self._read(
            "SELECT o.user_name, o.host FROM runs r LEFT JOIN run_origins o "
            "ON o.run_id = r.run_id WHERE r.run_id = ?",
            (run_id,),
        )
        if not rows:
            raise KeyError(f"no run {run_id!r}")
        return RunOrigin(user=rows[0][0] or "", host=rows[0][1] or "")

    def resumable(self, fingerprint: str, repeat: int) -> RunRecord | None:
        """The newest unfinished execution of this fingerprint and repeat, if any: one that
        does not parse is an ``UnreadableRecordError`` (the runner would extend it)."""
        rows = self._read(
            "SELECT run_id, record FROM runs WHERE fingerprint = ? AND repeat = ? "
            "AND status != 'completed' ORDER BY created_at DESC LIMIT 1",
            (fingerprint, repeat),
        )
        return self._run(rows[0][0], rows[0][1]) if rows else None

    def release(self, fingerprint: str, repeat: int, holder: str) -> None:
        """Drop ``holder``'s claim (another holder's claim stays)."""
        self._write(
            lambda execute: execute(
                "DELETE FROM claims WHERE fingerprint = ? AND repeat = ? AND holder = ?",
                (fingerprint, repeat, holder),
            ),
            atomic=False,
        )

    def delete_run(self, run_id: str) -> None:
        """Remove a run with its samples, scores and snapshots (``ON DELETE CASCADE``)."""

        def op(execute: Execute) -> None:
            cur = execute("DELETE FROM runs WHERE run_id = ?", (run_id,))
            if cur.rowcount != 1:
                raise KeyError(f"no run {run_id!r}")

        self._write(op, atomic=False)

    # --- samples and snapshots -----------------------------------------------------------------

    def _missing_run(self, exc: Exception) -> bool:
        """Whether a sample's insert failed for want of its run: a ``KeyError`` naming it
        where the store can tell (else the driver's error goes to the caller)."""
        return False

    def add_sample(self, sample: SampleRecord) -> None:
        """Store one attempt of a sample, once: the identical record again (a write retried
        after a lost connection that had been committed) is a no-op, other content under the
        same (run, sample, attempt) is a ``SampleExistsError``."""

        def op(execute: Execute) -> str | None:
            try:
                cur = execute(
                    "INSERT INTO samples VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                    (
                        sample.run_id,
                        sample.sample_id,
                        sample.attempt,
                        sample.status,
                        sample.model_dump_json(),
                    ),
                )
            except Exception as exc:
                if self._missing_run(exc):
                    raise KeyError(f"no run {sample.run_id!r}") from None
                raise
            if cur.rowcount == 1:
                return None
            row = execute(
                "SELECT record FROM samples WHERE run_id = ? AND sample_id = ? AND attempt = ?",
                (sample.run_id, sample.sample_id, sample.attempt),
            ).fetchone()
            return str(row[0])

        stored = self._write(op, atomic=False)
        if stored is not None:
            sample_key_taken(sample, stored, self.path)

    def add_score(self, run_id: str, sample_id: str, attempt: int, score: Score) -> None:
        """Attach (or replace) the suite's score of a stored sample."""
        self._write(
            lambda execute: execute(
                "INSERT INTO scores VALUES (?, ?, ?, ?) ON CONFLICT (run_id, sample_id, attempt) "
                "DO UPDATE SET record = excluded.record",
                (run_id, sample_id, attempt, score.model_dump_json()),
            ),
            atomic=False,
        )

    def samples(self, run_id: str) -> list[SampleRecord]:
        """A run's samples, one per sample id: its last attempt (a retry supersedes a failed
        attempt; the earlier attempts stay in ``attempts``), with its score (a score stored
        apart wins over an inline one)."""
        latest: dict[str, SampleRecord] = {}
        for sample in self.attempts(run_id):
            latest[sample.sample_id] = sample  # ordered by attempt within a sample id
        return list(latest.values())

    def attempts(self, run_id: str) -> list[SampleRecord]:
        """Every stored attempt of every sample of a run, by sample id (in byte order) and
        attempt. An attempt whose record does not parse is left out, a score that does not
        parse is dropped (the sample is unscored, and scored again by the next run), each with
        a warning naming it."""
        rows = self._read(
            "SELECT s.sample_id, s.attempt, s.record, c.record FROM samples s LEFT JOIN scores c "
            "ON c.run_id = s.run_id AND c.sample_id = s.sample_id AND c.attempt = s.attempt "
            f"WHERE s.run_id = ? ORDER BY s.sample_id{self.BINARY_ORDER}, s.attempt",
            (run_id,),
        )
        return read_attempts(self.path, run_id, rows, self.warn)

    def add_snapshot(self, snapshot: MetricsSnapshot) -> None:
        """Store (or replace) the snapshot of a run's phase and source."""
        self._write(
            lambda execute: execute(
                "INSERT INTO metric_snapshots (run_id, phase, source, taken_at, text) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (run_id, phase, source) DO UPDATE "
                "SET taken_at = excluded.taken_at, text = excluded.text",
                (
                    snapshot.run_id,
                    snapshot.phase,
                    snapshot.source,
                    snapshot.taken_at,
                    snapshot.text,
                ),
            ),
            atomic=False,
        )

    def snapshots(self, run_id: str) -> dict[str, MetricsSnapshot]:
        """Every snapshot of a run by ``MetricsSnapshot.key``, polls in the order taken."""
        rows = self._read(
            "SELECT phase, source, taken_at, text FROM metric_snapshots WHERE run_id = ? "
            "ORDER BY taken_at",
            (run_id,),
        )
        snaps = (
            MetricsSnapshot(run_id=run_id, phase=p, source=src, taken_at=t, text=x)
            for p, src, t, x in rows
        )
        return {s.key: s for s in snaps}
