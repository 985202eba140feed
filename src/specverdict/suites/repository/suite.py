"""``repository@1``: fix an issue in a small Python repository, answered as a patch.

What it measures: whether the model resolves the issue (every FAIL_TO_PASS test passes and
every PASS_TO_PASS test still passes, run in the sandbox), how close its change is to the gold
patch (file and line precision and recall), whether it makes unrelated or destructive changes,
and how long its answer is (acceptance often drops on long outputs). See ``score`` for the
classes and the detail.

Source: 22 tasks written for specverdict (``tasks/``), each a stdlib-only repository of a few
files, an issue text, tests and a gold change; licence Apache-2.0, as specverdict.

The prompt shows the issue and the repository's files and asks for a unified diff or
search/replace blocks (chat endpoint).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any, ClassVar

from specverdict.records import Score
from specverdict.sandbox import Limits, Sandbox
from specverdict.suites.base import Sample, Suite
from specverdict.suites.dataset import DataDir
from specverdict.suites.functional import default_sandbox
from specverdict.suites.repository.score import TEST_LIMITS, Prepared, judge, prepare
from specverdict.suites.repository.task import RepoTask
from specverdict.suites.repository.tasks import DATA as TASKS_DATA

INSTRUCTION = """\
Fix the issue below in this Python repository.

## Issue
{issue}

## Repository
{files}
Reply with a patch that fixes the issue, either as a unified diff:

```diff
--- a/path/to/file.py
+++ b/path/to/file.py
@@ -10,3 +10,3 @@
 unchanged line
-old line
+new line
```

or as search/replace blocks, each after the path of its file:

path/to/file.py
<<<<<<< SEARCH
exact lines to find
=======
lines to put instead
>>>>>>> REPLACE

Change only what the fix needs; do not edit the tests.
"""


def render_prompt(task: RepoTask) -> str:
    parts = []
    for path in task.shown_files():
        text = task.files[path]
        if path in task.excerpts:
            first, last = task.excerpts[path]
            lines = text.splitlines(keepends=True)
            text = "".join(lines[first - 1 : last])
            parts.append(f"### {path} (lines {first}-{last} of {len(lines)})\n")
        else:
            parts.append(f"### {path}\n")
        parts.append(f"```python\n{text}```\n\n")
    return INSTRUCTION.format(issue=task.issue.strip(), files="".join(parts))


class RepositorySuite(Suite):
    """A suite of repository tasks scored in the sandbox; subclasses supply ``load_tasks``."""

    stage = "repository"
    #: how samples are asked (shown by ``suites list``)
    mode: ClassVar[str] = "chat"
    #: the patch against the task's own small, fixed tests (a timeout is re-scored)
    pure_scoring: ClassVar[bool] = True

    def __init__(
        self, sandbox: Sandbox | None = None, workers: int = 2, limits: Limits = TEST_LIMITS
    ) -> None:
        self._sandbox = sandbox
        self.workers = workers
        self.limits = limits
        self._tasks: dict[str, RepoTask] | None = None
        self._lock = threading.RLock()

    def load_tasks(self) -> list[RepoTask]:
        from specverdict.suites.repository.tasks import all_tasks

        return all_tasks()

    def tasks(self) -> list[RepoTask]:
        with self._lock:
            if self._tasks is None:
                self._tasks = {t.task_id: t for t in self.load_tasks()}
            return list(self._tasks.values())

    def task(self, task_id: str) -> RepoTask:
        by_id = {t.task_id: t for t in self.tasks()}
        if task_id not in by_id:
            raise ValueError(f"suite {self.name}@{self.version} has no task {task_id!r}")
        return by_id[task_id]

    def prompt(self, task: RepoTask) -> str:
        """The user message of a task: the issue and the files shown."""
        return render_prompt(task)

    def samples(self) -> list[Sample]:
        return [
            Sample(
                id=t.task_id,
                endpoint="chat",
                messages=({"role": "user", "content": self.prompt(t)},),
                task_id=t.task_id,
            )
            for t in self.tasks()
        ]

    @property
    def sandbox(self) -> Sandbox:
        with self._lock:
            if self._sandbox is None:
                self._sandbox = default_sandbox()
            return self._sandbox

    def score(
        self, sample: Sample, text: str, tool_calls: Sequence[dict[str, Any]]
    ) -> Score | None:
        return self.score_texts([(sample.task_id or sample.id, text)])[0]

    def score_batch(
        self, items: Sequence[tuple[Sample, str, Sequence[dict[str, Any]]]]
    ) -> list[Score | None]:
        return list(self.score_texts([(s.task_id or s.id, text) for s, text, _ in items]))

    def score_texts(self, items: Sequence[tuple[str, str]]) -> list[Score]:
        """Score ``(task_id, answer)`` pairs; every test of every answer runs concurrently."""
        scores: list[Score | None] = []
        pending: list[tuple[int, Prepared]] = []
        for n, (task_id, text) in enumerate(items):
            got = prepare(self.task(task_id), text, self.limits)
            if isinstance(got, Score):
                scores.append(got)
            else:
                scores.append(None)
                pending.append((n, got))
        executions = [e for _, p in pending for e in p.executions]
        results = self.sandbox.run_many(executions, self.workers) if executions else []
        at = 0
        for n, prepared in pending:
            count = len(prepared.executions)
            scores[n] = judge(prepared, results[at : at + count])
            at += count
        return [s for s in scores if s is not None]


class Repository(RepositorySuite):
    name = "repository"
    version = 1
    source = "22 repository tasks written for specverdict (specverdict.suites.repository.tasks)"
    licence = "Apache-2.0, as specverdict"
    data_dir: ClassVar[DataDir | None] = TASKS_DATA
