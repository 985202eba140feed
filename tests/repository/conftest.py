"""Fixtures for the repository-stage tests: one sandbox and one suite for the session."""

from __future__ import annotations

import pytest

from specverdict.sandbox import Sandbox
from specverdict.suites.repository import Repository
from tests.conftest import local_sandbox


@pytest.fixture(scope="session")
def sandbox() -> Sandbox:
    """The project's sandbox; one that cannot start fails every test that needs it."""
    return local_sandbox()


@pytest.fixture(scope="session")
def suite(sandbox: Sandbox) -> Repository:
    return Repository(sandbox=sandbox)
