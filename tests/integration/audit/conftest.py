"""Shared helpers: reference servers started for one module, and the audit fixtures."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from specverdict.engines.launcher import free_port

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "audit"


@contextmanager
def reference_server(*flags: str) -> Iterator[str]:
    """``python -m specverdict.reference.server.cli`` on a free port; waits for /health and
    always kills the process afterwards."""
    port = free_port()
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "specverdict.reference.server.cli", "--port", str(port), *flags],
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 120
            while True:
                if proc.poll() is not None:
                    log.seek(0)
                    raise RuntimeError(f"server exited: {log.read().decode(errors='replace')}")
                try:
                    if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError("server did not become healthy in 120 s")
                time.sleep(0.2)
            yield base
        finally:
            proc.kill()
            proc.wait(timeout=30)
