"""The run registry in SQLite: WAL journal, foreign keys, named migrations, one row per sample.

Each sample is committed as soon as it is written, so a killed runner loses at most the requests
in flight. Records are stored as their JSON next to the indexed columns that queries need; the
JSON carries ``schema_version`` so that later readers know what they hold.

The queries and writes are ``_sql.SQLStore``'s, shared with PostgreSQL. What is here is what
only a file has: opening it (a file that is no registry, read-only media, WAL), the check after
each write that the path still names the file written (and the recovery copy when it does not),
the schema in SQLite's dialect, the claim as a read and a write in one transaction, and one
runner per file by a kernel lock.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
import stat
import time
import urllib.parse
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from specverdict.errors import (
    RegistryFormatError,
    RegistryLostError,
    RegistryReadOnlyError,
    RegistryWriteError,
    SpecverdictError,
    StoreError,
)
from specverdict.store._sql import Execute, SQLStore
from specverdict.store.base import RunOrigin

T = TypeVar("T")

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


#: the first bytes of every SQLite database file
SQLITE_HEADER = b"SQLite format 3\x00"
#: SQLite's answers that mean the file is not a (sound) database
NOT_A_DATABASE = frozenset({"SQLITE_NOTADB", "SQLITE_CORRUPT"})


def _identity(path: str) -> tuple[int, int] | None:
    """The file at ``path`` (device, inode), None when there is none."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return st.st_dev, st.st_ino


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


