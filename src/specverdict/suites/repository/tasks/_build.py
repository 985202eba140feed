"""A compact way to write repository tasks: dedented file texts and test ids found by name."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping

from specverdict.suites.repository.task import RepoTask, is_test_path

_TEST = re.compile(r"^def (test_\w+)\(", re.MULTILINE)


def text(source: str) -> str:
    """A file's text written indented in a module: dedented, one final newline."""
    return textwrap.dedent(source).strip("\n") + "\n"


def test_ids(files: Mapping[str, str]) -> tuple[str, ...]:
    return tuple(
        f"{path}::{name}"
        for path in sorted(files)
        if is_test_path(path)
        for name in _TEST.findall(files[path])
    )


def make_task(
    name: str,
    issue: str,
    files: Mapping[str, str],
    fix: tuple[tuple[str, str, str], ...],
    hidden: Mapping[str, str],
) -> RepoTask:
    """A task whose FAIL_TO_PASS tests are every test in ``hidden`` and whose PASS_TO_PASS
    tests are every test in the repository's own test files."""
    repo = {p: text(t) for p, t in files.items()}
    extra = {p: text(t) for p, t in hidden.items()}
    return RepoTask(
        task_id=f"repository/{name}",
        issue=text(issue),
        files=repo,
        fix=fix,
        fail_to_pass=test_ids(extra),
        pass_to_pass=test_ids(repo),
        hidden_tests=extra,
    )
