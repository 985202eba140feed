"""Fixtures for the generated suites: the project's sandbox."""

from __future__ import annotations

import pytest

from specverdict.sandbox import Sandbox
from tests.conftest import local_sandbox


@pytest.fixture(scope="session")
def sandbox() -> Sandbox:
    """The project's sandbox; one that cannot start fails every test that needs it."""
    return local_sandbox()
