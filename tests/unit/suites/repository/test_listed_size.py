"""``suites list`` never fetches or generates: the mutant suite's size is its cached tasks'
count, and unknown ("-") until ``suites prepare`` has made them."""

from __future__ import annotations

import json
from pathlib import Path

from specverdict.suites.repository.generator import PINNED
from specverdict.suites.repository.mutants import RepositoryMutants


def test_an_unprepared_mutant_suite_has_no_listed_size_and_makes_nothing(tmp_path: Path) -> None:
    suite = RepositoryMutants(cache_dir=tmp_path)
    assert suite.listed_size() is None
    assert list(tmp_path.iterdir()) == []  # nothing fetched, nothing generated


def test_a_prepared_one_counts_its_cached_tasks(tmp_path: Path) -> None:
    suite = RepositoryMutants(cache_dir=tmp_path)
    for n, (name, (version, _)) in enumerate(PINNED.items(), start=3):
        path = suite.task_cache(name, version)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps([{"task": i} for i in range(n)]))
    assert suite.listed_size() == sum(range(3, 3 + len(PINNED)))
    first = next(iter(PINNED.items()))
    suite.task_cache(first[0], first[1][0]).write_text("not json")
    assert suite.listed_size() is None
