"""A real multi-node Ray cluster on this machine, and a real PostgreSQL server.

Each node is its own raylet with one CPU; the worker nodes carry a custom resource ``accel``
that stands for an accelerator (the head has none, so no run lands there). Every address is
the loopback: Ray is told not to look for the machine's network address.
"""

from __future__ import annotations

import os

# before Ray is imported anywhere: bind every Ray process to 127.0.0.1
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

from collections.abc import Iterator
from typing import Any

import pytest

from tests.pgserver import postgres

__all__ = ["postgres"]

OBJECT_STORE = 80 * 1024 * 1024


class LocalCluster:
    """``ray.cluster_utils.Cluster`` with nodes that carry ``accel``."""

    def __init__(self, accel_nodes: int) -> None:
        import ray
        from ray.cluster_utils import Cluster

        self.ray = ray
        self.cluster = Cluster(
            initialize_head=True,
            head_node_args={
                "num_cpus": 1,
                "object_store_memory": OBJECT_STORE,
                "include_dashboard": False,
                "node_ip_address": "127.0.0.1",
            },
        )
        self.nodes: list[Any] = []
        for _ in range(accel_nodes):
            self.add_node()
        ray.init(address=self.cluster.address, include_dashboard=False, log_to_driver=True)

    @property
    def address(self) -> str:
        return str(self.cluster.address)

    def add_node(self) -> Any:
        node = self.cluster.add_node(
            num_cpus=1,
            resources={"accel": 1},
            object_store_memory=OBJECT_STORE,
            node_ip_address="127.0.0.1",
        )
        self.nodes.append(node)
        self.cluster.wait_for_nodes()
        return node

    def remove(self, node_id: str) -> None:
        node = next(n for n in self.nodes if n.node_id == node_id)
        self.nodes.remove(node)
        self.cluster.remove_node(node, allow_graceful=False)

    def shutdown(self) -> None:
        self.ray.shutdown()
        self.cluster.shutdown()


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[LocalCluster]:
    """One cluster for a test file (its start takes about 10 s): its tests run in file order,
    the one that removes a node last."""
    cluster = LocalCluster(accel_nodes=2)
    try:
        yield cluster
    finally:
        cluster.shutdown()
