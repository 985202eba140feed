"""The run registry in SQLite: WAL journal, foreign keys, named migrations, one row per sample.

Each sample is committed as soon as it is written, so a killed runner loses at most the requests
in flight. Records are stored as their JSON next to the indexed columns that queries need; the
JSON carries ``schema_version`` so that later readers know what they hold.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from specverdict import __version__
from specverdict.campaign.spec import RunSpec
from specverdict.errors import StoreError
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
from specverdict.store.base import RunOrigin, iter_filters, sample_key_taken

R = TypeVar("R", bound=BaseModel)

MIGRATIONS: tuple[tuple[str, str], ...] = (
    (
        "0001_runs_samples_snapshots",
        """
        CREATE TABLE runs (
            run_id      TEXT PRIMARY KEY,
            fingerprint TEXT NOT NULL,
            repeat      INTEGER NOT NULL,
            status      TEXT NOT NULL,
            created_at  REAL NOT NULL,
            record      TEXT NOT NULL
        );
        CREATE INDEX runs_fingerprint ON runs (fingerprint, repeat);
        CREATE TABLE samples (
            run_id    TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
            sample_id TEXT NOT NULL,
            attempt   INTEGER NOT NULL,
            status    TEXT NOT NULL,
            record    TEXT NOT NULL,
            PRIMARY KEY (run_id, sample_id, attempt)
        );
        CREATE TABLE metric_snapshots (
            run_id   TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
            phase    TEXT NOT NULL,
            taken_at REAL NOT NULL,
            text     TEXT NOT NULL,
            PRIMARY KEY (run_id, phase)
        );
        """,
    ),
    (
        "0002_snapshot_sources",
        """
        CREATE TABLE metric_snapshots_v2 (
            run_id   TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
            phase    TEXT NOT NULL,
            source   TEXT NOT NULL,
            taken_at REAL NOT NULL,
            text     TEXT NOT NULL,
            PRIMARY KEY (run_id, phase, source)
        );
        INSERT INTO metric_snapshots_v2
            SELECT run_id, phase, '/metrics', taken_at, text FROM metric_snapshots;
        DROP TABLE metric_snapshots;
        ALTER TABLE metric_snapshots_v2 RENAME TO metric_snapshots
        """,
    ),
    (
        "0003_scores",
        """
        CREATE TABLE scores (
            run_id    TEXT NOT NULL,
            sample_id TEXT NOT NULL,
            attempt   INTEGER NOT NULL,
            record    TEXT NOT NULL,
            PRIMARY KEY (run_id, sample_id, attempt),
            FOREIGN KEY (run_id, sample_id, attempt)
                REFERENCES samples (run_id, sample_id, attempt) ON DELETE CASCADE
        )
        """,
    ),
    (
        "0004_run_origin_and_claims",
        """
        CREATE TABLE run_origins (
            run_id    TEXT PRIMARY KEY REFERENCES runs (run_id) ON DELETE CASCADE,
            campaign  TEXT NOT NULL,
            user_name TEXT NOT NULL,
            host      TEXT NOT NULL
        );
        INSERT INTO run_origins
            SELECT run_id, coalesce(json_extract(record, '$.spec.campaign'), ''), '', ''
            FROM runs;
        CREATE INDEX run_origins_by ON run_origins (campaign, user_name, host);
        CREATE TABLE claims (
            fingerprint TEXT NOT NULL,
            repeat      INTEGER NOT NULL,
            holder      TEXT NOT NULL,
            expires_at  REAL NOT NULL,
            PRIMARY KEY (fingerprint, repeat)
        )
        """,
    ),
)


class SQLiteStore:
    """``Store`` on a SQLite file (``:memory:`` for tests)."""

    def __init__(self, path: Path | str, origin: RunOrigin | None = None) -> None:
        self.path = str(path)
        self.origin_here = origin or RunOrigin.here()
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA busy_timeout = 5000")
        self._db.execute("PRAGMA foreign_keys = ON")
        self._wal()
        # In WAL mode, NORMAL survives a killed process (the WAL is in the OS's hands); only a
        # power cut can lose the last commits. FULL would fsync every sample.
        self._db.execute("PRAGMA synchronous = NORMAL")
        self.migrate()

    def _wal(self) -> None:
        """Switch to WAL. Switching needs the file to itself, and SQLite can answer "locked"
        at once, without waiting, while another process is creating the same registry: retry
        for as long as the busy timeout."""
        deadline = time.monotonic() + 5.0
        while True:
            try:
                self._db.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise StoreError(f"run registry {self.path}: cannot open: {exc}") from exc
                time.sleep(0.01)  # pacing of a retry; the other process holds the lock briefly

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """One write transaction. A write the database refuses (disk full, read-only file,
        locked past the busy timeout) is a ``StoreError`` naming the file; what was committed
        before stays."""
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:  # SQLITE_FULL may have rolled it back already
                    self._db.execute("ROLLBACK")
                raise
        except sqlite3.OperationalError as exc:
            raise StoreError(f"run registry {self.path}: cannot write: {exc}") from exc

    @contextmanager
    def exclusive_runner(self) -> Iterator[None]:
        """Held by ``specverdict run`` while it runs: a second runner on the same registry is
        refused (it would send the same samples again) until the first ends, however it ends
        (the lock is the kernel's and dies with its process)."""
        if self.path == ":memory:":
            yield
            return
        lock_path = Path(self.path + ".lock")
        with open(lock_path, "a+") as fh:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                fh.seek(0)
                holder = fh.read().strip() or "another process"
                raise StoreError(
                    f"run registry {self.path} is in use by a runner ({holder}): wait for it to "
                    "end, or give this campaign another --db"
                ) from None
            fh.seek(0)
            fh.truncate()
            fh.write(f"pid {os.getpid()}")
            fh.flush()
            try:
                yield
            finally:
                fh.seek(0)
                fh.truncate()
                fcntl.flock(fh, fcntl.LOCK_UN)

    def migrate(self) -> list[str]:
        """Apply pending migrations, each in its own transaction; return the names applied."""
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)"
        )
        known = {name for name, _ in MIGRATIONS}
        done = {row[0] for row in self._db.execute("SELECT name FROM schema_migrations")}
        if done - known:
            raise StoreError(
                f"run registry {self.path} was written by a newer specverdict (schema "
                f"{', '.join(sorted(done - known))} unknown to {__version__}): upgrade "
                "specverdict, or give this campaign another --db"
            )
        applied = []
        for name, sql in MIGRATIONS:
            # Read what is applied inside the write transaction: another process opening the
            # same new registry at the same moment (a `runs list` while a `run` starts) waits
            # for the lock, then finds the migration done instead of applying it twice.
            with self._tx() as db:
                done = {row[0] for row in db.execute("SELECT name FROM schema_migrations")}
                if name in done:
                    continue
                for statement in filter(str.strip, sql.split(";")):
                    db.execute(statement)
                db.execute("INSERT INTO schema_migrations VALUES (?, ?)", (name, time.time()))
            applied.append(name)
        return applied

    def close(self) -> None:
        self._db.close()

    # --- runs ------------------------------------------------------------------------------

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
        self._write_run(run, insert=True)
        return run

    def _write_run(self, run: RunRecord, insert: bool = False) -> None:
        with self._tx() as db:
            if insert:
                db.execute(
                    "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        run.run_id,
                        run.fingerprint,
                        run.repeat,
                        run.status,
                        run.created_at,
                        run.model_dump_json(),
                    ),
                )
                db.execute(
                    "INSERT INTO run_origins VALUES (?, ?, ?, ?)",
                    (run.run_id, run.spec.campaign, self.origin_here.user, self.origin_here.host),
                )
            else:
                cur = db.execute(
                    "UPDATE runs SET status = ?, record = ? WHERE run_id = ?",
                    (run.status, run.model_dump_json(), run.run_id),
                )
                if cur.rowcount != 1:
                    raise KeyError(f"no run {run.run_id!r}")

    def update_run(
        self,
        run_id: str,
        *,
        status: RunStatus | None = None,
        manifest: ManifestUpdate | None = None,
    ) -> RunRecord:
        run = self.get_run(run_id)
        changes: dict[str, Any] = {}
        if status is not None:
            changes["status"] = status
            if status != "running":
                changes["finished_at"] = time.time()
        if manifest is not None:
            changes["manifest"] = run.manifest.updated(manifest)
        updated = RunRecord.model_validate({**run.model_dump(), **changes})
        self._write_run(updated)
        return updated

    def _read(self, model: type[R], text: str) -> R:
        """A stored record, or a ``StoreError`` naming the registry: a record this version
        cannot read (a newer schema, or a malformed row) is never half-read."""
        try:
            return model.model_validate_json(text)
        except ValidationError as exc:
            err = exc.errors()[0]
            cause = err.get("ctx", {}).get("error")
            if isinstance(cause, NewerRecordError):
                raise StoreError(f"run registry {self.path}: {cause}") from None
            where = ".".join(str(x) for x in err["loc"]) or "record"
            raise StoreError(
                f"run registry {self.path}: a stored {model.__name__} is unreadable at {where}: "
                f"{err['msg']}"
            ) from None

    def _run(self, text: str) -> RunRecord:
        return self._read(RunRecord, text)

    def get_run(self, run_id: str) -> RunRecord:
        row = self._db.execute("SELECT record FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        if row is None:
            raise KeyError(f"no run {run_id!r}")
        return self._run(row[0])

    def list_runs(
        self, *, campaign: str | None = None, user: str | None = None, host: str | None = None
    ) -> list[RunRecord]:
        """Stored runs, oldest first; each filter given keeps the runs that match it."""
        filters = list(iter_filters(campaign, user, host))
        where = " AND ".join(f"o.{column} = ?" for column, _ in filters)
        rows = self._db.execute(
            "SELECT r.record FROM runs r LEFT JOIN run_origins o ON o.run_id = r.run_id"
            + (f" WHERE {where}" if where else "")
            + " ORDER BY r.created_at, r.run_id",
            [value for _, value in filters],
        )
        return [self._run(r[0]) for r in rows]

    def origin(self, run_id: str) -> RunOrigin:
        row = self._db.execute(
            "SELECT o.user_name, o.host, r.run_id FROM runs r LEFT JOIN run_origins o "
            "ON o.run_id = r.run_id WHERE r.run_id = ?",
            (run_id,),
        ).fetchone()
        if row is None:
            raise KeyError(f"no run {run_id!r}")
        return RunOrigin(user=row[0] or "", host=row[1] or "")

    def claim(self, fingerprint: str, repeat: int, holder: str, ttl_s: float) -> str:
        now = time.time()
        with self._tx() as db:
            row = db.execute(
                "SELECT holder, expires_at FROM claims WHERE fingerprint = ? AND repeat = ?",
                (fingerprint, repeat),
            ).fetchone()
            if row is not None and row[0] != holder and row[1] >= now:
                return str(row[0])
            db.execute(
                "INSERT OR REPLACE INTO claims VALUES (?, ?, ?, ?)",
                (fingerprint, repeat, holder, now + ttl_s),
            )
        return holder

    def release(self, fingerprint: str, repeat: int, holder: str) -> None:
        with self._tx() as db:
            db.execute(
                "DELETE FROM claims WHERE fingerprint = ? AND repeat = ? AND holder = ?",
                (fingerprint, repeat, holder),
            )

    def resumable(self, fingerprint: str, repeat: int) -> RunRecord | None:
        """The newest unfinished execution of this fingerprint and repeat, if any."""
        row = self._db.execute(
            "SELECT record FROM runs WHERE fingerprint = ? AND repeat = ? AND status != 'completed' "
            "ORDER BY created_at DESC LIMIT 1",
            (fingerprint, repeat),
        ).fetchone()
        return self._run(row[0]) if row else None

    # --- samples and snapshots -------------------------------------------------------------

    def add_sample(self, sample: SampleRecord) -> None:
        """Store one attempt of a sample, once: the identical record again is a no-op, other
        content under the same (run, sample, attempt) is a ``SampleExistsError``."""
        with self._tx() as db:
            cur = db.execute(
                "INSERT INTO samples VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (
                    sample.run_id,
                    sample.sample_id,
                    sample.attempt,
                    sample.status,
                    sample.model_dump_json(),
                ),
            )
            if cur.rowcount == 1:
                return
            row = db.execute(
                "SELECT record FROM samples WHERE run_id = ? AND sample_id = ? AND attempt = ?",
                (sample.run_id, sample.sample_id, sample.attempt),
            ).fetchone()
        sample_key_taken(sample, row[0], self.path)

    def add_score(self, run_id: str, sample_id: str, attempt: int, score: Score) -> None:
        """Attach (or replace) the suite's score of a stored sample."""
        with self._tx() as db:
            db.execute(
                "INSERT OR REPLACE INTO scores VALUES (?, ?, ?, ?)",
                (run_id, sample_id, attempt, score.model_dump_json()),
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
        """Every stored attempt of every sample of a run, by sample id and attempt."""
        rows = self._db.execute(
            "SELECT s.record, c.record FROM samples s LEFT JOIN scores c "
            "ON c.run_id = s.run_id AND c.sample_id = s.sample_id AND c.attempt = s.attempt "
            "WHERE s.run_id = ? ORDER BY s.sample_id, s.attempt",
            (run_id,),
        )
        out = []
        for sample_json, score_json in rows:
            sample = self._read(SampleRecord, sample_json)
            if score_json is not None:
                sample = sample.model_copy(update={"score": Score.model_validate_json(score_json)})
            out.append(sample)
        return out

    def delete_run(self, run_id: str) -> None:
        """Remove a run with its samples, scores and snapshots."""
        with self._tx() as db:  # samples, their scores and snapshots go by ON DELETE CASCADE
            cur = db.execute("DELETE FROM runs WHERE run_id = ?", (run_id,))
            if cur.rowcount != 1:
                raise KeyError(f"no run {run_id!r}")

    def add_snapshot(self, snapshot: MetricsSnapshot) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT OR REPLACE INTO metric_snapshots (run_id, phase, source, taken_at, text) "
                "VALUES (?, ?, ?, ?, ?)",
                (
                    snapshot.run_id,
                    snapshot.phase,
                    snapshot.source,
                    snapshot.taken_at,
                    snapshot.text,
                ),
            )

    def snapshots(self, run_id: str) -> dict[str, MetricsSnapshot]:
        """Every snapshot of a run by ``MetricsSnapshot.key``, polls in the order taken."""
        rows = self._db.execute(
            "SELECT phase, source, taken_at, text FROM metric_snapshots WHERE run_id = ? "
            "ORDER BY taken_at",
            (run_id,),
        )
        snaps = (
            MetricsSnapshot(run_id=run_id, phase=p, source=src, taken_at=t, text=x)
            for p, src, t, x in rows
        )
        return {s.key: s for s in snaps}
