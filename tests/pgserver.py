"""A real PostgreSQL server for tests: initdb into a temporary folder, postgres on a free port.

PostgreSQL refuses to run as root: as root the server runs as the ``postgres`` user that
Debian's package creates (``make postgresql`` installs it). A missing server is a failure with
the command that installs it, not a skip: these tests are part of ``make test``.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from specverdict.engines.launcher import free_port


def _bindir() -> Path | None:
    found = shutil.which("pg_ctl")
    if found:
        return Path(os.path.realpath(found)).parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    return Path(candidates[-1]).parent if candidates else None


class PostgresServer:
    """One server; ``database()`` makes a fresh database and returns its URL."""

    def __init__(self) -> None:
        bindir = _bindir()
        if bindir is None:
            pytest.fail("PostgreSQL is not installed: run `make postgresql` (Debian's package)")
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix="specverdict-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self._as: list[str] = []
        if os.geteuid() == 0:  # the server refuses root: run it as the package's user
            shutil.chown(self.root, "postgres", "postgres")
            self._as = ["runuser", "-u", "postgres", "--"]
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8")
        self.start()

    def _run(self, tool: str, *args: str) -> None:
        out = subprocess.run(
            [*self._as, str(self.bindir / tool), *args],
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )
        if out.returncode != 0:
            raise RuntimeError(f"{tool} failed: {out.stderr or out.stdout}")

    @property
    def admin_url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def start(self) -> None:
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.root} -c fsync=off "
            "-c full_page_writes=off -c max_connections=100"
        )
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.root / "log"),
                  "-w", "-t", "60", "start")  # fmt: skip

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def database(self) -> str:
        import psycopg

        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"

    def terminate_connections(self, url: str) -> int:
        """End every other connection to ``url``'s database, as a server restart or a network
        cut would; return how many."""
        import psycopg

        name = url.rsplit("/", 1)[1]
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            rows = conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s "
                "AND pid != pg_backend_pid()",
                (name,),
            ).fetchall()
        return len(rows)

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
            self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)


def wait_until(check: object, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(0.05)


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    server = PostgresServer()
    try:
        yield server
    finally:
        server.close()
