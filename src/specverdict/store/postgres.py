"""The run registry on PostgreSQL: one registry shared by a team and by many executors at once.

The same interface, migration names and record JSON as ``SQLiteStore``; each migration in its
own transaction under an advisory lock, so that executors opening a new registry at once apply
it once. Every write is its own transaction (autocommit between them): a lost node or driver
loses at most the requests in flight. A lost connection is retried with backoff on a new one;
when the server stays away the operation is a ``StoreError`` and nothing committed is lost.
Claims (``claim``/``release``) are leases timed by the server's clock, so that the executors'
clocks need not agree.

Needs the ``cluster`` extra (``psycopg``).
"""

from __future__ import annotations

import re
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

from specverdict import __version__
from specverdict.campaign.spec import RunSpec
from specverdict.errors import ExtraMissingError, StoreError
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

psycopg: Any
try:
    import psycopg
except ImportError:  # the quick start installs no cluster extra
    psycopg = None

T = TypeVar("T")

#: the same names as ``sqlite.MIGRATIONS``, in PostgreSQL's dialect (a test holds them equal)
MIGRATIONS: tuple[tuple[str, str], ...] = (
    (
        "0001_runs_samples_snapshots",
        """
        CREATE TABLE runs (
            run_id      TEXT PRIMARY KEY,
            fingerprint TEXT NOT NULL,
            repeat      INTEGER NOT NULL,
            status      TEXT NOT NULL,
            created_at  DOUBLE PRECISION NOT NULL,
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
            taken_at DOUBLE PRECISION NOT NULL,
            text     TEXT NOT NULL,
            PRIMARY KEY (run_id, phase)
        )
        """,
    ),
    (
        "0002_snapshot_sources",
        """
        ALTER TABLE metric_snapshots ADD COLUMN source TEXT NOT NULL DEFAULT '/metrics';
        ALTER TABLE metric_snapshots ALTER COLUMN source DROP DEFAULT;
        ALTER TABLE metric_snapshots DROP CONSTRAINT metric_snapshots_pkey;
        ALTER TABLE metric_snapshots ADD PRIMARY KEY (run_id, phase, source)
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
            SELECT run_id, coalesce((record::json -> 'spec' ->> 'campaign'), ''), '', ''
            FROM runs;
        CREATE INDEX run_origins_by ON run_origins (campaign, user_name, host);
        CREATE TABLE claims (
            fingerprint TEXT NOT NULL,
            repeat      INTEGER NOT NULL,
            holder      TEXT NOT NULL,
            expires_at  TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (fingerprint, repeat)
        )
        """,
    ),
)

#: the advisory lock key under which migrations run (any constant shared by every version)
MIGRATION_LOCK = 0x5BEC_7E2D

#: waits between reconnection attempts after a lost connection; then a ``StoreError``
RETRY_BACKOFF_S: tuple[float, ...] = (0.1, 0.2, 0.5, 1.0, 2.0, 4.0, 8.0)
#: how long a first connection may take to be answered, and one after a lost connection: a
#: stopped server accepts the TCP connection and says nothing, and 10 s per retry made a
#: database kept away stop a run after about 96 s instead of the backoff's 16 s
CONNECT_TIMEOUT_S = 10
RETRY_CONNECT_TIMEOUT_S = 2

URL_RE = re.compile(r"^postgres(ql)?://")


def is_url(location: str) -> bool:
    return bool(URL_RE.match(location))


