"""The repository stage: fix an issue in a small repository, answered as a patch."""

from specverdict.suites.repository.suite import Repository, RepositorySuite

__all__ = ["Repository", "RepositorySuite"]
