"""Fixtures for the suite tests (agent/, repository/ and synth/ included): the project's sandbox,
one for the session, and a HumanEval suite whose ground-truth cache lives in a temporary
directory for the whole session (built once, shared by the tests)."""

from __future__ import annotations

from pathlib import Path

import pytest

from specverdict.sandbox import Sandbox
from specverdict.suites.function.humaneval import HumanEval
from tests.conftest import local_sandbox


@pytest.fixture(scope="session")
def sandbox() -> Sandbox:
    """The project's sandbox; one that cannot start fails every test that needs it."""
    return local_sandbox()


@pytest.fixture(scope="session")
def suite_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("suite-cache")


@pytest.fixture(scope="session")
def humaneval(sandbox: Sandbox, suite_cache: Path) -> HumanEval:
    return HumanEval(sandbox=sandbox, cache_dir=suite_cache)
