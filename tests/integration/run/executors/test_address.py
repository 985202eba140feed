"""A Ray address nothing answers at is refused in one line, at once, not retried for minutes."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from specverdict.engines.launcher import free_port
from specverdict.errors import ConfigError
from specverdict.run.executors.cluster import reachable
from tests.conftest import specverdict_cli
from tests.integration.run.executors.test_ray_executor import cluster_campaign


def test_an_unreachable_cluster_address_is_one_line_and_exit_2(tmp_path: Path) -> None:
    campaign = tmp_path / "c.yaml"
    text = cluster_campaign("nowhere", samples=2, max_tokens=8, virtual=False)
    campaign.write_text(text)
    address = f"127.0.0.1:{free_port()}"  # nothing listens there
    t0 = time.monotonic()
    proc = specverdict_cli(
        "run", str(campaign), "--executor", "ray", "--address", address,
        "--db", str(tmp_path / "runs.db"), "--force",
    )  # fmt: skip
    assert time.monotonic() - t0 < 60
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith(f"specverdict: error: --address {address}: no Ray cluster answers")


@pytest.mark.parametrize("address", ["head-node", "ray://x:port", ":"])
def test_an_address_that_is_not_host_port_says_what_is_expected(address: str) -> None:
    with pytest.raises(ConfigError, match="expected host:port"):
        reachable(address)
