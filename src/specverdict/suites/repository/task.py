"""Repository tasks: a small repository, an issue, tests that decide it, and a gold patch.

A task's repository (``files``) is what the model sees and patches. ``hidden_tests`` are added
at scoring time, the way an issue's regression tests arrive with its fix; they and the
repository's own test files are always taken from the task, never from the model's patch, so an
answer cannot make a test pass by editing it. Test ids are ``path::function``.

``fix`` lists the gold change as exact ``(path, old, new)`` replacements of the repository's
text; the gold patch is the unified diff of that change (``gold_patch``).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property


@dataclass(frozen=True)
class RepoTask:
    task_id: str
    issue: str
    files: Mapping[str, str]
    fix: tuple[tuple[str, str, str], ...]
    fail_to_pass: tuple[str, ...]
    pass_to_pass: tuple[str, ...]
    hidden_tests: Mapping[str, str] = field(default_factory=dict)
    #: files shown in the prompt (default: every file of the repository)
    shown: tuple[str, ...] | None = None
    #: files shown only in part in the prompt: (first line, last line), 1-based, inclusive
    excerpts: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    #: where the task comes from, e.g. a package and version for generated tasks
    origin: str = "written for specverdict"
    #: the repository after the gold change, given whole (an imported task's gold patch
    #: applied to its snapshot) instead of as ``fix`` replacements
    gold: Mapping[str, str] | None = None

    def __post_init__(self) -> None:
        for test in (*self.fail_to_pass, *self.pass_to_pass):
            path, _, name = test.partition("::")
            if not name or path not in {**self.files, **self.hidden_tests}:
                raise ValueError(f"{self.task_id}: unknown test {test!r}")
        self.fixed_files  # noqa: B018 - validates ``fix`` early

    @cached_property
    def fixed_files(self) -> dict[str, str]:
        """The repository after the gold change."""
        if self.gold is not None:
            return dict(self.gold)
        files = dict(self.files)
        for path, old, new in self.fix:
            count = files.get(path, "").count(old)
            if count != 1:
                raise ValueError(f"{self.task_id}: fix text found {count} times in {path}")
            files[path] = files[path].replace(old, new)
        return files

    @cached_property
    def gold_patch(self) -> str:
        return unified_diff(self.files, self.fixed_files)

    @property
    def test_files(self) -> set[str]:
        """Files that hold tests (restored from the task before tests run)."""
        return {p for p in self.files if is_test_path(p)} | set(self.hidden_tests)

    def shown_files(self) -> list[str]:
        return list(self.shown) if self.shown is not None else sorted(self.files)


def is_test_path(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return path.startswith("tests/") or "/tests/" in path or name.startswith("test_")


def unified_diff(before: Mapping[str, str], after: Mapping[str, str]) -> str:
    """A ``git diff``-shaped unified diff from ``before`` to ``after`` (3 lines of context)."""
    out: list[str] = []
    for path in sorted(set(before) | set(after)):
        old, new = before.get(path), after.get(path)
        if old == new:
            continue
        out.extend(
            difflib.unified_diff(
                (old or "").splitlines(keepends=True),
                (new or "").splitlines(keepends=True),
                "/dev/null" if old is None else f"a/{path}",
                "/dev/null" if new is None else f"b/{path}",
            )
        )
    return "".join(out)