class SQLiteStore(SQLStore):
    """``Store`` on a SQLite file (``:memory:`` for tests).

    A file that is not writable, or in a folder that is not (read-only media), is opened
    read-only: reading works, writing is a ``RegistryReadOnlyError``. Each write checks, once
    committed, that the path still names the file this store opened (one ``stat``): SQLite
    would go on writing to a deleted or replaced file, and every sample would be lost with it.
    """

    MIGRATIONS = MIGRATIONS
    PLACEHOLDER = "?"
    # One writer at a time holds the whole file (``BEGIN IMMEDIATE``): no row lock is needed,
    # text orders by bytes already (BINARY), and no write is retried.
    MIGRATIONS_TABLE = (
        "CREATE TABLE IF NOT EXISTS schema_migrations "
        "(name TEXT PRIMARY KEY, applied_at REAL NOT NULL)"
    )

    def __init__(self, path: Path | str, origin: RunOrigin | None = None) -> None:
        super().__init__(str(path), origin)
        self.read_only = False
        self._identity: tuple[int, int] | None = None
        self._lost: RegistryLostError | None = None
        self._sidecars: dict[str, tuple[int, int] | None] = {}
        #: what is checked at each write (SQLite resolved the path when it opened it)
        self._abspath = os.path.abspath(self.path)
        if self.path == ":memory:":
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._setup()
            return
        here = Path(self.path)
        if here.exists() or here.is_symlink():
            self._check_file(here)
            real = Path(os.path.realpath(here))  # SQLite keeps its -wal beside the real file
            self.read_only = not (os.access(real, os.W_OK) and os.access(real.parent, os.W_OK))
        else:
            try:
                here.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise RegistryReadOnlyError(
                    f"run registry {self.path} cannot be created: {exc.strerror} "
                    f"({exc.filename}); give a --db in a writable folder"
                ) from None
            if not os.access(here.parent, os.W_OK):
                raise RegistryReadOnlyError(
                    f"run registry {self.path} cannot be created: its folder is not writable; "
                    "give a --db in a writable folder"
                )
        try:
            if self.read_only:
                self._db = self._open_read_only()
            else:
                self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
                self._setup()
                self._identity = _identity(self._abspath)
                # SQLite's files beside the registry, this connection's while it is open
                self._sidecars = {
                    p: _identity(p) for p in (f"{self._abspath}-wal", f"{self._abspath}-shm")
                }
        except sqlite3.DatabaseError as exc:
            raise self._unreadable(exc) from None

    def _check_file(self, here: Path) -> None:
        """A ``RegistryFormatError`` unless ``here`` is a file that SQLite could hold a
        registry in (an empty one becomes a registry)."""
        expected = "expected a specverdict registry (SQLite database)"
        try:
            st = here.stat()
            if not stat.S_ISREG(st.st_mode):
                kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
                raise RegistryFormatError(f"run registry {self.path} is {kind}; {expected}")
            with open(here, "rb") as fh:
                head = fh.read(len(SQLITE_HEADER))
        except OSError as exc:
            raise RegistryFormatError(
                f"run registry {self.path} cannot be read: {exc.strerror}; {expected}"
            ) from None
        if head and head != SQLITE_HEADER:
            raise RegistryFormatError(
                f"run registry {self.path}: not a specverdict registry (SQLite database): its "
                f"first bytes are {head[:8]!r}, not SQLite's header"
            )

    def _unreadable(self, exc: sqlite3.Error) -> SpecverdictError:
        """The error of a registry that SQLite refuses to open or read: a damaged file is a
        ``RegistryFormatError``, anything else (I/O, locks) a ``StoreError``."""
        name = getattr(exc, "sqlite_errorname", "")
        if name in NOT_A_DATABASE or type(exc) is sqlite3.DatabaseError:
            return RegistryFormatError(
                f"run registry {self.path}: not a specverdict registry (SQLite database): "
                f"SQLite says: {exc}"
            )
        return StoreError(f"run registry {self.path}: cannot read: {exc}")

    def _open_read_only(self) -> sqlite3.Connection:
        """Read-only; ``immutable`` when SQLite cannot even share the file read-only (a WAL
        database on read-only media, whose ``-shm`` cannot be created)."""
        uri = "file:" + urllib.parse.quote(os.path.abspath(self.path)) + "?mode=ro"
        for extra in ("", "&immutable=1"):
            db = sqlite3.connect(
                uri + extra, uri=True, isolation_level=None, check_same_thread=False
            )
            try:
                tables = self._tables(db)
            except sqlite3.OperationalError as exc:
                db.close()
                if getattr(exc, "sqlite_errorname", "") != "SQLITE_CANTOPEN" or extra:
                    raise
                continue
            try:
                self._is_registry(tables)
                done = {row[0] for row in db.execute("SELECT name FROM schema_migrations")}
                self._not_newer(done)
            except BaseException:
                db.close()
                raise
            pending = [name for name, _ in MIGRATIONS if name not in done]
            if pending:
                db.close()
                raise RegistryReadOnlyError(
                    f"run registry {self.path} is read-only and was written by an older "
                    f"specverdict (migrations {', '.join(pending)} pending): copy it to a "
                    "writable place and pass that as --db"
                )
            return db
        raise AssertionError("unreachable")

    @staticmethod
    def _tables(db: sqlite3.Connection) -> set[str]:
        return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}

    def _is_registry(self, tables: set[str]) -> None:
        """A SQLite database of another program is not written into."""
        if "schema_migrations" not in tables and (tables or self.read_only):
            shown = ", ".join(sorted(tables)[:5]) or "none"
            raise RegistryFormatError(
                f"run registry {self.path}: not a specverdict registry (SQLite database): it "
                f"has no schema_migrations table (tables: {shown})"
            )

    def _setup(self) -> None:
        self._db.execute("PRAGMA busy_timeout = 5000")
        self._db.execute("PRAGMA foreign_keys = ON")
        self._is_registry(self._tables(self._db))
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

    def _refuse_writes(self) -> None:
        if self._lost is not None:
            raise RegistryLostError(str(self._lost))
        if self.read_only:
            raise RegistryReadOnlyError(
                f"run registry {self.path} is read-only (the file or its folder is not "
                "writable): reading commands work on it; to write, copy it to a writable place "
                "and pass that as --db"
            )

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """One write transaction. A write the database refuses (disk full, read-only file,
        locked past the busy timeout) is a ``RegistryWriteError`` naming the file; what was
        committed before stays. Once committed, the path must still name the file written:
        else a ``RegistryLostError``."""
        self._refuse_writes()
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:  # SQLITE_FULL may have rolled it back already
                    self._db.execute("ROLLBACK")
                raise
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.IntegrityError | sqlite3.ProgrammingError):
                raise  # a bug of the caller's (a sample of no run), not a fault of the file
            self._check_identity()
            raise RegistryWriteError(f"run registry {self.path}: cannot write: {exc}") from None
        self._check_identity()

    def _check_identity(self) -> None:
        """A ``RegistryLostError`` (and a recovery copy) when ``path`` no longer names the file
        this store opened: deleted (SQLite writes on to the unlinked file) or replaced."""
        if self._identity is None:
            return
        try:
            now = _identity(self._abspath)
        except OSError:
            return  # cannot tell (a folder made unreadable): the next write tries again
        if now == self._identity:
            return
        self._lost, copy = self._recover("deleted" if now is None else "replaced by another file")
        if copy is not None:
            # Let go of the lost file at once: its -wal and -shm, still at the path, would be
            # read (and checkpointed) as those of the next database there. Only files that are
            # still this connection's go. Reads go on from the recovery copy (a runner counts
            # what it kept); writes are refused.
            for sidecar, ident in self._sidecars.items():
                with contextlib.suppress(OSError):
                    if ident is not None and _identity(sidecar) == ident:
                        os.unlink(sidecar)
            self._db.close()
            uri = "file:" + urllib.parse.quote(os.path.abspath(copy)) + "?mode=ro"
            self._db = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        raise self._lost

    def _recover(self, what: str) -> tuple[RegistryLostError, Path | None]:
        """Copy the still-open database (SQLite's backup API) beside the lost path."""
        try:
            runs, samples = self._db.execute(
                "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM samples)"
            ).fetchone()
            held = f"{_count(samples, 'sample')} of {_count(runs, 'run')}"
        except sqlite3.Error:
            held = "its samples"
        stem = f"{self._abspath}.recovered-{time.strftime('%Y%m%dT%H%M%S')}"
        path, n = Path(stem), 1
        while path.exists():
            n += 1
            path = Path(f"{stem}-{n}")
        copy: Path | None = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            dest = sqlite3.connect(path, isolation_level=None)
            try:
                self._db.backup(dest)
                dest.execute("PRAGMA journal_mode = DELETE")  # one file, until opened as --db
            finally:
                dest.close()
        except (OSError, sqlite3.Error) as exc:
            kept = (
                f"no recovery copy could be written ({exc}): {held} are only in this "
                "process's open file and go when it ends"
            )
            copy = None
        else:
            where = f"move it to {self.path}" if what == "deleted" else "pass it as --db"
            kept = (
                f"{held} are kept in a recovery copy, {path}: {where} and run the same "
                "command again to resume"
            )
        lost = RegistryLostError(
            f"run registry {self.path} was {what} while this process wrote to it (its writes "
            f"went to a file no longer at that path); {kept}"
        )
        return lost, copy

    @contextmanager
    def exclusive_runner(self) -> Iterator[None]:
        """Held by ``specverdict run`` while it runs: a second runner on the same registry is
        refused (it would send the same samples again) until the first ends, however it ends
        (the lock is the kernel's and dies with its process). The lock is taken on the real
        path, so that a symlink to the registry is the same registry."""
        if self.path == ":memory:":
            yield
            return
        self._refuse_writes()
        lock_path = Path(os.path.realpath(self.path) + ".lock")
        try:
            fh = open(lock_path, "a+")  # noqa: SIM115 (closed below, after the yield)
        except OSError as exc:
            raise RegistryReadOnlyError(
                f"run registry {self.path}: cannot create its lock {lock_path}: {exc.strerror}"
            ) from None
        with fh:
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
        """Apply pending migrations, each in its own write transaction; return the names
        applied. A registry written by a newer specverdict is refused first, outside a write:
        a file SQLite cannot read is then a ``RegistryFormatError``, not a failed write."""
        if self.read_only:
            return []  # checked at open: nothing is pending
        self._db.execute(self.MIGRATIONS_TABLE)
        self._not_newer({row[0] for row in self._db.execute("SELECT name FROM schema_migrations")})
        return super().migrate()

    def _lock_migrations(self, execute: Execute) -> None:
        """Nothing more: ``BEGIN IMMEDIATE`` holds the whole file until the migration ends."""

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """A read; a file SQLite can no longer read (damaged, I/O) is one line, not a
        traceback."""
        try:
            return self._db.execute(sql, params).fetchall()
        except sqlite3.DatabaseError as exc:
            raise self._unreadable(exc) from None

    def _write(self, op: Callable[[Execute], T], *, atomic: bool = True) -> T:
        """``op`` in one ``_tx``, atomic or not: every write is a transaction here, as the
        file is checked at each."""
        with self._tx() as db:
            return op(Execute(db, self.PLACEHOLDER))

    def close(self) -> None:
        self._db.close()

    def claim(self, fingerprint: str, repeat: int, holder: str, ttl_s: float) -> str:
        """Read the claim, then take it unless another holder's is unexpired: both in one
        write transaction, which holds the file (so no other process claims in between). The
        lease is timed by this host's clock, the one every process on the file shares."""
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
