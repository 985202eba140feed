"""The command tests run in a folder of their own (see tests/integration/cli/conftest.py)."""

from tests.integration.cli.conftest import own_folder

__all__ = ["own_folder"]
