"""The repository tasks written for specverdict (Apache-2.0, as specverdict)."""

from __future__ import annotations

from specverdict.suites.repository.task import RepoTask


def all_tasks() -> list[RepoTask]:
    """Every task, in a fixed order."""
    from specverdict.suites.repository.tasks import basics, more

    return [*basics.TASKS, *more.TASKS]
