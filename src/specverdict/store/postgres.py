"""The run registry on PostgreSQL: one registry shared by a team and by many executors at once.

The same interface, migration names and record JSON as ``SQLiteStore``; each migration in its
own transaction under an advisory lock, so that executors opening a new registry at once apply
it once. Every write is its own transaction (autocommit between them): a lost node or driver
loses at most the requests in flight. A lost connection is retried with backoff on a new one;
when the server stays away the operation is a ``StoreError`` and nothing committed is lost.
Claims (``claim``/``release``) are leases timed by the server's clock, so that the executors'
clocks need not agree.

The queries and writes are ``_sql.SQLStore``'s, shared with SQLite. What is here is what only a
server shared by many processes needs: the connection and its retries, the schema in
PostgreSQL's dialect, the advisory lock around migrations, a row lock when a run is updated,
inserts that a retry finds done, and the claim in one statement on the server's clock.

Needs the ``cluster`` extra (``psycopg``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

from specverdict.errors import ExtraMissingError, StoreError
from specverdict.store._sql import Execute, SQLStore
from specverdict.store.base import RunOrigin

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


class PostgresStore(SQLStore):
    """``Store`` on a PostgreSQL database named by a ``postgresql://`` URL."""

    MIGRATIONS = MIGRATIONS
    PLACEHOLDER = "%s"
    # READ COMMITTED: an update reads the run under a row lock, or a concurrent one is lost
    LOCK_ROW = " FOR UPDATE"
    # sample ids in byte order, as SQLite orders them, whatever the database's collation
    BINARY_ORDER = ' COLLATE "C"'
    # a write retried after a lost connection may have been committed by its first try
    RETRIED_INSERT = " ON CONFLICT (run_id) DO NOTHING"
    MIGRATIONS_TABLE = (
        "CREATE TABLE IF NOT EXISTS schema_migrations "
        "(name TEXT PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)"
    )

    def __init__(
        self,
        url: str,
        origin: RunOrigin | None = None,
        backoff_s: tuple[float, ...] = RETRY_BACKOFF_S,
    ) -> None:
        self._pg = _require_psycopg()
        self.url = url
        super().__init__(redacted(url), origin)
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

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return self._with_retry(
            lambda conn: list(Execute(conn, self.PLACEHOLDER)(sql, params).fetchall())
        )

    def _write(self, op: Callable[[Execute], T], *, atomic: bool = True) -> T:
        """``op`` retried whole on a new connection when the connection is lost; in one
        transaction when ``atomic``, else each statement commits as it runs (autocommit)."""

        def run(conn: Any) -> T:
            execute = Execute(conn, self.PLACEHOLDER)
            if not atomic:
                return op(execute)
            with conn.transaction():
                return op(execute)

        return self._with_retry(run)

    def _lock_migrations(self, execute: Execute) -> None:
        """The advisory lock, until the transaction ends: executors opening a new registry at
        once apply each migration once (``CREATE TABLE IF NOT EXISTS`` alone is no lock)."""
        execute("SELECT pg_advisory_xact_lock(?)", (MIGRATION_LOCK,))

    def _missing_run(self, exc: Exception) -> bool:
        return isinstance(exc, self._pg.errors.ForeignKeyViolation)

    @contextmanager
    def exclusive_runner(self) -> Iterator[None]:
        """A shared registry has many runners at once; what two must never do (measure the
        same fingerprint and repeat together) is prevented per run by ``claim``."""
        yield

    def close(self) -> None:
        with self._lock:
            self._drop()

    def claim(self, fingerprint: str, repeat: int, holder: str, ttl_s: float) -> str:
        """One statement: taken when free, expired, or already ``holder``'s (a renewal). The
        lease is timed by the server's clock, so that the executors' clocks need not agree."""

        def op(execute: Execute) -> str:
            row = execute(
                "INSERT INTO claims (fingerprint, repeat, holder, expires_at) VALUES "
                "(?, ?, ?, now() + make_interval(secs => ?)) "
                "ON CONFLICT (fingerprint, repeat) DO UPDATE SET holder = EXCLUDED.holder, "
                "expires_at = EXCLUDED.expires_at "
                "WHERE claims.holder = EXCLUDED.holder OR claims.expires_at < now() "
                "RETURNING holder",
                (fingerprint, repeat, holder, ttl_s),
            ).fetchone()
            if row is not None:
                return str(row[0])
            other = execute(
                "SELECT holder FROM claims WHERE fingerprint = ? AND repeat = ?",
                (fingerprint, repeat),
            ).fetchone()
            return str(other[0]) if other else ""  # "" : released meanwhile; try again

        return self._write(op, atomic=False)