def redacted(url: str) -> str:
    """The URL without its password, for messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return urlunsplit(parts._replace(netloc=netloc))


def _require_psycopg() -> Any:
    if psycopg is None:
        raise ExtraMissingError(
            "a PostgreSQL registry needs the cluster extra: pip install 'specverdict[cluster]'"
        )
    return psycopg


class PostgresStore:
    """``Store`` on a PostgreSQL database named by a ``postgresql://`` URL."""

    def __init__(
        self,
        url: str,
        origin: RunOrigin | None = None,
        backoff_s: tuple[float, ...] = RETRY_BACKOFF_S,
    ) -> None:
        self._pg = _require_psycopg()
        self.url = url
        self.path = redacted(url)
        self.origin_here = origin or RunOrigin.here()
        #: one line on stderr for each record a reading command skips
        self.warn: Callable[[str], None] = Warnings()
        self.backoff_s = backoff_s
        #: the database was given up on (a whole backoff failed): until a connection succeeds
        #: again, each operation tries once, so that the writes queued behind the one that gave
        #: up fail at once instead of each waiting out the backoff (7 queued writes at 16 s
        #: each stopped a run after 96 s)
        self._given_up = False
        self._lock = threading.RLock()  # one connection, shared by the runner's threads
        self._conn: Any = None
        try:
            self.migrate()
        except BaseException:
            self.close()
            raise

    # --- connection, retry and transactions --------------------------------------------------

    def _connect(self, timeout_s: int = CONNECT_TIMEOUT_S) -> Any:
        return self._pg.connect(self.url, autocommit=True, connect_timeout=timeout_s)

    def _with_retry(self, op: Callable[[Any], T]) -> T:
        """Run ``op(connection)`` (one transaction, or one statement); a lost connection is
        retried on a new one after each wait of ``backoff_s``. An operation that wrote before
        the connection broke was either committed or rolled back as a whole; the writes are
        idempotent, so a second try cannot store anything twice."""
        with self._lock:
            waits = iter(() if self._given_up else self.backoff_s)
            failed = self._given_up  # a connection failed in this call, or before it
            while True:
                try:
                    if self._conn is None or self._conn.closed:
                        # after a failure, a database that does not answer at once counts as
                        # still away (a stopped server accepts the connection, then is silent)
                        timeout = RETRY_CONNECT_TIMEOUT_S if failed else CONNECT_TIMEOUT_S
                        self._conn = self._connect(timeout)
                    result = op(self._conn)
                    self._given_up = False
                    return result
                except self._pg.OperationalError as exc:
                    self._drop()
                    wait = next(waits, None)
                    if wait is None:
                        tries = f"{len(self.backoff_s)} retries" + (
                            " (an earlier operation's; this one tried once more)"
                            if self._given_up
                            else ""
                        )
                        self._given_up = True
                        raise StoreError(
                            f"run registry {self.path}: lost the database after {tries}: "
                            f"{str(exc).strip().splitlines()[0]}"
                        ) from None
                    failed = True
                    time.sleep(wait)  # backoff before reconnecting
                except self._pg.errors.ReadOnlySqlTransaction as exc:
                    raise StoreError(f"run registry {self.path}: cannot write: {exc}") from None

    def _drop(self) -> None:
        if self._conn is not None:
            with suppress(self._pg.Error):
                self._conn.close()
        self._conn = None

    @contextmanager
    def _tx(self, conn: Any) -> Iterator[Any]:
        with conn.transaction():
            yield conn

    def _rows(self, sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
        return self._with_retry(lambda conn: list(conn.execute(sql, params).fetchall()))

    @contextmanager
    def exclusive_runner(self) -> Iterator[None]:
        """A shared registry has many runners at once; what two must never do (measure the
        same fingerprint and repeat together) is prevented per run by ``claim``."""
        yield

    def migrate(self) -> list[str]:
        """Apply pending migrations, each in its own transaction under the migration lock."""
        known = {name for name, _ in MIGRATIONS}
        applied: list[str] = []

        def step(conn: Any, name: str, sql: str) -> bool:
            with self._tx(conn):
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
                conn.execute(
                    "CREATE TABLE IF NOT EXISTS schema_migrations "
                    "(name TEXT PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)"
                )
                done = {r[0] for r in conn.execute("SELECT name FROM schema_migrations")}
                if done - known:
                    raise StoreError(
                        f"run registry {self.path} was written by a newer specverdict (schema "
                        f"{', '.join(sorted(done - known))} unknown to {__version__}): upgrade "
                        "specverdict, or give this campaign another --db"
                    )
                if name in done:
                    return False
                for statement in filter(str.strip, sql.split(";")):
                    conn.execute(statement)
                conn.execute("INSERT INTO schema_migrations VALUES (%s, %s)", (name, time.time()))
                return True

        for name, sql in MIGRATIONS:
            if self._with_retry(lambda conn, n=name, q=sql: step(conn, n, q)):  # type: ignore[misc]
                applied.append(name)
        return applied

    def migrations_applied(self) -> list[str]:
        return [r[0] for r in self._rows("SELECT name FROM schema_migrations ORDER BY name")]

    def close(self) -> None:
        with self._lock:
            self._drop()

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
        row = (
            run.run_id,
            run.fingerprint,
            run.repeat,
            run.status,
            run.created_at,
            run.model_dump_json(),
        )
        who = (run.run_id, run.spec.campaign, self.origin_here.user, self.origin_here.host)

        def op(conn: Any) -> None:
            with self._tx(conn):
                conn.execute(
                    "INSERT INTO runs VALUES (%s, %s, %s, %s, %s, %s) "
                    "ON CONFLICT (run_id) DO NOTHING",
                    row,
                )
                conn.execute(
                    "INSERT INTO run_origins VALUES (%s, %s, %s, %s) "
                    "ON CONFLICT (run_id) DO NOTHING",
                    who,
                )

        self._with_retry(op)
        return run

    def update_run(
        self,
        run_id: str,
        *,
        status: RunStatus | None = None,
        manifest: ManifestUpdate | None = None,
    ) -> RunRecord:
        def op(conn: Any) -> RunRecord:
            with self._tx(conn):
                row = conn.execute(
                    "SELECT record FROM runs WHERE run_id = %s FOR UPDATE", (run_id,)
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
                conn.execute(
                    "UPDATE runs SET status = %s, record = %s WHERE run_id = %s",
                    (updated.status, updated.model_dump_json(), run_id),
                )
                return updated

        return self._with_retry(op)

    def _run(self, run_id: str, text: str) -> RunRecord:
        return read_record(RunRecord, text, self.path, f"run {run_id}")

    def get_run(self, run_id: str) -> RunRecord:
        rows = self._rows("SELECT record FROM runs WHERE run_id = %s", (run_id,))
        if not rows:
            raise KeyError(f"no run {run_id!r}")
        return self._run(run_id, rows[0][0])

    def list_runs(
        self, *, campaign: str | None = None, user: str | None = None, host: str | None = None
    ) -> list[RunRecord]:
        """As ``SQLiteStore.list_runs``: a run that does not parse is left out, named."""
        filters = list(iter_filters(campaign, user, host))
        where = " AND ".join(f"o.{column} = %s" for column, _ in filters)
        rows = self._rows(
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
        rows = self._rows(
            "SELECT o.user_name, o.host FROM runs r LEFT JOIN run_origins o "
            "ON o.run_id = r.run_id WHERE r.run_id = %s",
            (run_id,),
        )
        if not rows:
            raise KeyError(f"no run {run_id!r}")
        return RunOrigin(user=rows[0][0] or "", host=rows[0][1] or "")

    def resumable(self, fingerprint: str, repeat: int) -> RunRecord | None:
        rows = self._rows(
            "SELECT run_id, record FROM runs WHERE fingerprint = %s AND repeat = %s AND status "
            "!= 'completed' ORDER BY created_at DESC LIMIT 1",
            (fingerprint, repeat),
        )
        return self._run(rows[0][0], rows[0][1]) if rows else None

    def claim(self, fingerprint: str, repeat: int, holder: str, ttl_s: float) -> str:
        """One statement: taken when free, expired, or already ``holder``'s (a renewal)."""

        def op(conn: Any) -> str:
            row = conn.execute(
                "INSERT INTO claims (fingerprint, repeat, holder, expires_at) VALUES "
                "(%s, %s, %s, now() + make_interval(secs => %s)) "
                "ON CONFLICT (fingerprint, repeat) DO UPDATE SET holder = EXCLUDED.holder, "
                "expires_at = EXCLUDED.expires_at "
                "WHERE claims.holder = EXCLUDED.holder OR claims.expires_at < now() "
                "RETURNING holder",
                (fingerprint, repeat, holder, ttl_s),
            ).fetchone()
            if row is not None:
                return str(row[0])
            other = conn.execute(
                "SELECT holder FROM claims WHERE fingerprint = %s AND repeat = %s",
                (fingerprint, repeat),
            ).fetchone()
            return str(other[0]) if other else ""  # "" : released meanwhile; try again

        return self._with_retry(op)

    def release(self, fingerprint: str, repeat: int, holder: str) -> None:
        self._with_retry(
            lambda conn: conn.execute(
                "DELETE FROM claims WHERE fingerprint = %s AND repeat = %s AND holder = %s",
                (fingerprint, repeat, holder),
            )
        )

    # --- samples and snapshots -------------------------------------------------------------

    def add_sample(self, sample: SampleRecord) -> None:
        """Stored once: the identical record again (a write retried after a lost connection
        that had been committed) is a no-op; other content is a ``SampleExistsError``."""

        def op(conn: Any) -> str | None:
            try:
                cur = conn.execute(
                    "INSERT INTO samples VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                    (
                        sample.run_id,
                        sample.sample_id,
                        sample.attempt,
                        sample.status,
                        sample.model_dump_json(),
                    ),
                )
            except self._pg.errors.ForeignKeyViolation:
                raise KeyError(f"no run {sample.run_id!r}") from None
            if cur.rowcount == 1:
                return None
            row = conn.execute(
                "SELECT record FROM samples WHERE run_id = %s AND sample_id = %s AND attempt = %s",
                (sample.run_id, sample.sample_id, sample.attempt),
            ).fetchone()
            return str(row[0])

        stored = self._with_retry(op)
        if stored is not None:
            sample_key_taken(sample, stored, self.path)

    def add_score(self, run_id: str, sample_id: str, attempt: int, score: Score) -> None:
        self._with_retry(
            lambda conn: conn.execute(
                "INSERT INTO scores VALUES (%s, %s, %s, %s) ON CONFLICT "
                "(run_id, sample_id, attempt) DO UPDATE SET record = EXCLUDED.record",
                (run_id, sample_id, attempt, score.model_dump_json()),
            )
        )

    def samples(self, run_id: str) -> list[SampleRecord]:
        latest: dict[str, SampleRecord] = {}
        for sample in self.attempts(run_id):
            latest[sample.sample_id] = sample
        return list(latest.values())

    def attempts(self, run_id: str) -> list[SampleRecord]:
        rows = self._rows(
            "SELECT s.sample_id, s.attempt, s.record, c.record FROM samples s LEFT JOIN scores c "
            "ON c.run_id = s.run_id AND c.sample_id = s.sample_id AND c.attempt = s.attempt "
            'WHERE s.run_id = %s ORDER BY s.sample_id COLLATE "C", s.attempt',
            (run_id,),
        )
        return read_attempts(self.path, run_id, rows, self.warn)

    def delete_run(self, run_id: str) -> None:
        def op(conn: Any) -> None:
            cur = conn.execute("DELETE FROM runs WHERE run_id = %s", (run_id,))
            if cur.rowcount != 1:
                raise KeyError(f"no run {run_id!r}")

        self._with_retry(op)

    def add_snapshot(self, snapshot: MetricsSnapshot) -> None:
        self._with_retry(
            lambda conn: conn.execute(
                "INSERT INTO metric_snapshots (run_id, phase, source, taken_at, text) "
                "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (run_id, phase, source) DO UPDATE "
                "SET taken_at = EXCLUDED.taken_at, text = EXCLUDED.text",
                (
                    snapshot.run_id,
                    snapshot.phase,
                    snapshot.source,
                    snapshot.taken_at,
                    snapshot.text,
                ),
            )
        )

    def snapshots(self, run_id: str) -> dict[str, MetricsSnapshot]:
        rows = self._rows(
            "SELECT phase, source, taken_at, text FROM metric_snapshots WHERE run_id = %s "
            "ORDER BY taken_at",
            (run_id,),
        )
        snaps = (
            MetricsSnapshot(run_id=run_id, phase=p, source=src, taken_at=t, text=x)
            for p, src, t, x in rows
        )
        return {s.key: s for s in snaps}
