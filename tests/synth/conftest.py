"""Fixtures for the generated suites: the project's sandbox."""

from __future__ import annotations

import pytest

from specverdict.sandbox import LocalSandbox, Sandbox, SandboxUnavailableError


@pytest.fixture(scope="session")
def sandbox() -> Sandbox:
    try:
        return LocalSandbox()
    except SandboxUnavailableError as exc:
        pytest.skip(f"no sandbox here: {exc}")
