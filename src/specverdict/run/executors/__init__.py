"""Executors: where a plan's runs are measured. ``local`` runs them one after another in this
process (``claims.ClaimingRunner``); ``ray`` on the nodes of a Ray cluster
(``cluster.RayExecutor``, the ``cluster`` extra). Both measure each execution with the same
``Runner.run_one`` and claim it in the registry first (docs/cluster.md)."""

EXECUTORS = ("local", "ray")
