"""Fixtures for the repository-stage tests: one suite for the session, on the sandbox of
tests/integration/suites/conftest.py."""

from __future__ import annotations

import pytest

from specverdict.sandbox import Sandbox
from specverdict.suites.repository import Repository


@pytest.fixture(scope="session")
def suite(sandbox: Sandbox) -> Repository:
    return Repository(sandbox=sandbox)
