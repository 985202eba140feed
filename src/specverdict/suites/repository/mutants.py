"""``repository-mutants@1``: fix a bug injected into a real package, answered as a patch.

What it measures: the same as ``repository@1`` (resolution by the package's own tests in the
sandbox, closeness to the gold patch, unrelated or destructive changes, answer length), on
code the model may have seen, with one injected bug per task (see ``generator``).

Source: more-itertools 10.5.0 (MIT) and toolz 1.0.0 (BSD-3-Clause) source distributions,
fetched from PyPI with pip at preparation time into ``~/.cache/specverdict/sdists``; the licence
read from each sdist is recorded in every task's ``origin``. Generated tasks are cached as JSON
next to the sdists (mutated module and test ids only), so the sample list is stable; the
version bumps whenever generation changes.
"""

from __future__ import annotations

import json
from pathlib import Path

from specverdict.sandbox import Limits, Sandbox
from specverdict.suites.cache import cache_root
from specverdict.suites.repository.generator import (
    PINNED,
    download_sdist,
    dump_tasks,
    generate_tasks,
    read_sdist,
    sandbox_runner,
    task_from_json,
)
from specverdict.suites.repository.score import TEST_LIMITS
from specverdict.suites.repository.suite import RepositorySuite
from specverdict.suites.repository.task import RepoTask


class RepositoryMutants(RepositorySuite):
    name = "repository-mutants"
    mode = "chat"  # its endpoint, known without preparing its data
    version = 1
    source = (
        "bugs injected into more-itertools 10.5.0 and toolz 1.0.0 (PyPI sdists fetched at "
        "preparation time), kept when the package's own tests catch them"
    )
    licence = "MIT (more-itertools), BSD-3-Clause (toolz); recorded per task"
    #: tasks per package, and the seed of the order mutations are tried in
    per_package = 12
    seed = 0

    def __init__(
        self,
        sandbox: Sandbox | None = None,
        workers: int = 2,
        limits: Limits = TEST_LIMITS,
        cache_dir: Path | None = None,
    ) -> None:
        super().__init__(sandbox, workers, limits)
        self.cache_dir = cache_dir or cache_root()

    def task_cache(self, name: str, version: str) -> Path:
        stem = f"{name}-{version}-v{self.version}-seed{self.seed}-n{self.per_package}.json"
        return self.cache_dir / "repository-mutants" / stem

    def load_tasks(self) -> list[RepoTask]:
        """Read the cached tasks; generate (fetching sdists, running tests) what is missing."""
        tasks: list[RepoTask] = []
        for name, (version, package) in PINNED.items():
            source = read_sdist(download_sdist(name, version, self.cache_dir), package)
            cached = self.task_cache(name, version)
            if cached.exists():
                tasks.extend(task_from_json(d, source) for d in json.loads(cached.read_text()))
                continue
            made = generate_tasks(
                source,
                sandbox_runner(self.sandbox, self.workers),
                limit=self.per_package,
                seed=self.seed,
            )
            dump_tasks(cached, made, source)
            tasks.extend(made)
        return tasks

    def listed_size(self) -> int | None:
        """The tasks generated and cached for every pinned package; None until they are
        (generating them fetches sdists and runs the packages' tests: ``suites prepare``)."""
        caches = [self.task_cache(name, version) for name, (version, _) in PINNED.items()]
        if not all(c.exists() for c in caches):
            return None
        try:
            return sum(len(json.loads(c.read_text())) for c in caches)
        except (OSError, ValueError):
            return None

    def prepare(self) -> int:
        """Fetch and generate ahead of a run; the number of tasks."""
        return len(self.tasks())
