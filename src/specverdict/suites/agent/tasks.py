"""The coding-agent tasks of ``agent-tasks@1``: small workspaces written for specverdict.

Each task is a workspace (Python modules), read-only tests, an instruction, a gold edit (the
files as they should end) and a reference trajectory: the tool calls a careful agent makes
(look, edit, run the tests). Most tasks fix a planted bug; some add a missing function; a few do
not name the file to change, so that the agent has to list or search the workspace first.

The tasks are data: records in ``agent/data/tasks.jsonl``; each task's files and tests are real
modules under ``agent/data/.sources/<id>/workspace/`` and its gold files under ``.../gold/``.
Changing a task changes the suite's data hash: bump ``AgentTasks.version``.
"""

from __future__ import annotations

from dataclasses import dataclass

from specverdict.suites.agent.loop import Step
from specverdict.suites.dataset import DataDir, Line, Reader, Record, RelPath

DATA = DataDir.of("specverdict.suites.agent", "data")
FILE = "tasks.jsonl"


@dataclass(frozen=True, slots=True)
class AgentTask:
    id: str
    instruction: str
    files: dict[str, str]
    tests: dict[str, str]
    gold: dict[str, str]
    trajectory: tuple[Step, ...]


class StepRecord(Record):
    tool: str
    path: str | None = None


class TaskRecord(Record):
    """A task; ``files``, ``tests`` and ``gold`` are workspace paths, in the order shown."""

    id: str
    instruction: str
    files: tuple[RelPath, ...]
    tests: tuple[RelPath, ...]
    gold: tuple[RelPath, ...]
    trajectory: tuple[StepRecord, ...]


def _read(
    reader: Reader, line: Line[TaskRecord], name: str, paths: tuple[str, ...], folder: str
) -> dict[str, str]:
    if len(set(paths)) != len(paths):
        raise line.error(name, "a path is listed twice")
    return {
        p: reader.source(line, f"{name}.{n}", f"{line.record.id}/{folder}/{p}")
        for n, p in enumerate(paths)
    }


def load_tasks(data: DataDir = DATA) -> tuple[AgentTask, ...]:
    reader = Reader(data)
    out: list[AgentTask] = []
    for line in reader.records(FILE, TaskRecord):
        r = line.record
        files = _read(reader, line, "files", r.files, "workspace")
        tests = _read(reader, line, "tests", r.tests, "workspace")
        if set(files) & set(tests):
            raise line.error("tests", "a test file is also listed in files")
        out.append(
            AgentTask(
                r.id,
                r.instruction,
                files,
                tests,
                _read(reader, line, "gold", r.gold, "gold"),
                tuple(Step(s.tool, s.path) for s in r.trajectory),
            )
        )
    reader.finish()
    return tuple(out)


TASKS: tuple[AgentTask, ...] = load_tasks()
