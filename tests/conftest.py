"""Shared fixtures: the shipped models and real reference servers on free ports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from specverdict.engines.launcher import LaunchedServer, free_port
from specverdict.reference.config import EngineConfig, SpeculativeConfig
from specverdict.reference.engine import EngineCore
from specverdict.reference.weights import shipped

FIXTURES = Path(__file__).parent / "fixtures"


def make_core(spec: dict[str, object] | None = None) -> EngineCore:
    return EngineCore(
        EngineConfig(
            model_dir=shipped("target"),
            served_model_name="reference-target",
            speculative=SpeculativeConfig.model_validate(spec) if spec else None,
        )
    )


@pytest.fixture(scope="session")
def core_none() -> EngineCore:
    return make_core()


#: the command line of ``specverdict`` in this interpreter
SPECVERDICT = [sys.executable, "-m", "specverdict"]


def specverdict_cli(
    *args: str, timeout: float = 300, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``specverdict ARGS`` as a user would, in a subprocess; output captured as text;
    ``env`` is added to this process's environment."""
    return subprocess.run(
        [*SPECVERDICT, *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
        env={**os.environ, **env} if env else None,
    )


def server_cmd(port: int, *extra: str) -> list[str]:
    return [sys.executable, "-m", "specverdict.reference.server.cli", "--port", str(port), *extra]


class Servers:
    """Lazily started servers, one per distinct flag set, stopped at the end of the session."""

    def __init__(self) -> None:
        self._running: dict[tuple[str, ...], LaunchedServer] = {}

    def get(self, *flags: str) -> str:
        if flags not in self._running:
            port = free_port()
            server = LaunchedServer(server_cmd(port, *flags), f"http://127.0.0.1:{port}")
            self._running[flags] = server.start()
        return self._running[flags].base_url

    def spec(self, spec: dict[str, object], metrics: str = "summary") -> str:
        return self.get(
            "--speculative-config",
            json.dumps(spec, sort_keys=True),
            "--per-request-spec-decode-metrics",
            metrics,
        )

    def stop(self) -> None:
        for server in self._running.values():
            server.stop()


@pytest.fixture(scope="session")
def servers() -> Iterator[Servers]:
    s = Servers()
    yield s
    s.stop()
