"""Fixtures for the repository-stage tests: one sandbox and one suite for the session."""

from __future__ import annotations

import pytest

from specverdict.sandbox import LocalSandbox, Sandbox, SandboxUnavailableError
from specverdict.suites.repository import Repository


@pytest.fixture(scope="session")
def sandbox() -> Sandbox:
    try:
        return LocalSandbox()
    except SandboxUnavailableError as exc:
        pytest.skip(f"no sandbox here: {exc}")


@pytest.fixture(scope="session")
def suite(sandbox: Sandbox) -> Repository:
    return Repository(sandbox=sandbox)
