"""The CLI tests run in a folder of their own: a command given no --db opens the default
registry under the working directory, which must never be the repository's. A real PostgreSQL
server for the shared-registry tests (started only when one asks for it)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.pgserver import postgres

__all__ = ["postgres"]


@pytest.fixture(scope="module", autouse=True)
def own_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    here = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("cwd"))
    try:
        yield
    finally:
        os.chdir(here)
