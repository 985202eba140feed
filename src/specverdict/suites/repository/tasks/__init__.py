"""The repository tasks written for specverdict (Apache-2.0, as specverdict).

The tasks are data: records in ``repository/data/tasks.jsonl`` (the issue, the gold change as
exact replacements, the deciding tests), each task's repository as real files under
``repository/data/.sources/<name>/repo/`` and the tests that arrive with its fix under
``.../hidden/``. Changing a task changes the suite's data hash: bump ``Repository.version``.
"""

from __future__ import annotations

from functools import cache

from specverdict.suites.dataset import DataDir, Line, Reader, Record, RelPath
from specverdict.suites.repository.task import RepoTask

DATA = DataDir.of("specverdict.suites.repository", "data")
FILE = "tasks.jsonl"
PREFIX = "repository/"


class FixRecord(Record):
    """One exact replacement of the gold change: ``old`` occurs once in ``path``."""

    path: RelPath
    old: str
    new: str


class TaskRecord(Record):
    """A task; ``files`` and ``hidden_tests`` are paths, in the order of the repository."""

    task_id: str
    issue: str
    files: tuple[RelPath, ...]
    hidden_tests: tuple[RelPath, ...]
    fix: tuple[FixRecord, ...]
    fail_to_pass: tuple[str, ...]
    pass_to_pass: tuple[str, ...]


def _task(reader: Reader, line: Line[TaskRecord]) -> RepoTask:
    r = line.record
    if not r.task_id.startswith(PREFIX):
        raise line.error("task_id", f"does not start with {PREFIX!r}")
    name = r.task_id.removeprefix(PREFIX)
    files = {
        p: reader.source(line, f"files.{n}", f"{name}/repo/{p}") for n, p in enumerate(r.files)
    }
    hidden = {
        p: reader.source(line, f"hidden_tests.{n}", f"{name}/hidden/{p}")
        for n, p in enumerate(r.hidden_tests)
    }
    for n, f in enumerate(r.fix):
        if files.get(f.path, "").count(f.old) != 1:
            raise line.error(f"fix.{n}.old", f"does not occur exactly once in {f.path}")
    for key, tests in (("fail_to_pass", r.fail_to_pass), ("pass_to_pass", r.pass_to_pass)):
        for n, test in enumerate(tests):
            path, _, function = test.partition("::")
            if not function or path not in {**files, **hidden}:
                raise line.error(f"{key}.{n}", f"{test!r} is not path::test of a task file")
    return RepoTask(
        task_id=r.task_id,
        issue=r.issue,
        files=files,
        fix=tuple((f.path, f.old, f.new) for f in r.fix),
        fail_to_pass=r.fail_to_pass,
        pass_to_pass=r.pass_to_pass,
        hidden_tests=hidden,
    )


def load_tasks(data: DataDir = DATA) -> tuple[RepoTask, ...]:
    reader = Reader(data)
    tasks = tuple(_task(reader, line) for line in reader.records(FILE, TaskRecord))
    reader.finish()
    return tasks


@cache
def _tasks() -> tuple[RepoTask, ...]:
    return load_tasks()


def all_tasks() -> list[RepoTask]:
    """Every task, in a fixed order."""
    return list(_tasks())
